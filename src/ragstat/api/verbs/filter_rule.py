"""``ragstat.filter_rule``: may a relevance preference become a hard filter?

>>> result = filter_rule("qrels.trec", hard="hard.trec", soft="soft.trec",
...                      delta_min=0.03, epsilon=0.02, recall_loss_max=0.01,
...                      name="locale = en-US", kind="locale")  # doctest: +SKIP
>>> result              # doctest: +SKIP  the decision in one sentence, then each condition
>>> result.to_frame()   # doctest: +SKIP  one row per condition
>>> result.to_dict()    # doctest: +SKIP  what ``ragstat filter-rule --json`` prints

The two runs rank the same eligible validation queries, once with the preference as a
hard filter and once as a soft boost; the qrels are the authorised (entitled) gold. Per
eligible query — a qrels query with at least one document of relevance > 0 —, with the
same kernels as ``evaluate`` (trec_eval's ``P@k`` and ``recall@k``; a query a run did not
rank counts as an empty ranking):

* precision gain = P@k(hard) − P@k(soft); recall difference = recall@k(hard) − recall@k(soft);
* excluded = 1 when none of the query's relevant documents appears anywhere in the hard
  run's ranking for it (at any depth, not only the top k): the query-level false exclusion
  of :func:`ragstat.metrics.false_exclusion`, with the qrels as the entitled gold and the
  hard run's documents as the predicate's survivors.

The two differences get the document-clustered paired intervals of
:func:`ragstat.inference.paired.compare`, the exclusion rate the clustered intervals of
:func:`ragstat.inference.analyze` with the bounded ones (its recommended interval stays in
[0, 1]), all clustered like ``evaluate --cluster-by`` (default: queries independent, said
in the output). The decision is :func:`ragstat.decisions.filter_rule.decide_filter_rule`
on the chosen estimand's recommended intervals.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import ragstat.api.verbs.evaluate as evaluate_verb
from ragstat.api.evaluation import draw_seed, json_ready
from ragstat.api.score_bounds import difference_bounds
from ragstat.decisions.filter_rule import (
    EPSILON_AGAINST,
    Estimate,
    FilterRuleResult,
    Thresholds,
    decide_filter_rule,
    refuse_access,
)
from ragstat.errors import InputError
from ragstat.inference import analyze
from ragstat.inference.headline import headline
from ragstat.inference.paired import compare
from ragstat.inference.results import IntervalReport
from ragstat.metrics import Clustering, EvaluationTable, false_exclusion, parse_metric
from ragstat.metrics import evaluate as score_runs
from ragstat.records import aggregate_arrays

__all__ = ["EXCLUSION_DEFINITION", "FilterRuleResult", "filter_rule"]

EXCLUSION_DEFINITION = (
    "a query is excluded when none of its relevant documents (relevance > 0 in the qrels, the "
    "authorised gold) appears anywhere in the hard run's ranking for it, at any depth; the "
    "rate is over the eligible queries (at least one relevant document)"
)
_ESTIMANDS = ("micro", "macro")
_SYSTEMS = ("hard", "soft")


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k <= 0:
        raise InputError(f"k must be a positive whole number, got {k!r}")
    return int(k)


def _check_choices(estimand: str, epsilon_against: str) -> None:
    if estimand not in _ESTIMANDS:
        raise InputError(f"estimand must be micro or macro, got {estimand!r}")
    if epsilon_against not in EPSILON_AGAINST:
        raise InputError(
            f"epsilon_against must be one of {', '.join(EPSILON_AGAINST)}, got {epsilon_against!r}"
        )


def _eligible(table: EvaluationTable, metric: str) -> list[str]:
    """The qrels queries with at least one relevant document, in qrels order."""
    rec = table.records
    rows = rec[(rec["system"] == "hard") & (rec["metric"] == metric) & ~rec["no_relevant"]]
    queries = [str(q) for q in rows["query_id"]]
    if not queries:
        raise InputError(
            "no eligible query: no qrels query has a relevant document (relevance > 0), so "
            "there is no evidence for the hard-vs-soft filter rule"
        )
    return queries


def _excluded(qrels: Any, hard: Any, queries: list[str]) -> tuple[np.ndarray, float]:
    """Per eligible query: 1 when the hard run lists none of its relevant documents; and
    the per-document exclusion rate (excluded relevant documents / relevant documents)."""
    gold = {q: {d: int(r) for d, r in qrels[q].items()} for q in queries}
    entitled = {q: [d for d, r in gold[q].items() if r > 0] for q in queries}
    survivors = {q: [d for d, _ in hard.rankings.get(q, [])] for q in queries}
    found = false_exclusion(gold, entitled, survivors)
    order = {q: i for i, q in enumerate(found.query_ids)}
    excluded = np.array([found.excluded[order[q]] for q in queries], dtype=float)
    return excluded, found.document_rate


def _shown(report: IntervalReport, estimand: str) -> Estimate:
    """The headline interval of one estimand (:func:`ragstat.inference.headline.headline`,
    as every output shows it) as the rule's `Estimate`: no bounds, with the reason, when
    there is none (too few clusters, unavailable, outside the range); the condition then
    does not hold."""
    h = headline(report, estimand)
    estimate = float(report.estimands[estimand].estimate)
    if not h.available:
        return Estimate(estimate, method=h.method, reason=h.reason)
    return Estimate(estimate, h.lower, h.upper, h.method)


def _clusters(clustering: Clustering, queries: list[str]) -> np.ndarray:
    clusters = dict(clustering.clusters)
    cl = np.array([clusters[q] for q in queries], dtype=object)
    if len(set(cl.tolist())) < 2:
        raise InputError(
            f"the {len(queries)} eligible queries fall in fewer than two clusters: no interval, "
            "so no evidence for the hard-vs-soft filter rule (it needs at least two clusters)"
        )
    return cl


def _paired(
    cl: np.ndarray, table: EvaluationTable, metric: str, queries: list[str],
    level: float, seed: int, reps: int,
) -> IntervalReport:  # fmt: skip
    """metric(hard) − metric(soft) per eligible query, by ``compare`` itself: its default
    methods and recommendation, on the difference's range read from both runs' values
    ([−1, 1] for P@k and recall@k), so no interval leaving it is ever the one shown."""
    hard = table.values(metric, "hard").reindex(queries)
    soft = table.values(metric, "soft").reindex(queries)
    stats = aggregate_arrays(cl, (hard - soft).to_numpy(float), score=f"{metric} hard - soft")
    bounds = difference_bounds(hard, soft)
    return compare(stats, level=level, seed=seed, bootstrap_reps=reps, bounds=bounds).report


def _rate(
    cl: np.ndarray, excluded: np.ndarray, level: float, seed: int, reps: int
) -> IntervalReport:
    stats = aggregate_arrays(cl, excluded, score="exclusion_rate")
    methods = evaluate_verb.METHODS_RUN
    return analyze(stats, level=level, methods=methods, seed=seed, bootstrap_reps=reps)


def _load(qrels: Any, hard: Any, soft: Any) -> tuple[Any, list[Any]]:
    """Qrels and the two runs (named ``hard`` and ``soft``), read as ``evaluate`` reads them."""
    return evaluate_verb.load_qrels(qrels), [evaluate_verb.load_run(hard, "hard"),
                                         evaluate_verb.load_run(soft, "soft")]  # fmt: skip


def _queries(table: EvaluationTable, eligible: int) -> dict[str, int]:
    hard, soft = table.counts["hard"], table.counts["soft"]
    return {
        "qrels": hard.total,
        "eligible": eligible,
        "no_relevant": hard.no_relevant,
        "missing_in_hard": hard.missing_run,
        "missing_in_soft": soft.missing_run,
        "unjudged_in_hard": hard.unjudged_queries,
        "unjudged_in_soft": soft.unjudged_queries,
    }


def _notes(
    table: EvaluationTable, hard: Any, k: int, clustering: Clustering, reports: Mapping[str, Any]
) -> list[str]:
    out = [clustering.note] if clustering.by == "query" else []
    for system in _SYSTEMS:
        missing = table.counts[system].missing_run
        if missing:
            out.append(f"{missing} qrels queries have no ranking in the {system} run: scored as "
                       "empty rankings" + (" (and excluded)" if system == "hard" else ""))  # fmt: skip
    lengths = np.asarray(hard.columns.lengths)
    if lengths.size and int(lengths.max()) == k:  # looks cut at k, not the survivors
        out.append(
            f"the hard run lists at most k = {k} documents per query: a relevant document it "
            "ranked below its cut-off counts as excluded — give the filter's survivors (or a "
            "deeper ranking) to measure what the filter removed"
        )
    warnings = [w for rep in reports.values() for w in rep.warnings]
    return out + list(dict.fromkeys(warnings))


def _means(table: EvaluationTable, metrics: tuple[str, str], queries: list[str]) -> dict:
    return {s: {m: float(table.values(m, s).reindex(queries).mean()) for m in metrics}
            for s in _SYSTEMS}  # fmt: skip


def _measure(
    q: Any, runs: list[Any], k: int, cluster_by: Any, cluster_column: str,
    level: float, seed: int, reps: int,
) -> tuple[dict[str, IntervalReport], dict[str, Any], list[str]]:  # fmt: skip
    """The three quantities' interval reports, the facts behind them, and the notes."""
    p, r = parse_metric(f"p@{k}").name, parse_metric(f"recall@{k}").name
    table = score_runs(q, runs, [p, r])
    queries = _eligible(table, p)
    clustering = evaluate_verb.load_clustering(cluster_by, queries, q, cluster_column)
    cl = _clusters(clustering, queries)
    excluded, document_rate = _excluded(q, runs[0], queries)
    reports = {
        "precision_gain": _paired(cl, table, p, queries, level, seed, reps),
        "exclusion_rate": _rate(cl, excluded, level, seed, reps),
        "recall_difference": _paired(cl, table, r, queries, level, seed, reps),
    }  # fmt: skip
    context = {
        "queries": _queries(table, len(queries)),
        "clustering": clustering.to_dict(),
        "clusters": int(reports["precision_gain"].K),
        "seed": seed,
        "bootstrap_reps": reps,
        "means": _means(table, (p, r), queries),
        "exclusion": {
            "definition": EXCLUSION_DEFINITION,
            "excluded_queries": int(excluded.sum()),
            "document_rate": document_rate,
        },
        "intervals": {key: rep.to_dict() for key, rep in reports.items()},
    }
    return reports, json_ready(context), _notes(table, runs[0], k, clustering, reports)


