"""Reports from in-memory results: `ragstat interval` and `ragstat compare`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np

from ragstat.errors import InputError
from ragstat.inference.headline import describe, headlines
from ragstat.inference.paired import ComparisonReport
from ragstat.inference.results import IntervalReport
from ragstat.inference.verdict import verdicts
from ragstat.records.docstats import DocStats, QueryScores
from ragstat.report import checklist as cl
from ragstat.report import parts
from ragstat.report.model import (
    Autocorrelation,
    ChecklistItem,
    EstimandBlock,
    PairedInfo,
    Report,
)

__all__ = ["generator", "now", "report_from_comparison", "report_from_interval", "source_line"]


def source_line(source: str, info: object) -> str:
    """The report's source fact: ``source``, then, for another tool's file whose verb set
    them, the tool's own numbers beside ragstat's (one sentence each)."""
    said = [c.sentence for c in getattr(info, "comparisons", ())]
    return " ".join([source, *said]) if said else source


def now() -> str:
    """The creation timestamp stored in a report (UTC, to the second)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def generator() -> str:
    """What wrote a report: ``ragstat <version>``."""
    from importlib import metadata

    try:
        return f"ragstat {metadata.version('ragstat')}"
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "ragstat"


@dataclass(frozen=True)
class _Common:
    """The parts an interval and a comparison report share."""

    blocks: tuple[EstimandBlock, ...]
    fields: dict
    checklist: tuple[ChecklistItem, ...]


def _bootstrap_reps(report: IntervalReport) -> int | None:
    boot = any(
        iv.replicates for res in report.estimands.values() for iv in res.intervals if iv.available
    )
    return report.bootstrap_reps if boot else None


def _common(
    subject: str,
    report: IntervalReport,
    stats: DocStats,
    *,
    leftout: ChecklistItem,
    paired: PairedInfo | None = None,
    span: tuple[float, float] | None = None,
    acf: Autocorrelation | None = None,
) -> _Common:
    if stats.K != report.K:
        raise InputError(f"the DocStats have {stats.K} documents but the result has {report.K}")
    name = report.design.name
    blocks = parts.blocks_from_report(subject, report)
    notes: list[str] = []
    if name != "srs":
        blocks, notes = _with_naive(blocks, stats, report.level)
    doc = parts.doc_summary(subject, stats, report.diagnostics, difference=paired is not None)
    estimands = tuple(report.estimands)
    design = cl.design_text(report.design, name, report.population)
    reps = _bootstrap_reps(report)
    two = None
    if name == "two-stage":
        res = report.estimands.get("type_mean")
        iv = blocks[0].honest if blocks else None
        two = parts.two_stage(subject, stats, None if res is None else res.estimate, iv)
    acf = acf or parts.lag1_only(subject, doc, stats.lag is not None)
    weights = parts.design_weights(stats, report.design)
    fields = dict(
        level=report.level,
        score=report.score,
        design=name,
        estimands=estimands,
        results=blocks,
        docs=(doc,),
        histograms=(parts.histogram(subject, stats, span, weights=weights),),
        strata_field="stratum" if stats.stratum is not None else None,
        strata=parts.stratum_rows(subject, stats, report.level),
        two_stage=two,
        autocorrelation=() if acf is None else (acf,),
        paired=paired,
        population=report.population,
        seed=report.seed,
        bootstrap_reps=reps,
        warnings=tuple(report.warnings),
        notes=tuple(notes),
        generator=generator(),
    )
    items = cl.interval_checklist(
        design=design,
        estimands=estimands,
        blocks=blocks,
        doc=doc,
        reps=reps,
        seed=report.seed,
        leftout=leftout,
        paired=paired,
        design_info=report.design,
    )
    return _Common(blocks, fields, items)


def _with_naive(
    blocks: tuple[EstimandBlock, ...], stats: DocStats, level: float
) -> tuple[tuple[EstimandBlock, ...], list[str]]:
    """Design-based blocks with the naive iid interval added for contrast (the design-based
    analysis computes none): micro and the type mean get the pooled query rate's, macro the
    unweighted mean of rates'."""
    if all(b.naive_interval is not None for b in blocks):
        return blocks, []
    naive = parts.naive_iid(stats, level)
    out = []
    for b in blocks:
        row = naive.get("macro" if b.estimand == "macro" else "micro")
        if b.naive_interval is None and row is not None:
            b = replace(b, intervals=(*b.intervals, replace(row, estimand=b.estimand)))
        out.append(b)
    note = (
        "The design-based analysis computes no naive interval; the report adds the naive iid "
        "Wald interval (queries as independent, unweighted: the pooled query rate for micro "
        "and the type mean, the plain mean of document rates for macro) for contrast only. "
        "Its centre is the unweighted sample value, not the design's estimate."
    )
    return tuple(out), [note]


