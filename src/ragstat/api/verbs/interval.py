"""``ragstat.interval``: document-clustered intervals for one score column."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ragstat.api.columns import read_schema, resolve_column, resolve_score
from ragstat.api.data import Data, as_path, label_of
from ragstat.api.design import (
    PopulationCounts,
    apply_design,
    apply_score_range,
    srs_options,
    strata_column,
)
from ragstat.engine import Executor, get_executor
from ragstat.errors import InputError
from ragstat.inference import DEFAULT_REPS, IntervalReport
from ragstat.inference.design_analysis import analyze_design
from ragstat.inference.provenance import SourceInfo
from ragstat.records import DocStats, QueryScores, aggregate_path, load_query_scores
from ragstat.records.weighted import expand_path, has_weight

__all__ = ["IntervalRun", "Roles", "interval", "interval_run", "left_out_note", "resolve_roles"]


@dataclass(frozen=True)
class Roles:
    """The columns a per-query table's roles were found in (after defaults and aliases)."""

    cluster: str
    score: str
    position: str | None = None
    strata: str | None = None


@dataclass(frozen=True)
class IntervalRun:
    """An interval analysis with what a report needs beside it."""

    report: IntervalReport
    stats: DocStats
    query_scores: QueryScores | None
    roles: Roles


def resolve_roles(
    path: Path,
    where: str,
    *,
    cluster: str,
    score: str | None,
    position: str | None = None,
    strata: str | None = None,
) -> Roles:
    """Check the named columns against the table: default score, ``meta_`` aliases, and
    an error with suggestions for a name that is not there."""
    schema = read_schema(path)
    names = [n for n, _ in schema]
    column = strata_column(strata)
    return Roles(
        cluster=resolve_column(names, cluster, "--cluster", where),
        score=resolve_score(schema, score, where),
        position=None if position is None else resolve_column(names, position, "--position", where),
        strata=strata if column is None else resolve_column(names, column, "--strata", where),
    )


def interval(
    data: Data,
    *,
    cluster: str = "doc_id",
    score: str | None = None,
    level: float = 0.95,
    score_range: str | Sequence[float] | None = None,
    population: int | None = None,
    methods: Sequence[str] | None = None,
    estimands: Sequence[str] = ("micro", "macro"),
    bootstrap_reps: int = DEFAULT_REPS,
    seed: int | None = None,
    position: str | None = None,
    design: str = "srs",
    strata: str | None = None,
    population_file: PopulationCounts | None = None,
    system: str | None = None,
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    non_numeric: str = "error",
) -> IntervalReport:
    """Intervals for the micro and macro means of ``score``, clustered by ``cluster``.

    ``data`` is a per-query table: a path (.parquet, .csv, .tsv, .jsonl; a folder or glob
    of Parquet files), a pandas DataFrame or a pyarrow Table. ``score`` defaults to the
    only score column (``hit1`` on the study's records). ``design`` is ``srs`` (with an
    optional ``population`` M for the finite correction), ``stratified`` or ``two-stage``
    (``strata`` and ``population_file``: a file or a mapping stratum → M). ``score_range``
    (``"0,1"`` or ``(0, 1)``) declares the values a score can take. ``data`` may also be
    a :class:`~ragstat.api.sources.Source` (another tool's file, :func:`read_source`).
    A score cell that is not a number (``"ERROR"``) is an error unless
    ``non_numeric="missing"``: its row is then left out and counted in the warnings.
    """
    return interval_run(**locals()).report


def interval_run(
    data: Data,
    *,
    cluster: str = "doc_id",
    score: str | None = None,
    level: float = 0.95,
    score_range: str | Sequence[float] | None = None,
    population: int | None = None,
    methods: Sequence[str] | None = None,
    estimands: Sequence[str] = ("micro", "macro"),
    bootstrap_reps: int = DEFAULT_REPS,
    seed: int | None = None,
    position: str | None = None,
    design: str = "srs",
    strata: str | None = None,
    population_file: PopulationCounts | None = None,
    system: str | None = None,
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    non_numeric: str = "error",
) -> IntervalRun:
    """:func:`interval` with the document statistics and per-query rows it used."""
    with as_path(data) as path, get_executor(workers, engine, scheduler) as executor:
        roles = resolve_roles(
            path, label_of(data), cluster=cluster, score=score, position=position, strata=strata
        )
        stats, weighted = _aggregate(path, roles, system, executor, non_numeric)
        stats = apply_score_range(stats, score_range)
        stats, counts = apply_design(
            stats, design, roles.strata, population_file, population=population, methods=methods
        )

        def rows() -> QueryScores | None:
            if not path.is_file() or weighted:  # a dataset: no naive query bootstrap
                return None
            return load_query_scores(
                path, stats, cluster=roles.cluster, score=roles.score, system=system,
                non_numeric=non_numeric,
            )  # fmt: skip

        srs = srs_options(design, methods, population, bootstrap_reps, stats, rows)
        report = analyze_design(
            stats,
            design=design,
            population_counts=counts,
            level=level,
            estimands=list(estimands),
            seed=seed,
            **srs,
        )
    info = getattr(data, "info", None)
    if isinstance(info, SourceInfo):  # read from another tool's file: name it, and set
        from ragstat.inference.tool_agreement import beside_interval  # the tool's numbers beside

        frame = getattr(data, "frame", None)
        report = replace(report, source=beside_interval(info, report, system=system, frame=frame))
    if stats.non_numeric:
        report = replace(report, warnings=(*report.warnings, left_out_note(stats)))
    return IntervalRun(report, stats, srs.get("query_scores"), roles)


def left_out_note(stats: DocStats) -> str:
    """The warning for rows left out because their score was not a number."""
    return (
        f"{stats.score}: {stats.non_numeric} not a number, 0 missing: the rows whose score is "
        "not a number were left out as missing (non_numeric = missing)"
    )


def _aggregate(
    path: Path, roles: Roles, system: str | None, executor: Executor, non_numeric: str
) -> tuple[DocStats, bool]:
    stats = aggregate_path(
        path,
        executor=executor,
        cluster=roles.cluster,
        score=roles.score,
        stratum=strata_column(roles.strata),
        position=roles.position,
        system=system,
        non_numeric=non_numeric,
    )
    weighted = has_weight(path)
    if weighted and stats.non_numeric:  # the weights of the left-out rows would still count
        raise InputError(
            f"{path}: {stats.non_numeric} score cell(s) are not numbers in a table with a "
            "weight column; fix them (leaving weighted rows out would change n_d)"
        )
    if weighted:  # sampled queries: totals expanded to n_d = Σ w (the study's estimator)
        stats = expand_path(path, stats, executor=executor, cluster=roles.cluster, system=system)
    return stats, weighted
