"""``ragstat.evaluate``: IR metrics per query against qrels, then clustered intervals.

>>> result = evaluate("qrels.trec", ["run_a.trec", "run_b.trec"], metrics="ndcg@10,mrr")
>>> result              # doctest: +SKIP  (the verdicts, then each run × metric's interval)
>>> result.to_frame()   # doctest: +SKIP  run × metric × estimand × method
>>> result.to_dict()    # doctest: +SKIP  what ``ragstat evaluate --json`` prints

Every qrels query is scored for every run (a query a run did not rank counts as an empty
ranking; a query without a relevant document has no value — a separate slice, counted).
Each run × metric gets the mean over the queries with a value and intervals clustered by
``cluster_by``: ``None``/``"query"`` (queries treated as independent, said plainly),
``"qrels-doc"`` (the source document of the gold ``doc#position`` passages), a mapping
file, a mapping query_id → cluster or a DataFrame with ``query_id`` and ``cluster_column``.
With two runs the per-query differences A − B get the paired comparison
(:func:`ragstat.inference.paired.compare`) and a plain verdict per estimand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

import ragstat.metrics  # read_qrels looked up when called (tests interrupt it)
from ragstat.api.data import as_path
from ragstat.api.evaluation import (
    EvaluationReport,
    MetricEvaluation,
    PairedEvaluation,
    PairedMetric,
    PairedQueries,
    RunEvaluation,
    draw_seed,
)
from ragstat.api.score_bounds import difference_bounds
from ragstat.api.sources import Source
from ragstat.errors import InputError
from ragstat.inference import analyze
from ragstat.inference.paired import compare
from ragstat.inference.provenance import SourceInfo
from ragstat.inference.verdict import cluster_noun, verdicts
from ragstat.metrics import Clustering, EvaluationTable, Qrels, Run, parse_metric
from ragstat.records import aggregate_arrays
from ragstat.resources.caps import check_list

__all__ = [
    "METHODS_PAIRED",
    "METHODS_RUN",
    "evaluate",
    "load_clustering",
    "load_qrels",
    "load_run",
    "metric_names",
]

#: Methods of the paired differences: None, ``compare``'s own default set, so a difference's
#: headline is the one ``ragstat compare`` shows for the same data, seed and level. With the
#: difference's known range ([−1, 1] for metrics in [0, 1]) that set includes the
#: range-respecting ``logit`` and ``korn_graubard``, and no interval leaving it is recommended.
METHODS_PAIRED = None
#: Per-run metrics (in [0, 1]): every method ``analyze`` may recommend (all but the
#: never-recommended ``wald_effective_n`` and the query bootstrap, which needs the rows), so
#: the recommendation is ``ragstat interval``'s; ``wald_iid`` for contrast.
METHODS_RUN = ("cr2_bm", "cr2_ik", "t_rates", "doc_bootstrap_t", "wald_iid", "cr1",
               "doc_bootstrap_percentile", "logit", "korn_graubard", "logit_cr2_bm")  # fmt: skip
DEFAULT_METRICS = ("ndcg@10", "recall@10", "mrr")

#: Qrels: a path (TREC, JSONL, CSV, Parquet), a `Qrels`, ``{qid: {doc: rel}}`` or a DataFrame.
QrelsInput = Any
#: A run: a path, a `Run`, ``{qid: {doc: score}}`` / ``{qid: [doc, …]}`` or a DataFrame.
RunInput = Any


def metric_names(metrics: str | Sequence[str]) -> list[str]:
    """Canonical metric names (``P@10`` → ``p@10``), duplicates dropped; an unknown or
    malformed name is an InputError listing the valid ones."""
    typed = metrics.split(",") if isinstance(metrics, str) else [str(m) for m in metrics]
    typed = [m.strip() for m in typed if m.strip()]
    check_list(typed, "--metrics")
    if not typed:
        raise InputError("--metrics is empty")
    return list(dict.fromkeys(parse_metric(m).name for m in typed))


def _frame(data: object) -> pd.DataFrame | None:
    if isinstance(data, pd.DataFrame):
        return data
    to_pandas = getattr(data, "to_pandas", None)  # a pyarrow Table
    return to_pandas() if callable(to_pandas) and hasattr(data, "num_rows") else None


def load_qrels(qrels: QrelsInput) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, (str, Path)):
        return ragstat.metrics.read_qrels(qrels)
    if isinstance(qrels, Mapping):
        return ragstat.metrics.qrels_from_dict(qrels)
    frame = _frame(qrels)
    if frame is None:
        raise InputError(
            "qrels: expected a path, a Qrels, a mapping query_id → {doc_id: relevance} or a "
            f"DataFrame (query_id, doc_id, relevance); got {type(qrels).__name__}"
        )
    return ragstat.metrics.qrels_from_frame(frame)


def load_run(run: RunInput, name: str | None) -> Run:
    if isinstance(run, Run):
        return run if name is None or name == run.name else replace(run, name=name)
    if isinstance(run, (str, Path)):
        return ragstat.metrics.read_run(run, name)
    if isinstance(run, Mapping):
        return ragstat.metrics.run_from_dict(run, name or "run")
    frame = _frame(run)
    if frame is None:
        raise InputError(
            "run: expected a path, a Run, a mapping query_id → ranking or a DataFrame "
            f"(query_id, doc_id, score); got {type(run).__name__}"
        )
    return ragstat.metrics.run_from_frame(frame, name or "run")


def _is_ranking(value: object) -> bool:
    """One query's ranking: ``{doc: score}`` or a list of doc ids / (doc, score) pairs."""
    if isinstance(value, Mapping):
        return not any(isinstance(v, (Mapping, list, tuple)) for v in value.values())
    return isinstance(value, (list, tuple))


