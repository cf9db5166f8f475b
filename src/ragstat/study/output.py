"""Write a study to its output folder and summarise it with document-clustered intervals.

Files (all written atomically): ``records.parquet`` (one row per query × retriever),
``candidates.parquet`` (top-k per query, for auditing), ``documents.parquet``
(every document and file: chunks, eligible or why not), ``summary.json``.
"""

from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path

import numpy as np

from ragstat.atomic import atomic_write, atomic_write_text
from ragstat.inference import analyze
from ragstat.inference.paired import compare
from ragstat.records import aggregate_arrays
from ragstat.study.run import Study

__all__ = ["summarize", "write_study"]

SUMMARY_METHODS = ("cr2_bm", "cr2_ik", "t_rates", "doc_bootstrap_t", "wald_iid")


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("ragstat", "numpy", "scipy", "pandas", "duckdb", "bm25s", "scikit-learn"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return out


def _counts(study: Study) -> dict:
    docs = study.documents
    loaded = docs[docs["doc_id"].notna()]
    reasons = docs.loc[~docs["eligible"], "reason"].value_counts().to_dict()
    first = study.records[study.records["retriever"] == study.config.retrievers[0]]
    return {
        "documents": len(loaded),
        "eligible_documents": int(loaded["eligible"].sum()),
        "excluded": {str(k): int(v) for k, v in reasons.items()},
        "unreadable_files": int(docs["doc_id"].isna().sum()),
        "chunks": study.n_chunks,
        "queries": len(first),
    }


def summarize(study: Study, *, level: float = 0.95, seed: int = 0, reps: int = 9_999) -> dict:
    """hit@1 (micro and macro) per retriever with clustered intervals; paired first − second."""
    by = {name: g for name, g in study.records.groupby("retriever", sort=False)}
    retrievers = {}
    for name in study.config.retrievers:
        g = by[name]
        stats = aggregate_arrays(g["doc_id"].to_numpy(), g["hit1"].to_numpy(), score="hit1")
        report = analyze(
            stats, level=level, methods=SUMMARY_METHODS, seed=seed, bootstrap_reps=reps
        )
        retrievers[name] = {"hit1": report.to_dict(), "mrr_micro": float(g["rr"].mean())}
    out = {"retrievers": retrievers}
    if len(study.config.retrievers) >= 2:
        a, b = study.config.retrievers[:2]
        ga, gb = by[a], by[b]
        diff = ga["hit1"].to_numpy(float) - gb["hit1"].to_numpy(float)  # same queries, same order
        stats = aggregate_arrays(ga["doc_id"].to_numpy(), diff, score=f"hit1 {a} - {b}")
        res = compare(
            stats,
            level=level,
            seed=seed,
            bootstrap_reps=reps,
            methods=[m for m in SUMMARY_METHODS if m != "wald_iid"] + ["wald_iid"],
        )
        out["paired"] = {"systems": [a, b], **res.to_dict()}
    return out


def write_study(study: Study, out_dir: str | Path, *, seed: int = 0, reps: int = 9_999) -> dict:
    """Write the tables and ``summary.json``; return the summary."""
    out = Path(out_dir)
    for name, frame in (
        ("records", study.records),
        ("candidates", study.candidates),
        ("documents", study.documents),
    ):
        atomic_write(out / f"{name}.parquet", lambda tmp, f=frame: f.to_parquet(tmp, index=False))
    summary = {
        "schema_version": 1,
        "source": study.source,
        "corpus_fingerprint": study.fingerprint,
        "config": study.config.to_dict(),
        "seed": seed,
        "counts": _counts(study),
        "versions": _versions(),
        "files": {n: f"{n}.parquet" for n in ("records", "candidates", "documents")},
        **summarize(study, seed=seed, reps=reps),
    }
    atomic_write_text(
        out / "summary.json",
        json.dumps(summary, indent=2, ensure_ascii=False, default=_json_default),
    )
    return summary


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
