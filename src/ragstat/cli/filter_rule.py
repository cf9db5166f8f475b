"""`ragstat filter-rule`: may a relevance preference become a hard filter? (the
hard-vs-soft filter rule, ``ragstat.api.verbs.filter_rule``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import RunLog, recorded, write_json
from ragstat.cli.verb import options_command, settings_of

if TYPE_CHECKING:  # the library is imported when the verb runs: a lean start for the others
    from ragstat.decisions.filter_rule import FilterRuleResult

Qrels = Annotated[
    Path,
    typer.Option(
        help="Qrels: the authorised gold (TREC qid 0 docid rel, JSONL, CSV or Parquet); "
        "relevance > 0 is relevant"
    ),
]
Hard = Annotated[
    Path, typer.Option(help="Run with the preference as a hard filter (TREC, JSONL, CSV, Parquet)")
]
Soft = Annotated[
    Path, typer.Option(help="Run with the preference as a soft boost, on the same queries")
]
DeltaMin = Annotated[
    float,
    typer.Option(
        "--delta-min",
        help="Pre-registered Δ_min in [0, 1]: the precision gain's lower bound must reach it",
    ),
]
Epsilon = Annotated[
    float, typer.Option(help="Pre-registered ε in [0, 1]: the largest acceptable exclusion rate")
]
RecallLossMax = Annotated[
    float,
    typer.Option(
        help="Pre-registered largest acceptable recall loss in [0, 1]: "
        "hard − soft recall@k must be ≥ −this"
    ),
]
K = Annotated[int, typer.Option("--k", help="Cut-off k of precision@k and recall@k")]
ClusterBy = Annotated[
    str | None, typer.Option(help="qrels-doc, query, or a query_id → cluster mapping file")
]
ClusterColumn = Annotated[str, typer.Option(help="Cluster column of the mapping file")]
Name = Annotated[str | None, typer.Option(help="The preference, e.g. 'locale = en-US'")]
Kind = Annotated[
    str | None,
    typer.Option(
        help="Its kind, e.g. locale, recency, version; access rules (authorisation, tenant, "
        "jurisdiction, publication_state) are always hard filters and refused"
    ),
]
Estimand = Annotated[str, typer.Option(help="micro (per query) or macro (per cluster)")]
EpsilonAgainst = Annotated[
    str,
    typer.Option(
        help="Compare ε with the exclusion rate's point estimate (estimate) or its upper bound "
        "(upper); the other comparison's decision is reported too"
    ),
]


@dataclass(frozen=True, kw_only=True)
class FilterRuleOptions(o.OutputOptions):
    qrels: Qrels
    hard: Hard
    soft: Soft
    delta_min: DeltaMin
    epsilon: Epsilon
    recall_loss_max: RecallLossMax
    k: K = 10
    cluster_by: ClusterBy = None
    cluster_column: ClusterColumn = "cluster"
    name: Name = None
    kind: Kind = None
    estimand: Estimand = "micro"
    epsilon_against: EpsilonAgainst = "estimate"
    level: o.Level = 0.95
    bootstrap_reps: o.Reps = 9_999
    seed: o.Seed = None


def _cluster_file(cluster_by: str | None) -> Path | None:
    if cluster_by is None or cluster_by in ("query", "qrels-doc"):
        return None
    return Path(cluster_by)


@options_command(FilterRuleOptions)
def filter_rule(a: FilterRuleOptions) -> None:
    """Hard filter or soft boost? Decide from paired, document-clustered intervals.

    Inputs: the qrels (authorised gold) and two runs of the same eligible validation
    queries, one with the preference as a hard filter, one as a soft boost; the
    thresholds Δ_min, ε and recall_loss_max, pre-registered (required). Exit 0 with a
    decision, 2 on bad input. Fields, examples, output: docs/formats/filter-rule.md.
    """
    from ragstat.api.verbs.filter_rule import filter_rule as decide

    inputs = {"qrels": a.qrels, "hard": a.hard, "soft": a.soft,
              "cluster_by": _cluster_file(a.cluster_by)}  # fmt: skip
    with recorded("filter-rule", settings_of(a), inputs=inputs, out=a.out, force=a.force) as log:
        result = decide(
            a.qrels, a.hard, a.soft,
            delta_min=a.delta_min, epsilon=a.epsilon, recall_loss_max=a.recall_loss_max,
            k=a.k, name=a.name, kind=a.kind, cluster_by=a.cluster_by,
            cluster_column=a.cluster_column, estimand=a.estimand,
            epsilon_against=a.epsilon_against, level=a.level,
            bootstrap_reps=a.bootstrap_reps, seed=a.seed,
        )  # fmt: skip
        log.config["seed"] = result.context["seed"]
        log.results = _headline(result)
        if log.out is not None:
            log.wrote(write_json(log.out / "result.json", result.to_dict()))
            _write_report(log, result, f"{a.hard.name} (hard) vs {a.soft.name} (soft)")
    o.emit(result, a.as_json, lambda: _render(result))


def _write_report(log: RunLog, result: FilterRuleResult, source: str) -> None:
    from ragstat.report.gates import report_from_filter_rule

    log.write_report(report_from_filter_rule(result, source=source, created=log.started_at))


def _headline(result: FilterRuleResult) -> dict[str, Any]:
    """The decision and each condition's estimate and interval: what a registry diff compares."""
    out: dict[str, Any] = {"decision": result.decision}
    for c in result.conditions:
        out[c.name] = {"estimate": c.estimate, "method": c.method, "lower": c.lower,
                       "upper": c.upper, "held": c.held}  # fmt: skip
    return out


def _render(result: FilterRuleResult) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    for line in repr(result).splitlines():
        c.print(literal(line))
    if result.notes:
        c.print("notes:")
    for note in result.notes:
        c.print(literal(f"  - {note}"))
