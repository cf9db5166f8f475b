"""Reports of decisions: ``ragstat gate`` (one row per gate) and ``ragstat filter-rule``
(one row per condition of the hard-vs-soft rule).

A decision report leads with the verdict, then a decision table and figure G1 (each
interval at the level that decided it, against the bound it was compared with). Numbers
come from the decided results unchanged; nothing is recomputed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragstat.errors import InputError
from ragstat.report.build import generator, now
from ragstat.report.model import GateRow, Report
from ragstat.report.table import Table

if TYPE_CHECKING:
    from ragstat.decisions.filter_rule import Condition, FilterRuleResult
    from ragstat.decisions.gates import GateReport, GateResult

__all__ = ["decision_table", "report_from_filter_rule", "report_from_gates"]

#: Filter-rule condition → the gate kind it behaves like (which side of the bound holds).
_CONDITION_KINDS = {
    "precision_gain": "at_least",
    "exclusion_rate": "at_most",
    "recall_difference": "at_least",
}
_CONDITION_METRICS = {
    "precision_gain": "precision@k hard − soft",
    "exclusion_rate": "exclusion rate",
    "recall_difference": "recall@k hard − soft",
}


def _gate_row(g: GateResult) -> GateRow:
    spec = g.spec
    equivalent = spec.kind == "equivalent"
    return GateRow(
        name=spec.name,
        kind=spec.kind,
        metric=spec.metric,
        estimand=spec.estimand,
        outcome=g.outcome,
        condition=g.label(),
        level=float(g.decision.level),
        estimate=None if g.estimate is None else float(g.estimate),
        lower=g.lower,
        upper=g.upper,
        bound=float(spec.bound()),
        bound_upper=float(spec.margin) if equivalent and spec.margin is not None else None,
        blocking=spec.blocking,
        reason=g.decision.reason,
        evidence=g.evidence,
        method=g.method,
    )


def report_from_gates(
    result: GateReport,
    *,
    source: str,
    created: str | None = None,
    title: str | None = None,
) -> Report:
    """The report of ``ragstat gate``: the verdict, one row per gate, figure G1."""
    rows = tuple(_gate_row(g) for g in result.gates)
    metrics = tuple(dict.fromkeys(r.metric for r in rows))
    estimands = tuple(dict.fromkeys(r.estimand for r in rows)) or ("micro",)
    status = "passed" if result.passed else "failed"
    inconclusive = "block" if result.inconclusive_blocks else "do not block"
    design = (
        f"{len(rows)} gate{'s' if len(rows) != 1 else ''} decided as one family with the "
        f"{result.correction} correction; each interval is at its adjusted level; "
        f"inconclusive gates {inconclusive}"
    )
    return Report(
        kind="gate",
        title=title or f"Release gates — {status} (exit code {result.exit_code()})",
        source=source,
        created=created or now(),
        level=float(result.level),
        score=", ".join(metrics) or "none",
        design=design,
        estimands=estimands,
        checklist=(),
        warnings=tuple(dict.fromkeys(result.warnings)),
        verdicts=(result.verdict(),),
        gates=rows,
        generator=generator(),
    )


def _condition_row(c: Condition, level: float, estimand: str) -> GateRow:
    return GateRow(
        name=c.name,
        kind=_CONDITION_KINDS.get(c.name, "at_least"),
        metric=_CONDITION_METRICS.get(c.name, c.name),
        estimand=estimand,
        outcome="pass" if c.held else "fail",
        condition=c.rule,
        level=level,
        estimate=float(c.estimate),
        lower=None if c.lower is None else float(c.lower),
        upper=None if c.upper is None else float(c.upper),
        bound=float(c.threshold),
        reason=c.reason,
        evidence=f"compares the {c.compared}",
        method=c.method,
    )


def report_from_filter_rule(
    result: FilterRuleResult,
    *,
    source: str,
    created: str | None = None,
    title: str | None = None,
) -> Report:
    """The report of ``ragstat filter-rule``: the decision sentence, the three conditions
    (estimate, interval, threshold, held), figure G1."""
    if result.level is None:
        raise InputError("a filter-rule report needs the level its intervals were computed at")
    level = float(result.level)
    rows = tuple(_condition_row(c, level, result.estimand) for c in result.conditions)
    at_k = "" if result.k is None else f" at k = {result.k}"
    t = result.thresholds
    design = (
        f"paired runs of the same validation queries, hard filter vs soft boost{at_k}; "
        f"pre-registered Δ_min = {t.delta_min:g}, ε = {t.epsilon:g}, "
        f"recall_loss_max = {t.recall_loss_max:g}"
    )
    return Report(
        kind="filter-rule",
        title=title or f"Filter rule — {result.label}: {result.decision}",
        source=source,
        created=created or now(),
        level=level,
        score=f"precision@k, recall@k{at_k}",
        design=design,
        estimands=(result.estimand,),
        checklist=(),
        notes=tuple(result.notes),
        verdicts=(result.sentence + ".", result.alternative_sentence),
        gates=rows,
        generator=generator(),
    )


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4g}".replace("-", "−")


def _interval(r: GateRow) -> str:
    if r.lower is None or r.upper is None:
        return "no interval"
    return f"[{_num(r.lower)}, {_num(r.upper)}] at {100 * r.level:.4g} %"


def _bound(r: GateRow) -> str:
    if r.bound_upper is not None:
        return f"±{_num(r.bound_upper)}"
    return _num(r.bound)


def _gate_cells(r: GateRow) -> tuple[str, ...]:
    return (
        r.name,
        r.outcome,
        r.condition,
        _num(r.estimate),
        _interval(r),
        _bound(r),
        r.method or "—",
        r.evidence or "—",
        "yes" if r.blocking else "no",
        r.reason or "—",
    )


def _condition_cells(r: GateRow) -> tuple[str, ...]:
    return (
        r.name,
        "yes" if r.outcome == "pass" else "no",
        r.condition,
        r.evidence.removeprefix("compares the "),
        _num(r.estimate),
        _interval(r),
        _num(r.bound),
        r.method or "—",
        r.reason or "—",
    )


def decision_table(report: Report) -> Table:
    """The gates (or the filter rule's conditions) as a table, one row each."""
    header: tuple[str, ...]
    if report.kind == "filter-rule":
        header = ("condition", "held", "rule", "compared", "estimate", "interval",
                  "threshold", "method", "why not held")  # fmt: skip
        note = "The rule holds (hard filter) only when all three conditions hold."
        rows = tuple(_condition_cells(r) for r in report.gates)
        return Table("conditions", "Conditions of the filter rule", header, rows, note)
    header = ("gate", "outcome", "condition", "estimate", "interval (adjusted level)",
              "bound", "method", "evidence", "blocking", "reason")  # fmt: skip
    note = (
        "Each interval is at the gate's adjusted (family-corrected) level, the level that "
        "decided it; a gate without evidence fails."
    )
    return Table("gates", "Gates", header, tuple(_gate_cells(r) for r in report.gates), note)
