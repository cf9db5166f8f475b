"""Drawing functions for T1–T6 (each fills a matplotlib ``Figure`` from a `Report`)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ragstat.errors import InputError
from ragstat.report.coverage_matrix import draw_m1
from ragstat.report.figures import (
    ACCENT,
    HONEST,
    NAIVE,
    OTHER,
    OUTCOME_COLOURS,
    STRATA_MAX,
    plain,
)
from ragstat.report.model import CoverageRow, GateRow, Report, StratumRow
from ragstat.tidy import visible

__all__ = ["draw_g1", "draw_m1", "draw_t1", "draw_t2", "draw_t3", "draw_t4", "draw_t5", "draw_t6"]


def _jitter(m: int, width: float = 0.25) -> np.ndarray:
    """Deterministic horizontal spread for m dots."""
    return np.linspace(-width, width, m) if m > 1 else np.zeros(m)


def draw_t1(fig, report: Report) -> None:
    hists = report.histograms
    axes = fig.subplots(1, len(hists), squeeze=False)[0]
    for ax, h in zip(axes, hists, strict=True):
        edges = np.asarray(h.edges)
        ax.bar(
            edges[:-1],
            h.counts,
            width=np.diff(edges),
            align="edge",
            color=HONEST,
            alpha=0.75,
            edgecolor="white",
        )
        top = max(h.counts) if h.counts else 1
        if h.rates:
            ax.plot(
                h.rates,
                np.full(len(h.rates), -0.06 * top),
                "|",
                color="#333333",
                markersize=8,
                alpha=0.5,
            )
        if h.weighted:
            micro = f"micro R̂ (combined ratio) = {h.micro:.3f}"
            macro = f"macro r̄ (stratified mean) = {h.macro:.3f}"
        else:
            micro, macro = f"micro R = {h.micro:.3f}", f"macro r̄ = {h.macro:.3f}"
        ax.axvline(h.micro, color=NAIVE, linestyle="--", label=micro)
        ax.axvline(h.macro, color=ACCENT, linestyle=":", label=macro)
        ax.set_title(plain(h.subject))
        ax.set_xlabel("per-document rate r_d")
        ax.set_ylabel("documents")
        ax.set_ylim(-0.12 * top, top * 1.15)
        ax.text(
            0.98, 0.97, f"K = {h.K:,}\nN = {h.N:,}", transform=ax.transAxes, ha="right", va="top"
        )
        ax.legend(loc="upper center", fontsize=7, frameon=False)


def draw_t2(fig, report: Report) -> None:
    by: dict[str, dict[str, StratumRow]] = defaultdict(dict)
    for row in report.strata:
        by[row.subject][row.stratum] = row
    subjects = list(by)[:4]
    first = sorted(by[subjects[0]].values(), key=lambda r: (-r.N, r.stratum))
    order = [r.stratum for r in first[:STRATA_MAX]]  # the largest groups, on top
    fig.set_size_inches(8, min(1.4 + 0.28 * len(order), 12))
    axes = fig.subplots(1, len(subjects), squeeze=False, sharey=True)[0]
    for ax, subject in zip(axes, subjects, strict=True):
        rows = [(y, by[subject][k]) for y, k in enumerate(order) if k in by[subject]]
        for y, r in rows:
            if r.macro_lower is not None and r.macro_upper is not None:
                ax.plot([r.macro_lower, r.macro_upper], [y, y], color=HONEST, linewidth=2)
        ax.plot(
            [r.macro for _, r in rows],
            [y for y, _ in rows],
            "o",
            color=HONEST,
            label="macro (t interval)",
        )
        ax.plot([r.micro for _, r in rows], [y for y, _ in rows], "x", color=NAIVE, label="micro")
        ax.set_title(plain(subject))
        ax.set_xlabel("rate")
    axes[0].set_yticks(
        range(len(order)), [plain(f"{r.stratum} (K={r.K})") for r in first[: len(order)]]
    )
    axes[0].invert_yaxis()  # shared y axis: invert once
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=7, frameon=False)


def _series(rows: list[CoverageRow]) -> dict[str, list[CoverageRow]]:
    out: dict[str, list[CoverageRow]] = defaultdict(list)
    for r in rows:
        out[f"{r.group + ', ' if r.group else ''}k={r.k}"].append(r)
    return out


def _methods(rows: list[CoverageRow]) -> list[str]:
    return list(dict.fromkeys(r.method for r in rows))


def draw_t3(fig, report: Report) -> None:
    estimands = list(dict.fromkeys(r.estimand for r in report.coverage))
    fig.set_size_inches(8, 3.4 * len(estimands))
    axes = fig.subplots(len(estimands), 1, squeeze=False)[:, 0]
    for ax, est in zip(axes, estimands, strict=True):
        rows = [r for r in report.coverage if r.estimand == est]
        methods, series = _methods(rows), _series(rows)
        m = len(series)
        offsets = (np.arange(m) - (m - 1) / 2) * min(0.15, 0.6 / m)
        for off, (label, rs) in zip(offsets, series.items(), strict=True):
            x = [methods.index(r.method) + off for r in rs]
            ax.errorbar(
                x,
                [r.coverage for r in rs],
                yerr=[1.96 * r.coverage_se for r in rs],
                fmt="o",
                capsize=2,
                label=plain(label),
            )
        ax.axhline(
            report.level,
            color="#333333",
            linestyle="--",
            linewidth=1,
            label=f"nominal {100 * report.level:g} %",
        )
        naive = {r.method for r in rows if r.naive}
        ax.set_xticks(
            range(len(methods)),
            [m + (" (naive)" if m in naive else "") for m in methods],
            rotation=25,
            ha="right",
        )
        ax.set_ylim(max(0.0, min(r.coverage for r in rows) - 0.08), 1.02)
        ax.set_ylabel("coverage")
        ax.set_title(est)
        ax.legend(fontsize=7, frameon=False, loc="lower left")


def draw_t4(fig, report: Report) -> None:
    ts = report.two_stage
    if ts is None:
        raise InputError("figure T4 needs a two-stage report (report.two_stage is empty)")
    ax = fig.subplots()
    if ts.types:
        for i, t in enumerate(ts.types):
            ax.bar(i, t.mean, color=HONEST, alpha=0.35, width=0.7)
            ax.plot(i + _jitter(len(t.rates)), t.rates, "o", color=HONEST, markersize=3)
        ax.set_xticks(
            range(len(ts.types)), [plain(t.stratum) for t in ts.types], rotation=25, ha="right"
        )
    else:
        rows = [r for r in report.coverage if r.method == "two_stage_t"]
        for i, r in enumerate(rows):
            half = (r.mean_width or 0.0) / 2
            ax.errorbar(i, ts.target, yerr=half, fmt="o", capsize=4, color=HONEST)
        ax.set_xticks(range(len(rows)), [f"k={r.k} (mean width)" for r in rows])
    if ts.target is not None:
        ax.axhline(ts.target, color=ACCENT, label=f"mean over types {ts.target:.3f}")
    which = "census" if report.kind == "simulation" else "sample, unweighted"
    if ts.micro is not None:
        ax.axhline(ts.micro, color=NAIVE, linestyle="--", label=f"micro ({which}) {ts.micro:.3f}")
    if ts.macro is not None:
        ax.axhline(ts.macro, color=OTHER, linestyle=":", label=f"macro ({which}) {ts.macro:.3f}")
    ax.set_ylabel("rate")
    ax.set_title(plain(ts.subject))
    ax.legend(fontsize=7, frameon=False)


def _t5_intervals(fig, report: Report) -> None:
    from matplotlib.ticker import MaxNLocator

    blocks = [b for b in report.results if any(iv.width is not None for iv in b.intervals)][:6]
    height = max(len(b.intervals) for b in blocks)
    fig.set_size_inches(8, max(2.6, 0.9 + 0.3 * height) * ((len(blocks) + 1) // 2))
    ncol = 2 if len(blocks) > 1 else 1
    axes = fig.subplots((len(blocks) + ncol - 1) // ncol, ncol, squeeze=False).ravel()
    for ax, b in zip(axes, blocks, strict=False):
        rows = [iv for iv in b.intervals if iv.width is not None]
        shown = b.honest.method if b.honest is not None else None
        colors = [HONEST if iv.method == shown else NAIVE if iv.naive else OTHER for iv in rows]
        ax.barh(range(len(rows)), [iv.width for iv in rows], color=colors)
        ax.set_yticks(range(len(rows)), [iv.method for iv in rows])
        ax.invert_yaxis()
        ratio = b.width_ratio
        extra = f": ×{ratio:.1f} the naive width" if ratio else ""
        ax.set_title(plain(f"{b.subject} {b.estimand}") + extra, fontsize=8)
        ax.set_xlabel("interval width")
        ax.xaxis.set_major_locator(MaxNLocator(4))
    for ax in axes[len(blocks) :]:
        ax.set_visible(False)


def _t5_simulation(fig, report: Report) -> None:
    estimands = list(dict.fromkeys(r.estimand for r in report.coverage))
    fig.set_size_inches(8, 3.2 * len(estimands))
    axes = fig.subplots(len(estimands), 1, squeeze=False)[:, 0]
    for ax, est in zip(axes, estimands, strict=True):
        rows = [r for r in report.coverage if r.estimand == est and r.mean_width is not None]
        if not rows:
            ax.set_visible(False)
            continue
        methods, series = _methods(rows), _series(rows)
        width = min(0.8 / max(len(series), 1), 0.35)
        for j, (label, rs) in enumerate(series.items()):
            x = [methods.index(r.method) + width * (j - (len(series) - 1) / 2) for r in rs]
            ax.bar(x, [r.mean_width for r in rs], width=width, label=plain(label))
        ax.set_xticks(range(len(methods)), methods, rotation=25, ha="right")
        ax.set_ylabel("mean width")
        ax.set_title(est)
        ax.legend(fontsize=7, frameon=False)


def draw_t5(fig, report: Report) -> None:
    if any(iv.width is not None for b in report.results for iv in b.intervals):
        _t5_intervals(fig, report)
    else:
        _t5_simulation(fig, report)


def draw_t6(fig, report: Report) -> None:
    fig.set_size_inches(8, 3.0)
    ax = fig.subplots()
    acfs = report.autocorrelation
    width = min(0.8 / len(acfs), 0.3)
    found = [0.0]
    for j, a in enumerate(acfs):
        x = np.asarray(a.lags) + width * (j - (len(acfs) - 1) / 2)
        vals = [np.nan if v is None else v for v in a.values]
        found += [v for v in vals if np.isfinite(v)]
        ax.bar(x, vals, width=width, label=plain(a.subject))
        for xi, v in zip(x, vals, strict=True):
            if np.isfinite(v):
                va = "bottom" if v >= 0 else "top"
                ax.text(xi, v, f"{v:.3f}", ha="center", va=va, fontsize=7)
    ax.axhline(0, color="#333333", linewidth=0.8)
    lags = sorted({lag for a in acfs for lag in a.lags})
    ax.set_xticks(lags, [f"lag {lag}" for lag in lags])
    ax.set_xlim(min(lags) - 0.6, max(lags) + 0.6)
    ax.set_ylim(min(min(found) * 1.3, -0.02), max(max(found) * 1.3, 0.1))
    ax.set_ylabel("autocorrelation of residuals")
    ax.legend(fontsize=7, frameon=False)


def _g1_span(rows: tuple[GateRow, ...]) -> tuple[float, float]:
    """The x range covering every interval, estimate and bound (with a margin)."""
    xs = [
        v
        for r in rows
        for v in (r.lower, r.upper, r.estimate, r.bound, r.bound_upper)
        if v is not None and np.isfinite(v)
    ]
    lo, hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
    pad = 0.08 * (hi - lo) if hi > lo else 0.05
    return lo - pad, hi + pad


def draw_g1(fig, report: Report) -> None:
    """G1: one row per gate (or condition), its interval as a bar coloured by outcome, the
    estimate as a dot and the bound as a black mark."""
    rows = report.gates
    fig.set_size_inches(8, min(1.3 + 0.45 * len(rows), 14))
    ax = fig.subplots()
    lo, hi = _g1_span(rows)
    for y, r in enumerate(reversed(rows)):
        colour = OUTCOME_COLOURS.get(r.outcome, OTHER)
        if r.lower is not None and r.upper is not None:
            ax.plot([r.lower, r.upper], [y, y], color=colour, linewidth=6, alpha=0.8,
                    solid_capstyle="butt")  # fmt: skip
        else:
            ax.text(lo, y, " no interval (no evidence)", color=colour, ha="left", va="center")
        if r.estimate is not None and np.isfinite(r.estimate):
            ax.plot([r.estimate], [y], "o", color="white", markeredgecolor=colour, markersize=5)
        marks = [b for b in (r.bound, r.bound_upper) if b is not None]
        ax.plot(marks, [y] * len(marks), "|", color="#111111", markersize=16, mew=2)
    labels = [plain(visible(f"{r.name} — {r.outcome}")) for r in reversed(rows)]
    ax.set_yticks(range(len(rows)), labels)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("interval at the level that decided it; black mark: the bound")
    for outcome, colour in OUTCOME_COLOURS.items():
        ax.plot([], [], color=colour, linewidth=6, label=outcome)
    fig.legend(loc="outside lower center", ncols=3, fontsize=7, frameon=False)
