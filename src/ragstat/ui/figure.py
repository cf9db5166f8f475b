"""The history figure's geometry: one point per run, its interval as a vertical bar.

Coordinates only; the template draws them as inline SVG (no script, no external asset).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Figure", "Point", "Tick", "history_figure"]

WIDTH = 760
HEIGHT = 320
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 20, 56


@dataclass(frozen=True)
class Point:
    """One run: its estimate at (x, y), its interval from y_low to y_high (pixels)."""

    run_id: str
    x: float
    y: float
    y_low: float | None
    y_high: float | None
    label: str
    outcome: str | None


@dataclass(frozen=True)
class Tick:
    y: float
    label: str


@dataclass(frozen=True)
class Figure:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    points: tuple[Point, ...]
    ticks: tuple[Tick, ...]
    threshold_y: float | None = None


@dataclass(frozen=True)
class Row:
    """One run's values, in data units (the input of :func:`history_figure`)."""

    run_id: str
    when: str
    estimate: float
    lower: float | None
    upper: float | None
    outcome: str | None = None
    text: str = ""  # the estimate and interval as the run page words them


def _range(rows: list[Row], extra: float | None) -> tuple[float, float]:
    values = [v for r in rows for v in (r.estimate, r.lower, r.upper) if v is not None]
    if extra is not None:
        values.append(extra)
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        lo, hi = lo - 0.5 * (abs(lo) or 1), hi + 0.5 * (abs(hi) or 1)
    pad = 0.06 * (hi - lo)
    return lo - pad, hi + pad


def _ticks(lo: float, hi: float, scale: float, y0: float) -> tuple[Tick, ...]:
    step = 10 ** math.floor(math.log10((hi - lo) / 4))
    for mult in (1, 2, 5, 10):
        if (hi - lo) / (step * mult) <= 6:
            step *= mult
            break
    first = math.ceil(lo / step) * step
    out = []
    v = first
    while v <= hi + 1e-12:
        out.append(Tick(y0 - (v - lo) * scale, f"{v:.4g}"))
        v += step
    return tuple(out)


def history_figure(rows: list[Row], threshold: float | None = None) -> Figure | None:
    """The figure of ``rows`` (oldest first); None when there is nothing to draw."""
    if not rows:
        return None
    lo, hi = _range(rows, threshold)
    inner_w = WIDTH - LEFT - RIGHT
    inner_h = HEIGHT - TOP - BOTTOM
    scale = inner_h / (hi - lo)
    y0 = TOP + inner_h

    def y(v: float | None) -> float | None:
        return None if v is None else round(y0 - (v - lo) * scale, 2)

    gap = inner_w / len(rows)
    points = []
    for i, r in enumerate(rows):
        ci = "" if r.lower is None or r.upper is None else f" [{r.lower:.4g}, {r.upper:.4g}]"
        tail = f" · {r.outcome}" if r.outcome else ""
        points.append(
            Point(
                run_id=r.run_id,
                x=round(LEFT + gap * (i + 0.5), 2),
                y=y(r.estimate) or 0.0,
                y_low=y(r.lower),
                y_high=y(r.upper),
                label=f"{r.run_id} ({r.when}): {r.estimate:.4g}{ci}{tail}",
                outcome=r.outcome,
            )
        )
    return Figure(
        WIDTH,
        HEIGHT,
        LEFT,
        RIGHT,
        TOP,
        BOTTOM,
        tuple(points),
        _ticks(lo, hi, scale, y0),
        y(threshold),
    )
