"""`ragstat compare A [B]`: paired comparison of two systems on the same queries."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import absolute, headline, recorded, write_json
from ragstat.errors import InputError
from ragstat.inference import METHODS
from ragstat.inference.paired import compare as compare_systems
from ragstat.inference.weighted import WEIGHTED_DEFAULT
from ragstat.records import ON_MISSING, pair_files


def compare(
    a: Annotated[
        Path, typer.Argument(help="Per-query table of system A (or of both, with --systems)")
    ],
    b: Annotated[Path | None, typer.Argument(help="Per-query table of system B")] = None,
    systems: Annotated[
        str | None, typer.Option(help="A,B: the two systems of a single table's system column")
    ] = None,
    cluster: o.Cluster = "doc_id",
    score: o.Score = "hit",
    query_id: Annotated[
        str, typer.Option(help="Column that identifies a query in both tables")
    ] = "query_id",
    on_missing: Annotated[
        str, typer.Option(help="Queries in one table only: error (default) or drop (counted)")
    ] = "error",
    level: o.Level = 0.95,
    population: o.Population = None,
    methods: o.Methods = None,
    estimand: o.Estimand = "micro,macro",
    bootstrap_reps: o.Reps = o.DEFAULTS["reps"],
    permutation_reps: Annotated[
        int, typer.Option(help="Monte Carlo sign flips when exact enumeration is too large")
    ] = 9_999,
    seed: o.Seed = None,
    design: o.Design = "srs",
    strata: o.Strata = None,
    population_file: o.PopulationFile = None,
    out: o.OutDir = None,
    force: o.Force = False,
    as_json: o.Json = False,
) -> None:
    """Intervals for the difference A − B, clustered by document, and a sign-flip test."""
    wanted = o.split(methods, METHODS, "methods")
    estimands = o.split(estimand, ("micro", "macro"), "estimand")
    _check(on_missing, permutation_reps)
    pair = o.parse_systems(systems)
    settings = dict(
        a=absolute(a), b=absolute(b), systems=systems, cluster=cluster, score=score,
        query_id=query_id, on_missing=on_missing, level=level, population=population,
        methods=methods, estimand=estimand, bootstrap_reps=bootstrap_reps,
        permutation_reps=permutation_reps, seed=seed, design=design, strata=strata,
        population_file=absolute(population_file),
    )  # fmt: skip
    inputs = {"a": a, "b": b, "population_file": population_file}
    with recorded("compare", settings, inputs=inputs, out=out, force=force) as log:

        def load(with_rows: bool):
            return pair_files(
                a,
                b,
                systems=pair,
                cluster=cluster,
                score=score,
                query_id=query_id,
                stratum=o.strata_column(strata),
                on_missing=on_missing,
                with_rows=with_rows,
            )

        table = load(False)
        stats, counts = o.apply_design(
            table.stats, design, strata, population_file, population=population, methods=methods
        )
        if table.weighted and wanted is None:  # sampled queries: the weighted default set
            wanted = list(WEIGHTED_DEFAULT)
        srs = o.srs_options(
            design, wanted, population, bootstrap_reps, stats, lambda: load(True).query_scores
        )
        result = compare_systems(
            stats,
            pairing=table.pairing,
            design=design,
            population_counts=counts,
            level=level,
            estimands=estimands,
            permutation_reps=permutation_reps,
            seed=seed,
            **srs,
        )
        log.config["seed"] = result.report.seed
        log.results = headline(result.to_dict())
        if log.out is not None:
            from ragstat.report import report_from_comparison

            source = f"{a}" + (f" vs {b}" if b else "")
            log.wrote(write_json(log.out / "result.json", result.to_dict()))
            lost = table.pairing.documents_lost
            log.write_report(
                report_from_comparison(
                    result,
                    stats,
                    source=source,
                    created=log.started_at,
                    excluded={"documents with no matched query (dropped)": lost} if lost else None,
                )
            )
    o.emit(result, as_json, lambda: _render(result, f"{a}" + (f" vs {b}" if b else "")))


def _check(on_missing: str, permutation_reps: int) -> None:
    if on_missing not in ON_MISSING:
        raise InputError(f"--on-missing must be one of {', '.join(ON_MISSING)}, got {on_missing!r}")
    if permutation_reps < 1:
        raise InputError(f"--permutation-reps must be positive, got {permutation_reps}")


def _render(result, source: str) -> None:
    from ragstat.cli.render import print_comparison

    print_comparison(result, source=source)
