"""Latency per pipeline stage (the RAG reference part 4 and serving): p50/p95/p99 from a span trace.

* :func:`read_spans` — a JSONL trace of spans ``{"trace_id", "stage", "duration_ms"}``;
* :func:`latency_percentiles` — percentiles per stage, per trace or per span.

Percentile rule (everywhere here): numpy's default ``method="linear"`` (Hyndman & Fan type
7): sort the n values ``x_(0) ≤ … ≤ x_(n-1)``, set ``h = (n − 1)·q/100`` and return
``x_(⌊h⌋) + (h − ⌊h⌋)·(x_(⌊h⌋+1) − x_(⌊h⌋))``. With few spans p99 is close to the maximum;
report ``n`` with it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["LatencyTable", "latency_percentiles", "read_spans"]


def read_spans(source: str | Path | Iterable[str]) -> list[dict]:
    """Read JSONL spans from a path or an iterable of lines (blank lines skipped).

    A file is split on ``"\\n"`` only (a JSON string may hold U+2028 and the like), read as
    UTF-8 (gzip transparently). A bad line raises InputError naming its line number.
    """
    if isinstance(source, (str, Path)):
        from ragstat.records.textio import jsonl_objects

        return [obj for _, obj in jsonl_objects(source, "trace file")]
    return _parse_lines(source)


def _parse_lines(lines: Iterable[str]) -> list[dict]:
    from ragstat.records.textio import parse_json_line

    out = []
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        obj = parse_json_line(line, f"trace line {no}")
        if not isinstance(obj, dict):
            raise InputError(f"trace line {no}: a span must be a JSON object")
        out.append(obj)
    return out


_NAN_TEXT = ("nan", "+nan", "-nan")


def _ms(span: Mapping, field: str, where: str) -> float | None:
    """``span[field]`` in ms by the score-cell rule (:mod:`ragstat.records.cells`): a number
    or numeric text; None when missing (absent, null, blank, NaN); else one-line InputError."""
    value = span.get(field)
    if isinstance(value, bool):
        raise InputError(f"{where}: {field} is a boolean ({value!r}), not a number of ms")
    if isinstance(value, str):
        text = value.strip()
        if not text or text.lower() in _NAN_TEXT:
            return None
    elif value is not None and not isinstance(value, (int, float)):
        raise InputError(f"{where}: {field} is not a number: {_shown(value)}")
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{where}: {field} is not a number: {_shown(value)}") from None
    return None if math.isnan(number) else number


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:38] + "…"


def _duration(span: Mapping, i: int) -> float:
    """``duration_ms``, else ``end_ms − start_ms``; finite and ≥ 0. ``i``: 0-based span."""
    where = f"span {i + 1}"
    d = _ms(span, "duration_ms", where)
    field = "duration_ms"
    if d is None:
        start, end = _ms(span, "start_ms", where), _ms(span, "end_ms", where)
        if start is None or end is None:
            raise InputError(
                f"{where}: needs a number in duration_ms, or in both start_ms and end_ms "
                "(missing, empty or NaN here)"
            )
        d, field = end - start, "end_ms − start_ms"
    if not math.isfinite(d) or d < 0:
        raise InputError(f"{where}: {field} must be finite and >= 0, got {d:g}")
    return d


@dataclass(frozen=True)
class LatencyTable:
    """Per stage: ``count[s]`` observations and ``values[s, j]`` = the ``percentiles[j]``-th
    percentile (numpy linear rule) in ms. ``per`` = "trace" (a stage's spans summed within
    each trace: the time a request spent in that stage) or "span" (each span alone).
    ``durations[stage]`` maps the observation ids (trace ids or span indices) → ms."""

    stages: tuple[str, ...]
    percentiles: tuple[float, ...]
    count: np.ndarray
    values: np.ndarray
    per: str
    durations: Mapping[str, Mapping[str, float]]

    def table(self) -> list[dict]:
        return [
            {"stage": s, "n": int(self.count[i])}
            | {f"p{p:g}": float(v) for p, v in zip(self.percentiles, self.values[i], strict=True)}
            for i, s in enumerate(self.stages)
        ]

    def records(self, stage: str) -> dict[str, float]:
        if stage not in self.durations:
            raise InputError(f"unknown stage {stage!r}; stages: {list(self.stages)}")
        return dict(self.durations[stage])


def latency_percentiles(
    spans: Iterable[Mapping] | str | Path,
    percentiles: Iterable[float] = (50, 95, 99),
    per: str = "trace",
) -> LatencyTable:
    """p50/p95/p99 per pipeline stage from spans ``{"trace_id", "stage", "duration_ms"}``
    (or ``start_ms``/``end_ms``); a path is read with :func:`read_spans`. No span → InputError.
    """
    if isinstance(spans, (str, Path)):
        spans = read_spans(spans)
    if per not in ("trace", "span"):
        raise InputError(f"per must be 'trace' or 'span', got {per!r}")
    pct = tuple(float(p) for p in percentiles)
    if not pct or any(not 0 <= p <= 100 for p in pct):
        raise InputError(f"percentiles must lie in [0, 100], got {pct}")
    by_stage: dict[str, dict[str, float]] = {}
    for i, sp in enumerate(spans):
        if not isinstance(sp, Mapping) or "stage" not in sp or "trace_id" not in sp:
            raise InputError(f"span {i + 1}: needs 'trace_id' and 'stage'")
        key = str(sp["trace_id"]) if per == "trace" else str(i)
        slot = by_stage.setdefault(str(sp["stage"]), {})
        slot[key] = slot.get(key, 0.0) + _duration(sp, i)
    if not by_stage:
        raise InputError("latency_percentiles: no span (empty denominator)")
    stages = tuple(sorted(by_stage))
    values = [np.percentile(list(by_stage[s].values()), pct, method="linear") for s in stages]
    return LatencyTable(
        stages=stages,
        percentiles=pct,
        count=frozen_array([len(by_stage[s]) for s in stages], np.int64),
        values=frozen_array(values, float),
        per=per,
        durations=by_stage,
    )
