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
from ragstat.inference import DEFAULT_REPS, IntervalReport
from ragstat.inference.design_analysis import analyze_design
from ragstat.inference.provenance import SourceInfo
from ragstat.records import DocStats, QueryScores, aggregate_path, load_query_scores
from ragstat.records.weighted import expand_path, has_weight

__all__ = ["IntervalRun", "Roles", "interval", "interval_run", "resolve_roles"]


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
) -> IntervalReport:
    """Intervals for the micro and macro means of ``score``, clustered by ``cluster``.

    ``data`` is a per-query table: a path (.parquet, .csv, .tsv, .jsonl; a folder or glob
    of Parquet files), a pandas DataFrame or a pyarrow Table. ``score`` defaults to the
    only score column (``hit1`` on the study's records). ``design`` is ``srs`` (with an
    optional ``population`` M for the finite correction), ``stratified`` or ``two-stage``
    (``strata`` and ``population_file``: a file or a mapping stratum → M). ``score_range``
    (``"0,1"`` or ``(0, 1)``) declares the values a score can take. ``data`` may also be
    a :class:`~ragstat.api.sources.Source` (another tool's file, :func:`read_source`).
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
) -> IntervalRun:
    """:func:`interval` with the document statistics and per-query rows it used."""
    with as_path(data) as path, get_executor(workers, engine, scheduler) as executor:
        roles = resolve_roles(
            path, label_of(data), cluster=cluster, score=score, position=position, strata=strata
        )
        stats, weighted = _aggregate(path, roles, system, executor)
        stats = apply_score_range(stats, score_range)
        stats, counts = apply_design(
            stats, design, roles.strata, population_file, population=population, methods=methods
        )

        def rows() -> QueryScores | None:
            if not path.is_file() or weighted:  # a dataset: no naive query bootstrap
                return None
            return load_query_scores(
                path, stats, cluster=roles.cluster, score=roles.score, system=system
            )

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
    if isinstance(info, SourceInfo):  # read from another tool's file: name it
        report = replace(report, source=info)
    return IntervalRun(report, stats, srs.get("query_scores"), roles)


def _aggregate(
    path: Path, roles: Roles, system: str | None, executor: Executor
) -> tuple[DocStats, bool]:
    stats = aggregate_path(
        path,
        executor=executor,
        cluster=roles.cluster,
        score=roles.score,
        stratum=strata_column(roles.strata),
        position=roles.position,
        system=system,
    )
    weighted = has_weight(path)
    if weighted:  # sampled queries: totals expanded to n_d = Σ w (the study's estimator)
        stats = expand_path(path, stats, executor=executor, cluster=roles.cluster, system=system)
    return stats, weighted
