"""Recorded judge responses keyed by ``sha256(prompt)``, for tests and offline runs.

:class:`ReplayJudge` satisfies :class:`ragstat.metrics.generation.judges.Judge`: it
answers each prompt with the response recorded for its :func:`prompt_hash` (UTF-8,
hex), loaded from JSONL, and raises for a prompt it has never seen.
:func:`write_replay` records (prompt, response) pairs in that format.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from ragstat.errors import InputError

__all__ = ["ReplayJudge", "prompt_hash", "write_replay"]


def prompt_hash(prompt: str) -> str:
    """``sha256(prompt.encode("utf-8")).hexdigest()`` — the replay key."""
    if not isinstance(prompt, str):
        raise InputError(f"prompt must be a string, got {type(prompt).__name__}")
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


class ReplayJudge:
    """Replays recorded responses keyed by :func:`prompt_hash`.

    JSONL lines: ``{"prompt_sha256": "<hex>", "response": "<text>"}`` or
    ``{"prompt": "<text>", "response": "<text>"}`` (hashed on load).
    """

    def __init__(self, responses: Mapping[str, str]) -> None:
        self._responses = dict(responses)

    def __len__(self) -> int:
        return len(self._responses)

    @classmethod
    def from_jsonl(cls, path: str | Path) -> ReplayJudge:
        responses: dict[str, str] = {}
        with Path(path).open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                key, response = _replay_line(line, f"{path}:{n}")
                if responses.get(key, response) != response:
                    raise InputError(f"{path}:{n}: conflicting responses for prompt {key}")
                responses[key] = response
        return cls(responses)

    def judge(self, prompt: str) -> str:
        key = prompt_hash(prompt)
        try:
            return self._responses[key]
        except KeyError:
            raise InputError(
                f"replay judge: no recorded response for prompt sha256 {key}"
            ) from None


def _replay_line(line: str, where: str) -> tuple[str, str]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg})") from None
    if not isinstance(row, dict) or not isinstance(row.get("response"), str):
        raise InputError(f"{where}: need an object with a string 'response'")
    if isinstance(row.get("prompt_sha256"), str):
        key = row["prompt_sha256"].lower()
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise InputError(f"{where}: prompt_sha256 is not a sha256 hex digest")
        return key, row["response"]
    if isinstance(row.get("prompt"), str):
        return prompt_hash(row["prompt"]), row["response"]
    raise InputError(f"{where}: need 'prompt_sha256' or 'prompt'")


def write_replay(path: str | Path, pairs: Iterable[tuple[str, str]]) -> int:
    """Write (prompt, response) pairs as replay JSONL keyed by hash; returns the count."""
    n = 0
    with Path(path).open("w", encoding="utf-8") as fh:
        for prompt, response in pairs:
            row = {"prompt_sha256": prompt_hash(prompt), "response": response}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n
