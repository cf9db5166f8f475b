"""Per-query metric kernels (see DESIGN.md): IR metrics over qrels and runs.

``read_qrels`` / ``read_run`` (TREC, JSONL, CSV, Parquet), ``evaluate`` with
metric names as users type them (``ndcg@10``, ``recall@10``, ``mrr``, …).
"""

from ragstat.metrics.clustering import Clustering, cluster_queries
from ragstat.metrics.filters import (
    DocumentExclusions,
    FalseExclusion,
    RecallAtK,
    document_exclusions,
    false_exclusion,
    recall_at_k_correct,
    select_ids,
)
from ragstat.metrics.fusion import RERANK_METRICS, RerankDelta, rerank_delta, rrf_fuse
from ragstat.metrics.generation import (
    CitationScores,
    Faithfulness,
    FaithfulnessJudgment,
    RefusalCorrectness,
    citation_scores,
    faithfulness,
    refusal_correctness,
)
from ragstat.metrics.generation_text import (
    ShortAnswerScores,
    exact_match,
    position_bias,
    short_answer_scores,
    token_f1,
    unseen_entity_flags,
)
from ragstat.metrics.ir import (
    METRIC_NAMES,
    EvaluationTable,
    Metric,
    QueryCounts,
    evaluate,
    parse_metric,
)
from ragstat.metrics.predicates import PredicatePrecisionRecall, predicate_precision_recall
from ragstat.metrics.runs import (
    Qrels,
    Run,
    qrels_from_dict,
    qrels_from_frame,
    read_qrels,
    read_run,
    run_from_dict,
    run_from_frame,
)

__all__ = [
    "METRIC_NAMES",
    "RERANK_METRICS",
    "CitationScores",
    "Clustering",
    "DocumentExclusions",
    "EvaluationTable",
    "Faithfulness",
    "FaithfulnessJudgment",
    "FalseExclusion",
    "Metric",
    "PredicatePrecisionRecall",
    "Qrels",
    "QueryCounts",
    "RecallAtK",
    "RefusalCorrectness",
    "RerankDelta",
    "Run",
    "ShortAnswerScores",
    "citation_scores",
    "cluster_queries",
    "document_exclusions",
    "evaluate",
    "exact_match",
    "faithfulness",
    "false_exclusion",
    "parse_metric",
    "position_bias",
    "predicate_precision_recall",
    "qrels_from_dict",
    "qrels_from_frame",
    "read_qrels",
    "read_run",
    "recall_at_k_correct",
    "refusal_correctness",
    "rerank_delta",
    "rrf_fuse",
    "run_from_dict",
    "run_from_frame",
    "select_ids",
    "short_answer_scores",
    "token_f1",
    "unseen_entity_flags",
]
