"""`ragstat plan`: how many documents to label, and what a given K buys."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import options as o
from ragstat.cli.verb import options_command
from ragstat.errors import InputError
from ragstat.tidy import json_text

if TYPE_CHECKING:
    from ragstat.api.verbs.plan import GoldenSet, PlanResult
    from ragstat.inference.power import ABDesign, PowerResult

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
QueriesPerDoc = Annotated[
    float | None, typer.Option(help="Golden-set sizing: queries per document m (DEFF)")
]
Icc = Annotated[float | None, typer.Option(help="Intra-cluster correlation ρ in [0, 1)")]
Rate = Annotated[
    float | None, typer.Option(help="A proportion p (σ² = p(1 − p)); with --ab the baseline rate")
]
Queries = Annotated[int | None, typer.Option(help="Golden-set sizing: evaluate n queries")]
Ab = Annotated[bool, typer.Option("--ab", help="A/B power by randomisation unit")]
Unit = Annotated[str, typer.Option(help="--ab: randomisation unit (user, session, query)")]
Mde = Annotated[float | None, typer.Option(help="--ab: minimum detectable effect δ")]
EventsPerUnit = Annotated[float | None, typer.Option(help="--ab: mean events per unit m̄")]
EventsCv = Annotated[float | None, typer.Option(help="--ab: CV of events per unit")]
Sided = Annotated[str, typer.Option(help="--ab: two-sided or one-sided")]
Test = Annotated[str, typer.Option(help="--ab: z (normal) or t (noncentral t) power")]
Traffic = Annotated[float | None, typer.Option(help="--ab: eligible units per day (duration)")]


@dataclass(frozen=True, kw_only=True)
class PlanOptions(o.ScoreCellOptions, o.OutputOptions):
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
    queries_per_doc: QueriesPerDoc = None
    icc: Icc = None
    rate: Rate = None
    queries: Queries = None
    ab: Ab = False
    unit: Unit = "user"
    mde: Mde = None
    events_per_unit: EventsPerUnit = None
    events_cv: EventsCv = None
    sided: Sided = "two-sided"
    test: Test = "z"
    traffic: Traffic = None

    def golden(self) -> GoldenSet | None:
        """Golden-set sizing when any of its options is given."""
        from ragstat.api.verbs.plan import GoldenSet

        given = (self.queries_per_doc, self.icc, self.rate, self.queries)
        if all(v is None for v in given):
            return None
        return GoldenSet(self.queries_per_doc, self.icc, self.rate, self.queries)

    def design(self) -> ABDesign:
        from ragstat.inference.power import ABDesign

        if self.mde is None:
            raise InputError("--ab needs the minimum detectable effect --mde")
        if self.sided not in ("two-sided", "one-sided"):
            raise InputError(f"--sided must be two-sided or one-sided, got {self.sided!r}")
        return ABDesign(
            self.mde, self.unit, self.rate, self.sd, self.events_per_unit, self.events_cv,
            self.icc, self.power, self.level, 2 if self.sided == "two-sided" else 1, self.test,
            self.traffic,
        )  # fmt: skip


_PLAIN = {f.name for f in fields(PlanOptions)} - {
    "queries_per_doc", "icc", "rate", "queries", "ab", "unit", "mde", "events_per_unit",
    "events_cv", "sided", "test", "traffic", "as_json", "out", "force",
}  # fmt: skip


@options_command(PlanOptions)
def plan(a: PlanOptions) -> None:
    """Documents needed for a target half-width (t solved iteratively, finite correction).

    Pilot: a per-query table (doc_id, a score column; with --systems a system column);
    population file: stratum (or type) and M. Fields, examples, output: docs/formats/plan.md.
    """
    from ragstat.cli import items

    inputs = {"pilot": a.pilot, "pilot_b": a.pilot_b, "population_file": a.population_file}
    result = items.run_recorded("plan", a, inputs, lambda: _compute(a), _describe)
    if a.as_json:
        typer.echo(json_text(result.to_dict()))
        return
    out, sentence = result.to_dict(), result.sentences()[0]
    if a.ab:
        _print_ab(out, sentence)
    elif "sizing" in out:
        _print_sizing(out, sentence)
    else:
        _print(out, sentence)


def _compute(a: PlanOptions) -> PlanResult | PowerResult:
    from ragstat.api.verbs.plan import plan as plan_documents
    from ragstat.api.verbs.plan import power as plan_power

    if a.ab:
        return plan_power(
            a.design(), pilot=a.pilot, cluster=a.cluster, score=a.score, system=a.system,
            non_numeric=a.non_numeric,
        )  # fmt: skip
    options = {name: getattr(a, name) for name in _PLAIN}
    return plan_documents(**options, golden=a.golden())


def _describe(result: PlanResult | PowerResult) -> tuple[dict[str, Any], str]:
    """Registry results (the plan's numbers and its sentence) and the Markdown summary."""
    from ragstat.cli import items
    from ragstat.tidy import plain

    numbers = {k: plain(v) for k, v in result.rows()[0].items()}
    summary = items.markdown_summary(result, {"Assumptions": list(result.to_dict()["assumptions"])})
    return {"plan": numbers, "sentence": result.sentences()[0]}, summary


def _print_sizing(out: dict, sentence: str) -> None:
    from ragstat.cli.terminal import console, literal

    z, c = out["sizing"], console()
    c.print(literal(sentence))
    c.print(literal(f"query-level SD σ = {out['sd']:.4f} ({out['sd_source']})"))
    if z["target"] is not None:
        c.print(
            f"half-width {z['target']:g}: [bold]{z['queries_independent']}[/] queries if "
            f"independent; [bold]{z['queries']}[/] queries from [bold]{z['documents']}[/] "
            f"documents at m = {z['queries_per_doc']:g}, ICC {z['icc']:g} (DEFF {z['deff']:.3f})"
        )
    c.print(
        literal(
            f"{z['queries']} queries from {z['documents']} documents: ±{100 * z['half_width_independent']:.1f}"
            f" points assuming independence; ±{100 * z['half_width']:.1f} with "
            f"{z['queries_per_doc']:g} queries per document at ICC {z['icc']:g}"
        )
    )
    _assumptions_out(out["assumptions"])


def _print_ab(out: dict, sentence: str) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    c.print(literal(sentence))
    c.print(literal(f"σ = {out['sd']:.4f} ({out['source']}); DEFF = {out['deff']:.4f}"))
    c.print(
        f"[bold]{out['units_per_arm']}[/] {out['unit']}s per arm (formula "
        f"{out['units_formula']:.1f}; power {out['achieved_power']:.3f}) to detect "
        f"δ = {out['delta']:g} at level {out['level']:g}, {out['sided']}-sided {out['test']} test"
    )
    if out["days"] is not None:
        c.print(f"at {out['units_per_day']:g} {out['unit']}s per day: {out['days']} days")
    _assumptions_out(out["assumptions"])


def _assumptions_out(items: list[str]) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    c.print("assumptions:")
    for a in items:
        c.print(literal(f"  - {a}"))


def _print(out: dict, sentence: str) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    c.print(literal(sentence))
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
