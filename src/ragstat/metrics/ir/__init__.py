"""IR metrics over qrels and runs: one metric parser and one kernel per formula.

* :mod:`~ragstat.metrics.ir.names` — metric names as users type them → `Metric`;
* :mod:`~ragstat.metrics.ir.kernels` — vectorised per-query kernels (nDCG, recall,
  P, RR, AP, hit, R-prec) with trec_eval's conventions;
* :mod:`~ragstat.metrics.ir.evaluation` — `evaluate` runs against qrels;
* :mod:`~ragstat.metrics.ir.fusion` — run-level reciprocal rank fusion;
* :mod:`~ragstat.metrics.ir.rerank` — reranking deltas on identical candidate sets;
* :mod:`~ragstat.metrics.ir.clustering` — which cluster each query belongs to.

`Qrels` / `Run` and their readers live in :mod:`ragstat.records.qrels`.
"""

from ragstat.metrics.ir.clustering import Clustering, cluster_queries
from ragstat.metrics.ir.evaluation import EvaluationTable, QueryCounts, evaluate
from ragstat.metrics.ir.fusion import rrf_fuse
from ragstat.metrics.ir.names import METRIC_NAMES, Metric, parse_metric, parse_metrics
from ragstat.metrics.ir.rerank import RERANK_METRICS, RerankDelta, rerank_delta

__all__ = [
    "METRIC_NAMES",
    "RERANK_METRICS",
    "Clustering",
    "EvaluationTable",
    "Metric",
    "QueryCounts",
    "RerankDelta",
    "cluster_queries",
    "evaluate",
    "parse_metric",
    "parse_metrics",
    "rerank_delta",
    "rrf_fuse",
]
