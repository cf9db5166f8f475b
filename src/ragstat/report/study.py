"""The report of a self-retrieval study: from its folder (summary.json, records.parquet,
documents.parquet) or from the study in memory (a `StudySummary` and its tables)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ragstat.errors import InputError
from ragstat.inference.diagnostics import compute_diagnostics
from ragstat.inference.results import IntervalReport
from ragstat.records import DocStats, aggregate_arrays
from ragstat.records.textio import read_json_file
from ragstat.report import checklist as cl
from ragstat.report import parts
from ragstat.report.build import generator, now, unmatched_text
from ragstat.report.model import (
    Autocorrelation,
    ChecklistItem,
    DocSummary,
    EstimandBlock,
    ExcludedDoc,
    PairedInfo,
    RateHistogram,
    Report,
    StratumRow,
)
from ragstat.report.summary import PairedStudy, StudySummary

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXCLUDED_MAX", "report_from_study", "study_report"]

#: Excluded documents listed one by one (the rest are counted; all are in documents.parquet).
EXCLUDED_MAX = 500
#: Retrievers drawn in T1 and T6 (all of them are in the tables).
FIGURE_MAX = 4


def _read_json(path: Path) -> dict:
    data = read_json_file(path, "study summary")  # any failure (deep nesting too): InputError
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object")
    return data


def _created(folder: Path) -> str:
    """When the study ran: the manifest's start time, else summary.json's modification time."""
    manifest = folder / "manifest.json"
    if manifest.is_file():
        try:
            data = read_json_file(manifest, "manifest")
        except InputError:
            data = None
        started = data.get("started_at") if isinstance(data, dict) else None
        if isinstance(started, str) and started:
            return started
    mtime = (folder / "summary.json").stat().st_mtime
    return datetime.fromtimestamp(int(mtime), UTC).isoformat()


_RECORD_COLUMNS = ("doc_id", "position", "retriever", "hit1")


def _strata_col(columns: Sequence[str], field: str | None) -> str | None:
    """The records column of the strata field (``law`` → ``meta_law``; ``meta_law`` too)."""
    if field is None:
        return None
    meta = f"meta_{field}"
    return meta if meta in columns or not field.startswith("meta_") else field


def _records(path: Path, field: str | None) -> tuple[pd.DataFrame, str | None]:
    """The columns of records.parquet the report reads, and the strata column."""
    import pandas as pd
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
        col = _strata_col(names, field)
        cols = [
            *_RECORD_COLUMNS,
            *([col] if col else []),
            *(["weight"] if "weight" in names else []),
        ]
        return pd.read_parquet(path, columns=cols), col
    except Exception as exc:  # pyarrow raises several types for missing columns / bad files
        raise InputError(f"{path}: cannot read the study records ({exc})") from None


def _documents(path: Path) -> pd.DataFrame | None:
    import pandas as pd

    if not path.is_file():
        return None
    try:
        return pd.read_parquet(path, columns=["doc_id", "source", "chunks", "eligible", "reason"])
    except Exception as exc:
        raise InputError(f"{path}: cannot read the documents table ({exc})") from None


def _excluded(docs: pd.DataFrame | None) -> tuple[ExcludedDoc, ...]:
    """Every document or file that issued no query, with its reason (first EXCLUDED_MAX)."""
    import pandas as pd

    if docs is None:
        return ()
    out = docs[~docs["eligible"].astype(bool)].head(EXCLUDED_MAX)
    return tuple(
        ExcludedDoc(
            doc_id=None if pd.isna(row.doc_id) else str(row.doc_id),
            source=None if pd.isna(row.source) else str(row.source),
            reason=str(row.reason) if not pd.isna(row.reason) else "not eligible",
            chunks=None if pd.isna(row.chunks) else int(row.chunks),
        )
        for row in out.itertuples(index=False)
    )


def _paired(p: PairedStudy, matched: int) -> PairedInfo:
    """The paired comparison; ``matched``: queries both retrievers answered (the same queries)."""
    s = p.paired
    return PairedInfo(
        systems=p.systems,
        ties_share=float(s.ties_share),
        identical_share=float(s.identical_share),
        permutation_p={k: float(v) for k, v in s.permutation_p.items()},
        permutation_method=str(s.permutation_method),
        permutation_reps=s.permutation_reps,
        matched=matched,
        only_a=0,
        only_b=0,
        on_missing="error",
    )


@dataclass(frozen=True)
class _Retriever:
    """One retriever's parts of the report."""

    blocks: tuple[EstimandBlock, ...]
    doc: DocSummary
    strata: tuple[StratumRow, ...]
    histogram: RateHistogram
    acf: Autocorrelation
    rates: dict[str, float]


