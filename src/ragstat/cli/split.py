"""`ragstat split TABLE`: leak-free evaluation sets (``ragstat.api.verbs.split``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import recorded, write_json
from ragstat.cli.verb import options_command, settings_of

if TYPE_CHECKING:  # the library is imported when the verb runs: a lean start for the others
    from ragstat.api.verbs.split import SplitResult

Table = Annotated[
    Path,
    typer.Argument(
        help="Query table (.parquet, .csv, .tsv, .jsonl) with a unique query_id and the "
        "grouping columns"
    ),
]
Groups = Annotated[
    str,
    typer.Option(
        help="Comma-separated grouping columns (doc_id,session_id,user_id…): queries sharing "
        "any value of any of them stay in one set"
    ),
]
Sets = Annotated[
    str,
    typer.Option(help="NAME=SHARE,… target shares of the queries, summing to 1"),
]
Stratify = Annotated[
    str | None,
    typer.Option(
        help="Column to balance across the sets (e.g. intent); a unit's most common value"
    ),
]
Seed = Annotated[int, typer.Option(help="Random seed of the assignment", min=0)]


@dataclass(frozen=True, kw_only=True)
class SplitOptions(o.OutputOptions):
    table: Table
    groups: Groups = "doc_id"
    sets: Sets = "dev=0.6,calibration=0.2,release=0.2"
    stratify: Stratify = None
    seed: Seed = 0


@options_command(SplitOptions)
def split(a: SplitOptions) -> None:
    """Split a query table into sets no document, session or user straddles.

    Queries linked by any shared value of the grouping columns form one unit; whole
    units go to the sets, each within one unit of its target share. With --out, one file
    per set (the input's format) plus result.json. Fields, examples, output:
    docs/formats/split.md.
    """
    from ragstat.api.verbs.split import split as run_split

    inputs = {"table": a.table}
    with recorded("split", settings_of(a), inputs=inputs, out=a.out, force=a.force) as log:
        result = run_split(a.table, groups=a.groups, sets=a.sets, stratify=a.stratify, seed=a.seed)
        log.config["seed"] = result.seed
        summary = result.to_dict()
        log.results = {
            "leak_free": summary["leakage"]["leak_free"],
            "queries": {name: s["queries"] for name, s in summary["sets"].items()},
        }
        if log.out is not None:
            log.wrote(*result.write(log.out))
            log.wrote(write_json(log.out / "result.json", result.to_dict()))
    o.emit(result, a.as_json, lambda: _render(result))


def _render(result: SplitResult) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    for line in repr(result).splitlines():
        c.print(literal(line))
    for warning in result.warnings():
        c.print(literal(f"warning: {warning}"))
