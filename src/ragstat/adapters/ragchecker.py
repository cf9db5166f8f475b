"""RAGChecker's output JSON (``RAGResults.to_json()``, or ``ragchecker-cli --output_path``).

``results[]``: one entry per query — ``query_id`` (→ ``item_id``), ``query``,
``retrieved_context[]`` (``doc_id`` → ``reference_ids``) and ``metrics`` (one score
per metric, in [0, 1]). The top-level ``metrics`` holds RAGChecker's aggregates by
group (``overall``/``retriever``/``generator``): the mean over queries × 100, rounded
to one decimal. A file holds one system (the file's stem); it carries no version and
no repeats.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragstat.adapters.base import ITEM, REFERENCE_IDS, REPEAT, SYSTEM, ReadOptions, SourceTable
from ragstat.adapters.values import json_file, number
from ragstat.errors import InputError
from ragstat.records.textio import open_regular, read_json_file

__all__ = ["TOOL", "read", "sniff"]

TOOL = "RAGChecker"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ()
#: A folder is read file by file (``ragstat.adapters.folders``), not by this reader.
FOLDERS = False

#: The keys of one RAGChecker result (``RAGResult``) that mark the format.
_RESULT_KEYS = {"query_id", "query", "gt_answer", "response", "retrieved_context"}
_SNIFF_BYTES = 1 << 16


def sniff(path: Path) -> bool:
    """True when ``path`` is a RAGChecker results JSON (never raises)."""
    try:
        with open_regular(path) as fh:
            head = fh.read(_SNIFF_BYTES)
        if not head.lstrip().startswith(b"{") or b'"retrieved_context"' not in head:
            return False
        data = read_json_file(path, "RAGChecker results file")
        return _looks_right(data)
    except Exception:  # sniffing never raises
        return False


def _looks_right(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return False
    if not isinstance(data.get("metrics"), dict):
        return False
    first = data["results"][0] if data["results"] else None
    return isinstance(first, dict) and set(first) >= _RESULT_KEYS


def read(path: Path, options: ReadOptions | None = None) -> SourceTable:
    """The per-query metrics of a RAGChecker results file, one row per query."""
    import pandas as pd

    path = Path(path)
    data = _load(path)
    rows = [_row(path, i, result) for i, result in enumerate(data["results"])]
    scores = _score_names(rows)
    if not scores:
        raise InputError(
            f"{path}: RAGChecker results without per-query metrics (run RAGChecker.evaluate first)"
        )
    system = path.stem
    frame = pd.DataFrame(rows)
    frame.insert(1, SYSTEM, system)
    frame.insert(2, REPEAT, 0)
    for name in scores:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype(float)
    meta = [c for c in frame.columns if str(c).startswith("meta_")]
    frame = frame[[ITEM, SYSTEM, REPEAT, *scores, *meta, REFERENCE_IDS]]
    notes = (
        f"system: the file name ({system}); a RAGChecker file holds one system",
        "reference_ids: the doc_id of each retrieved passage (retrieved_context)",
        "aggregates: RAGChecker's own, mean over queries × 100 rounded to 0.1",
    )
    aggregates = _aggregates(data["metrics"], system, scores)
    return SourceTable(frame, scores, TOOL, None, str(path), aggregates, notes)


def _load(path: Path) -> dict[str, Any]:
    data = json_file(path, "not a RAGChecker results JSON")
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise InputError(f"{path}: not a RAGChecker results JSON (no results list)")
    if not isinstance(data.get("metrics", {}), dict):
        raise InputError(f"{path}: not a RAGChecker results JSON (metrics is not an object)")
    if not data["results"]:
        raise InputError(f"{path}: RAGChecker results file with no results")
    return data


def _row(path: Path, index: int, result: Any) -> dict[str, Any]:
    if not isinstance(result, dict) or not set(result) >= _RESULT_KEYS:
        raise InputError(
            f"{path}: results[{index}] is not a RAGChecker result (needs "
            f"{', '.join(sorted(_RESULT_KEYS))})"
        )
    metrics = result.get("metrics") or {}
    if not isinstance(metrics, dict):
        raise InputError(f"{path}: results[{index}].metrics is not an object")
    docs = result.get("retrieved_context") or []
    refs = [str(d["doc_id"]) for d in docs if isinstance(d, dict) and d.get("doc_id") is not None]
    row: dict[str, Any] = {ITEM: str(result["query_id"])}
    row.update({str(k): number(v) for k, v in metrics.items()})
    row["meta_query"] = result.get("query")
    row[REFERENCE_IDS] = refs
    return row


def _score_names(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    fixed = {ITEM, REFERENCE_IDS, "meta_query"}
    names: list[str] = []
    for row in rows:
        names += [k for k in row if k not in fixed and k not in names]
    return tuple(names)


def _aggregates(metrics: dict[str, Any], system: str, scores: tuple[str, ...]) -> dict[str, float]:
    """RAGChecker's group → metric → value, keyed ``<system>/<metric>`` (percent)."""
    out: dict[str, float] = {}
    for group in metrics.values():
        if not isinstance(group, dict):
            continue
        for name, value in group.items():
            if name in scores and isinstance(value, (int, float)) and not isinstance(value, bool):
                out[f"{system}/{name}"] = float(value)
    return out
