"""System metrics (seed 004 part 4 and serving): latency per stage, calibration, caches, cost.

* :func:`read_spans` / :func:`latency_percentiles` — p50/p95/p99 per pipeline stage from a
  JSONL trace of spans;
* :func:`calibration` — expected calibration error with a reliability table;
* :func:`cache_hit_rates`, :func:`cost_per_query` — from simple records;
* ANN Recall@k, MMD embedding drift and the sample-size margin live in
  :mod:`ragstat.metrics.system_drift` and are re-exported here.

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

from ragstat.errors import InputError
from ragstat.metrics.filters import _frozen
from ragstat.metrics.system_drift import (
    AnnRecall,
    MMDDrift,
    ann_recall,
    exact_search,
    hnsw_search,
    mmd_drift,
    proportion_margin,
)

__all__ = [
    "AnnRecall",
    "CacheHits",
    "Calibration",
    "LatencyTable",
    "MMDDrift",
    "QueryCost",
    "ann_recall",
    "cache_hit_rates",
    "calibration",
    "cost_per_query",
    "exact_search",
    "hnsw_search",
    "latency_percentiles",
    "mmd_drift",
    "proportion_margin",
    "read_spans",
]


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


def _duration(span: Mapping, i: int) -> float:
    """``duration_ms``, else ``end_ms − start_ms``; finite and ≥ 0."""
    if span.get("duration_ms") is not None:
        d = span["duration_ms"]
    elif span.get("start_ms") is not None and span.get("end_ms") is not None:
        d = span["end_ms"] - span["start_ms"]
    else:
        raise InputError(f"span #{i}: needs duration_ms or start_ms and end_ms")
    if isinstance(d, bool):
        raise InputError(f"span #{i}: duration is a boolean ({d!r}), not a number of ms")
    try:
        d = float(d)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(f"span #{i}: duration is not a number: {d!r}") from exc
    if not math.isfinite(d) or d < 0:
        raise InputError(f"span #{i}: duration must be finite and >= 0, got {d}")
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
            raise InputError(f"span #{i}: needs 'trace_id' and 'stage'")
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
        count=_frozen([len(by_stage[s]) for s in stages], np.int64),
        values=_frozen(values, float),
        per=per,
        durations=by_stage,
    )


@dataclass(frozen=True)
class Calibration:
    """Per item ``confidence`` ∈ [0, 1], ``correct`` (bool) and ``bin`` index.

    Bins are M equal-width intervals ``[m/M, (m+1)/M)``, the last closed at 1; the index is
    ``min(⌊round(c·M, 9)⌋, M − 1)`` (rounding first so 0.3·10 lands in bin 3).
    ``ECE = Σ_m (|B_m| / n)·|acc(B_m) − conf(B_m)|`` over non-empty bins, with
    ``acc(B_m)`` the share correct and ``conf(B_m)`` the mean confidence in bin m.
    """

    item_ids: tuple[str, ...]
    confidence: np.ndarray
    correct: np.ndarray
    bin: np.ndarray
    n_bins: int

    def reliability(self) -> list[dict]:
        """One row per bin: lower, upper, count, mean_confidence, accuracy (NaN when empty)."""
        rows = []
        for m in range(self.n_bins):
            sel = self.bin == m
            k = int(sel.sum())
            rows.append(
                {
                    "bin": m,
                    "lower": m / self.n_bins,
                    "upper": (m + 1) / self.n_bins,
                    "count": k,
                    "mean_confidence": float(self.confidence[sel].mean()) if k else math.nan,
                    "accuracy": float(self.correct[sel].mean()) if k else math.nan,
                }
            )
        return rows

    @property
    def ece(self) -> float:
        n = self.confidence.size
        return float(
            sum(
                r["count"] / n * abs(r["accuracy"] - r["mean_confidence"])
                for r in self.reliability()
                if r["count"]
            )
        )

    def records(self) -> dict[str, float]:
        """Item id → ``correct − confidence`` (its mean is the overall calibration gap)."""
        gap = self.correct.astype(float) - self.confidence
        return dict(zip(self.item_ids, gap.tolist(), strict=True))


def calibration(
    confidence: Iterable[float],
    correct: Iterable[bool],
    n_bins: int = 10,
    item_ids: Iterable[str] | None = None,
) -> Calibration:
    """Expected calibration error with a reliability table (see :class:`Calibration`)."""
    conf = np.asarray(list(confidence), dtype=float)
    corr = np.asarray(list(correct))
    if conf.size == 0:
        raise InputError("calibration: no item (empty denominator)")
    if corr.shape != conf.shape:
        raise InputError(f"calibration: {conf.size} confidences but {corr.size} outcomes")
    if not np.isin(corr, [0, 1]).all():
        raise InputError("calibration: correct must be booleans / 0 / 1")
    if not (np.isfinite(conf).all() and (conf >= 0).all() and (conf <= 1).all()):
        raise InputError("calibration: confidences must lie in [0, 1]")
    if not isinstance(n_bins, int) or n_bins < 1:
        raise InputError(f"calibration: n_bins must be a positive int, got {n_bins!r}")
    ids = tuple(str(i) for i in (item_ids if item_ids is not None else range(conf.size)))
    if len(ids) != conf.size:
        raise InputError("calibration: item_ids length differs from confidences")
    bins = np.minimum(np.floor(np.round(conf * n_bins, 9)), n_bins - 1).astype(np.int64)
    return Calibration(
        ids, _frozen(conf, float), _frozen(corr, bool), _frozen(bins, np.int64), n_bins
    )


@dataclass(frozen=True)
class CacheHits:
    """Per cache layer (embedding, retrieval, KV, …): ``hits`` and ``lookups``;
    ``rate(layer) = hits / lookups``."""

    layers: tuple[str, ...]
    hits: np.ndarray
    lookups: np.ndarray

    def rate(self, layer: str) -> float:
        if layer not in self.layers:
            raise InputError(f"unknown cache layer {layer!r}; layers: {list(self.layers)}")
        i = self.layers.index(layer)
        return int(self.hits[i]) / int(self.lookups[i])

    def rates(self) -> dict[str, float]:
        return {layer: self.rate(layer) for layer in self.layers}


def cache_hit_rates(records: Iterable[Mapping]) -> CacheHits:
    """Hit rate per layer from lookup records ``{"layer": str, "hit": bool}``."""
    hits: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        if not isinstance(r, Mapping) or "layer" not in r or r.get("hit") not in (0, 1):
            raise InputError(f"cache record #{i}: needs 'layer' and a boolean 'hit'")
        hits.setdefault(str(r["layer"]), []).append(int(r["hit"]))
    if not hits:
        raise InputError("cache_hit_rates: no lookup (empty denominator)")
    layers = tuple(sorted(hits))
    return CacheHits(
        layers,
        _frozen([sum(hits[x]) for x in layers], np.int64),
        _frozen([len(hits[x]) for x in layers], np.int64),
    )


@dataclass(frozen=True)
class QueryCost:
    """Per query the summed ``cost`` of its records (tokens, dollars, … in one unit);
    ``mean = Σ cost / #queries``, ``total = Σ cost``."""

    item_ids: tuple[str, ...]
    cost: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.cost.mean())

    @property
    def total(self) -> float:
        return float(self.cost.sum())

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.cost.tolist(), strict=True))


def cost_per_query(records: Iterable[Mapping]) -> QueryCost:
    """Cost per query from records ``{"query_id", "cost"}`` (several per query are summed)."""
    cost: dict[str, float] = {}
    for i, r in enumerate(records):
        if not isinstance(r, Mapping) or "query_id" not in r:
            raise InputError(f"cost record #{i}: needs 'query_id' and 'cost'")
        try:
            c = float(r["cost"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"cost record #{i}: 'cost' must be a number") from exc
        if not math.isfinite(c) or c < 0:
            raise InputError(f"cost record #{i}: cost must be finite and >= 0, got {c}")
        key = str(r["query_id"])
        cost[key] = cost.get(key, 0.0) + c
    if not cost:
        raise InputError("cost_per_query: no query (empty denominator)")
    return QueryCost(tuple(cost), _frozen(list(cost.values()), float))