def _acf_from_rows(
    subject: str, stats: DocStats, rows: QueryScores | None, positions: Sequence | None
) -> Autocorrelation | None:
    if rows is None:
        return None
    if rows.y.shape[0] != round(stats.N):
        raise InputError(
            f"query_scores have {rows.y.shape[0]} rows but the documents hold "
            f"N = {round(stats.N)} queries"
        )
    if positions is None:
        return None  # the rows' order within a document is unknown: no ACF beyond lag 1
    pos = np.asarray(positions)
    if pos.shape != rows.y.shape:
        raise InputError("positions must have one value per query score")
    return parts.acf_by_lag(subject, stats.doc_id[rows.doc_index], pos, rows.y)


def report_from_interval(
    report: IntervalReport,
    stats: DocStats,
    *,
    source: str,
    design: str = "srs",
    query_scores: QueryScores | None = None,
    title: str | None = None,
    created: str | None = None,
    positions: Sequence | None = None,
    excluded: dict[str, int] | None = None,
) -> Report:
    """The report of `ragstat interval`: ``stats`` are the DocStats the intervals came from.

    ``design`` names the sampling design when the result does not carry it;
    ``query_scores`` with ``positions`` (one per row) give T6 at lags 1..5;
    ``excluded`` counts documents dropped upstream by reason, if known.
    """
    subject = report.score
    if report.design.name == "srs" and design != "srs":
        raise InputError(f"design {design!r} given but the result was computed as srs")
    acf = _acf_from_rows(subject, stats, query_scores, positions)
    leftout = cl.left_out(excluded or {}, known=excluded is not None)
    common = _common(subject, report, stats, leftout=leftout, acf=acf)
    return Report(
        verdicts=tuple(describe(h, report.score) for h in headlines(report).values()),
        kind="interval",
        title=title or f"{report.score} — {source}",
        source=source_line(source, report.source),
        created=created or now(),
        checklist=common.checklist,
        excluded_counts=dict(excluded or {}),
        excluded_total=sum((excluded or {}).values()),
        **common.fields,
    )


def _paired(result: ComparisonReport) -> PairedInfo:
    p, pairing = result.paired, result.pairing
    return PairedInfo(
        systems=tuple(pairing.systems) if pairing is not None else ("A", "B"),
        ties_share=float(p.ties_share),
        identical_share=float(p.identical_share),
        permutation_p={k: float(v) for k, v in p.permutation_p.items()},
        permutation_method=p.permutation_method,
        permutation_reps=p.permutation_reps,
        matched=None if pairing is None else pairing.matched,
        only_a=None if pairing is None else pairing.only_a,
        only_b=None if pairing is None else pairing.only_b,
        on_missing=None if pairing is None else pairing.on_missing,
    )


def unmatched_text(paired: PairedInfo) -> list[str]:
    """What the pairing left out (queries of one system only)."""
    if paired.matched is None:
        return ["query matching not recorded (the differences were given per document)"]
    a, b = paired.systems[:2]
    drop = paired.on_missing == "drop"
    return [
        f"queries paired: {paired.matched:,}; unmatched queries "
        + ("dropped" if drop else "(none allowed)")
        + f": {paired.only_a or 0:,} only in {a}, {paired.only_b or 0:,} only in {b}"
    ]


def report_from_comparison(
    result: ComparisonReport,
    stats: DocStats,
    *,
    source: str,
    title: str | None = None,
    created: str | None = None,
    excluded: dict[str, int] | None = None,
) -> Report:
    """The report of `ragstat compare`: ``stats`` are the per-document sums of y_A − y_B."""
    paired = _paired(result)
    a, b = paired.systems[:2]
    subject = f"{a} − {b}"
    bound = float(np.max(np.abs(stats.r))) if stats.K else 1.0
    span = (-1.0, 1.0) if bound <= 1 else (-bound, bound)
    leftout = cl.left_out(excluded or {}, unmatched_text(paired), known=excluded is not None)
    common = _common(subject, result.report, stats, leftout=leftout, paired=paired, span=span)
    found = verdicts(result, a, b, score=result.report.score)
    return Report(
        verdicts=tuple(v.sentence for v in found),
        kind="comparison",
        title=title or f"{a} vs {b} — {source}",
        source=source_line(source, result.report.source),
        created=created or now(),
        checklist=common.checklist,
        excluded_counts=dict(excluded or {}),
        excluded_total=sum((excluded or {}).values()),
        **common.fields,
    )
