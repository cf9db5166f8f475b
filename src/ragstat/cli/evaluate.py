"""`ragstat evaluate`: IR metrics per query, then clustered intervals (``ragstat.api.verbs.evaluate``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import RunLog, absolute, recorded, write_json

if TYPE_CHECKING:  # the library is imported when the verb runs: a lean start for the others
    from ragstat.api.evaluation import EvaluationReport


def evaluate(
    qrels: Annotated[
        Path, typer.Option(help="Qrels: TREC (qid 0 docid rel), JSONL, CSV or Parquet")
    ],
    run: Annotated[
        list[Path], typer.Option(help="Run file(s): TREC 6 columns, JSONL, CSV or Parquet")
    ],
    metrics: Annotated[
        str, typer.Option(help="e.g. ndcg@10,recall@10,mrr,map,p@10,hit@5,rprec")
    ] = "ndcg@10,recall@10,mrr",
    cluster_by: Annotated[
        str | None, typer.Option(help="qrels-doc, query, or a query_id → cluster mapping file")
    ] = None,
    cluster_column: Annotated[
        str, typer.Option(help="Cluster column of the mapping file")
    ] = "cluster",
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 9_999,
    seed: o.Seed = None,
    out: o.OutDir = None,
    force: o.Force = False,
    as_json: o.Json = False,
) -> None:
    """Evaluate runs against qrels; per-metric means with clustered intervals (paired with two runs).

    Qrels: query_id, doc_id, relevance (TREC: qid 0 docid rel); runs: query_id, doc_id,
    score (TREC: 6 columns). Fields, examples, output: docs/formats.md.
    """
    from ragstat.api.verbs.evaluate import evaluate as evaluate_runs
    from ragstat.api.verbs.evaluate import metric_names

    names = metric_names(metrics)
    settings = dict(
        qrels=absolute(qrels), run=[absolute(r) for r in run], metrics=names,
        cluster_by=cluster_by, cluster_column=cluster_column, level=level,
        bootstrap_reps=bootstrap_reps, seed=seed,
    )  # fmt: skip
    inputs = {"qrels": qrels, **{f"run{i}": path for i, path in enumerate(run)}}
    with recorded("evaluate", settings, inputs=inputs, out=out, force=force) as log:
        result = evaluate_runs(
            qrels,
            list(run),
            metrics=names,
            cluster_by=cluster_by,
            cluster_column=cluster_column,
            level=level,
            bootstrap_reps=bootstrap_reps,
            seed=seed,
        )
        log.results = _headline(result.to_dict())
        if log.out is not None:
            _write(log, result, qrels, run)
    o.emit(result, as_json, lambda: _render(result))


def _write(log: RunLog, result: EvaluationReport, qrels: Path, runs: list[Path]) -> None:
    """result.json (the --json object) and report.json/md/html into the staging folder."""
    if log.out is None:
        return
    log.wrote(write_json(log.out / "result.json", result.to_dict()))
    source = f"{', '.join(map(str, runs))} against {qrels}"
    log.write_report(result.report(source=source, created=log.started_at))


def _render(result: EvaluationReport) -> None:
    from ragstat.cli.render_eval import print_evaluation

    print_evaluation(result.to_dict())


def _headline(result: dict[str, Any]) -> dict[str, Any]:
    """Each run's metric means with the first clustered interval: what a registry diff compares."""
    runs = result.get("runs") or {result.get("run", "run"): result}
    heads = {}
    for name, one in runs.items():
        for metric, m in one.get("metrics", {}).items():
            usable = [i for i in m.get("intervals", []) if i.get("available")]
            shown: dict[str, Any] = usable[0] if usable else {}
            heads[f"{name}.{metric}"] = {
                "estimate": m.get("mean"),
                "method": shown.get("method"),
                "lower": shown.get("lower"),
                "upper": shown.get("upper"),
            }
    return heads
