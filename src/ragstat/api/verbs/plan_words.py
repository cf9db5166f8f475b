"""The one plain sentence ``ragstat plan`` says first: what the planned number of documents
(or queries) buys (the A/B sentence is :func:`ragstat.inference.power.ab_sentence`).

Half-widths are in points when the score is known to be a rate in [0, 1] (or a difference
of two, in [−1, 1]): a pilot of 0/1 scores, or ``--rate``; otherwise in the score's units
(``--sd`` alone says nothing about the range).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragstat.inference.headline import QUESTIONS, format_amount, unit_scale

if TYPE_CHECKING:
    from ragstat.api.verbs.plan import PlanResult

__all__ = ["plan_sentence"]


def _pm(value: float, scale: float) -> str:
    """ "±2.0-point" in points, "±0.0200" in the score's own units."""
    text = format_amount(value, scale)
    return f"±{text}-point" if scale == 100.0 else f"±{text}"


def _on(result: PlanResult) -> str:
    if result.sizing is not None:
        return "the mean over queries"
    what = "the difference between the two systems" if result.paired else "the mean score"
    return f"{what} for {QUESTIONS.get(result.estimand, result.estimand)}"


def plan_sentence(result: PlanResult) -> str:
    """ "40 documents give a ±2.0-point interval (95 %) on the difference between the two
    systems for a typical document; a true difference under 3.1 points may go unseen (power
    80 %)"."""
    scale = unit_scale(result.bounds)
    level = f"{result.level * 100:g} %"
    z = result.sizing
    h = result.plan.achieved if result.plan is not None else result.achieved_half_width
    count = f"{result.documents:,} documents"
    if z is not None:
        count = f"{z.queries:,} queries from {z.documents:,} documents"
    lead = f"{count} give a {_pm(float(h or 0.0), scale)} interval ({level}) on {_on(result)}"
    if result.plan is not None:
        lead += f", the fewest that reach ±{format_amount(result.plan.half_width, scale)}"
    mdd = format_amount(result.minimum_detectable_difference, scale)
    unit = " points" if scale == 100.0 else ""
    return (
        f"{lead}; a true difference smaller than {mdd}{unit} may go unseen "
        f"(power {result.power * 100:g} %)"
    )