def _expand(stats: DocStats, weight_sums: np.ndarray) -> DocStats:
    """Sampled per-document sums expanded to the n_d eligible queries each document stands
    for (records.weight = n_d / m_d): rates unchanged, micro = Σ n_d ȳ_d / Σ n_d."""
    n = np.round(weight_sums)
    g = n / stats.n
    return replace(
        stats, n=n, s=stats.s * g, q=stats.q * g, w=stats.within_ss * g, lag=None, binary=False
    )


def _retriever(
    frame: pd.DataFrame, name: str, hit1: IntervalReport, strata_col: str | None
) -> _Retriever:
    """Per-document statistics of one retriever's hit@1 and the report parts made of them."""
    g = frame[frame["retriever"] == name]
    if g.empty:
        raise InputError(f"records.parquet has no rows for retriever {name!r}")
    doc, y, pos = g["doc_id"].to_numpy(), g["hit1"].to_numpy(np.float64), g["position"].to_numpy()
    strata = None if strata_col is None else g[strata_col].astype(str).to_numpy()
    scored = aggregate_arrays(doc, y, position=pos, stratum=strata, score="hit1")
    stats, n_scored = scored, None
    if "weight" in g.columns:  # queries sampled within documents
        weights = aggregate_arrays(doc, g["weight"].to_numpy(np.float64), score="weight").s
        stats, n_scored = _expand(scored, weights), len(g)
    acf = parts.acf_by_lag(name, doc, pos, y)
    if n_scored is not None:
        acf = replace(
            acf, source=acf.source + " (sampled queries: neighbours may be further apart)"
        )
    return _Retriever(
        blocks=parts.blocks_from_report(name, hit1),
        doc=replace(
            parts.doc_summary(name, stats, compute_diagnostics(scored), scored=n_scored),
            binary=scored.binary,
        ),
        strata=parts.stratum_rows(name, stats, float(hit1.level)) if strata_col else (),
        histogram=parts.histogram(name, stats),
        acf=acf,
        rates=dict(zip(map(str, stats.doc_id), map(float, stats.r), strict=True)),
    )


def _difference_extremes(a: _Retriever, b: _Retriever) -> tuple[float, float, float] | None:
    """Shares of documents whose rate difference r_A − r_B is −1, 0 and +1 (documents both
    retrievers answered)."""
    common = [d for d in a.rates if d in b.rates]
    if not common:
        return None
    return parts.extreme_shares(np.array([a.rates[d] - b.rates[d] for d in common]))


def _extremes_of(
    by: dict[str, _Retriever], systems: tuple[str, ...]
) -> tuple[float, float, float] | None:
    a, b = systems[:2]
    return _difference_extremes(by[a], by[b]) if a in by and b in by else None


def _excluded_counts(summary: StudySummary) -> dict[str, int]:
    counts = summary.counts
    out = {str(k): int(v) for k, v in counts.excluded.items()}
    if counts.unreadable_files:
        out["unreadable file"] = int(counts.unreadable_files)
    return out


def _study_design(summary: StudySummary, K: int) -> str:
    text = (
        f"self-retrieval study of {summary.source or 'the corpus'}: all {K:,} eligible "
        "documents issued queries; the intervals treat them as a simple random sample (SRS) of "
        "documents from the population they stand for; population size M not declared (no "
        "finite-population correction)"
    )
    smp = summary.sampling
    if smp is not None:
        text += (
            f". Queries sampled within documents ({smp.design}): "
            f"{smp.queries_sampled:,} of {smp.queries_eligible:,} eligible "
            f"chunks, fraction {smp.fraction}, seed {smp.seed}; micro weighted by "
            "n_d / m_d, ultimate-cluster variance"
        )
    return text


def _unsampled(summary: StudySummary) -> list[str]:
    smp = summary.sampling
    if smp is None:
        return []
    left = int(smp.queries_eligible) - int(smp.queries_sampled)
    return [f"unsampled queries: {left:,} eligible chunks issued no query (they stay in the index)"]


_LAYOUT_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError)


