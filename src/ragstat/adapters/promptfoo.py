"""promptfoo's results JSON (``promptfoo eval -o results.json``).

``results.results[]``: one entry per prompt × provider × test (× repeat) with ``score``,
``success``, ``namedScores`` (each a score column), ``testIdx``, ``promptIdx``,
``provider`` and ``vars``. ``item_id``: the test's ``description`` when it has one, else
``test <testIdx>``; ``system``: ``"<provider id> / <prompt label>"``; vars →
``meta_vars.<name>``, the test's ``metadata`` as ``meta_metadata.<key>``. With ``--repeat N`` promptfoo runs each test N times and numbers
the copies with consecutive ``testIdx`` values (``runtimeOptions.repeat`` = N): ``repeat``
numbers a test's rows per system in ``testIdx`` order.
Aggregates, from ``results.prompts[].metrics``: the pass rate
(``testPassCount / (testPassCount + testFailCount + testErrorCount)``) as ``pass``, the
mean ``score`` and each named score's mean.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragstat.adapters.base import ITEM, REPEAT, SYSTEM, ReadOptions, SourceTable
from ragstat.adapters.values import flatten, is_number, json_file, number, scalar
from ragstat.errors import InputError
from ragstat.records.textio import open_regular, read_json_file

__all__ = ["SUPPORTED_VERSIONS", "TOOL", "read", "sniff"]

TOOL = "promptfoo"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ()
#: A folder is read file by file (``ragstat.adapters.folders``), not by this reader.
FOLDERS = False

#: ``results.version`` values this reader knows (promptfoo's results format, not the CLI).
SUPPORTED_VERSIONS = (3,)
_SNIFF_BYTES = 1 << 16
_PASS, _SCORE = "pass", "score"


def sniff(path: Path) -> bool:
    """True when ``path`` is a promptfoo results JSON (never raises)."""
    try:
        with open_regular(path) as fh:
            head = fh.read(_SNIFF_BYTES)
        if not head.lstrip().startswith(b"{") or b'"results"' not in head:
            return False
        data = read_json_file(path, "promptfoo results file")
        inner = data.get("results") if isinstance(data, dict) else None
        return (
            isinstance(inner, dict)
            and isinstance(inner.get("results"), list)
            and isinstance(inner.get("prompts"), list)
            and "stats" in inner
            and ("evalId" in data or "config" in data)
        )
    except Exception:  # sniffing never raises
        return False


def read(path: Path, options: ReadOptions | None = None) -> SourceTable:
    """The per-test scores of a promptfoo results file, one row per system × test × repeat."""
    import pandas as pd

    path = Path(path)
    data, inner = _load(path)
    results = inner["results"]
    if not results:
        raise InputError(f"{path}: promptfoo results file with no results")
    named = _named_scores(path, results)
    prompts = inner.get("prompts") or []
    rows = [_row(path, i, r, prompts, named) for i, r in enumerate(results)]
    scores = (_PASS, _SCORE, *named)
    frame = pd.DataFrame(rows)
    for name in scores:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype(float)
    frame[ITEM] = _item_ids(frame)
    # promptfoo runs test k's repeats as consecutive testIdx values: number them in order
    frame = frame.sort_values(["_test_idx", "_row"], kind="stable")
    frame[REPEAT] = frame.groupby([SYSTEM, ITEM], sort=False).cumcount().astype(int)
    frame = frame.sort_values("_row", kind="stable").reset_index(drop=True)
    meta = sorted(c for c in frame.columns if str(c).startswith("meta_"))
    frame = frame[[ITEM, SYSTEM, REPEAT, *scores, *meta]]
    notes = _notes(data)
    version = _opt_text((data.get("metadata") or {}).get("promptfooVersion"))
    aggregates = _aggregates(prompts, named)
    return SourceTable(frame, scores, TOOL, version, str(path), aggregates, notes)


def _notes(data: dict[str, Any]) -> tuple[str, ...]:
    notes = [
        "pass: 1 when promptfoo's test passed, 0 when it failed or errored",
        "item_id: the test description (with its vars when several tests share it), "
        "else its vars, else 'test <testIdx>'",
        "system: '<provider id> / <prompt label>'",
    ]
    runtime = data.get("runtimeOptions")
    repeat = runtime.get("repeat") if isinstance(runtime, dict) else None
    if isinstance(repeat, int) and repeat > 1:
        notes.append(f"repeat: promptfoo ran each test {repeat} times (--repeat {repeat})")
    return tuple(notes)


def _item_ids(frame: Any) -> list[str]:
    """The description, made unique by the vars when tests share it; else the vars."""
    by_description: dict[str, set[str]] = {}
    for description, variables in zip(frame["_description"], frame["_vars"], strict=True):
        if description:
            by_description.setdefault(description, set()).add(variables)
    out = []
    for description, variables, idx in zip(
        frame["_description"], frame["_vars"], frame["_test_idx"], strict=True
    ):
        if description:
            shared = len(by_description[description]) > 1
            out.append(f"{description} {variables}" if shared else description)
        else:
            out.append(variables if variables != "{}" else f"test {idx}")
    return out


def _load(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    data = json_file(path, "not a promptfoo results JSON")
    inner = data.get("results") if isinstance(data, dict) else None
    if not isinstance(inner, dict) or not isinstance(inner.get("results"), list):
        raise InputError(f"{path}: not a promptfoo results JSON (no results.results list)")
    version = inner.get("version")
    if version not in SUPPORTED_VERSIONS:
        known = ", ".join(map(str, SUPPORTED_VERSIONS))
        raise InputError(
            f"{path}: promptfoo results format version {version!r} is not supported ({known})"
        )
    return data, inner


def _named_scores(path: Path, results: list[Any]) -> tuple[str, ...]:
    names: list[str] = []
    seen_score = False
    for i, result in enumerate(results):
        if not isinstance(result, dict):
            raise InputError(f"{path}: results.results[{i}] is not an object")
        seen_score = seen_score or is_number(result.get("score"))
        named = result.get("namedScores") or {}
        names += [str(k) for k in named if str(k) not in names and str(k) not in (_PASS, _SCORE)]
    if not seen_score and not names:
        raise InputError(f"{path}: promptfoo results with no scores (no score or namedScores)")
    return tuple(names)


def _row(
    path: Path, index: int, result: dict[str, Any], prompts: list[Any], named: tuple[str, ...]
) -> dict[str, Any]:
    test_idx = result.get("testIdx")
    if not isinstance(test_idx, int) or isinstance(test_idx, bool):
        raise InputError(f"{path}: results.results[{index}] has no testIdx")
    test_case = result.get("testCase")
    test: dict[str, Any] = test_case if isinstance(test_case, dict) else {}
    variables = result.get("vars") or test.get("vars") or {}
    if not isinstance(variables, dict):
        raise InputError(f"{path}: results.results[{index}].vars is not an object")
    row: dict[str, Any] = {
        "_row": index,
        "_test_idx": test_idx,
        "_description": str(test.get("description") or ""),
        "_vars": json.dumps(variables, sort_keys=True, ensure_ascii=False, default=str),
        SYSTEM: _system(result, prompts),
        _PASS: 1.0 if result.get("success") is True else 0.0,
        _SCORE: number(result.get("score")),
    }
    scores = result.get("namedScores") or {}
    row.update({name: number(scores.get(name)) for name in named})
    row.update({f"meta_vars.{k}": scalar(v) for k, v in variables.items()})
    flatten("meta_metadata", _metadata(test, result), row)
    return row


def _metadata(test: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The test's ``metadata`` (a config's ``tests[].metadata``), with the result's own
    metadata keys that are not promptfoo's internal ones (``_…``) where the test has none."""
    out = dict(test.get("metadata") or {}) if isinstance(test.get("metadata"), dict) else {}
    extra = result.get("metadata")
    if isinstance(extra, dict):
        for key, value in extra.items():
            if not str(key).startswith("_"):
                out.setdefault(str(key), value)
    return out


