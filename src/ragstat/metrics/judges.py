"""LLM judges behind a small protocol (seed 004, parts 6 and 8).

* :class:`Judge` — anything with ``judge(prompt: str) -> str``.
* :class:`ReplayJudge` — recorded responses keyed by ``sha256(prompt)`` (UTF-8,
  hex), loaded from JSONL; for tests and offline runs. A missing key raises.
* :func:`parse_judgment` — validate a raw response against a pydantic schema in
  strict mode; invalid JSON or a schema violation becomes an
  :class:`InvalidResponse` with its reason. Nothing is coerced or repaired.
* :class:`JudgeBudget` — caps on calls and (approximate) tokens.
* :func:`run_judge` — judge many prompts, keeping valid and invalid apart.
* :class:`OpenAICompatibleJudge` — optional HTTP backend (``/chat/completions``);
  stdlib ``urllib`` imported lazily, key read from an environment variable.
  Never used by the tests.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from ragstat.errors import InputError, RagstatError

__all__ = [
    "BudgetExceeded",
    "InvalidResponse",
    "Judge",
    "JudgeBudget",
    "JudgeRun",
    "OpenAICompatibleJudge",
    "ReplayJudge",
    "parse_judgment",
    "prompt_hash",
    "run_judge",
    "write_replay",
]

M = TypeVar("M", bound=BaseModel)


def prompt_hash(prompt: str) -> str:
    """``sha256(prompt.encode("utf-8")).hexdigest()`` — the replay key."""
    if not isinstance(prompt, str):
        raise InputError(f"prompt must be a string, got {type(prompt).__name__}")
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


@runtime_checkable
class Judge(Protocol):
    """A judge maps a prompt to its raw text response."""

    def judge(self, prompt: str) -> str: ...


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


@dataclass(frozen=True)
class InvalidResponse:
    """A judge response rejected as-is. ``kind``: ``invalid_json`` or ``schema``."""

    kind: str
    reason: str
    raw: str = field(repr=False)


def parse_judgment(raw: str, schema: type[M]) -> M | InvalidResponse:
    """Validate ``raw`` against ``schema`` (pydantic v2, strict: no type coercion).

    Returns the model, or :class:`InvalidResponse` for invalid JSON, a non-object,
    or a schema violation (reason: ``loc: message`` per error). Never repairs.
    """
    if not isinstance(schema, type) or not issubclass(schema, BaseModel):
        raise InputError("parse_judgment: schema must be a pydantic BaseModel subclass")
    if not isinstance(raw, str):
        return InvalidResponse("invalid_json", f"response is {type(raw).__name__}, not text", "")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return InvalidResponse("invalid_json", f"invalid JSON: {exc.msg} at char {exc.pos}", raw)
    if not isinstance(data, dict):
        return InvalidResponse("schema", f"expected a JSON object, got {type(data).__name__}", raw)
    try:
        return schema.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        errs = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in exc.errors()
        )
        return InvalidResponse("schema", errs, raw)


class BudgetExceeded(RagstatError):
    """A :class:`JudgeBudget` cap was reached."""


@dataclass
class JudgeBudget:
    """Caps on judge calls and tokens (None = no cap).

    :meth:`before_call` raises before a call that would exceed ``max_calls``;
    :meth:`add_tokens` raises once the running total exceeds ``max_tokens``.
    """

    max_calls: int | None = None
    max_tokens: int | None = None
    calls: int = 0
    tokens: int = 0

    def __post_init__(self) -> None:
        for name in ("max_calls", "max_tokens"):
            cap = getattr(self, name)
            if cap is not None and (not isinstance(cap, int) or cap < 0):
                raise InputError(f"JudgeBudget: {name} must be a non-negative int or None")

    def before_call(self) -> None:
        if self.max_calls is not None and self.calls + 1 > self.max_calls:
            raise BudgetExceeded(f"judge budget: max_calls={self.max_calls} reached")
        self.calls += 1

    def add_tokens(self, n: int) -> None:
        self.tokens += int(n)
        if self.max_tokens is not None and self.tokens > self.max_tokens:
            raise BudgetExceeded(
                f"judge budget: {self.tokens} tokens exceed max_tokens={self.max_tokens}"
            )


def _whitespace_tokens(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class JudgeRun:
    """Outcome of :func:`run_judge`: ``valid`` (item → model) and ``invalid``
    (item → :class:`InvalidResponse`); ``invalid_rate = |invalid| / n``."""

    valid: dict[str, BaseModel]
    invalid: dict[str, InvalidResponse]

    @property
    def n(self) -> int:
        return len(self.valid) + len(self.invalid)

    @property
    def invalid_rate(self) -> float:
        if self.n == 0:
            raise InputError("judge run: no item judged (empty denominator)")
        return len(self.invalid) / self.n

    @property
    def invalid_counts(self) -> Counter[str]:
        """Invalid responses counted by kind (``invalid_json`` / ``schema``)."""
        return Counter(r.kind for r in self.invalid.values())


def run_judge(
    judge: Judge,
    prompts: Mapping[str, str],
    schema: type[M],
    budget: JudgeBudget | None = None,
    count_tokens: Callable[[str], int] = _whitespace_tokens,
) -> JudgeRun:
    """Judge each prompt, parse with :func:`parse_judgment`, keep invalid ones apart.

    Tokens charged per call: ``count_tokens(prompt) + count_tokens(response)``
    (default: whitespace tokens, an approximation). A budget breach raises.
    """
    if not isinstance(judge, Judge):
        raise InputError("run_judge: judge must have a judge(prompt) -> str method")
    if not isinstance(prompts, Mapping):
        raise InputError("run_judge: prompts must map item id → prompt")
    valid: dict[str, BaseModel] = {}
    invalid: dict[str, InvalidResponse] = {}
    for item, prompt in prompts.items():
        if budget is not None:
            budget.before_call()
        raw = judge.judge(prompt)
        if budget is not None:
            budget.add_tokens(
                count_tokens(prompt) + count_tokens(raw if isinstance(raw, str) else "")
            )
        out = parse_judgment(raw, schema)
        if isinstance(out, InvalidResponse):
            invalid[str(item)] = out
        else:
            valid[str(item)] = out
    return JudgeRun(valid=valid, invalid=invalid)


@dataclass
class OpenAICompatibleJudge:
    """Optional HTTP judge for an OpenAI-compatible ``POST {base_url}/chat/completions``.

    The API key is read from ``os.environ[api_key_env]`` at call time;
    ``response_format`` (e.g. a ``json_schema`` block built from a pydantic
    schema) is passed through. Untested by design: tests use :class:`ReplayJudge`.
    """

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    temperature: float = 0.0
    response_format: dict | None = None

    def judge(self, prompt: str) -> str:
        import urllib.request  # lazy: never imported unless the backend is used

        key = os.environ.get(self.api_key_env)
        if not key:
            raise InputError(f"OpenAICompatibleJudge: set the {self.api_key_env} variable")
        body = {
            "model": self.model,
            "temperature": self.temperature,
            "messages": [{"role": "user", "content": prompt}],
        }
        if self.response_format is not None:
            body["response_format"] = self.response_format
        req = urllib.request.Request(
            self.base_url.rstrip("/") + "/chat/completions",
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            payload = json.loads(resp.read().decode("utf-8"))
        try:
            return payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise InputError("OpenAICompatibleJudge: response has no choices[0].message") from None
