"""The report of a coverage simulation (`ragstat simulate --json`, also its --from-study form)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
    Recommendation,
    Report,
    SimulationInfo,
    TwoStage,
)

__all__ = ["report_from_simulation"]


def _group(study: Mapping | None) -> str:
    if study is None:
        return ""
    return f"{study.get('retriever', '?')}, {study.get('chunk_words', '?')} words"


def _info(group: str, d: Mapping, study: Mapping | None) -> SimulationInfo:
    c = d["census"]
    ks = sorted({int(r["k"]) for r in d["results"]})
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
        doc_id=[f"{i}" for i in range(census.M)],
        n=census.n,
        s=census.s,
        q=census.w + census.s * census.s / census.n,
        w=census.w,
        binary=bool(census.binary),
        stratum=census.stratum,
        score="census",
    )


def _checklist(
    infos: Sequence[SimulationInfo], doc: DocSummary | None, recs: Sequence[Recommendation]
) -> tuple[ChecklistItem, ...]:
    first = infos[0]
    ests = ["micro", "macro"] + (["type_mean"] if first.type_mean is not None else [])
    pop = "; ".join(
        f"{(i.group + ': ') if i.group else ''}census of K = {i.K:,} documents and N = {i.N:,} "
        f"queries treated as the population; design {i.design}; {i.reps:,} samples of "
        f"k = {', '.join(map(str, i.ks))} documents"
        for i in infos
    )
    truth = "; ".join(f"{ESTIMAND_LABELS[e]} — census value {num(getattr(first, e))}" for e in ests)
    rec_text = "; ".join(
        f"{r.group + ' ' if r.group else ''}{r.key}: {', '.join(r.methods) or 'none'}" for r in recs
    )
    method = (
        "every method recomputed on each sample; resampling unit: the document; "
        f"{first.bootstrap_reps:,} bootstrap replicates inside each sample, seed {first.seed}. "
        f"Within 2 Monte-Carlo SEs of nominal: {rec_text or 'none'}"
    )
    if doc is None:
        why = "the simulation result keeps only the census totals (K, N, micro, macro)"
        k_n = cl.item(
            "k_n",
            f"census K = {first.K:,}, N = {first.N:,}; each sample has k "
            f"documents (k = {', '.join(map(str, first.ks))})",
        )
        chunks = cl.item(
            "chunks",
            f"mean {first.N / first.K:.1f} queries per document in the "
            "census; min/median/max not available — " + why,
        )
        icc, shares = cl.unavailable("icc_deff", why), cl.unavailable("shares", why)
    else:
        k_n, chunks = cl.k_n_item(doc), cl.chunks_item(doc)
        icc, shares = cl.icc_item(doc), cl.shares_item(doc, None)
    return (
        cl.item("population_design", pop),
        cl.item("estimand", truth),
        k_n,
        chunks,
        cl.item("method", method),
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


def report_from_simulation(
    result: dict,
    *,
    source: str,
    title: str | None = None,
    created: str | None = None,
    census=None,
    score: str | None = None,
) -> Report:
    """The coverage report; ``result`` is the dict `ragstat simulate --json` prints.

    ``census`` (a `ragstat.simulation.Census`, optional) adds T1, T2, T4 per type
    and the per-document checklist items.
    """
    if not isinstance(result, Mapping):
        raise InputError("simulation result must be the JSON object `ragstat simulate` prints")
    try:
        groups = _studies(result)
        infos = [_info(g, d, s) for g, d, s in groups]
        rows = [r for g, d, _ in groups for r in _rows(g, d)]
        recs = [r for g, d, _ in groups for r in _recs(g, d)]
        extra = [n for _, d, _ in groups for n in d.get("notes", [])]
        caveat = (groups[0][1].get("recommendation") or {}).get("caveat")
        level = float(groups[0][1]["level"])
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(
            f"simulation result: unexpected layout ({type(exc).__name__}: {exc})"
        ) from None
    fields = _census_fields(census, infos[0], level)
    doc = fields.pop("doc")
    first = infos[0]
    return Report(
        kind="simulation",
        title=title or f"Coverage simulation — {source}",
        source=source,
        created=created or now(),
        level=level,
        score=score or "not recorded in the simulation result",
        design=first.design,
        estimands=tuple(
            e for e in ("micro", "macro", "type_mean") if any(r.estimand == e for r in rows)
        ),
        checklist=_checklist(infos, doc, recs),
        simulations=tuple(infos),
        coverage=tuple(rows),
        recommendations=tuple(recs),
        seed=first.seed,
        bootstrap_reps=first.bootstrap_reps,
        notes=tuple(dict.fromkeys([*extra, *([caveat] if caveat else [])])),
        generator=_generator(),
        **fields,
    )


def _census_fields(census, first: SimulationInfo, level: float) -> dict:
    """T1, T2 and T4 from the census when it is given; a target-only T4 otherwise."""
    two = None
    if census is None:
        if first.design == "two-stage":
            two = TwoStage("census", first.type_mean, (), first.micro, first.macro)
        return {"doc": None, "two_stage": two}
    stats = _census_stats(census)
    doc = parts.doc_summary("census", stats, compute_diagnostics(stats))
    if first.design == "two-stage":
        two = parts.two_stage("census", stats, first.type_mean)
    return {
        "doc": doc,
        "docs": (doc,),
        "histograms": (parts.histogram("census", stats),),
        "strata_field": "stratum" if stats.stratum is not None else None,
        "strata": parts.stratum_rows("census", stats, level),
        "two_stage": two,
    }
