"""The inputs a gates file names, each read into one per-query frame.

Every input becomes the same shape — one row per query or item with ``query_id``,
``doc_id`` (its cluster), optional ``system``, one column per score and the source's
metadata columns — so every gate is decided by the same ``interval`` / ``compare``
twins whatever produced the numbers:

``kind = "table"`` (default)
    a per-query table or the study's ``records.parquet`` (``path``; ``system`` keeps one
    system's rows; ``cluster`` names the cluster column, default ``doc_id``), or another
    tool's result file (``from`` = inspect, promptfoo, ragas …, detected when unambiguous;
    ``cluster_by``, ``cluster_rule``, ``missing_cluster`` as the command line takes them).
``kind = "evaluate"``
    ``qrels`` and ``run`` (one run) with ``metrics`` (default ``ndcg@10, recall@10,
    mrr``) and ``cluster_by`` as ``ragstat evaluate`` takes them; a query with no
    relevant document has no score (counted, never a zero).
``kind = "generation"``
    answers JSONL as ``ragstat generation`` reads it (``path``, ``cluster_by``).

Every kind takes ``non_numeric = "error" | "missing"``: what a score cell that is not a
number means for this input (default: the gates file's ``non_numeric``, else an error).

Paths are relative to the gates file's folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ragstat.api.columns import resolve_column
from ragstat.api.data import read_table
from ragstat.errors import InputError
from ragstat.records.cells import check_non_numeric

__all__ = ["INPUT_KINDS", "GateInput", "load_input"]

INPUT_KINDS = ("table", "evaluate", "generation")
_KEYS = {
    "table": {
        "kind",
        "path",
        "system",
        "cluster",
        "from",
        "cluster_by",
        "cluster_rule",
        "missing_cluster",
        "non_numeric",
    },
    "evaluate": {"kind", "qrels", "run", "metrics", "cluster_by", "cluster_column", "non_numeric"},
    "generation": {"kind", "path", "cluster_by", "non_numeric"},
}


@dataclass(frozen=True)
class GateInput:
    """One input of a gates file as a per-query frame (``doc_id`` = the cluster)."""

    name: str
    kind: str
    frame: pd.DataFrame
    source: str
    files: dict[str, Path] = field(default_factory=dict)
    note: str = ""
    #: A score cell that is not a number: "error" | "missing"; None: the gates file's setting.
    non_numeric: str | None = None

    def scores(self) -> list[str]:
        """The frame's columns a gate may use as its metric."""
        roles = {"query_id", "doc_id", "system"}
        return [c for c in self.frame.columns if c not in roles and not c.startswith("meta_")]


def _path(spec: Mapping[str, Any], key: str, base: Path, where: str) -> Path:
    value = spec.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: {key!r} must be a path (relative to the gates file)")
    return (base / value).resolve()


def _table(name: str, spec: Mapping[str, Any], base: Path, where: str) -> GateInput:
    path = _path(spec, "path", base, where)
    frame, note = _read(path, spec)
    names = list(frame.columns)
    cluster = resolve_column(names, str(spec.get("cluster", "doc_id")), "cluster", where)
    system_col = next((c for c in ("system", "retriever") if c in names), None)
    system = spec.get("system")
    if system is not None:
        if system_col is None:
            raise InputError(f"{where}: system {system!r} given but {path} has no system column")
        present = sorted(frame[system_col].astype(str).unique())
        if str(system) not in present:
            raise InputError(f"{where}: no rows of system {system!r}; present: {present}")
        frame = frame[frame[system_col].astype(str) == str(system)]
    elif system_col is not None and frame[system_col].nunique() > 1:
        raise InputError(f"{where}: {path} holds several systems; choose one with system = …")
    frame = frame.rename(columns={cluster: "doc_id", system_col or "system": "system"})
    if "query_id" not in frame.columns:
        frame = frame.assign(query_id=range(len(frame)))
    files = {"path": path}
    return GateInput(name, "table", frame.reset_index(drop=True), str(path), files, note)


