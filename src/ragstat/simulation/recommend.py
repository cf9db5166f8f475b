"""Which interval to trust, from the simulation itself (seed 000, step 5 wording)."""

from __future__ import annotations

from dataclasses import replace

from ragstat.inference.results import NAIVE_METHODS
from ragstat.simulation.results import CoverageReport

__all__ = ["recommend"]

CAVEAT = (
    "These are evaluated approximations, not a calibrated recipe: coverage was measured on "
    "this census and design only, and the nominal level is not guaranteed."
)


def recommend(report: CoverageReport) -> CoverageReport:
    """Per K and estimand: the methods within two Monte-Carlo SEs of nominal, else the closest."""
    level = report.level
    picks = {}
    for key in sorted({(r.k, r.estimand) for r in report.results}):
        rows = [
            r for r in report.results if (r.k, r.estimand) == key and r.method not in NAIVE_METHODS
        ]
        if not rows:
            continue
        within = [r for r in rows if abs(r.coverage - level) <= 2 * max(r.coverage_se, 1e-12)]
        if within:
            best = sorted(within, key=lambda r: r.mean_width or float("inf"))
            choice = {
                "methods": [r.method for r in best],
                "basis": "within 2 Monte-Carlo SEs of nominal",
            }
        else:
            closest = min(rows, key=lambda r: abs(r.coverage - level))
            choice = {
                "methods": [closest.method],
                "basis": f"closest to nominal ({closest.coverage:.1%} vs {level:.0%}); "
                "no method reached the nominal level here",
            }
        picks[f"k={key[0]} {key[1]}"] = choice
    return replace(report, recommendation={"by_k_estimand": picks, "caveat": CAVEAT})