def filter_rule(
    qrels: evaluate_verb.QrelsInput,
    hard: evaluate_verb.RunInput,
    soft: evaluate_verb.RunInput,
    *,
    delta_min: float,
    epsilon: float,
    recall_loss_max: float,
    k: int = 10,
    name: str | None = None,
    kind: str | None = None,
    cluster_by: str | Path | Mapping[str, Any] | pd.DataFrame | None = None,
    cluster_column: str = "cluster",
    estimand: str = "micro",
    epsilon_against: str = "estimate",
    level: float = 0.95,
    bootstrap_reps: int = 9_999,
    seed: int | None = None,
) -> FilterRuleResult:
    """The hard-vs-soft filter rule for one relevance preference (module docstring).

    ``qrels``, ``hard``, ``soft``: as ``evaluate`` reads them (paths, `Qrels` / `Run`,
    mappings or DataFrames); ``delta_min``, ``epsilon``, ``recall_loss_max``: the
    pre-registered thresholds, each in [0, 1], required; ``name`` / ``kind``: the
    preference (an access-rule kind — authorisation, tenant, jurisdiction,
    publication_state — is refused); ``cluster_by``: as ``evaluate``'s; ``estimand``:
    ``micro`` (per query, default) or ``macro``; ``epsilon_against``: compare ε with the
    exclusion rate's point ``estimate`` (default) or its ``upper`` bound.
    """
    refuse_access(name, kind)
    thresholds = Thresholds(delta_min, epsilon, recall_loss_max)
    k = _check_k(k)
    _check_choices(estimand, epsilon_against)
    seed = draw_seed(seed)
    q, runs = _load(qrels, hard, soft)
    reports, context, notes = _measure(q, runs, k, cluster_by, cluster_column, level, seed,
                                       bootstrap_reps)  # fmt: skip
    shown = {key: _shown(rep, estimand) for key, rep in reports.items()}
    return decide_filter_rule(
        shown["precision_gain"], shown["exclusion_rate"], shown["recall_difference"], thresholds,
        name=name, kind=kind, epsilon_against=epsilon_against, estimand=estimand, level=level,
        k=k, context=context, notes=tuple(notes),
    )  # fmt: skip