def _read(path: Path, spec: Mapping[str, Any]) -> tuple[pd.DataFrame, str]:
    """A ragstat table, or another tool's file through its adapter (with its sentence)."""
    from ragstat.api.sources import Source, resolve_input

    def text(key: str) -> str | None:
        value = spec.get(key)
        return None if value is None else str(value)

    source = resolve_input(
        path,
        text("from"),
        cluster_by=text("cluster_by"),
        cluster_rule=text("cluster_rule"),
        missing_cluster=text("missing_cluster") or "exclude",
    )
    if isinstance(source, Source):
        if source.runs is not None:
            raise InputError(f'{path}: qrels and runs; use kind = "evaluate" with qrels and run')
        return source.frame, source.info.sentence()
    return read_table(path), ""


def _evaluate(name: str, spec: Mapping[str, Any], base: Path, where: str) -> GateInput:
    import ragstat.metrics as m
    from ragstat.api.verbs.evaluate import metric_names

    qrels_path, run_path = _path(spec, "qrels", base, where), _path(spec, "run", base, where)
    qrels, run = m.read_qrels(qrels_path), m.read_run(run_path)
    names = metric_names(spec.get("metrics", "ndcg@10,recall@10,mrr"))
    table = m.evaluate(qrels, [run], names)
    records = table.records
    wide = records.pivot_table(index="query_id", columns="metric", values="value", dropna=False)
    wide = wide.reindex(columns=[m.parse_metric(n).name for n in names]).reset_index()
    by = spec.get("cluster_by")
    if by is not None and not isinstance(by, str):
        raise InputError(f"{where}: cluster_by must be 'query', 'qrels-doc' or a mapping file")
    if by is not None and by not in ("query", "qrels-doc"):
        by = str((base / by).resolve())
    column = str(spec.get("cluster_column", "cluster"))
    clustering = m.cluster_queries(by, list(wide["query_id"]), qrels.judgments, column)
    wide["doc_id"] = wide["query_id"].astype(str).map(dict(clustering.clusters))
    wide["system"] = run.name
    files = {"qrels": qrels_path, "run": run_path}
    return GateInput(name, "evaluate", wide, str(run_path), files, clustering.note)


def _generation(name: str, spec: Mapping[str, Any], base: Path, where: str) -> GateInput:
    from ragstat.api.items import clusters_for, read_records
    from ragstat.api.verbs.generation import generation_scores

    path = _path(spec, "path", base, where)
    rows, _ = read_records(path)
    scores, _ = generation_scores(rows)
    ids = [str(r["id"]) for r in rows]
    by = spec.get("cluster_by")
    clusters, note = clusters_for(rows, ids, None if by is None else str(by))
    frame = pd.DataFrame({"query_id": ids, "doc_id": clusters})
    for score, (item_ids, values) in scores.items():
        frame[score] = pd.Series(values, index=item_ids).reindex(ids).to_numpy()
    return GateInput(name, "generation", frame, str(path), {"path": path}, note)


_LOADERS = {"table": _table, "evaluate": _evaluate, "generation": _generation}


def load_input(name: str, spec: Any, base: Path) -> GateInput:
    """Read the input ``[inputs.NAME]`` of a gates file (``base``: the file's folder)."""
    where = f"[inputs.{name}]"
    if not isinstance(spec, Mapping):
        raise InputError(f"{where}: expected a table with a path (and kind, system …)")
    kind = str(spec.get("kind", "table"))
    if kind not in _LOADERS:
        raise InputError(f"{where}: kind {kind!r} unknown; choose from {', '.join(INPUT_KINDS)}")
    unknown = sorted(set(spec) - _KEYS[kind])
    if unknown:
        raise InputError(f"{where}: unknown key(s) {unknown} for kind {kind!r}")
    loaded = _LOADERS[kind](name, spec, base, where)
    if "non_numeric" not in spec:
        return loaded
    return replace(
        loaded, non_numeric=check_non_numeric(spec["non_numeric"], f"{where} non_numeric")
    )