def _is_run(value: object) -> bool:
    """A single run (not a collection of them): a path, a Run, a frame, or a mapping
    query_id → ranking (``{qid: {doc: score}}``, ``{qid: [doc, …]}``)."""
    if isinstance(value, (str, Path, Run)) or _frame(value) is not None:
        return True
    return isinstance(value, Mapping) and all(_is_ranking(v) for v in value.values())


def _runs(runs: RunInput | Sequence[RunInput] | Mapping[str, RunInput]) -> list[Run]:
    """One run, a sequence of runs, or a mapping name → run, as named `Run` objects."""
    if isinstance(runs, Mapping) and not _is_run(runs):
        out = [load_run(r, str(name)) for name, r in runs.items()]
    elif _is_run(runs):
        out = [load_run(runs, None)]
    elif isinstance(runs, Sequence):
        many = len(runs) > 1
        out = [
            load_run(r, None if _named(r) or not many else f"run{i}") for i, r in enumerate(runs, 1)
        ]
    else:
        raise InputError(f"runs: expected a run, a list of runs or a mapping name → run; got "
                         f"{type(runs).__name__}")  # fmt: skip
    if not out:
        raise InputError("runs: no run given")
    labels = [r.name for r in out]
    if len(set(labels)) != len(labels):
        raise InputError(
            f"two runs share the name {labels}; rename the files (or pass a mapping name → run)"
        )
    return out


def _named(run: object) -> bool:
    return isinstance(run, (str, Path, Run))


def load_clustering(
    cluster_by: str | Path | Mapping[str, Any] | pd.DataFrame | None,
    queries: Sequence[str],
    qrels: Qrels,
    column: str,
) -> Clustering:
    """The cluster of each query: a rule (``query``, ``qrels-doc``), a mapping file, or a
    mapping / DataFrame given in memory (checked like a file)."""
    if cluster_by is None or isinstance(cluster_by, (str, Path)):
        by = None if cluster_by is None else str(cluster_by)
        return ragstat.metrics.cluster_queries(by, queries, qrels.judgments, column)
    if isinstance(cluster_by, Mapping):
        pairs = list(cluster_by.items())
        frame = pd.DataFrame({"query_id": [str(q) for q, _ in pairs],
                              column: [str(c) for _, c in pairs]})  # fmt: skip
        what = "the given mapping query_id → cluster"
    else:
        frame, what = _frame(cluster_by), f"{column!r} of the given DataFrame"
        if frame is None:
            raise InputError(
                "cluster_by: expected 'query', 'qrels-doc', a mapping file, a mapping "
                f"query_id → cluster or a DataFrame; got {type(cluster_by).__name__}"
            )
    with as_path(frame, "cluster_by") as path:
        found = ragstat.metrics.cluster_queries(str(path), queries, qrels.judgments, column)
    by = "mapping" if isinstance(cluster_by, Mapping) else "frame"
    return replace(found, by=by, note=f"clustered by {what}")


