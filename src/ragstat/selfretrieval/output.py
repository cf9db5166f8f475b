"""A study's output folder: its tables as Parquet, and the plain facts its summary reports.

Files (each written atomically): ``records.parquet`` (one row per query × retriever),
``candidates.parquet`` (top-k per query, for auditing), ``documents.parquet`` (every
document and file: chunks, eligible or why not), ``summary.json`` (the summary object
given to :func:`write_study`). Every Parquet file carries the corpus fingerprint and the
configuration in its own metadata.

The intervals of the summary are not computed here (the study layer counts and tabulates;
inference is :mod:`ragstat.api.verbs.study`'s): :func:`study_counts` and :func:`by_stratum` are
plain counts and means.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragstat.atomic import atomic_write, atomic_write_text
from ragstat.errors import InputError
from ragstat.selfretrieval.run import Study
from ragstat.tidy import json_text

__all__ = [
    "TABLES",
    "by_stratum",
    "strata_column",
    "study_counts",
    "write_study",
    "write_summary",
    "write_tables",
]

#: The tables of a study folder, in the order they are written.
TABLES = ("records", "candidates", "documents")


def study_counts(study: Study) -> dict[str, Any]:
    """Documents loaded, eligible, excluded by reason (single chunk, empty text), unreadable
    files apart (their reasons are in documents.parquet), chunks, indexed chunks, queries."""
    docs = study.documents
    loaded = docs[docs["doc_id"].notna()]
    reasons = loaded.loc[~loaded["eligible"], "reason"].value_counts().to_dict()
    first = study.records[study.records["retriever"] == study.config.retrievers[0]]
    return {
        "documents": len(loaded),
        "eligible_documents": int(loaded["eligible"].sum()),
        "excluded": {str(k): int(v) for k, v in reasons.items()},
        "unreadable_files": int(docs["doc_id"].isna().sum()),
        "chunks": study.n_chunks,
        "indexed_chunks": study.n_indexed,
        "queries": len(first),
    }


def strata_column(columns: Sequence[str], field: str) -> str:
    """The records column of the metadata ``field``: ``law`` and ``meta_law`` both name
    ``meta_law`` (a field itself called ``meta_x`` is ``meta_meta_x``, found first)."""
    meta = [c for c in columns if c.startswith("meta_")]
    for col in (f"meta_{field}", field):
        if col in meta:
            return col
    fields = [c.removeprefix("meta_") for c in meta]
    raise InputError(
        f"--strata {field!r}: no such metadata field; the documents have "
        + (", ".join(fields) if fields else "no metadata fields")
    )


def _mean(g: pd.DataFrame, column: str) -> float:
    """Mean of ``column``; weighted by ``weight`` (n_d / m_d) when the queries were sampled."""
    y = g[column].to_numpy(float)
    return float(np.average(y, weights=g["weight"].to_numpy()) if "weight" in g else y.mean())


def by_stratum(study: Study, field: str) -> dict[str, dict[str, dict[str, float | int]]]:
    """hit@1 per retriever and stratum of a metadata ``field``: K documents, N queries,
    micro Σ w y / Σ w over queries and macro mean_d r_d over documents."""
    col = strata_column(list(study.records.columns), field)
    out: dict[str, dict[str, dict[str, float | int]]] = {}
    for (name, stratum), g in study.records.groupby(["retriever", col], sort=True, dropna=False):
        per_doc = g.groupby("doc_id")["hit1"].mean()
        out.setdefault(str(name), {})[str(stratum)] = {
            "K": int(per_doc.size),
            "N": len(g),
            "micro": _mean(g, "hit1"),
            "macro": float(per_doc.mean()),
        }
    return out


def _parquet(frame: pd.DataFrame, path: Path, meta: Mapping[str, Any]) -> Path:
    """Parquet with the corpus fingerprint and config in the file's own metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    extra = {b"ragstat": json_text(meta, default=str).encode("utf-8")}
    atomic_write(
        path,
        lambda tmp: pq.write_table(
            table.replace_schema_metadata({**(table.schema.metadata or {}), **extra}), tmp
        ),
    )
    return path


def write_tables(study: Study, out_dir: str | Path) -> list[Path]:
    """records.parquet, candidates.parquet and documents.parquet into ``out_dir``."""
    out = Path(out_dir)
    meta = {
        "corpus_fingerprint": study.fingerprint,
        "config": study.config.to_dict(),
        "schema_version": 1,
    }
    frames = {"records": study.records, "candidates": study.candidates}
    frames["documents"] = study.documents
    return [_parquet(frames[name], out / f"{name}.parquet", meta) for name in TABLES]


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def write_summary(summary: Mapping[str, Any], out_dir: str | Path) -> Path:
    """``summary.json`` (indented, UTF-8, strict JSON: an undefined number is null with a
    reason) into ``out_dir``."""
    text = json_text(summary, indent=2, default=_json_default)
    return atomic_write_text(Path(out_dir) / "summary.json", text)


def write_study(study: Study, out_dir: str | Path, summary: Mapping[str, Any]) -> dict[str, Any]:
    """Write a study folder: the three tables, then ``summary.json``; returns the summary.

    ``summary`` is the summary.json object: ``ragstat.api.verbs.study.summarize(study).to_dict()``
    (or let ``ragstat.api.verbs.study.study(...).write(folder)`` do it all). Computed before
    anything is written, so a failure leaves the folder as it was.
    """
    if not isinstance(summary, Mapping):
        raise InputError(
            "write_study needs the summary object: "
            "ragstat.api.verbs.study.summarize(study, ...).to_dict()"
        )
    write_tables(study, out_dir)
    write_summary(summary, out_dir)
    return dict(summary)
