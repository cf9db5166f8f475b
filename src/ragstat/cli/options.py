"""Options shared by the verbs: the typer annotations and the groups verbs inherit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from ragstat.errors import InputError
from ragstat.inference.names import DEFAULT_REPS, DESIGNS, METHODS

Cluster = Annotated[str, typer.Option(help="Column with the sampling unit (document)")]
Score = Annotated[
    str | None,
    typer.Option(
        help="Score column (0/1 hit, reciprocal rank, …); default: the only score column, "
        "or hit1 on the study's records"
    ),
]
Level = Annotated[float, typer.Option(help="Confidence level")]
ScoreRange = Annotated[
    str | None,
    typer.Option(
        "--score-range",
        help="LO,HI: the values the score can take (e.g. 0,1 or -inf,inf); default: inferred "
        "from the data — scores within [0, 1] get the bounded intervals (logit, Korn–Graubard)",
    ),
]
Population = Annotated[
    int | None, typer.Option(help="Population size M (documents) for the finite correction")
]
Methods = Annotated[
    str | None, typer.Option(help=f"Comma-separated subset of: {', '.join(METHODS)}")
]
Estimand = Annotated[str, typer.Option(help="micro, macro or micro,macro")]
Reps = Annotated[int, typer.Option(help="Bootstrap replicates")]
Seed = Annotated[
    int | None, typer.Option(help="Random seed (drawn and reported if omitted)", min=0)
]
Position = Annotated[
    str | None, typer.Option(help="Column with the query's position in its document")
]
Design = Annotated[str, typer.Option(help=f"Sampling design: {' | '.join(DESIGNS)}")]
Strata = Annotated[
    str | None,
    typer.Option(
        help="Stratum/type column, or size:T for documents with more than T queries vs the rest"
    ),
]
PopulationFile = Annotated[
    Path | None,
    typer.Option(help="Population documents per stratum/type (columns stratum|type|group, M)"),
]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object")]
FromFormat = Annotated[
    str | None,
    typer.Option(
        "--from",
        help="Another tool's result file: inspect, lm-eval, helm, ragas, deepeval, promptfoo, "
        "ragchecker, ranx, beir, mteb (detected when unmistakable)",
    ),
]
ClusterBy = Annotated[
    str | None,
    typer.Option(
        help="Another tool's file: the field holding each item's document (meta_ optional)"
    ),
]
ClusterRule = Annotated[
    str | None,
    typer.Option(help="Another tool's file: group items by reference documents: "
                 "first-reference | component"),
]  # fmt: skip
MissingCluster = Annotated[
    str,
    typer.Option(
        help="Another tool's file: items without a cluster value: exclude (counted) | error"
    ),
]
Task = Annotated[
    str | None,
    typer.Option(help="Another tool's folder (lm-eval, HELM): the one task to read"),
]
AllRuns = Annotated[
    bool,
    typer.Option(
        "--all-runs",
        help="An inspect folder with reruns of a task and model: pool them as repeats "
        "(default: the latest run of each)",
    ),
]
NonNumeric = Annotated[
    str,
    typer.Option(
        "--non-numeric",
        help="A score cell that is not a number (ERROR, n/a): error (stop, the default) | "
        "missing (leave its row out, counted apart from missing cells)",
    ),
]
Engine = Annotated[
    str,
    typer.Option(help="local (this machine) or dask (a Dask cluster: pip install ragstat[dask])"),
]
Scheduler = Annotated[
    str | None,
    typer.Option(
        help="Dask scheduler address (tcp://host:8786); default DASK_SCHEDULER_ADDRESS, "
        "else a LocalCluster on 127.0.0.1",
    ),
]
Workers = Annotated[
    int, typer.Option(help="Local processes (engine local) or LocalCluster workers (dask)", min=1)
]
Force = Annotated[
    bool,
    typer.Option(
        "--force", help="Write into an --out folder of another kind (its other files are kept)"
    ),
]
OutDir = Annotated[
    Path | None,
    typer.Option("--out", help="Folder for result.json, report.{json,md,html} and manifest.json"),
]

DEFAULTS = {"reps": DEFAULT_REPS}


def split(value: str | None, allowed: tuple[str, ...], what: str) -> list[str] | None:
    """Comma-separated choices, each checked against ``allowed`` (at most
    ``RAGSTAT_MAX_LIST`` of them)."""
    from ragstat.resources.caps import check_list

    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    check_list(items, f"--{what}")
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise InputError(f"--{what}: unknown value(s) {bad}; choose from {', '.join(allowed)}")
    return items


def emit(result, as_json: bool, render: Callable[[], None]) -> None:
    """One strict JSON object on stdout (an undefined number is null with a reason), or the
    readable rendering."""
    if as_json:
        from ragstat.tidy import json_text

        typer.echo(json_text(result.to_dict()))
    else:
        render()


# ------------------------------------------------------------------ option groups
# Each verb's options class inherits the groups it takes (see ragstat.cli.verb).


@dataclass(frozen=True, kw_only=True)
class AnalysisOptions:
    """Level, methods, estimands, bootstrap replicates and seed of an interval analysis."""

    level: Level = 0.95
    methods: Methods = None
    estimand: Estimand = "micro,macro"
    bootstrap_reps: Reps = DEFAULT_REPS
    seed: Seed = None

    def method_list(self) -> list[str] | None:
        return split(self.methods, METHODS, "methods")

    def estimand_list(self) -> list[str]:
        return split(self.estimand, ("micro", "macro"), "estimand") or ["micro", "macro"]


@dataclass(frozen=True, kw_only=True)
class ScoreCellOptions:
    """What a score cell that is not a number means (records/cells.py): error or missing."""

    non_numeric: NonNumeric = "error"


@dataclass(frozen=True, kw_only=True)
class SourceOptions:
    """Reading another tool's result file (docs/formats/other-tools.md)."""

    from_format: FromFormat = None
    cluster_by: ClusterBy = None
    cluster_rule: ClusterRule = None
    missing_cluster: MissingCluster = "exclude"
    task: Task = None
    all_runs: AllRuns = False

    def source(self, path: Path, fmt: str | None = None) -> Any:
        """``path`` itself (a ragstat table) or the other tool's file as a ``Source``
        (``fmt``, else ``--from``); the verb's score, if named, sharpens a message."""
        from ragstat.api.sources import resolve_input

        data = resolve_input(
            path,
            fmt or self.from_format,
            cluster_by=self.cluster_by,
            cluster_rule=self.cluster_rule,
            missing_cluster=self.missing_cluster,
            task=self.task,
            all_runs=self.all_runs,
            score=getattr(self, "score", None),
        )
        info = getattr(data, "info", None)
        if getattr(data, "runs", None) is not None and info is not None:
            raise InputError(
                f"{path}: {info.tool} qrels and runs, not per-item scores; score them with "
                f"ragstat evaluate {path} --from {info.format}"
            )
        return data


@dataclass(frozen=True, kw_only=True)
class DesignOptions:
    """The sampling design and the population it was drawn from."""

    population: Population = None
    design: Design = "srs"
    strata: Strata = None
    population_file: PopulationFile = None


@dataclass(frozen=True, kw_only=True)
class EngineOptions:
    """Where the work runs: this machine's processes or a Dask cluster."""

    engine: Engine = "local"
    scheduler: Scheduler = None
    workers: Workers = 1


@dataclass(frozen=True, kw_only=True)
class OutputOptions:
    """Where the result goes: an --out folder (a transaction) and/or JSON on stdout."""

    out: OutDir = None
    force: Force = False
    as_json: Json = False
