"""Seed 000's "what to report", filled in from the data; a missing item says why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragstat.inference.results import DesignInfo
from ragstat.report.fmt import ESTIMAND_LABELS, df, method_label, num, pct, whole
from ragstat.report.model import ChecklistItem, DocSummary, EstimandBlock, PairedInfo

__all__ = [
    "FIXED",
    "LABELS",
    "chunks_item",
    "design_text",
    "icc_item",
    "interval_checklist",
    "item",
    "k_n_item",
    "left_out",
    "shares_item",
    "unavailable",
]

#: The nine items of seed 000's list, in order (key → label).
LABELS = {
    "population_design": "Population and design",
    "estimand": "Estimand",
    "k_n": "K documents and N queries",
    "chunks": "Chunks (queries) per document",
    "method": "Interval method and resampling unit",
    "df": "Effective degrees of freedom",
    "icc_deff": "ICC and DEFF (diagnostics, not methods)",
    "shares": "Shares of documents at 0 and at 1",
    "left_out": "What is left out",
}

#: Seed 000: the fixed parts of the experiment the interval does not cover.
FIXED = (
    "held fixed, not sampled (the interval does not cover their variation): the index, "
    "the retriever and its settings, and the population of questions"
)
_DESIGNS = {
    "srs": "simple random sample of documents (SRS)",
    "stratified": "stratified sample: documents drawn at random within fixed strata",
    "two-stage": "two-stage sample: types drawn first, then documents within each type",
}


def item(key: str, text: str, available: bool = True) -> ChecklistItem:
    return ChecklistItem(key=key, label=LABELS[key], text=text, available=available)


def unavailable(key: str, why: str) -> ChecklistItem:
    return item(key, f"not available — {why}", available=False)


def design_text(design: DesignInfo | None, name: str, population: int | None) -> str:
    """The design assumed by the intervals, with M / the FPC when declared."""
    text = _DESIGNS.get(name, name)
    if design is not None and design.groups:
        parts = [
            f"{g}: {k} of {m}"
            for g, k, m in zip(design.groups, design.sampled, design.population, strict=True)
        ]
        text += f"; sampled of population per group — {'; '.join(parts)}"
    if population is not None:
        text += f"; population M = {population:,} documents, finite correction (1 − K/M) applied"
    elif name == "srs":
        text += "; population size M not declared (no finite-population correction)"
    return text


def _estimand(blocks: Sequence[EstimandBlock], estimands: Sequence[str]) -> ChecklistItem:
    parts = []
    for e in estimands:
        vals = [f"{b.subject} {num(b.estimate)}" for b in blocks if b.estimand == e]
        parts.append(f"{ESTIMAND_LABELS.get(e, e)} ({'; '.join(vals) or 'not computed'})")
    return item("estimand", "declared: " + "; ".join(parts))


def k_n_item(doc: DocSummary) -> ChecklistItem:
    text = f"K = {doc.K:,} documents, N = {doc.N:,} queries — the sample size is K, not N"
    if doc.scored is not None:
        text += f"; {doc.scored:,} of the N queries were sampled and scored (weights n_d / m_d)"
    return item("k_n", text)


def chunks_item(doc: DocSummary) -> ChecklistItem:
    return item(
        "chunks",
        f"min {whole(doc.n_min)}, median {doc.n_median:g}, mean {doc.n_mean:.1f}, "
        f"max {whole(doc.n_max)}; CV {doc.n_cv:.2f}; the largest 10 % of documents hold "
        f"{pct(doc.top10_share)} of the queries",
    )


def _method(blocks: Sequence[EstimandBlock], reps: int | None, seed: int | None) -> ChecklistItem:
    parts = [f"{b.subject} {b.estimand}: {method_label(b.recommended)}" for b in blocks]
    text = "; ".join(parts) + ". Resampling and clustering unit: the document"
    if reps:
        text += f"; document bootstrap with {reps:,} replicates"
    if seed is not None:
        text += f", seed {seed}"
    return item("method", text)


def _df(blocks: Sequence[EstimandBlock]) -> ChecklistItem:
    parts = []
    for b in blocks:
        rows = [iv for iv in b.intervals if iv.df is not None and not iv.naive]
        if rows:
            dfs = ", ".join(f"{iv.method} ν = {df(iv.df)}" for iv in rows)
            parts.append(f"{b.subject} {b.estimand}: {dfs}")
    if not parts:
        return unavailable("df", "no computed interval uses a t reference with estimated df")
    return item("df", "; ".join(parts))


def icc_item(doc: DocSummary) -> ChecklistItem:
    if doc.icc is None:
        return unavailable(
            "icc_deff",
            "the ICC is undefined here (fewer than 2 documents or no variation between them)",
        )
    text = f"{doc.subject}: ICC {doc.icc:.3f}, DEFF {num(doc.deff, 2)}"
    if doc.n_eff is not None:
        text += f", N/DEFF ≈ {doc.n_eff:,.0f}"
    if doc.lag1 is not None:
        text += f"; lag-1 within-document autocorrelation {doc.lag1:.3f}"
    return item(
        "icc_deff",
        text + " — they explain the clustering; the intervals above are the "
        "clustered calculation, not N/DEFF",
    )


def shares_item(doc: DocSummary, paired: PairedInfo | None) -> ChecklistItem:
    if paired is not None:
        return item(
            "shares",
            f"documents where the two systems tie (difference 0): {pct(paired.ties_share)}; "
            f"with identical scores on every query: {pct(paired.identical_share)}; "
            f"difference +1: {pct(doc.share1)}",
        )
    if not doc.binary:
        return item(
            "shares",
            f"documents with mean score 0: {pct(doc.share0)}, with mean score 1: {pct(doc.share1)} "
            "(scores are not 0/1; distribution in T1)",
        )
    return item(
        "shares",
        f"rate 0: {pct(doc.share0)} of documents, rate 1: {pct(doc.share1)} (distribution in T1)",
    )


def left_out(
    excluded: Mapping[str, int], extra: Sequence[str] = (), known: bool = True
) -> ChecklistItem:
    """Excluded documents by reason, anything else dropped, and what is held fixed."""
    parts = []
    if excluded:
        parts.append(
            "excluded documents — "
            + ", ".join(f"{reason}: {count:,}" for reason, count in sorted(excluded.items()))
        )
    elif known:
        parts.append("no document was excluded")
    else:
        parts.append("documents excluded before this table was made are not known to ragstat")
    parts.extend(extra)
    parts.append(FIXED)
    return item("left_out", "; ".join(parts))


def interval_checklist(
    *,
    design: str,
    estimands: Sequence[str],
    blocks: Sequence[EstimandBlock],
    doc: DocSummary,
    reps: int | None,
    seed: int | None,
    leftout: ChecklistItem,
    paired: PairedInfo | None = None,
) -> tuple[ChecklistItem, ...]:
    """The nine items for a study, interval or comparison report."""
    return (
        item("population_design", design),
        _estimand(blocks, estimands),
        k_n_item(doc),
        chunks_item(doc),
        _method(blocks, reps, seed),
        _df(blocks),
        icc_item(doc),
        shares_item(doc, paired),
        leftout,
    )
