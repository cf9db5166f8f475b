"""System metrics (the RAG reference part 4 and serving): latency, calibration, caches, cost, ANN, drift.

* :mod:`~ragstat.metrics.system.latency` — p50/p95/p99 per pipeline stage from spans;
* :mod:`~ragstat.metrics.system.reliability` — expected calibration error;
* :mod:`~ragstat.metrics.system.accounting` — cache hit rates and cost per query;
* :mod:`~ragstat.metrics.system.ann` — ANN Recall@k against exact search;
* :mod:`~ragstat.metrics.system.drift` — embedding drift by MMD;
* :mod:`~ragstat.metrics.system.margin` — the sample-size margin of a rate.
"""

from ragstat.metrics.system.accounting import CacheHits, QueryCost, cache_hit_rates, cost_per_query
from ragstat.metrics.system.ann import AnnRecall, ann_recall, exact_search, hnsw_search
from ragstat.metrics.system.drift import MMDDrift, mmd_drift
from ragstat.metrics.system.latency import LatencyTable, latency_percentiles, read_spans
from ragstat.metrics.system.margin import proportion_margin
from ragstat.metrics.system.reliability import Calibration, calibration

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
