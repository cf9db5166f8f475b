"""DeepEval's test-run JSON (``evaluate`` with ``DEEPEVAL_RESULTS_FOLDER``:
``test_run_<timestamp>.json``; ``.deepeval/.latest_run_full.json``; or
``.deepeval/.latest_test_run.json``, the same run under ``testRunData``).

``testCases[]`` and ``conversationalTestCases[]``: one entry per test case with ``name``
(→ ``item_id``), ``success`` (→ the score ``pass``), ``metricsData[]`` (``name``,
``score``, ``success``, ``threshold``: one score column per metric name) and
``metadata`` (``additionalMetadata`` before DeepEval 1.0) → ``meta_<name>``. ``system``:
the run's ``identifier``, else the file's stem. Aggregates, as DeepEval reports them:
each metric's mean over ``metricsScores[].scores`` and the pass rate
``testPassed / (testPassed + testFailed)``. The file records no DeepEval version.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ragstat.adapters.base import ITEM, REPEAT, SYSTEM, ReadOptions, SourceTable
from ragstat.adapters.values import is_number, json_file, number, scalar
from ragstat.errors import InputError
from ragstat.records.textio import open_regular, read_json_file

__all__ = ["TOOL", "read", "sniff"]

TOOL = "DeepEval"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ()
#: A folder is read file by file (``ragstat.adapters.folders``), not by this reader.
FOLDERS = False

_CASES = ("testCases", "conversationalTestCases")
_WRAPPED = "testRunData"  # .latest_test_run.json keeps the run under this key
_PASS = "pass"
_SNIFF_BYTES = 1 << 16


def sniff(path: Path) -> bool:
    """True when ``path`` is a DeepEval test-run JSON (never raises)."""
    try:
        with open_regular(path) as fh:
            head = fh.read(_SNIFF_BYTES)
        if not head.lstrip().startswith(b"{") or b'"testCases"' not in head:
            return False
        run = _unwrap(read_json_file(path, "DeepEval test run"))
        return isinstance(run, dict) and _is_run(run)
    except Exception:  # sniffing never raises
        return False


def _unwrap(data: Any) -> Any:
    if isinstance(data, dict) and isinstance(data.get(_WRAPPED), dict):
        return data[_WRAPPED]
    return data


def _is_run(run: dict[str, Any]) -> bool:
    return isinstance(run.get("testCases"), list) and (
        "metricsScores" in run or "testPassed" in run or "conversationalTestCases" in run
    )


def read(path: Path, options: ReadOptions | None = None) -> SourceTable:
    """The per-test-case metric scores of a DeepEval test run, one row per test case."""
    import pandas as pd

    path = Path(path)
    run = _load(path)
    cases = [(kind, i, c) for kind in _CASES for i, c in enumerate(run.get(kind) or [])]
    if not cases:
        raise InputError(f"{path}: DeepEval test run with no test cases")
    metrics = _metric_names(path, cases)
    system = _system(run, path)
    rows = [_row(path, kind, i, case, metrics) for kind, i, case in cases]
    frame = pd.DataFrame(rows)
    frame.insert(1, SYSTEM, system)
    frame.insert(2, REPEAT, 0)
    scores = (_PASS, *metrics)
    for name in scores:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype(float)
    duplicated = frame[ITEM].duplicated()
    if duplicated.any():
        raise InputError(
            f"{path}: test case name {frame[ITEM][duplicated].iloc[0]!r} appears more than once"
        )
    notes = [
        f"system: {'the run identifier' if run.get('identifier') else 'the file name'} ({system})",
        "pass: 1 when DeepEval's test case passed (every non-flaky metric passed), else 0",
    ]
    if any(k == "conversationalTestCases" for k, _, _ in cases):
        notes.append("conversational test cases are items like the others (one row each)")
    aggregates = _aggregates(run, system, metrics)
    return SourceTable(frame, scores, TOOL, None, str(path), aggregates, tuple(notes))


def _load(path: Path) -> dict[str, Any]:
    data = json_file(path, "not a DeepEval test-run JSON")
    run = _unwrap(data)
    if isinstance(run, dict) and "test_cases" in run and "testCases" not in run:
        raise InputError(
            f"{path}: a DeepEval test run saved without aliases (test_cases); unsupported, "
            "save it with DeepEval's own writer (testCases)"
        )
    if not isinstance(run, dict) or not _is_run(run):
        raise InputError(f"{path}: not a DeepEval test-run JSON (no testCases list)")
    return run


def _metric_names(path: Path, cases: list[tuple[str, int, Any]]) -> tuple[str, ...]:
    names: list[str] = []
    for kind, i, case in cases:
        if not isinstance(case, dict):
            raise InputError(f"{path}: {kind}[{i}] is not an object")
        for metric in case.get("metricsData") or []:
            name = metric.get("name") if isinstance(metric, dict) else None
            if not isinstance(name, str) or not name:
                raise InputError(f"{path}: {kind}[{i}].metricsData has a metric without a name")
            if name not in names:
                names.append(name)
    if not names:
        raise InputError(f"{path}: DeepEval test run with no metric scores (no metricsData)")
    if _PASS in names:
        raise InputError(f"{path}: a metric is named {_PASS!r}, which ragstat uses for success")
    return tuple(names)


def _row(
    path: Path, kind: str, index: int, case: dict[str, Any], metrics: tuple[str, ...]
) -> dict[str, Any]:
    name = case.get("name")
    order = case.get("order")
    if isinstance(name, str) and name:
        item = name
    elif isinstance(order, int):
        item = f"{kind}[{order}]"
    else:
        item = f"{kind}[{index}]"
    row: dict[str, Any] = {ITEM: item, _PASS: _success(case.get("success"))}
    row.update({m: math.nan for m in metrics})
    for metric in case.get("metricsData") or []:
        row[metric["name"]] = number(metric.get("score"))
    meta = case.get("metadata")
    if meta is None:
        meta = case.get("additionalMetadata")
    if meta is not None and not isinstance(meta, dict):
        raise InputError(f"{path}: {kind}[{index}].metadata is not an object")
    row.update({f"meta_{k}": scalar(v) for k, v in (meta or {}).items()})
    row["meta_case_kind"] = "conversational" if kind == "conversationalTestCases" else "llm"
    return row


def _system(run: dict[str, Any], path: Path) -> str:
    identifier = run.get("identifier")
    return str(identifier) if identifier else path.stem


def _aggregates(run: dict[str, Any], system: str, metrics: tuple[str, ...]) -> dict[str, float]:
    out: dict[str, float] = {}
    for entry in run.get("metricsScores") or []:
        if not isinstance(entry, dict) or entry.get("metric") not in metrics:
            continue
        values = [float(v) for v in entry.get("scores") or [] if is_number(v)]
        if values:
            out[f"{system}/{entry['metric']}"] = sum(values) / len(values)
    passed, failed = run.get("testPassed"), run.get("testFailed")
    if isinstance(passed, int) and isinstance(failed, int) and passed + failed > 0:
        out[f"{system}/{_PASS}"] = passed / (passed + failed)
    return out


def _success(value: Any) -> float:
    if value is True:
        return 1.0
    return 0.0 if value is False else math.nan
