"""Which interval to trust, from the simulation itself (the interval guide, step 5 wording).

The rule, per K and estimand: coverage at or above nominal is not a failure. Among the
methods whose coverage is at least nominal − 2 Monte-Carlo SEs, the narrowest (mean width)
is recommended; when none reaches that, the one with the highest coverage, with how far it
falls short. Naive methods (queries as independent) and the effective-n diagnostic are
never recommended.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ragstat.inference.defaults import MC_SLACK, NEVER_RECOMMENDED, pick_row
from ragstat.simulation.results import CoverageReport, MethodCoverage

__all__ = ["NEVER_RECOMMENDED", "pick", "recommend", "verdict_text"]

CAVEAT = (
    "These are evaluated approximations, not a calibrated recipe: coverage was measured on "
    "this census and design only, and the nominal level is not guaranteed."
)


def pick(rows: Sequence[MethodCoverage], level: float) -> tuple[MethodCoverage, int] | None:
    """The recommended row among ``rows`` (one K and estimand) and how many reached the bar.

    Narrowest among coverage ≥ nominal − 2 MC SE (ties: higher coverage, then the stable
    method order); if none reached it, the highest coverage (ties: narrower). A count of 0
    means nominal was not reached. The rule is shared with the built-in default
    (:func:`ragstat.inference.defaults.pick_row`).
    """
    return pick_row(rows, level)


def _points(x: float) -> str:
    return f"{x * 100:.1f}"


def _nominal(level: float) -> str:
    return f"{level * 100:g} %"


def verdict_text(r: MethodCoverage, level: float, reached: bool, where: str) -> tuple[str, str]:
    """(verdict, wording): ``conservative``, ``within`` or ``short``, and one sentence whose
    numbers are the ones shown (``where`` is e.g. "K = 5")."""
    shown = round(r.coverage * 100, 1)
    cov = f"covers {shown:.1f} %"
    if not reached:
        short = level * 100 - shown
        return "short", (
            f"{cov}, {short:.1f} points short of {_nominal(level)}: "
            f"no method reached the nominal level at {where}"
        )
    if r.coverage - level > MC_SLACK * r.coverage_se and shown > level * 100:
        return "conservative", f"{cov}, above the nominal {_nominal(level)}: conservative"
    return "within", f"{cov}, within Monte-Carlo error of {_nominal(level)}"


def _choice(rows: Sequence[MethodCoverage], level: float, where: str) -> dict | None:
    found = pick(rows, level)
    if found is None:
        return None
    best, n = found
    verdict, text = verdict_text(best, level, n > 0, where)
    if n > 1:
        rule = f"narrowest of {n} methods with coverage ≥ nominal − 2 MC SE"
    elif n == 1:
        rule = "the only method with coverage ≥ nominal − 2 MC SE"
    else:
        rule = "highest coverage; none reached nominal − 2 MC SE"
    return {
        "methods": [best.method],
        "basis": f"{text} — {rule}",
        "coverage": best.coverage,
        "coverage_se": best.coverage_se,
        "mean_width": best.mean_width,
        "nominal": level,
        "verdict": verdict,
        "shortfall": None if n else level - best.coverage,
        "eligible": n,
        "text": text,
    }


def recommend(report: CoverageReport) -> CoverageReport:
    """Per K and estimand: the narrowest method reaching nominal − 2 MC SE, else the highest
    coverage (see the module docstring)."""
    level = report.level
    picks = {}
    for k, estimand in sorted({(r.k, r.estimand) for r in report.results}):
        rows = [r for r in report.results if (r.k, r.estimand) == (k, estimand)]
        where = f"k = {k} per type" if report.design == "two-stage" else f"K = {k}"
        choice = _choice(rows, level, where)
        if choice is not None:
            picks[f"k={k} {estimand}"] = choice
    return replace(report, recommendation={"by_k_estimand": picks, "caveat": CAVEAT})