def _system(result: dict[str, Any], prompts: list[Any]) -> str:
    provider = result.get("provider")
    if isinstance(provider, dict):
        provider_id = provider.get("label") or provider.get("id") or "?"
    else:
        provider_id = provider or "?"
    prompt = result.get("prompt") if isinstance(result.get("prompt"), dict) else {}
    label = prompt.get("label") if prompt else None
    idx = result.get("promptIdx")
    if not label and isinstance(idx, int) and 0 <= idx < len(prompts):
        entry = prompts[idx]
        label = entry.get("label") if isinstance(entry, dict) else None
    if not label:
        label = f"prompt {idx}"
    return f"{provider_id} / {label}"


def _aggregates(prompts: list[Any], named: tuple[str, ...]) -> dict[str, float]:
    out: dict[str, float] = {}
    for entry in prompts:
        if not isinstance(entry, dict) or not isinstance(entry.get("metrics"), dict):
            continue
        metrics = entry["metrics"]
        provider = entry.get("provider") or "?"
        system = f"{provider} / {entry.get('label') or entry.get('raw')}"
        counts = [metrics.get(k) for k in ("testPassCount", "testFailCount", "testErrorCount")]
        if all(isinstance(c, int) for c in counts) and sum(counts) > 0:
            total = sum(counts)
            out[f"{system}/{_PASS}"] = counts[0] / total
            if is_number(metrics.get("score")):
                out[f"{system}/{_SCORE}"] = float(metrics["score"]) / total
            sums = metrics.get("namedScores") or {}
            tallies = metrics.get("namedScoresCount") or {}
            for name in named:
                if is_number(sums.get(name)) and isinstance(tallies.get(name), int):
                    out[f"{system}/{name}"] = float(sums[name]) / tallies[name]
    return out


def _opt_text(value: Any) -> str | None:
    return None if value is None else str(value)
