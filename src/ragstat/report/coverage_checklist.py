"""The document-level reporting checklist filled in for a coverage simulation."""

from __future__ import annotations

from collections.abc import Sequence

from ragstat.report import checklist as cl
from ragstat.report.fmt import ESTIMAND_LABELS, num
from ragstat.report.model import (
    ChecklistItem,
    DocSummary,
    Recommendation,
    SimulationInfo,
)

__all__ = ["coverage_checklist"]


def _ks(info: SimulationInfo) -> str:
    return ", ".join(map(str, info.ks))


def _sample_text(i: SimulationInfo) -> str:
    """What one simulated sample is, by design."""
    if i.design == "two-stage":
        t = "types" if i.types is None else f"{i.types:,} types"
        per = ", ".join(f"{i.types * k:,}" for k in i.ks) if i.types else None
        return (
            f"{t} drawn by SRS (the primary unit), then k = {_ks(i)} documents (or all, if "
            "fewer) within each drawn type"
            + (
                f" — up to {per} documents per sample"
                if per
                else " (types per sample not recorded)"
            )
        )
    if i.design == "stratified":
        return (
            f"k = {_ks(i)} documents allocated proportionally to the strata (at least two per "
            "stratum), drawn by SRS within each"
        )
    return f"k = {_ks(i)} documents drawn by SRS without replacement"


def _size_text(i: SimulationInfo) -> str:
    if i.design == "two-stage":
        t = "types" if i.types is None else f"{i.types:,} types"
        return (
            f"the primary sample size is the {t} drawn (df = types − 1), then the documents "
            "within them; not the queries"
        )
    return "the sample size is the k documents, not the queries"


def _prefix(i: SimulationInfo | DocSummary, many: bool) -> str:
    name = i.group if isinstance(i, SimulationInfo) else i.subject
    return f"{name}: " if many and name else ""


def _unit(design: str) -> str:
    if design == "two-stage":
        return (
            "the type, then the document within it (the two-stage design-based t interval, "
            "t − 1 df, finite corrections at both stages)"
        )
    if design == "stratified":
        return (
            "the document within its stratum (design-based stratified intervals with "
            "per-stratum finite corrections and Satterthwaite df)"
        )
    return "the document"


def _recommendation_text(recs: Sequence[Recommendation]) -> str:
    return "; ".join(
        f"{r.group + ' ' if r.group else ''}{r.key}: {', '.join(r.methods) or 'none'} "
        f"({r.basis or 'basis not recorded'})"
        for r in recs
    )


def _population_item(infos: Sequence[SimulationInfo]) -> ChecklistItem:
    many = len(infos) > 1
    return cl.item(
        "population_design",
        "; ".join(
            f"{_prefix(i, many)}census of K = {i.K:,} documents and N = {i.N:,} queries "
            f"treated as the population; design {i.design}; {i.reps:,} samples per K, each: "
            f"{_sample_text(i)}"
            for i in infos
        ),
    )


def _truth_item(infos: Sequence[SimulationInfo]) -> ChecklistItem:
    """The estimands simulated and their census values (the truth each interval aims at)."""
    many = len(infos) > 1
    return cl.item(
        "estimand",
        "; ".join(
            f"{_prefix(i, many)}"
            + "; ".join(
                f"{ESTIMAND_LABELS.get(e, e)} — census value {num(getattr(i, e, None))}"
                for e in (i.estimands or ("micro", "macro"))
            )
            for i in infos
        ),
    )


def _method_item(infos: Sequence[SimulationInfo], recs: Sequence[Recommendation]) -> ChecklistItem:
    """What was recomputed on each sample, the resampling unit and the recommendations."""
    first = infos[0]
    srs = all(i.design == "srs" for i in infos)
    boot = (
        f"{first.bootstrap_reps:,} bootstrap replicates inside each sample"
        if srs
        else "no bootstraps (design-based intervals)"
    )
    seed = "" if first.seed is None else f", seed {first.seed}"
    what = "every method" if srs else "the design-based interval"
    return cl.item(
        "method",
        f"{what} recomputed on each sample; resampling unit: {_unit(first.design)}; "
        f"{boot}{seed}. Recommended by this simulation, per K and estimand, with its basis: "
        f"{_recommendation_text(recs) or 'none'}",
    )


def _census_items(
    infos: Sequence[SimulationInfo], docs: Sequence[DocSummary]
) -> tuple[ChecklistItem, ...]:
    """Items 3, 4, 7 and 8 from the censuses' per-document summaries."""
    many = len(infos) > 1
    k_n = cl.item(
        "k_n",
        "; ".join(
            f"{_prefix(d, many)}census K = {d.K:,} documents, N = {d.N:,} queries; "
            f"each sample: {_sample_text(i)} — {_size_text(i)}"
            for d, i in zip(docs, infos, strict=True)
        ),
    )
    return k_n, cl.chunks_item(docs), cl.icc_item(docs), cl.shares_item(docs, None)


def _totals_items(infos: Sequence[SimulationInfo]) -> tuple[ChecklistItem, ...]:
    """Items 3, 4, 7 and 8 when only the census totals (K, N, micro, macro) are known."""
    many = len(infos) > 1
    why = "the simulation result keeps only the census totals (K, N, micro, macro)"
    k_n = cl.item(
        "k_n",
        "; ".join(
            f"{_prefix(i, many)}census K = {i.K:,}, N = {i.N:,}; each sample: "
            f"{_sample_text(i)} — {_size_text(i)}"
            for i in infos
        ),
    )
    chunks = cl.item(
        "chunks",
        "; ".join(
            f"{_prefix(i, many)}mean {i.N / i.K:.1f} queries per document in the census"
            for i in infos
        )
        + f"; min/median/max not available — {why}",
    )
    return k_n, chunks, cl.unavailable("icc_deff", why), cl.unavailable("shares", why)


def coverage_checklist(
    infos: Sequence[SimulationInfo],
    docs: Sequence[DocSummary],
    recs: Sequence[Recommendation],
) -> tuple[ChecklistItem, ...]:
    """The nine items of the document-level reporting checklist for a coverage simulation."""
    k_n, chunks, icc, shares = _census_items(infos, docs) if docs else _totals_items(infos)
    return (
        _population_item(infos),
        _truth_item(infos),
        k_n,
        chunks,
        _method_item(infos, recs),
        cl.unavailable(
            "df",
            "a simulation reports each method's coverage over many samples, "
            "not the df of one interval (see `ragstat interval`)",
        ),
        icc,
        shares,
        cl.item(
            "left_out",
            "an interval unavailable on a sample counts as a miss (the share is "
            "in the coverage table); documents outside the census are not represented; " + cl.FIXED,
        ),
    )
