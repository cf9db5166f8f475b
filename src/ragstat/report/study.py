"""The report of a self-retrieval study folder (summary.json, records.parquet, documents.parquet)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from ragstat.errors import InputError
from ragstat.inference.diagnostics import compute_diagnostics
from ragstat.records import DocStats, aggregate_arrays
from ragstat.records.textio import read_json_file
from ragstat.report import checklist as cl
from ragstat.report import parts
from ragstat.report.build import _generator, unmatched_text
from ragstat.report.model import (
    Autocorrelation,
    DocSummary,
    EstimandBlock,
    ExcludedDoc,
    PairedInfo,
    RateHistogram,
    Report,
    StratumRow,
)

__all__ = ["EXCLUDED_MAX", "report_from_study"]

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
    return datetime.fromtimestamp(int(mtime), timezone.utc).isoformat()


def _records(path: Path, strata_col: str | None):
    import pandas as pd
    import pyarrow.parquet as pq

    cols = ["doc_id", "position", "retriever", "hit1"] + ([strata_col] if strata_col else [])
    try:
        if "weight" in pq.read_schema(path).names:
            cols.append("weight")
        return pd.read_parquet(path, columns=cols)
    except Exception as exc:  # pyarrow raises several types for missing columns / bad files
        raise InputError(f"{path}: cannot read the study records ({exc})") from None


def _excluded(path: Path) -> tuple[ExcludedDoc, ...]:
    """Every document or file that issued no query, with its reason (first EXCLUDED_MAX)."""
    import pandas as pd

    if not path.is_file():
        return ()
    try:
        docs = pd.read_parquet(path, columns=["doc_id", "source", "chunks", "eligible", "reason"])
    except Exception as exc:
        raise InputError(f"{path}: cannot read the documents table ({exc})") from None
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


def _paired(data: Mapping, matched: int) -> PairedInfo:
    """The paired block of summary.json; ``matched``: queries both retrievers answered."""
    p = data["paired"]
    pairing = p.get("pairing") or {}
    systems = tuple(data.get("systems") or p.get("systems") or ("A", "B"))
    return PairedInfo(
        systems=systems,
        ties_share=float(p["ties_share"]),
        identical_share=float(p["identical_share"]),
        permutation_p={k: float(v) for k, v in p["permutation_p"].items()},
        permutation_method=str(p["permutation_method"]),
        permutation_reps=p.get("permutation_reps"),
        matched=pairing.get("matched", matched),
        only_a=pairing.get("only_a", 0),
        only_b=pairing.get("only_b", 0),
        on_missing=pairing.get("on_missing", "error"),
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


def _retriever(frame, name: str, hit1: Mapping, strata_col: str | None) -> _Retriever:
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
        blocks=parts.blocks_from_dict(name, hit1),
        doc=replace(
            parts.doc_summary(name, stats, compute_diagnostics(scored), scored=n_scored),
            binary=scored.binary,
        ),
        strata=parts.stratum_rows(name, stats, float(hit1["level"])) if strata_col else (),
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


def _excluded_counts(counts: Mapping) -> dict[str, int]:
    out = {str(k): int(v) for k, v in (counts.get("excluded") or {}).items()}
    if counts.get("unreadable_files"):
        out["unreadable file"] = int(counts["unreadable_files"])
    return out


def _study_design(summary: Mapping, K: int) -> str:
    text = (
        f"self-retrieval study of {summary.get('source', 'the corpus')}: all {K:,} eligible "
        "documents issued queries; the intervals treat them as a simple random sample (SRS) of "
        "documents from the population they stand for; population size M not declared (no "
        "finite-population correction)"
    )
    smp = summary.get("sampling")
    if smp:
        text += (
            f". Queries sampled within documents ({smp.get('design')}): "
            f"{smp.get('queries_sampled', 0):,} of {smp.get('queries_eligible', 0):,} eligible "
            f"chunks, fraction {smp.get('fraction')}, seed {smp.get('seed')}; micro weighted by "
            "n_d / m_d, ultimate-cluster variance"
        )
    return text


def _unsampled(summary: Mapping) -> list[str]:
    smp = summary.get("sampling")
    if not smp:
        return []
    left = int(smp.get("queries_eligible", 0)) - int(smp.get("queries_sampled", 0))
    return [f"unsampled queries: {left:,} eligible chunks issued no query (they stay in the index)"]


def report_from_study(
    folder: Path, *, title: str | None = None, created: str | None = None
) -> Report:
    """Build the study report from the files `ragstat study` wrote into ``folder``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    summary_path, records_path = folder / "summary.json", folder / "records.parquet"
    if not summary_path.is_file() or not records_path.is_file():
        raise InputError(f"{folder}: not a study folder (needs summary.json and records.parquet)")
    summary = _read_json(summary_path)
    try:
        return _build(folder, summary, title, created)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(
            f"{summary_path}: unexpected layout ({type(exc).__name__}: {exc})"
        ) from None