def evaluate(
    qrels: QrelsInput | Source,
    runs: RunInput | Sequence[RunInput] | Mapping[str, RunInput] | None = None,
    *,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    cluster_by: str | Path | Mapping[str, Any] | pd.DataFrame | None = None,
    cluster_column: str = "cluster",
    level: float = 0.95,
    bootstrap_reps: int = 9_999,
    seed: int | None = None,
) -> EvaluationReport:
    """Evaluate ``runs`` against ``qrels``: per run × metric the mean with clustered
    intervals, and for two runs the paired comparison (see the module docstring).

    ``qrels``: a path (TREC ``qid 0 docid rel``, JSONL, CSV, Parquet), a `Qrels`,
    ``{qid: {doc: relevance}}`` or a DataFrame (``query_id, doc_id, relevance``);
    ``runs``: one run (a path, a `Run`, ``{qid: {doc: score}}`` or a DataFrame with
    ``query_id, doc_id, score``), a list of them, or a mapping name → run (a file's run is
    named by its stem; unnamed runs in a list ``run1``, ``run2``, …); ``metrics``:
    ``"ndcg@10,recall@10,mrr"`` or a list (``p@10``, ``map``, ``hit@5``, ``rprec``…).
    ``seed=None`` draws a seed, kept in ``result.seed``. ``qrels`` may instead be a
    :class:`~ragstat.api.sources.Source` read from a ranx, BEIR or MTEB file (qrels and
    runs together; ``runs`` then None).
    """
    qrels, runs, info = _from_source(qrels, runs)
    names = metric_names(metrics)
    seed = draw_seed(seed)
    q = load_qrels(qrels)
    run_list = _runs(runs)
    labels = [r.name for r in run_list]
    table = ragstat.metrics.evaluate(q, run_list, names)
    clustering = load_clustering(cluster_by, table.records["query_id"].unique(), q, cluster_column)
    clusters = dict(clustering.clusters)
    per = {
        name: _one_run(table, name, clusters, names, level, seed, bootstrap_reps) for name in labels
    }
    paired = None
    if len(labels) == 2:
        noun = cluster_noun(clustering.by)
        pair = (labels[0], labels[1])
        paired = _paired(table, pair, clusters, names, noun, level, seed, bootstrap_reps)
    return EvaluationReport(
        clustering, level, seed, bootstrap_reps, tuple(names), per, paired,
        source=_beside_tool(_clustered_info(info, clustering), per),
    )  # fmt: skip


def _beside_tool(info: SourceInfo | None, per: dict[str, RunEvaluation]) -> SourceInfo | None:
    """The tool's own mean of each run × metric (ranx Report, BEIR/MTEB results files)
    beside ragstat's estimate and headline interval, one sentence each."""
    if info is None or not info.tool_values:
        return info
    from ragstat.inference.tool_agreement import ToolComparison, beside_interval

    found: list[ToolComparison] = []
    for run, evaluation in per.items():
        for name, metric in evaluation.metrics.items():
            exact = any(v.system == run and v.score == name for v in info.tool_values)
            if metric.report is not None and exact:
                found += beside_interval(info, metric.report, system=run).comparisons
    return replace(info, comparisons=tuple(found))


def _clustered_info(info: SourceInfo | None, clustering: Clustering) -> SourceInfo | None:
    """The source's sentence says how the queries were grouped here (not "independent"
    when a mapping or the qrels' documents grouped them)."""
    if info is None or clustering.by in (None, "query") or "independent" in clustering.note:
        return info
    groups = clustering.to_dict()["clusters"]
    noun = cluster_noun(clustering.by)
    cluster = f"{groups} {noun} ({clustering.note})"
    return replace(info, independent=False, cluster=cluster, documents=groups)


def _from_source(qrels: Any, runs: Any) -> tuple[Any, Any, SourceInfo | None]:
    """Qrels and runs, taken from a ranx/BEIR/MTEB :class:`Source` when one is given."""
    if not isinstance(qrels, Source):
        if runs is None:
            raise InputError("evaluate: give the runs to evaluate (or a ranx/BEIR/MTEB file)")
        return qrels, runs, None
    if qrels.runs is None:
        raise InputError(
            f"{qrels.info.path}: {qrels.info.tool} scores, not qrels and runs; "
            "use interval or compare"
        )
    if runs is not None:
        raise InputError(f"{qrels.info.path}: holds its runs already; do not name others")
    return qrels.runs.qrels, qrels.runs.runs, qrels.info


