"""The tables of a coverage-simulation `Report`: summary per K and estimand, coverage by
method, census and simulation settings."""

from __future__ import annotations

from ragstat.inference.analyze import RECOMMENDED
from ragstat.report.fmt import num, pct, whole
from ragstat.report.model import NAIVE_METHOD, CoverageRow, Report
from ragstat.report.table import Table, level_text

__all__ = [
    "DESIGN_METHODS",
    "basis_text",
    "coverage_table",
    "reference_method",
    "simulation_summary",
    "simulations_table",
]

#: The method a design-based analysis reports for each estimand.
DESIGN_METHODS = {
    "micro": "stratified_ratio",
    "macro": "stratified_mean",
    "type_mean": "two_stage_t",
}


def reference_method(design: str, est: str) -> str:
    """The method the document-level method guide (the interval guide) picks under SRS, or the
    design-based analysis reports, for ``est``."""
    if design in ("stratified", "two-stage") or est == "type_mean":
        return DESIGN_METHODS.get(est, "")
    return RECOMMENDED.get(est, "")


def basis_text(basis: str) -> str:
    """A recommendation's basis in a few words."""
    b = basis.strip().lower()
    if b.startswith("covers"):  # "covers 94.6 %, within Monte-Carlo error of 95 % — <rule>"
        return basis.strip().split(" — ")[0]
    if b.startswith("within"):
        return "within 2 MC SE of nominal"
    if b.startswith("closest"):
        return "closest; nominal not reached"
    return basis.strip() or "basis not recorded"


def simulation_summary(report: Report) -> Table:
    by = {(r.group, r.k, r.estimand, r.method): r for r in report.coverage}
    recs = {(r.group, r.key): r for r in report.recommendations}
    keys = dict.fromkeys((r.group, r.k, r.estimand) for r in report.coverage)
    rows = []
    for group, k, est in keys:
        ref = reference_method(report.design, est)
        rec = by.get((group, k, est, ref))
        naive = by.get((group, k, est, NAIVE_METHOD))
        pick = recs.get((group, f"k={k} {est}"))
        if pick is None or not pick.methods:
            chosen = "none"
        else:
            chosen = f"{', '.join(pick.methods)} ({basis_text(pick.basis)})"
        rows.append(
            (
                group or "—",
                str(k),
                est,
                ref or "—",
                _cov(rec),
                _cov(naive) if naive or report.design == "srs" else "not simulated (design-based)",
                chosen,
            )
        )
    header = (
        "census",
        "k per type" if report.design == "two-stage" else "K per sample",
        "estimand",
        "reference method",
        "its coverage",
        "naive iid coverage",
        "recommended here (basis)",
    )
    note = (
        f"Coverage ± Monte-Carlo SE at nominal {level_text(report)}. Recommended here: the "
        "narrowest method whose coverage is at least nominal − 2 Monte-Carlo SEs (above nominal "
        "is conservative, not a failure); when none is, the one with the highest coverage "
        "(nominal not reached). Naive methods and wald_effective_n are never recommended. "
        "Reference method: the document-level method guide's for SRS, the design-based estimator otherwise."
    )
    return Table("summary", "Summary", header, tuple(rows), note)


def _cov(r: CoverageRow | None) -> str:
    if r is None:
        return "not simulated"
    return f"{pct(r.coverage)} ± {pct(r.coverage_se)}"


def coverage_table(report: Report) -> Table:
    rows = tuple(
        (
            r.group or "—",
            str(r.k),
            r.estimand,
            r.method + (" (naive)" if r.naive else ""),
            pct(r.coverage),
            pct(r.coverage_se),
            num(r.mean_width),
            num(r.bias),
            num(r.rmse),
            pct(r.unavailable),
            f"{r.reps:,}",
        )
        for r in report.coverage
    )
    header = (
        "census",
        "K",
        "estimand",
        "method",
        "coverage",
        "MC SE",
        "mean width",
        "bias",
        "RMSE",
        "unavailable",
        "samples",
    )
    return Table("coverage", "Coverage by method", header, rows)


def simulations_table(report: Report) -> Table:
    rows = tuple(
        (
            s.group or "—",
            s.design,
            whole(s.K),
            whole(s.N),
            num(s.micro),
            num(s.macro),
            num(s.type_mean),
            ", ".join(map(str, s.ks)),
            f"{s.reps:,}",
            f"{s.bootstrap_reps:,}",
            "n/a" if s.seed is None else str(s.seed),
        )
        for s in report.simulations
    )
    header = (
        "census",
        "design",
        "K",
        "N",
        "micro",
        "macro",
        "type mean",
        "K per sample",
        "samples",
        "bootstrap reps",
        "seed",
    )
    return Table("simulations", "Census and simulation settings", header, rows)
