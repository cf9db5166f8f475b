"""`ragstat compare A [B]`: paired comparison of two systems on the same queries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import options as o
from ragstat.errors import InputError
from ragstat.inference import METHODS
from ragstat.inference.paired import compare as compare_systems
from ragstat.inference.resampling import query_resampling_affordable
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
    as_json: o.Json = False,
) -> None:
    """Intervals for the difference A − B, clustered by document, and a sign-flip test."""
    wanted = o.split(methods, METHODS, "methods")
    estimands = o.split(estimand, ("micro", "macro"), "estimand")
    pair = None
    if systems is not None:
        pair = tuple(v.strip() for v in systems.split(","))
        if len(pair) != 2 or not all(pair):
            raise InputError(f"--systems expects two names, A,B; got {systems!r}")
    if on_missing not in ON_MISSING:
        raise InputError(f"--on-missing must be one of {', '.join(ON_MISSING)}, got {on_missing!r}")
    if permutation_reps < 1:
        raise InputError(f"--permutation-reps must be positive, got {permutation_reps}")
    table = pair_files(
        a,
        b,
        systems=pair,
        cluster=cluster,
        score=score,
        query_id=query_id,
        stratum=o.strata_column(strata),
        on_missing=on_missing,
        with_rows=False,
    )
    stats, counts = o.apply_design(
        table.stats, design, strata, population_file, population=population, methods=methods
    )
    srs = {}
    if design == "srs":
        query_scores = None
        naive = wanted is None or "query_bootstrap" in wanted
        if naive and query_resampling_affordable(stats.N, False):
            query_scores = pair_files(
                a,
                b,
                systems=pair,
                cluster=cluster,
                score=score,
                query_id=query_id,
                on_missing=on_missing,
                with_rows=True,
            ).query_scores
        srs = dict(
            methods=wanted,
            population=population,
            bootstrap_reps=bootstrap_reps,
            query_scores=query_scores,
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
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        from ragstat.cli.render import print_comparison

        print_comparison(result, source=f"{a}" + (f" vs {b}" if b else ""))
