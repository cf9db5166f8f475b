"""`ragstat evaluate`: IR metrics per query, then clustered intervals (``ragstat.api.verbs.evaluate``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import RunLog, absolute, recorded, write_json
from ragstat.cli.sources import print_source

if TYPE_CHECKING:  # the library is imported when the verb runs: a lean start for the others
    from ragstat.api.evaluation import EvaluationReport

Qrels = Annotated[
    Path | None,
    typer.Option(
        help="Qrels: TREC (qid 0 docid rel), JSONL, CSV or Parquet; with FILES (a ranx, "
        "BEIR or MTEB folder) the qrels file's name in it"
    ),
]
Runs = Annotated[
    list[Path] | None,
    typer.Option(
        help="Run file(s): TREC 6 columns, JSONL, CSV or Parquet; with FILES the run "
        "files' names in the folder (other files are then left out)"
    ),
]


def evaluate(
    files: Annotated[
        Path | None,
        typer.Argument(help="A ranx, BEIR or MTEB folder or file holding qrels and runs (--from)"),
    ] = None,
    qrels: Qrels = None,
    run: Runs = None,
    from_format: o.FromFormat = None,
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
    score (TREC: 6 columns); or FILES --from ranx|beir|mteb. Formats: docs/formats/evaluate.md.
    """
    from ragstat.api.verbs.evaluate import evaluate as evaluate_runs
    from ragstat.api.verbs.evaluate import metric_names

    names = metric_names(metrics)
    runs = _check_inputs(files, qrels, run or [])
    settings = dict(
        qrels=qrels and absolute(qrels), run=[absolute(r) for r in runs], files=files and
        absolute(files), from_format=from_format, metrics=names, cluster_by=cluster_by,
        cluster_column=cluster_column, level=level, bootstrap_reps=bootstrap_reps, seed=seed,
    )  # fmt: skip
    inputs = {"qrels": qrels, "files": files, **{f"run{i}": p for i, p in enumerate(runs)}}
    with recorded("evaluate", settings, inputs=inputs, out=out, force=force) as log:
        data = _read_source(files, from_format, qrels, run) if files is not None else qrels
        result = evaluate_runs(
            data, list(runs) if files is None else None, metrics=names, cluster_by=cluster_by,
            cluster_column=cluster_column, level=level, bootstrap_reps=bootstrap_reps, seed=seed,
        )  # fmt: skip
        log.results = _headline(result.to_dict())
        if log.out is not None:
            _write(log, result, files or qrels, runs)
    o.emit(result, as_json, lambda: _render(result))


def _check_inputs(files: Path | None, qrels: Path | None, runs: list[Path]) -> list[Path]:
    """Either FILES (another tool's qrels and runs, --qrels/--run naming files in it) or
    --qrels with --run."""
    from ragstat.errors import InputError

    if files is not None:
        return []
    if qrels is None or not runs:
        raise InputError("evaluate needs --qrels and --run (or FILES from ranx, BEIR or MTEB)")
    return runs


def _read_source(files: Path, fmt: str | None, qrels: Path | None, runs: list[Path] | None) -> Any:
    from ragstat.api.sources import read_source

    named = [str(r) for r in runs or []]
    return read_source(files, fmt, qrels=None if qrels is None else str(qrels), run=named)


def _write(log: RunLog, result: EvaluationReport, qrels: Path | None, runs: list[Path]) -> None:
    """result.json (the --json object) and report.json/md/html into the staging folder."""
    if log.out is None:
        return
    log.wrote(write_json(log.out / "result.json", result.to_dict()))
    source = f"{', '.join(map(str, runs))} against {qrels}" if runs else str(qrels)
    if result.source is not None:
        info = result.source
        source += f" ({info.tool}{'' if info.version is None else ' ' + info.version})"
    log.write_report(result.report(source=source, created=log.started_at))


def _render(result: EvaluationReport) -> None:
    print_source(result.source)
    from ragstat.cli.render_eval import print_evaluation

    print_evaluation(result)


def _headline(result: dict[str, Any]) -> dict[str, Any]:
    """Each run's metric with its headline interval (`inference.headline`, the one rule every
    output uses): what a registry diff compares."""
    from ragstat.inference.headline import headline

    runs = result.get("runs") or {result.get("run", "run"): result}
    level = float(result.get("level", 0.95))
    heads = {}
    for name, one in runs.items():
        for metric, m in one.get("metrics", {}).items():
            micro = {k: m.get(k) for k in ("recommended", "intervals")} | {
                "estimate": m.get("mean")
            }
            data = {"K": m.get("clusters") or 0, "level": level, "estimands": {"micro": micro}}
            h = headline(data, "micro")
            heads[f"{name}.{metric}"] = {
                "estimate": m.get("mean"),
                "method": h.method if h.available else None,
                "lower": h.lower,
                "upper": h.upper,
                "reason": h.reason,
            }
    return heads
