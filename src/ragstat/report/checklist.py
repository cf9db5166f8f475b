"""The document-level reporting checklist (the interval guide's "what to report"), filled in from the
data; a missing item says why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragstat.inference.results import DesignInfo
from ragstat.report.fmt import ESTIMAND_LABELS, clustering, df, method_label, num, pct, whole
from ragstat.report.model import ChecklistItem, DocSummary, EstimandBlock, PairedInfo

__all__ = [
    "FIXED",
    "LABELS",
    "chunks_item",
    "design_estimand_text",
    "design_text",
    "icc_item",
    "interval_checklist",
    "item",
    "k_n_item",
    "left_out",
    "method_item",
    "shares_item",
    "unavailable",
    "unit_text",
]

#: The nine items of the checklist (the interval guide's list), in order (key → label).
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

#: The fixed parts of the experiment the interval does not cover (the interval guide).
FIXED = (
    "held fixed, not sampled (the interval does not cover their variation): the index, "
    "the retriever and its settings, and the population of questions"
)
_DESIGNS = {
    "srs": "simple random sample of documents (SRS)",
    "stratified": "stratified sample: documents drawn at random within fixed strata",
    "two-stage": "two-stage sample: types drawn first, then documents within each type",
}
#: Groups listed one by one in the design text (the rest are counted).
GROUPS_MAX = 30
#: What each design-based estimand is and how the design estimates it.
_DESIGN_ESTIMANDS = {
    ("stratified", "micro"): (
        "micro: the population rate of a random query R = Σ s_d / Σ n_d over all M documents, "
        "estimated by the combined ratio R̂ = Σ w_d s_d / Σ w_d n_d with w_d = M_h / K_h"
    ),
    ("stratified", "macro"): (
        "macro: the population mean of the document rates r̄ = (1/M) Σ s_d / n_d, estimated by "
        "the stratified mean of rates Σ_h (M_h / M) r̄_h (= Σ w_d r_d / Σ w_d, w_d = M_h / K_h)"
    ),
    ("two-stage", "type_mean"): (
        "type mean: θ = (1/T) Σ_i μ_i, the mean over all T types of their mean document rate, "
        "estimated by the mean over the t sampled types of their sampled documents' mean rate"
    ),
}


def item(key: str, text: str, available: bool = True) -> ChecklistItem:
    return ChecklistItem(key=key, label=LABELS[key], text=text, available=available)


def unavailable(key: str, why: str) -> ChecklistItem:
    return item(key, f"not available — {why}", available=False)


def _docs(doc: DocSummary | Sequence[DocSummary]) -> list[DocSummary]:
    return [doc] if isinstance(doc, DocSummary) else list(doc)


def _groups(design: DesignInfo, sampled_only: bool = False) -> str:
    rows = [
        (g, k, m)
        for g, k, m in zip(design.groups, design.sampled, design.population, strict=True)
        if k > 0 or not sampled_only
    ]
    text = "; ".join(f"{g}: {k:,} of {m:,}" for g, k, m in rows[:GROUPS_MAX])
    if len(rows) > GROUPS_MAX:
        text += f"; … and {len(rows) - GROUPS_MAX:,} more"
    return text


def _types(design: DesignInfo) -> tuple[int, int]:
    """(t sampled types, T types in the population) of a two-stage design."""
    return sum(1 for k in design.sampled if k > 0), len(design.groups)


def design_text(design: DesignInfo | None, name: str, population: int | None) -> str:
    """The design assumed by the intervals, with M / the finite corrections when declared."""
    text = _DESIGNS.get(name, name)
    if design is not None and design.groups and name == "two-stage":
        t, T = _types(design)
        text += (
            f"; t = {t:,} of T = {T:,} types sampled (finite correction 1 − t/T between "
            f"types); documents sampled of each sampled type, k_i of M_i — "
            f"{_groups(design, sampled_only=True)}; finite correction (1 − k_i/M_i) within "
            "each type"
        )
    elif design is not None and design.groups and name == "stratified":
        text += (
            f"; K_h of M_h documents per stratum — {_groups(design)}; per-stratum finite "
            "correction (1 − K_h/M_h) applied with the population counts M_h"
        )
    elif design is not None and design.groups:
        text += f"; sampled of population per group — {_groups(design)}"
    if population is not None:
        text += f"; population M = {population:,} documents, finite correction (1 − K/M) applied"
    elif name == "srs":
        text += "; population size M not declared (no finite-population correction)"
    return text


def design_estimand_text(design: str, estimand: str) -> str:
    """The estimand, and under a design-based analysis its estimator."""
    return _DESIGN_ESTIMANDS.get((design, estimand)) or ESTIMAND_LABELS.get(estimand, estimand)


def _estimand(
    blocks: Sequence[EstimandBlock], estimands: Sequence[str], design: str = "srs"
) -> ChecklistItem:
    parts = []
    for e in estimands:
        vals = [f"{b.subject} {num(b.estimate)}" for b in blocks if b.estimand == e]
        parts.append(f"{design_estimand_text(design, e)} ({'; '.join(vals) or 'not computed'})")
    return item("estimand", "declared: " + "; ".join(parts))


def k_n_item(doc: DocSummary, design: DesignInfo | None = None) -> ChecklistItem:
    """K and N; under a stratified or two-stage design, the sample sizes that drive the SE."""
    name = "srs" if design is None or not design.groups else design.name
    if design is not None and name == "two-stage":
        t, T = _types(design)
        text = (
            f"t = {t:,} of T = {T:,} types, K = {doc.K:,} documents within them, "
            f"N = {doc.N:,} queries — the primary sample size is the number of types t "
            f"(df = t − 1 = {t - 1:,}), then the documents within each type; not N"
        )
    elif design is not None and name == "stratified":
        text = (
            f"K = {doc.K:,} documents in H = {len(design.groups):,} strata, N = {doc.N:,} "
            "queries — the sample size is K (K_h per stratum, in item 1), not N"
        )
    else:
        text = f"K = {doc.K:,} documents, N = {doc.N:,} queries — the sample size is K, not N"
    if doc.scored is not None:
        text += f"; {doc.scored:,} of the N queries were sampled and scored (weights n_d / m_d)"
    return item("k_n", text)


def _chunks(doc: DocSummary) -> str:
    return (
        f"min {whole(doc.n_min)}, median {doc.n_median:g}, mean {doc.n_mean:.1f}, "
        f"max {whole(doc.n_max)}; CV {doc.n_cv:.2f}; the largest 10 % of documents hold "
        f"{pct(doc.top10_share)} of the queries"
    )


def chunks_item(doc: DocSummary | Sequence[DocSummary]) -> ChecklistItem:
    """Chunks per document; said once when every subject has the same documents."""
    docs = _docs(doc)
    texts = [_chunks(d) for d in docs]
    if len(docs) == 1:
        return item("chunks", texts[0])
    if len(set(texts)) == 1 and len({(d.K, d.N) for d in docs}) == 1:
        names = ", ".join(d.subject for d in docs)
        return item("chunks", f"{texts[0]} (the same documents and queries for {names})")
    return item("chunks", "; ".join(f"{d.subject}: {t}" for d, t in zip(docs, texts, strict=True)))


def unit_text(design: DesignInfo | None) -> str:
    """The resampling / sampling unit and the corrections the design applies."""
    name = "srs" if design is None else design.name
    if design is not None and name == "two-stage":
        t, T = _types(design)
        return (
            f"Primary sampling unit: the type — t = {t:,} of T = {T:,} types sampled, df = "
            f"t − 1 = {t - 1:,}; secondary unit: the document within each sampled type; finite "
            "corrections at both stages, (1 − t/T) between types and (1 − k_i/M_i) within"
        )
    if name == "stratified":
        return (
            "Sampling unit: the document, drawn at random within each fixed stratum; "
            "linearised design-based variance summed over strata with the per-stratum finite "
            "correction (1 − K_h/M_h) from the population counts; df by Satterthwaite over "
            "strata"
        )
    return "Resampling and clustering unit: the document"


def method_item(
    blocks: Sequence[EstimandBlock],
    reps: int | None,
    seed: int | None,
    design: DesignInfo | None = None,
) -> ChecklistItem:
    """The interval shown for each block (and whether it is the recommended one), the other
    intervals actually computed, and the sampling unit."""
    parts = []
    for b in blocks:
        shown = b.honest
        head = f"{b.subject} {b.estimand}: "
        if shown is None:
            computed = ", ".join(iv.method for iv in b.intervals) or "none"
            reason = b.lead().reason or "no method can be recommended"
            parts.append(head + f"no interval shown ({reason}); computed: {computed}")
            continue
        text = head + f"{method_label(shown.method)} ({shown.method}), the recommended one"
        others = [
            iv.method + (" (naive, contrast only)" if iv.naive else "")
            for iv in b.intervals
            if iv.method != shown.method
        ]
        if others:
            text += f"; also computed: {', '.join(others)}"
        parts.append(text)
    text = "; ".join(parts) + ". " + unit_text(design)
    if reps:
        text += f"; document bootstrap with {reps:,} replicates"
    if seed is not None and (reps or design is None or design.name == "srs"):
        text += f", seed {seed}"
    return item("method", text)


def _df(blocks: Sequence[EstimandBlock], design: DesignInfo | None = None) -> ChecklistItem:
    rule = "" if design is None or design.name == "srs" else f" ({design.df_rule})"
    parts = []
    for b in blocks:
        rows = [iv for iv in b.intervals if iv.df is not None and not iv.naive]
        if rows:
            dfs = ", ".join(f"{iv.method} ν = {df(iv.df)}{rule}" for iv in rows)
            parts.append(f"{b.subject} {b.estimand}: {dfs}")
    if not parts:
        return unavailable("df", "no computed interval uses a t reference with estimated df")
    return item("df", "; ".join(parts))


def _icc(doc: DocSummary) -> str | None:
    if doc.icc is None:
        return None
    text = f"{doc.subject}: ICC {clustering(doc.icc, 3)}, DEFF {clustering(doc.deff, 2)}"
    if doc.n_eff is not None and doc.deff is not None and doc.deff > 0:
        text += f", N/DEFF ≈ {doc.n_eff:,.0f}"
    if doc.lag1 is not None:
        text += f"; lag-1 within-document autocorrelation {doc.lag1:.3f}"
    return text


def icc_item(doc: DocSummary | Sequence[DocSummary]) -> ChecklistItem:
    docs = _docs(doc)
    texts = [_icc(d) for d in docs]
    if all(t is None for t in texts):
        return unavailable(
            "icc_deff",
            "the ICC is undefined here (fewer than 2 documents or no variation between them)",
        )
    shown = [
        t if t is not None else f"{d.subject}: ICC undefined (no variation between documents)"
        for d, t in zip(docs, texts, strict=True)
    ]
    return item(
        "icc_deff",
        "; ".join(shown) + " — they explain the clustering; the intervals above are the "
        "clustered calculation, not N/DEFF",
    )


def _shares(doc: DocSummary, named: bool) -> str:
    head = f"{doc.subject}: " if named else ""
    if not doc.binary:
        return head + (
            f"documents with mean score 0: {pct(doc.share0)}, with mean score 1: "
            f"{pct(doc.share1)} (scores are not 0/1; distribution in T1)"
        )
    return head + f"rate 0: {pct(doc.share0)} of documents, rate 1: {pct(doc.share1)}"


def shares_item(
    doc: DocSummary | Sequence[DocSummary],
    paired: PairedInfo | None,
    extremes: tuple[float, float, float] | None = None,
) -> ChecklistItem:
    """Shares at 0 and 1 per subject; for a paired comparison also the ties and the shares of
    documents at each extreme of the difference (``extremes``: shares at −1, 0, +1, default
    from the difference's own summary)."""
    docs = _docs(doc)
    if paired is not None:
        a, b = paired.systems[:2]
        if extremes is None:
            d = docs[0]
            neg = d.share_neg1 if d.share_neg1 is not None else float("nan")
            extremes = (neg, d.share0, d.share1)
        neg, zero, pos = extremes
        text = (
            f"documents where the two systems tie (difference 0): {pct(paired.ties_share)}; "
            f"with identical scores on every query: {pct(paired.identical_share)}; "
            f"at the extremes of the per-document difference {a} − {b}: −1 ({b} right on every "
            f"query, {a} on none) {pct(neg)}, 0 {pct(zero)}, +1 ({a} right on every query, {b} "
            f"on none) {pct(pos)}"
        )
        rest = [d for d in docs if d.subject != f"{a} − {b}"]
        if rest:
            text += "; per system: " + "; ".join(_shares(d, True) for d in rest)
        return item("shares", text)
    named = len(docs) > 1
    return item("shares", "; ".join(_shares(d, named) for d in docs) + " (distribution in T1)")


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
    doc: DocSummary | Sequence[DocSummary],
    reps: int | None,
    seed: int | None,
    leftout: ChecklistItem,
    paired: PairedInfo | None = None,
    design_info: DesignInfo | None = None,
    extremes: tuple[float, float, float] | None = None,
) -> tuple[ChecklistItem, ...]:
    """The nine items for a study, interval or comparison report.

    ``design`` is the text of item 1; ``design_info`` the design the intervals assumed
    (stratified / two-stage change items 2, 3, 5 and 6); ``doc`` one summary or one per
    subject (a study's retrievers); ``extremes`` the shares at −1, 0, +1 of a paired
    difference when ``doc`` are not the difference's own summary.
    """
    docs = _docs(doc)
    name = "srs" if design_info is None else design_info.name
    if len(docs) == 1:
        k_n = k_n_item(docs[0], design_info)
    else:
        firsts = {(d.K, d.N, d.scored) for d in docs}
        k_n = k_n_item(docs[0], design_info)
        if len(firsts) > 1:
            k_n = item("k_n", "; ".join(f"{d.subject}: {k_n_item(d).text}" for d in docs))
    return (
        item("population_design", design),
        _estimand(blocks, estimands, name),
        k_n,
        chunks_item(docs),
        method_item(blocks, reps, seed, design_info),
        _df(blocks, design_info),
        icc_item(docs),
        shares_item(docs, paired, extremes),
        leftout,
    )
