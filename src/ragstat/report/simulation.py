"""The report of a coverage simulation (`ragstat simulate --json`, also its --from-study form)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.errors import InputError
from ragstat.inference.diagnostics import compute_diagnostics
from ragstat.inference.results import NAIVE_METHODS
from ragstat.records.docstats import DocStats
from ragstat.report import checklist as cl
from ragstat.report import parts
from ragstat.report.build import _generator, now
from ragstat.report.fmt import ESTIMAND_LABELS, num
from ragstat.report.model import (
    ChecklistItem,
    CoverageRow,
    DocSummary,
    RateHistogram,
    Recommendation,
    Report,
    SimulationInfo,
    StratumRow,
    TwoStage,
)

__all__ = ["report_from_simulation"]


def _group(study: Mapping | None) -> str:
    if study is None:
        return ""
    return f"{study.get('retriever', '?')}, {study.get('chunk_words', '?')} words"


def _info(group: str, d: Mapping, study: Mapping | None, types: int | None) -> SimulationInfo:
    c = d["census"]
    ks = sorted({int(r["k"]) for r in d["results"]})
    ests = tuple(dict.fromkeys(str(r["estimand"]) for r in d["results"]))
    t = d.get("types", types) if str(d["design"]) == "two-stage" else None
    return SimulationInfo(
        group=group,
        design=str(d["design"]),
        K=int(c["K"]),
        N=int(c["N"]),
        micro=float(c["micro"]),
        macro=float(c["macro"]),
        type_mean=parts.finite(c.get("type_mean")),
        ks=tuple(ks),
        reps=int(d["reps"]),
        bootstrap_reps=int(d["bootstrap_reps"]),
        seed=d.get("seed"),
        chunk_words=None if study is None else study.get("chunk_words"),
        retriever=None if study is None else study.get("retriever"),
        documents=None if study is None else study.get("documents"),
        types=None if t is None else int(t),
        estimands=ests,
    )


def _rows(group: str, d: Mapping) -> list[CoverageRow]:
    return [
        CoverageRow(
            group=group,
            k=int(r["k"]),
            estimand=str(r["estimand"]),
            method=str(r["method"]),
            reps=int(r["reps"]),
            coverage=float(r["coverage"]),
            coverage_se=float(r["coverage_se"]),
            mean_width=parts.finite(r.get("mean_width")),
            bias=parts.finite(r.get("bias")),
            rmse=parts.finite(r.get("rmse")),
            unavailable=float(r.get("unavailable") or 0.0),
            naive=r["method"] in NAIVE_METHODS,
        )
        for r in d["results"]
    ]


def _recs(group: str, d: Mapping) -> list[Recommendation]:
    by = (d.get("recommendation") or {}).get("by_k_estimand") or {}
    return [
        Recommendation(group, str(key), tuple(v.get("methods") or ()), str(v.get("basis", "")))
        for key, v in by.items()
    ]


def _census_stats(census) -> DocStats:
    """DocStats of a `ragstat.simulation.Census` (ids are positions)."""
    return DocStats(
        doc_id=np.arange(census.M).astype(str),
        n=census.n,
        s=census.s,
        q=census.w + census.s * census.s / census.n,
        w=census.w,
        binary=bool(census.binary),
        stratum=census.stratum,
        score="census",
    )


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


def _checklist(
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


def _studies(result: Mapping) -> list[tuple[str, Mapping, Mapping | None]]:
    if "studies" in result:
        studies = result["studies"]
        if not isinstance(studies, list) or not studies:
            raise InputError("simulation result: 'studies' must be a non-empty list")
        return [(_group(s), s, s) for s in studies]
    return [("", result, None)]


def _censuses(census, groups: int) -> list:
    """``census`` as one entry per simulated census (None: not given)."""
    if census is None:
        return [None] * groups
    many = list(census) if isinstance(census, (list, tuple)) else [census]
    if len(many) != groups:
        raise InputError(
            f"simulation report: {len(many)} census(es) given for {groups} simulated "
            "census(es); pass one per study, in the order of the result's 'studies'"
        )
    return many


@dataclass(frozen=True)
class _Parsed:
    """What a simulation result holds, one entry per simulated census where it varies."""

    infos: tuple[SimulationInfo, ...]
    rows: tuple[CoverageRow, ...]
    recs: tuple[Recommendation, ...]
    notes: tuple[str, ...]
    level: float
    score: str | None


def _parse(result: Mapping, types: int | None) -> _Parsed:
    """Read the result of `ragstat simulate --json`; a layout it cannot read is an InputError."""
    if not isinstance(result, Mapping):
        raise InputError("simulation result must be the JSON object `ragstat simulate` prints")
    try:
        groups = _studies(result)
        caveat = (groups[0][1].get("recommendation") or {}).get("caveat")
        extra = [n for _, d, _ in groups for n in d.get("notes", [])]
        recorded = result.get("score") or next(
            (d.get("score") for _, d, _ in groups if d.get("score")), None
        )
        return _Parsed(
            infos=tuple(_info(g, d, s, types) for g, d, s in groups),
            rows=tuple(r for g, d, _ in groups for r in _rows(g, d)),
            recs=tuple(r for g, d, _ in groups for r in _recs(g, d)),
            notes=tuple(dict.fromkeys([*extra, *([caveat] if caveat else [])])),
            level=float(groups[0][1]["level"]),
            score=str(recorded) if recorded else None,
        )
    except InputError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(
            f"simulation result: unexpected layout ({type(exc).__name__}: {exc})"
        ) from None


def report_from_simulation(
    result: dict,
    *,
    source: str,
    title: str | None = None,
    created: str | None = None,
    census=None,
    score: str | None = None,
    types: int | None = None,
) -> Report:
    """The coverage report; ``result`` is the dict `ragstat simulate --json` prints.

    ``census``: the `ragstat.simulation.Census` simulated (optional) — for the
    ``{"studies": [...]}`` form a list with one per study, in order; it adds T1, T2, T4
    per type and the per-document checklist items. ``score``: the score column (else the
    result's or the first study's ``score``, if recorded). ``types``: types drawn per
    sample in a two-stage run (else the result's ``types``, if recorded).
    """
    p = _parse(result, types)
    fields = _census_fields(_censuses(census, len(p.infos)), p.infos, p.level)
    docs = fields.pop("doc")
    first = p.infos[0]
    return Report(
        kind="simulation",
        title=title or f"Coverage simulation — {source}",
        source=source,
        created=created or now(),
        level=p.level,
        score=score or p.score or "not recorded in the simulation result",
        design=first.design,
        estimands=tuple(
            e for e in ("micro", "macro", "type_mean") if any(r.estimand == e for r in p.rows)
        ),
        checklist=_checklist(p.infos, docs, p.recs),
        simulations=p.infos,
        coverage=p.rows,
        recommendations=p.recs,
        seed=first.seed,
        bootstrap_reps=first.bootstrap_reps if first.design == "srs" else None,
        notes=p.notes,
        generator=_generator(),
        **fields,
    )


#: Censuses drawn in T1 (all of them are in the tables).
FIGURE_MAX = 4


def _census_fields(censuses: list, infos: Sequence[SimulationInfo], level: float) -> dict:
    """T1, T2 and T4 from the censuses when given; a target-only T4 otherwise."""
    first = infos[0]
    two = None
    if any(c is None for c in censuses):
        if first.design == "two-stage":
            two = TwoStage("census", first.type_mean, (), first.micro, first.macro)
        return {"doc": [], "two_stage": two}
    many = len(censuses) > 1
    docs: list[DocSummary] = []
    hists: list[RateHistogram] = []
    strata: list[StratumRow] = []
    for census, info in zip(censuses, infos, strict=True):
        name = info.group if many and info.group else "census"
        stats = _census_stats(census)
        docs.append(parts.doc_summary(name, stats, compute_diagnostics(stats)))
        hists.append(parts.histogram(name, stats))
        strata += parts.stratum_rows(name, stats, level)
        if two is None and info.design == "two-stage":
            two = parts.two_stage(name, stats, info.type_mean)
    stratum = censuses[0].stratum is not None
    return {
        "doc": docs,
        "docs": tuple(docs),
        "histograms": tuple(hists[:FIGURE_MAX]),
        "strata_field": "stratum" if stratum else None,
        "strata": tuple(strata),
        "two_stage": two,
    }
