"""`ragstat judge-bias TABLE --kind …`: an LLM judge's position bias, verbosity bias or
self-consistency, every number with an interval clustered by document
(``ragstat.api.verbs.judge_bias``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import recorded, write_json
from ragstat.cli.verb import options_command, settings_of

if TYPE_CHECKING:  # the library is imported when the verb runs: a lean start for the others
    from ragstat.api.verbs.judge_bias import JudgeBiasResult

Table = Annotated[
    Path,
    typer.Argument(
        help="Table of judgments (.jsonl, .csv, .tsv, .parquet), one row per unit with its "
        "document; fields per --kind below and in docs/formats/judge-bias.md"
    ),
]
Kind = Annotated[
    str,
    typer.Option(
        help="position: one row per pair, verdict_ab (A shown first) and verdict_ba (B shown "
        "first), each first|A|1, second|B|2 or tie|C (the winning position), optional "
        "pair_id. verbosity: one row per judgment, winner (A|B|tie) or preference (for A, in "
        "[0, 1]), length_a + length_b or answer_a + answer_b (whitespace tokens). "
        "self-consistency: item_id with answers (a list of sampled answers), or one row per "
        "sample with item_id and answer"
    ),
]
Threshold = Annotated[
    float, typer.Option(help="self-consistency: flag items whose agreement is below this")
]
Per = Annotated[float, typer.Option(help="verbosity: report the slope per this many length units")]


@dataclass(frozen=True, kw_only=True)
class JudgeBiasOptions(o.OutputOptions):
    table: Table
    kind: Kind = "position"
    cluster: o.Cluster = "doc_id"
    threshold: Threshold = 0.5
    per: Per = 100.0
    level: o.Level = 0.95
    bootstrap_reps: o.Reps = 1999
    seed: o.Seed = None


@options_command(JudgeBiasOptions)
def judge_bias(a: JudgeBiasOptions) -> None:
    """An LLM judge's position bias, verbosity bias or self-consistency, clustered by document.

    position: consistency after swapping the answers, the first slot's share of decisive
    calls. verbosity: the effect of the length difference on the preference for A (a
    linear-probability regression, CR2 with Bell–McCaffrey df) and the length-controlled
    preference. self-consistency: agreement of sampled answers with their modal answer,
    its distribution, items below --threshold. Every row needs the --cluster column
    (doc_id). Exit 2 on bad input. Fields, examples, output: docs/formats/judge-bias.md.
    """
    from ragstat.api.verbs.judge_bias import judge_bias as measure

    config = settings_of(a)
    with recorded("judge-bias", config, inputs={"table": a.table}, out=a.out, force=a.force) as log:
        result = measure(
            a.table, kind=a.kind, cluster=a.cluster, threshold=a.threshold, per=a.per,
            level=a.level, bootstrap_reps=a.bootstrap_reps, seed=a.seed,
        )  # fmt: skip
        log.config["seed"] = result.seed
        log.results = headline(result)
        if log.out is not None:
            log.wrote(write_json(log.out / "result.json", result.to_dict()))
    o.emit(result, a.as_json, lambda: _render(result))


def headline(result: JudgeBiasResult) -> dict[str, Any]:
    """Per estimate its value and the interval shown: what a registry diff compares."""
    return {
        e.name: {"estimate": e.estimate, "method": e.method, "lower": e.lower, "upper": e.upper}
        for e in result.estimates
    }


def _render(result: JudgeBiasResult) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    for line in repr(result).splitlines():
        c.print(literal(line))
    flagged = result.details.get("flagged_items")
    if flagged:
        shown = ", ".join(flagged[:10]) + (" …" if len(flagged) > 10 else "")
        c.print(literal(f"flagged items ({len(flagged)}): {shown}"))
    for note in result.notes:
        c.print(literal(f"note: {note}"))