def report_from_study(
    folder: Path, *, title: str | None = None, created: str | None = None
) -> Report:
    """Build the study report from the files `ragstat study` wrote into ``folder`` (also
    those of an older ragstat: summary.json is read by `StudySummary.from_dict`)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    summary_path, records_path = folder / "summary.json", folder / "records.parquet"
    if not summary_path.is_file() or not records_path.is_file():
        raise InputError(f"{folder}: not a study folder (needs summary.json and records.parquet)")
    data = _read_json(summary_path)
    try:
        summary = StudySummary.from_dict(data)
    except _LAYOUT_ERRORS as exc:
        detail = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
        raise InputError(f"{summary_path}: unexpected layout ({detail})") from None
    field = summary.by_stratum.field if summary.by_stratum is not None else None
    frame, col = _records(records_path, field)
    docs = _documents(folder / "documents.parquet")
    try:
        return _build(summary, frame, col, docs, title, created or _created(folder), str(folder))
    except _LAYOUT_ERRORS as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(
            f"{summary_path}: unexpected layout ({type(exc).__name__}: {exc})"
        ) from None


def study_report(
    summary: StudySummary,
    records: pd.DataFrame,
    documents: pd.DataFrame | None = None,
    *,
    title: str | None = None,
    created: str | None = None,
) -> Report:
    """The study report from a study in memory: its summary, records and documents tables."""
    field = summary.by_stratum.field if summary.by_stratum is not None else None
    col = _strata_col(list(records.columns), field)
    cols = [*_RECORD_COLUMNS, *([col] if col else []), *(["weight"] if "weight" in records else [])]
    missing = [c for c in cols if c not in records.columns]
    if missing:
        raise InputError(f"the study records have no column(s) {', '.join(missing)}")
    return _build(summary, records[cols], col, documents, title, created or now(), "")


def _build(
    summary: StudySummary,
    frame: pd.DataFrame,
    col: str | None,
    docs: pd.DataFrame | None,
    title: str | None,
    created: str,
    folder: str,
) -> Report:
    names = list(summary.config.get("retrievers") or summary.retrievers)
    per = [_retriever(frame, n, summary.retrievers[n].hit1, col) for n in names]
    blocks = [b for r in per for b in r.blocks]
    paired, extremes = None, None
    if summary.paired is not None:
        paired = _paired(summary.paired, per[0].doc.scored or per[0].doc.N)
        blocks += parts.blocks_from_report(" − ".join(paired.systems[:2]), summary.paired.report)
        extremes = _extremes_of(dict(zip(names, per, strict=True)), paired.systems)
    first = summary.retrievers[names[0]].hit1
    excluded_counts = _excluded_counts(summary)
    reps = first.bootstrap_reps if _any_boot(blocks) else None
    checklist = _checklist(summary, per, blocks, reps, paired, extremes)
    source = summary.source or folder
    warnings = [w for n in names for w in summary.retrievers[n].hit1.warnings]
    return Report(
        verdicts=tuple(summary.verdicts()),
        kind="study",
        title=title or f"Self-retrieval study — {source}",
        source=source,
        created=created,
        level=float(first.level),
        score="hit1",
        design="srs" if summary.sampling is None else "srs of documents, sampled queries",
        estimands=tuple(first.estimands),
        checklist=checklist,
        results=tuple(blocks),
        docs=tuple(r.doc for r in per),
        histograms=tuple(r.histogram for r in per[:FIGURE_MAX]),
        strata_field=summary.by_stratum.field if summary.by_stratum is not None else None,
        strata=tuple(row for r in per for row in r.strata),
        autocorrelation=tuple(r.acf for r in per[:FIGURE_MAX]),
        paired=paired,
        excluded=_excluded(docs),
        excluded_counts=excluded_counts,
        excluded_total=sum(excluded_counts.values()),
        metrics={
            f"{n} MRR@10 (micro)": float(summary.retrievers[n].mrr_at_10_micro) for n in names
        },
        seed=summary.seed,
        bootstrap_reps=reps,
        warnings=tuple(dict.fromkeys(warnings)),
        notes=_notes(summary),
        generator=generator(),
    )


def _checklist(
    summary: StudySummary,
    per: Sequence[_Retriever],
    blocks: Sequence[EstimandBlock],
    reps: int | None,
    paired: PairedInfo | None,
    extremes: tuple[float, float, float] | None,
) -> tuple[ChecklistItem, ...]:
    """The document-level reporting checklist of the study (nine items)."""
    extra = _unsampled(summary) + (unmatched_text(paired) if paired is not None else [])
    return cl.interval_checklist(
        design=_study_design(summary, per[0].doc.K),
        estimands=tuple(next(iter(summary.retrievers.values())).hit1.estimands),
        blocks=blocks,
        doc=[r.doc for r in per],
        reps=reps,
        seed=summary.seed,
        leftout=cl.left_out(_excluded_counts(summary), extra),
        paired=paired,
        extremes=extremes,
    )


def _any_boot(blocks: Sequence[EstimandBlock]) -> bool:
    return any(iv.replicates for b in blocks for iv in b.intervals if iv.available)


def _notes(summary: StudySummary) -> tuple[str, ...]:
    cfg, counts = summary.config, summary.counts
    out = [
        f"chunks of {cfg.get('chunk_words')} words; each query is the first "
        f"{cfg.get('query_words')} words of a chunk, searched against every other chunk "
        "(its own chunk is never returned); hit@1 = the top result comes from the same document"
    ]
    out.append(
        f"corpus: {counts.documents:,} documents, {counts.chunks:,} "
        f"chunks ({counts.indexed_chunks:,} indexed), "
        f"{counts.queries:,} queries per retriever"
    )
    if summary.corpus_fingerprint:
        out.append(f"corpus fingerprint (sha256): {summary.corpus_fingerprint}")
    return tuple(out)