def _build(folder: Path, summary: dict, title: str | None, created: str | None) -> Report:
    names = list(summary["config"]["retrievers"])
    field = (summary.get("by_stratum") or {}).get("field")
    col = None if field is None else (field if field.startswith("meta_") else f"meta_{field}")
    frame = _records(folder / "records.parquet", col)
    per = [_retriever(frame, n, summary["retrievers"][n]["hit1"], col) for n in names]
    blocks = [b for r in per for b in r.blocks]
    paired, extremes = None, None
    if "paired" in summary:
        paired = _paired(summary["paired"], per[0].doc.scored or per[0].doc.N)
        blocks += parts.blocks_from_dict(" − ".join(paired.systems[:2]), summary["paired"])
        by = dict(zip(names, per, strict=True))
        a, b = paired.systems[:2]
        if a in by and b in by:
            extremes = _difference_extremes(by[a], by[b])
    first = summary["retrievers"][names[0]]["hit1"]
    excluded_counts = _excluded_counts(summary.get("counts", {}))
    extra = _unsampled(summary) + (unmatched_text(paired) if paired is not None else [])
    reps = first.get("bootstrap_reps") if _any_boot(blocks) else None
    checklist = cl.interval_checklist(
        design=_study_design(summary, per[0].doc.K),
        estimands=tuple(first["estimands"]),
        blocks=blocks,
        doc=[r.doc for r in per],
        reps=reps,
        seed=summary.get("seed"),
        leftout=cl.left_out(excluded_counts, extra),
        paired=paired,
        extremes=extremes,
    )
    source = str(summary.get("source", folder))
    warnings = [w for n in names for w in summary["retrievers"][n]["hit1"].get("warnings", [])]
    return Report(
        kind="study",
        title=title or f"Self-retrieval study — {source}",
        source=source,
        created=created or _created(folder),
        level=float(first["level"]),
        score="hit1",
        design="srs" if not summary.get("sampling") else "srs of documents, sampled queries",
        estimands=tuple(first["estimands"]),
        checklist=checklist,
        results=tuple(blocks),
        docs=tuple(r.doc for r in per),
        histograms=tuple(r.histogram for r in per[:FIGURE_MAX]),
        strata_field=field,
        strata=tuple(row for r in per for row in r.strata),
        autocorrelation=tuple(r.acf for r in per[:FIGURE_MAX]),
        paired=paired,
        excluded=_excluded(folder / "documents.parquet"),
        excluded_counts=excluded_counts,
        excluded_total=sum(excluded_counts.values()),
        metrics={
            f"{n} MRR@10 (micro)": float(summary["retrievers"][n]["mrr_at_10_micro"]) for n in names
        },
        seed=summary.get("seed"),
        bootstrap_reps=reps,
        warnings=tuple(dict.fromkeys(warnings)),
        notes=_notes(summary),
        generator=_generator(),
    )


def _any_boot(blocks) -> bool:
    return any(iv.replicates for b in blocks for iv in b.intervals if iv.available)


def _notes(summary: Mapping) -> tuple[str, ...]:
    cfg, counts = summary.get("config", {}), summary.get("counts", {})
    out = [
        f"chunks of {cfg.get('chunk_words')} words; each query is the first "
        f"{cfg.get('query_words')} words of a chunk, searched against every other chunk "
        "(its own chunk is never returned); hit@1 = the top result comes from the same document"
    ]
    if counts:
        out.append(
            f"corpus: {counts.get('documents', 0):,} documents, {counts.get('chunks', 0):,} "
            f"chunks ({counts.get('indexed_chunks', 0):,} indexed), "
            f"{counts.get('queries', 0):,} queries per retriever"
        )
    if summary.get("corpus_fingerprint"):
        out.append(f"corpus fingerprint (sha256): {summary['corpus_fingerprint']}")
    return tuple(out)
