"""`ragstat plan`: how many documents to label, and what a given K buys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ragstat.api.plan import plan as plan_documents
from ragstat.cli import options as o


def plan(
    half_width_target: Annotated[
        float | None, typer.Option("--half-width", help="Target half-width h of the interval")
    ] = None,
    documents: Annotated[
        int | None,
        typer.Option(help="Evaluate a given K: achieved half-width and detectable difference"),
    ] = None,
    sd: Annotated[
        float | None, typer.Option(help="Between-document SD S (instead of a pilot)")
    ] = None,
    pilot: Annotated[
        Path | None, typer.Option(help="Pilot per-query table to estimate S from")
    ] = None,
    pilot_b: Annotated[
        Path | None, typer.Option(help="Second system's pilot table (paired)")
    ] = None,
    systems: Annotated[
        str | None, typer.Option(help="A,B in the pilot's system column (paired)")
    ] = None,
    cluster: o.Cluster = "doc_id",
    score: o.Score = None,
    estimand: Annotated[str, typer.Option(help="macro or micro")] = "macro",
    level: o.Level = 0.95,
    population: o.Population = None,
    power: Annotated[float, typer.Option(help="Power for the detectable difference")] = 0.8,
    strata: Annotated[str | None, typer.Option(help="Pilot stratum column for allocation")] = None,
    population_file: o.PopulationFile = None,
    allocation: Annotated[str, typer.Option(help="proportional or neyman")] = "proportional",
    as_json: o.Json = False,
) -> None:
    """Documents needed for a target half-width (t solved iteratively, finite correction).

    Pilot: a per-query table (doc_id, a score column; with --systems a system column);
    population file: stratum (or type) and M. Fields, examples, output: docs/formats.md.
    """
    result = plan_documents(
        half_width_target=half_width_target,
        documents=documents,
        sd=sd,
        pilot=pilot,
        pilot_b=pilot_b,
        systems=systems,
        cluster=cluster,
        score=score,
        estimand=estimand,
        level=level,
        population=population,
        power=power,
        strata=strata,
        population_file=population_file,
        allocation=allocation,
    )
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        _print(result.to_dict())


def _print(out: dict) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    c.print(
        f"[bold]{out['estimand']}[/] estimand, level {out['level'] * 100:g}%, S = {out['sd']:.4f} ({out['sd_source']})"
    )
    if "plan" in out:
        p = out["plan"]
        prev = p["achieved_previous"]
        c.print(
            f"documents needed for half-width {p['half_width']:g}: [bold]{p['K']}[/] — the smallest "
            f"K with h(K) ≤ h (achieved {p['achieved']:.4f}; "
            + ("K − 1 would give " + f"{prev:.4f})" if prev is not None else "K − 1 < 2)")
        )
        c.print(
            f"without the finite correction: K₀ = {p['K0'] if p['K0'] else '> 1e12'}"
            + (f"; textbook K₀/(1 + K₀/M) → {p['K_formula']}" if p["K_formula"] else "")
        )
    else:
        c.print(
            f"K = {out['documents']} documents give half-width {out['achieved_half_width']:.4f}"
        )
    c.print(
        f"minimum detectable paired difference at power {out['power']:.0%}: "
        f"{out['minimum_detectable_difference']:.4f}"
    )
    if "allocation" in out:
        alloc = ", ".join(f"{h}: {k}" for h, k in out["allocation"]["documents"].items())
        c.print(literal(f"{out['allocation']['method']} allocation: {alloc}"))
    c.print("assumptions:")
    for a in out["assumptions"]:
        c.print(literal(f"  - {a}"))
