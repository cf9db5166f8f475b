"""`ragstat routing FILE.jsonl`: intent / router accuracy and iterative search under budgets
(the work is in :mod:`ragstat.api.verbs.routing`).

Records: ``id``, ``label`` + ``predicted`` (optional ``slice``) and/or ``steps`` (+
``max_steps``, optional ``cost``), and the ``--cluster-by`` field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli.verb import options_command

File = Annotated[Path, typer.Argument(help="JSONL: id, label + predicted and/or steps + max_steps")]
Labels = Annotated[str | None, typer.Option(help="The label set in order, comma-separated (a,b,c)")]
LabelsFile = Annotated[
    Path | None, typer.Option(help="A text file with the label set, one per line")
]
FlatGain = Annotated[
    float, typer.Option(help="The success curve flattens where the gain to S is below this")
]
CostBudgets = Annotated[
    str | None, typer.Option(help="Cost budgets, comma-separated (default: costs seen)")
]
MaxSteps = Annotated[
    int | None, typer.Option(help="Step budget for records without max_steps", min=1)
]


def _split(text: str | None, option: str) -> list[str] | None:
    from ragstat.resources.caps import check_list

    if text is None:
        return None
    items = [x.strip() for x in text.split(",") if x.strip()]
    check_list(items, option)
    return items


@dataclass(frozen=True, kw_only=True)
class RoutingOptions(items.ItemOptions):
    file: File
    labels: Labels = None
    labels_file: LabelsFile = None
    flat_gain: FlatGain = 0.01
    cost_budgets: CostBudgets = None
    max_steps: MaxSteps = None


@options_command(RoutingOptions)
def routing(a: RoutingOptions) -> None:
    """Router accuracy, per-class P/R/F1, macro F1, confusion; success by steps and cost.

    JSONL: id, label + predicted and/or steps. Fields, examples, output: docs/formats/routing.md.
    """
    from ragstat.api.verbs.routing import routing as score_routing

    result = items.run_recorded(
        "routing", a, {"file": a.file, "labels_file": a.labels_file},
        lambda: score_routing(
            a.file, labels=_split(a.labels, "--labels"), labels_file=a.labels_file,
            cluster_by=a.cluster_by, flat_gain=a.flat_gain,
            cost_budgets=_split(a.cost_budgets, "--cost-budgets"), max_steps=a.max_steps, level=a.level,
            bootstrap_reps=a.bootstrap_reps, seed=a.seed,
        ),
        items.describe_items,
    )  # fmt: skip
    items.emit(result, a.as_json, a.file)
