"""`ragstat evaluate`: IR metrics per query, then document-clustered intervals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import numpy as np
import pandas as pd
import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import absolute, recorded, write_json
from ragstat.errors import InputError
from ragstat.inference import analyze
from ragstat.inference.paired import compare
from ragstat.inference.verdict import cluster_noun, verdicts
from ragstat.records import aggregate_arrays

METHODS_DEFAULT = ("cr2_bm", "cr2_ik", "t_rates", "doc_bootstrap_t", "wald_iid")
#: Per-run metrics (in [0, 1]) also get the bounded intervals, among which the recommended
#: one is chosen, so no metric shows an impossible interval.
METHODS_RUN = (*METHODS_DEFAULT, "cr1", "doc_bootstrap_percentile", "logit", "korn_graubard",
               "logit_cr2_bm")  # fmt: skip


def _metric_result(values: pd.Series, clusters: pd.Series, name: str, level, seed, reps) -> dict:
    ok = values.notna()
    if ok.sum() == 0:
        return {"mean": None, "queries": 0, "intervals": [], "note": "no query has a value"}
    stats = aggregate_arrays(clusters[ok].to_numpy(), values[ok].to_numpy(float), score=name)
    if stats.K < 2:
        return {
            "mean": float(values[ok].mean()),
            "queries": int(ok.sum()),
            "intervals": [],
            "note": "fewer than two clusters: no interval",
        }
    rep = analyze(stats, level=level, methods=METHODS_RUN, seed=seed, bootstrap_reps=reps)
    d = rep.to_dict()
    return {
        "mean": d["estimands"]["micro"]["estimate"],
        "queries": int(ok.sum()),
        "clusters": stats.K,
        "recommended": d["estimands"]["micro"]["recommended"],
        "intervals": d["estimands"]["micro"]["intervals"],
        "macro": d["estimands"]["macro"],
        "warnings": d["warnings"],
    }


def _one_run(table, system: str, clusters: dict, metrics, level, seed, reps) -> dict:
    rec = table.records[table.records["system"] == system]
    out = {}
    for metric in metrics:
        r = rec[rec["metric"] == metric]
        out[metric] = _metric_result(
            r["value"], r["query_id"].map(clusters), metric, level, seed, reps
        )
    queries = table.counts[system].to_dict()
    if queries["missing_run"] == queries["total"]:
        raise InputError(
            f"run {system!r} has no query in common with the qrels (its ids and the qrels' "
            "ids differ?); nothing to evaluate"
        )
    warnings = []
    if queries["missing_run"]:
        warnings.append(
            f"{queries['missing_run']} qrels queries have no ranking in {system!r}: "
            "scored as empty rankings"
        )
    if queries.get("unjudged_queries"):
        warnings.append(
            f"{queries['unjudged_queries']} ranked queries are not in the qrels: ignored"
        )
    return {"metrics": out, "queries": queries, "warnings": warnings}


def _paired_queries(table, a: str, b: str) -> dict:
    rec = table.records[table.records["metric"] == table.records["metric"].iloc[0]]
    miss = rec.pivot(index="query_id", columns="system", values="missing_run")
    return {
        "total": len(miss),
        "missing_in_a_only": int((miss[a] & ~miss[b]).sum()),
        "missing_in_b_only": int((~miss[a] & miss[b]).sum()),
        "missing_in_both": int((miss[a] & miss[b]).sum()),
    }


def _paired(table, a: str, b: str, clusters: dict, metrics, level, seed, reps) -> dict:
    out, notes = {}, []
    queries = _paired_queries(table, a, b)
    if queries["missing_in_a_only"] or queries["missing_in_b_only"]:
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
        res = compare(
            stats,
            level=level,
            seed=seed,
            bootstrap_reps=reps,
            methods=[m for m in METHODS_DEFAULT if m != "wald_iid"] + ["wald_iid"],
        )
        out[metric] = res.to_dict()
    return {"systems": [a, b], "queries": queries, "metrics": out, "notes": notes}


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
    seed: Annotated[int, typer.Option(help="Seed of the bootstraps", min=0)] = 0,
    out: o.OutDir = None,
    force: o.Force = False,
    as_json: o.Json = False,
) -> None:
    """Evaluate runs against qrels; per-metric means with clustered intervals (paired with two runs)."""
    from ragstat.metrics import evaluate as evaluate_runs
    from ragstat.metrics import parse_metric, read_qrels, read_run
    from ragstat.metrics.ir import cluster_queries

    typed = [m.strip() for m in metrics.split(",") if m.strip()]
    if not typed:
        raise InputError("--metrics is empty")
    names = list(dict.fromkeys(parse_metric(m).name for m in typed))  # canonical: P@10 → p@10
    settings = dict(
        qrels=absolute(qrels), run=[absolute(r) for r in run], metrics=names,
        cluster_by=cluster_by, cluster_column=cluster_column, level=level,
        bootstrap_reps=bootstrap_reps, seed=seed,
    )  # fmt: skip
    inputs = {"qrels": qrels, **{f"run{i}": path for i, path in enumerate(run)}}
    with recorded("evaluate", settings, inputs=inputs, out=out, force=force) as log:
        q = read_qrels(qrels)
        runs = [read_run(path) for path in run]
        labels = [r.name for r in runs]
        if len(set(labels)) != len(labels):
            raise InputError(f"two runs share the name {labels}; rename the files")
        table = evaluate_runs(q, runs, names)
        clusters = cluster_queries(
            cluster_by, table.records["query_id"].unique(), q.judgments, cluster_column
        )
        result = _result(table, labels, names, dict(clusters.clusters), level, seed, bootstrap_reps)
        result = {"clustering": clusters.to_dict(), "level": level, **result}
        if "paired" in result:
            noun, (a, b) = cluster_noun(clusters.by), labels
            for metric, p in result["paired"]["metrics"].items():
                found = verdicts(p, a, b, score=metric, clusters=noun)
                p["verdicts"] = [v.to_dict() for v in found]
        result = json.loads(json.dumps(result, ensure_ascii=False, default=_default))
        log.results = _headline(result)
        if log.out is not None:
            log.wrote(write_json(log.out / "result.json", result))
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
    else:
        from ragstat.cli.render_eval import print_evaluation

        print_evaluation(result)


def _result(table, labels, names, clusters, level, seed, reps) -> dict:
    """One run's metrics (flat), or every run's and — for two — the paired comparison."""
    runs = {name: _one_run(table, name, clusters, names, level, seed, reps) for name in labels}
    if len(labels) == 1:
        return {**runs[labels[0]], "run": labels[0]}
    out: dict = {"runs": runs}
    if len(labels) == 2:
        out["paired"] = _paired(table, labels[0], labels[1], clusters, names, level, seed, reps)
    return out


def _headline(result: dict) -> dict:
    """Each run's metric means with the first clustered interval: what a registry diff compares."""
    runs = result.get("runs") or {result.get("run", "run"): result}
    heads = {}
    for name, one in runs.items():
        for metric, m in one.get("metrics", {}).items():
            shown = next((i for i in m.get("intervals", []) if i.get("available")), {})
            heads[f"{name}.{metric}"] = {
                "estimate": m.get("mean"),
                "method": shown.get("method"),
                "lower": shown.get("lower"),
                "upper": shown.get("upper"),
            }
    return heads


def _default(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(type(value).__name__)
