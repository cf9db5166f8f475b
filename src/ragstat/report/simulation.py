"""The report of a coverage simulation (`ragstat simulate --json`, also its --from-study form)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.errors import InputError
from ragstat.inference.diagnostics import compute_diagnostics
from ragstat.inference.results import NAIVE_METHODS
from ragstat.records.docstats import DocStats
from ragstat.report import parts
from ragstat.report.build import generator, now
from ragstat.report.coverage_checklist import coverage_checklist
from ragstat.report.fmt import method_label
from ragstat.report.model import (
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


def _sentences(
    recs: Sequence[Recommendation], rows: Sequence[CoverageRow], level: float
) -> tuple[str, ...]:
    """One plain sentence per K and estimand: the method to use and the coverage it had."""
    cov = {(r.group, r.k, r.estimand, r.method): r for r in rows}
    out = []
    for rec in recs:
        k_text, _, est = rec.key.partition(" ")
        k = int(k_text.removeprefix("k=")) if k_text.removeprefix("k=").isdigit() else None
        where = f"{rec.group}: w" if rec.group else "W"
        lead = f"{where}ith {k_text if k is None else f'K = {k:,} documents'} per sample, {est}"
        row = None if not rec.methods else cov.get((rec.group, k or -1, est, rec.methods[0]))
        if row is None:
            out.append(f"{lead}: no method can be recommended ({rec.basis or 'none simulated'})")
            continue
        out.append(
            f"{lead}: use {method_label(row.method)}; it covered {100 * row.coverage:.1f} % "
            f"(± {100 * row.coverage_se:.1f}) of {row.reps:,} samples at nominal "
            f"{100 * level:g} %"
        )
    return tuple(out)


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
        verdicts=_sentences(p.recs, p.rows, p.level),
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
        checklist=coverage_checklist(p.infos, docs, p.recs),
        simulations=p.infos,
        coverage=p.rows,
        recommendations=p.recs,
        seed=first.seed,
        bootstrap_reps=first.bootstrap_reps if first.design == "srs" else None,
        notes=p.notes,
        generator=generator(),
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
