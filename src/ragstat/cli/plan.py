"""`ragstat plan`: how many documents to label, and what a given K buys."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated

import typer

from ragstat.api.verbs.plan import plan as plan_documents
from ragstat.cli import options as o
from ragstat.cli.verb import options_command

HalfWidth = Annotated[
    float | None, typer.Option("--half-width", help="Target half-width h of the interval")
]
Documents = Annotated[
    int | None,
    typer.Option(help="Evaluate a given K: achieved half-width and detectable difference"),
]
Sd = Annotated[float | None, typer.Option(help="Between-document SD S (instead of a pilot)")]
Pilot = Annotated[Path | None, typer.Option(help="Pilot per-query table to estimate S from")]
PilotB = Annotated[Path | None, typer.Option(help="Second system's pilot table (paired)")]
Systems = Annotated[str | None, typer.Option(help="A,B in the pilot's system column (paired)")]
System = Annotated[str | None, typer.Option(help="Keep the pilot's rows of this system only")]
PlanEstimand = Annotated[str, typer.Option(help="macro or micro")]
Power = Annotated[float, typer.Option(help="Power for the detectable difference")]
PilotStrata = Annotated[str | None, typer.Option(help="Pilot stratum column for allocation")]
Allocation = Annotated[str, typer.Option(help="proportional or neyman")]


@dataclass(frozen=True, kw_only=True)
class PlanOptions:
    half_width_target: HalfWidth = None
    documents: Documents = None
    sd: Sd = None
    pilot: Pilot = None
    pilot_b: PilotB = None
    systems: Systems = None
    system: System = None
    cluster: o.Cluster = "doc_id"
    score: o.Score = None
    estimand: PlanEstimand = "macro"
    level: o.Level = 0.95
    population: o.Population = None
    power: Power = 0.8
    strata: PilotStrata = None
    population_file: o.PopulationFile = None
    allocation: Allocation = "proportional"
    as_json: o.Json = False


@options_command(PlanOptions)
def plan(a: PlanOptions) -> None:
    """Documents needed for a target half-width (t solved iteratively, finite correction).

    Pilot: a per-query table (doc_id, a score column; with --systems a system column);
    population file: stratum (or type) and M. Fields, examples, output: docs/formats.md.
    """
    options = {f.name: getattr(a, f.name) for f in fields(a) if f.name != "as_json"}
    result = plan_documents(**options)
    if a.as_json:
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
