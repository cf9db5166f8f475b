"""Figures T1–T6 of the self-retrieval study (the self-retrieval benchmark) as deterministic, self-contained SVG
strings.

matplotlib is imported lazily, without pyplot (no global backend is touched).
SVG text is kept as ``<text>`` (``svg.fonttype = none``), which matplotlib
escapes; ``svg.hashsalt`` and ``Date = None`` make the output byte-identical for
the same report. ``$`` in user text is escaped so it never turns into mathtext.
Every id inside a figure is prefixed with the figure's key, so several figures
can be inlined in one page without id clashes.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass

from ragstat.errors import BackendUnavailable
from ragstat.report.matrix import MATRIX_KIND
from ragstat.report.model import DECISION_KINDS, Report

__all__ = [
    "DECISION_FIGURES",
    "FIGURES",
    "MATRIX_FIGURES",
    "FigureSpec",
    "figure_specs",
    "render_svg",
    "svg_figures",
]

HONEST, NAIVE, OTHER, ACCENT = "#1f77b4", "#d62728", "#8c8c8c", "#2ca02c"
_RC = {
    "svg.hashsalt": "ragstat-report",
    "svg.fonttype": "none",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
LABEL_MAX = 40
#: T2 draws at most this many strata (the largest by queries); the table lists all.
STRATA_MAX = 30


@dataclass(frozen=True)
class FigureSpec:
    """What a figure shows, or why it is not drawn (``available`` False, ``note``)."""

    key: str
    title: str
    caption: str
    available: bool
    note: str | None = None


FIGURES = {
    "T1": "Per-document rates",
    "T2": "Rates by stratum / type",
    "T3": "Coverage by method vs nominal",
    "T4": "Two-stage: types, then documents",
    "T5": "Interval width by method",
    "T6": "Autocorrelation of neighbouring chunks",
}


#: The figure of a decision report (gates, filter rule); it replaces T1–T6 there.
DECISION_FIGURES = {"G1": "Intervals vs thresholds"}
#: Outcome colours of G1.
OUTCOME_COLOURS = {"pass": ACCENT, "fail": NAIVE, "inconclusive": "#ff7f0e"}


def plain(text: object) -> str:
    """User text for a matplotlib label: shortened, and ``$`` never starts mathtext."""
    s = str(text).replace("\n", " ")
    if len(s) > LABEL_MAX:
        s = s[: LABEL_MAX - 1] + "…"
    return s.replace("\\", "\\\\").replace("$", r"\$")


def _has_width(report: Report) -> bool:
    widths = [iv.width for b in report.results for iv in b.intervals]
    widths += [r.mean_width for r in report.coverage]
    return any(w is not None for w in widths)


def _why(key: str, report: Report) -> str | None:
    """None when the report has the data for figure ``key``; else the reason it is skipped."""
    sim = report.kind == "simulation"
    if key == "T1" and not report.histograms:
        return "the simulation result keeps no per-document rates" if sim else "no document data"
    if key == "T2" and not report.strata:
        return "no stratum/type field in this run (use --strata)"
    if key == "T3" and not report.coverage:
        return "coverage needs a coverage simulation (`ragstat simulate`)"
    if key == "T4" and report.two_stage is None:
        return "the design is not two-stage"
    if key == "T5" and not _has_width(report):
        return "no interval with a width was computed (every interval is unavailable)"
    if key == "T6":
        if sim and not report.autocorrelation:
            return "the simulation result keeps no per-query scores"
        if not report.autocorrelation:
            return "needs per-query positions (study records, or --position)"
        if all(v is None for a in report.autocorrelation for v in a.values):
            return "undefined: no within-document variation or no neighbouring queries"
    return None


def _caption(key: str, report: Report) -> str:
    level = f"{100 * report.level:g} %"
    if key == "T1":
        h = report.histograms[0]
        if h.weighted:
            lines = (
                "lines: the design's estimates, micro by the combined ratio Σ w s / Σ w n and "
                "macro by the stratified mean of rates (w = M_h / K_h); the histogram counts "
                "sampled documents, unweighted"
            )
        elif report.design == "two-stage" and report.kind != "simulation":
            lines = (
                "lines: the sample's unweighted micro R and macro r̄ (the two-stage target is in T4)"
            )
        else:
            lines = "lines: micro R and macro r̄"
        return (
            f"Histogram of the per-document rates r_d = s_d / n_d (strip below: one mark per "
            f"document); {lines}. K = {h.K:,} documents, N = {h.N:,} queries."
        )
    if key == "T2":
        groups = len({r.stratum for r in report.strata})
        shown = (
            f" The {STRATA_MAX} largest of {groups} groups are drawn."
            if groups > STRATA_MAX
            else ""
        )
        return (
            f"Per {report.strata_field or 'stratum'}: macro (mean of document rates, with a "
            f"{level} interval on them: Korn–Graubard for rates in [0, 1], else t) and micro (×); K per group in the labels.{shown}"
        )
    if key == "T3":
        return (
            f"Share of samples whose interval covered the census value, per method and K; "
            f"bars: ±1.96 Monte-Carlo SE; line: nominal {level}."
        )
    if key == "T4":
        return (
            "Document rates within each type (dots) and the type means (bars); line: the "
            "two-stage target, the mean over types."
        )
    if key == "T5":
        if report.kind == "simulation":
            return "Mean interval width per method and K over the simulated samples."
        return (
            f"Width of each {level} interval; blue: the interval shown in the summary (the "
            "recommended one when computed), red: the naive iid interval that treats queries "
            "as independent."
        )
    return (
        "Autocorrelation of within-document residuals y − r_d between queries 1..L apart in "
        "the same document, pooled over documents (lag 1 only when positions were not kept)."
    )


def _decision_spec(report: Report) -> FigureSpec:
    """G1: each gate's (condition's) interval against its bound."""
    title = DECISION_FIGURES["G1"]
    if not report.gates:
        return FigureSpec("G1", title, "", False, "no gates were evaluated")
    if report.kind == "filter-rule":
        caption = (
            f"Each condition's {100 * report.level:g} % interval (bar) and estimate (dot) "
            "against its threshold (black mark); green: the condition held, red: it did not. "
            "The precision gain is compared by its lower bound, the recall difference by its "
            "estimate, the exclusion rate as the condition's 'compared' column says."
        )
    else:
        caption = (
            "Each gate's interval at its adjusted (family-corrected) level (bar) and estimate "
            "(dot) against the bound it is compared with (black mark: the threshold, −margin, "
            "min_delta, or ±margin for equivalence); colour: the outcome (green pass, red "
            "fail, orange inconclusive). A gate without evidence has no bar and fails."
        )
    return FigureSpec("G1", title, caption, True)


#: The figure of a coverage-matrix report.
MATRIX_FIGURES = {"M1": "Documents per cell"}


def _matrix_spec(report: Report) -> FigureSpec:
    """M1: documents per cell as a heat map (small multiples beyond two dimensions)."""
    title = MATRIX_FIGURES["M1"]
    if not report.matrix:
        return FigureSpec("M1", title, "", False, "the matrix has no cells")
    dims = report.dims
    caption = "Documents (and queries) per cell; grey: empty cell."
    if len(dims) > 2:
        caption += (
            f" One panel per combination of {', '.join(dims[2:])} (at most 12 are drawn; "
            "the table lists every cell)."
        )
    return FigureSpec("M1", title, caption, True)


def figure_specs(report: Report) -> tuple[FigureSpec, ...]:
    """T1–T6 for ``report`` (G1 for a decision report): drawn, or skipped with the reason."""
    if report.kind in DECISION_KINDS:
        return (_decision_spec(report),)
    if report.kind == MATRIX_KIND:
        return (_matrix_spec(report),)
    out = []
    for key, title in FIGURES.items():
        why = _why(key, report)
        caption = "" if why else _caption(key, report)
        out.append(FigureSpec(key, title, caption, why is None, why))
    return tuple(out)


def _matplotlib():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - matplotlib is a core dependency
        raise BackendUnavailable("figures need matplotlib: pip install matplotlib") from exc
    return matplotlib, Figure


_DECL = re.compile(r"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*|<metadata>.*?</metadata>\s*", re.S)


def _clean_svg(svg: str, key: str) -> str:
    """Drop the XML prolog and metadata; prefix every id (and its references) with ``key``."""
    svg = _DECL.sub("", svg)
    ids = set(re.findall(r'\sid="([^"]+)"', svg))
    if ids:
        pattern = re.compile(
            r'(\sid="|url\(#|href="#)(' + "|".join(map(re.escape, ids)) + r')(?=["\)])'
        )
        svg = pattern.sub(lambda m: f"{m.group(1)}{key}-{m.group(2)}", svg)
    svg = re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"', r"<svg \1", svg, count=1)
    return svg.replace("<svg ", f'<svg class="figure" role="img" aria-label="figure {key}" ', 1)


def render_svg(key: str, report: Report) -> str:
    """Draw figure ``key`` (which must be available) and return the SVG markup."""
    from ragstat.report import plots

    matplotlib, Figure = _matplotlib()
    draw: Callable = getattr(plots, f"draw_{key.lower()}")
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(8, 3.6), layout="constrained")
        draw(fig, report)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    return _clean_svg(buf.getvalue(), key)


def svg_figures(report: Report) -> list[tuple[FigureSpec, str | None]]:
    """Every figure spec with its SVG (None when skipped)."""
    return [(s, render_svg(s.key, report) if s.available else None) for s in figure_specs(report)]
