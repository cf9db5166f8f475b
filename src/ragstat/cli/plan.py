"""`ragstat plan`: how many documents to label, and what a given K buys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import options as o
from ragstat.errors import InputError
from ragstat.inference.planning import (
    ALLOCATIONS,
    allocate,
    half_width,
    minimum_detectable_difference,
    pilot_sd,
    plan_documents,
    stratum_sd,
)
from ragstat.records import aggregate_file, pair_files, read_population_counts


def _pilot(pilot, pilot_b, systems, cluster, score, strata):
    """Pilot DocStats (differences when two systems are given) and whether it is paired."""
    if pilot_b is not None or systems is not None:
        pair = o.parse_systems(systems)
        return pair_files(
            pilot, pilot_b, systems=pair, cluster=cluster, score=score, stratum=strata
        ).stats, True
    return aggregate_file(pilot, cluster=cluster, score=score, stratum=strata), False


def _allocation(K: int, population_file: Path, method: str, stats, estimand: str) -> dict:
    """Split K across the strata of the population file (Neyman: S_h from the pilot)."""
    counts = read_population_counts(population_file)
    by = None
    if method == "neyman":
        if stats is None or stats.stratum is None:
            raise InputError("Neyman allocation needs --pilot with --strata")
        by = stratum_sd(stats, estimand)
    return {"method": method, "documents": allocate(K, counts, method, by)}


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
    score: o.Score = "hit",
    estimand: Annotated[str, typer.Option(help="macro or micro")] = "macro",
    level: o.Level = 0.95,
    population: o.Population = None,
    power: Annotated[float, typer.Option(help="Power for the detectable difference")] = 0.8,
    strata: Annotated[str | None, typer.Option(help="Pilot stratum column for allocation")] = None,
    population_file: o.PopulationFile = None,
    allocation: Annotated[str, typer.Option(help="proportional or neyman")] = "proportional",
    as_json: o.Json = False,
) -> None:
    """Documents needed for a target half-width (t solved iteratively, finite correction)."""
    if estimand not in ("micro", "macro"):
        raise InputError(f"--estimand must be micro or macro, got {estimand!r}")
    if (half_width_target is None) == (documents is None):
        raise InputError("give exactly one of --half-width (how many documents?) or --documents K")
    if (sd is None) == (pilot is None):
        raise InputError("give the between-document SD with exactly one of --sd or --pilot")
    if allocation not in ALLOCATIONS:
        raise InputError(f"--allocation must be one of {', '.join(ALLOCATIONS)}")
    paired, source, stats = systems is not None or pilot_b is not None, "given (--sd)", None
    if pilot is not None:
        stats, paired = _pilot(pilot, pilot_b, systems, cluster, score, strata)
        sd = pilot_sd(stats, estimand)
        source = f"pilot {pilot}: K = {stats.K} documents, N = {stats.N:g} queries"
    out = {
        "estimand": estimand,
        "level": level,
        "sd": sd,
        "sd_source": source,
        "population": population,
        "paired": paired,
        "power": power,
    }
    out |= _numbers(half_width_target, documents, sd, level, population, power, estimand)
    K = out["documents"]
    if population_file is not None:
        out["allocation"] = _allocation(K, population_file, allocation, stats, estimand)
    out["assumptions"] = _assumptions(estimand, population, paired)
    if as_json:
        typer.echo(json.dumps(out, ensure_ascii=False))
    else:
        _print(out)


def _numbers(h, documents, sd, level, M, power, estimand) -> dict:
    """The plan for h, or the half-width a given K achieves; the detectable difference."""
    out: dict = {}
    if h is not None:
        result = plan_documents(h, sd, level=level, M=M, estimand=estimand)
        out["plan"], K = result.to_dict(), result.K
    else:
        K = documents
        out["achieved_half_width"] = half_width(K, sd, level, M)
    out["documents"] = K
    out["minimum_detectable_difference"] = minimum_detectable_difference(
        K, sd, level=level, power=power, M=M
    )
    return out


def _assumptions(estimand: str, M: int | None, paired: bool) -> list[str]:
    return [
        "simple random sample of documents"
        + (
            f" from M = {M} (finite correction)"
            if M
            else " from a large population (no finite correction)"
        ),
        "h = t(1 − α/2; K − 1) · S/√K · √(1 − K/M); df K − 1, not the CR2 df",
        (
            "S = sd of per-document rates"
            if estimand == "macro"
            else "S = sd(u_d)/m̄, the ratio estimator's linearisation (u_d = s_d − R n_d)"
        ),
        "S is treated as known: a pilot's S is itself uncertain; coverage is not guaranteed",
        (
            "differences are paired per query (S is the SD of document differences)"
            if paired
            else "the detectable difference uses S as the SD of per-document differences"
        ),
    ]


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
