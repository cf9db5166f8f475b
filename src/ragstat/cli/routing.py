"""`ragstat routing FILE.jsonl`: intent / router accuracy and iterative search under budgets
(the work is in :mod:`ragstat.api.verbs.routing`).

Records: ``id``, ``label`` + ``predicted`` (optional ``slice``) and/or ``steps`` (+
``max_steps``, optional ``cost``), and the ``--cluster-by`` field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli import options as o


def _split(text: str | None) -> list[str] | None:
    return None if text is None else [x.strip() for x in text.split(",") if x.strip()]


def routing(
    file: Annotated[
        Path, typer.Argument(help="JSONL: id, label + predicted and/or steps + max_steps")
    ],
    labels: Annotated[
        str | None, typer.Option(help="The label set in order, comma-separated (a,b,c)")
    ] = None,
    labels_file: Annotated[
        Path | None, typer.Option(help="A text file with the label set, one per line")
    ] = None,
    cluster_by: Annotated[str | None, typer.Option(help="Field with the cluster")] = None,
    flat_gain: Annotated[
        float, typer.Option(help="The success curve flattens where the gain to S is below this")
    ] = 0.01,
    cost_budgets: Annotated[
        str | None, typer.Option(help="Cost budgets, comma-separated (default: costs seen)")
    ] = None,
    max_steps: Annotated[
        int | None, typer.Option(help="Step budget for records without max_steps", min=1)
    ] = None,
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 1999,
    seed: o.Seed = None,
    as_json: o.Json = False,
) -> None:
    """Router accuracy, per-class P/R/F1, macro F1, confusion; success by steps and cost.

    JSONL: id, label + predicted and/or steps. Fields, examples, output: docs/formats.md.
    """
    from ragstat.api.verbs.routing import routing as score_routing

    result = score_routing(
        file,
        labels=_split(labels),
        labels_file=labels_file,
        cluster_by=cluster_by,
        flat_gain=flat_gain,
        cost_budgets=_split(cost_budgets),
        max_steps=max_steps,
        level=level,
        bootstrap_reps=bootstrap_reps,
        seed=seed,
    )
    items.emit(result, as_json, file)