def _metric(
    values: pd.Series, clusters: pd.Series, run: str, name: str, level: float, seed: int, reps: int
) -> MetricEvaluation:
    ok = values.notna()
    if ok.sum() == 0:
        return MetricEvaluation(run, name, None, 0, note="no query has a value")
    stats = aggregate_arrays(clusters[ok].to_numpy(), values[ok].to_numpy(float), score=name)
    queries = int(ok.sum())
    if stats.K < 2:
        note = "fewer than two clusters: no interval"
        return MetricEvaluation(run, name, float(values[ok].mean()), queries, note=note)
    rep = analyze(stats, level=level, methods=METHODS_RUN, seed=seed, bootstrap_reps=reps)
    mean = float(rep.estimands["micro"].estimate)
    return MetricEvaluation(run, name, mean, queries, report=rep, stats=stats)


def _one_run(
    table: EvaluationTable, system: str, clusters: dict[str, str], metrics: list[str],
    level: float, seed: int, reps: int,
) -> RunEvaluation:  # fmt: skip
    counts = table.counts[system]
    if counts.missing_run == counts.total:
        raise InputError(
            f"run {system!r} has no query in common with the qrels (its ids and the qrels' "
            "ids differ?); nothing to evaluate"
        )
    rec = table.records[table.records["system"] == system]
    out = {}
    for metric in metrics:
        r = rec[rec["metric"] == metric]
        values, cl = r["value"], r["query_id"].map(clusters)
        out[metric] = _metric(values, cl, system, metric, level, seed, reps)
    warnings = []
    if counts.missing_run:
        warnings.append(
            f"{counts.missing_run} qrels queries have no ranking in {system!r}: "
            "scored as empty rankings"
        )
    if counts.unjudged_queries:
        warnings.append(f"{counts.unjudged_queries} ranked queries are not in the qrels: ignored")
    return RunEvaluation(system, out, counts, tuple(warnings))


def _paired_queries(table: EvaluationTable, a: str, b: str) -> PairedQueries:
    rec = table.records[table.records["metric"] == table.records["metric"].iloc[0]]
    miss = rec.pivot(index="query_id", columns="system", values="missing_run")
    return PairedQueries(
        total=len(miss),
        missing_in_a_only=int((miss[a] & ~miss[b]).sum()),
        missing_in_b_only=int((~miss[a] & miss[b]).sum()),
        missing_in_both=int((miss[a] & miss[b]).sum()),
    )


def _paired(
    table: EvaluationTable, systems: tuple[str, str], clusters: dict[str, str],
    metrics: list[str], noun: str, level: float, seed: int, reps: int,
) -> PairedEvaluation:  # fmt: skip
    a, b = systems
    out, notes = {}, []
    queries = _paired_queries(table, a, b)
    if queries.missing_in_a_only or queries.missing_in_b_only:
        notes.append(
            "the runs miss different queries (scored as empty rankings): part of the "
            "difference is coverage, not ranking"
        )
    for metric in metrics:
        rec = table.records[table.records["metric"] == metric]
        wide = rec.pivot(index="query_id", columns="system", values="value").dropna()
        if wide.empty:
            notes.append(f"{metric}: no query has a value in both runs")
            continue
        diff = (wide[a] - wide[b]).to_numpy(float)
        cl = wide.index.to_series().map(clusters).to_numpy()
        stats = aggregate_arrays(cl, diff, score=f"{metric} {a} - {b}")
        if stats.K < 2:
            notes.append(f"{metric}: fewer than two clusters, no paired interval")
            continue
        side = {x: rec.loc[rec["system"] == x, "value"] for x in (a, b)}
        bounds = difference_bounds(side[a], side[b])  # [−1, 1] for metrics in [0, 1]
        res = compare(
            stats, level=level, seed=seed, bootstrap_reps=reps, methods=METHODS_PAIRED,
            bounds=bounds,
        )  # fmt: skip
        found = verdicts(res, a, b, score=metric, clusters=noun)
        out[metric] = PairedMetric(metric, res, found, stats=stats)
    return PairedEvaluation(systems, queries, out, tuple(notes))
