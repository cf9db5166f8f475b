"""Serving accounting (the RAG reference, serving): cache hit rate per layer and cost per query.

Both read simple records (``{"layer", "hit"}``, ``{"query_id", "cost"}``); no record
is an empty denominator and raises `InputError`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["CacheHits", "QueryCost", "cache_hit_rates", "cost_per_query"]


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
        frozen_array([sum(hits[x]) for x in layers], np.int64),
        frozen_array([len(hits[x]) for x in layers], np.int64),
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
    return QueryCost(tuple(cost), frozen_array(list(cost.values()), float))
