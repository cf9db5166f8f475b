"""`ragstat ontology ITEMS.jsonl --taxonomy EDGES`: hierarchical P/R/F1 and Wu–Palmer per item.

Items: one JSON object per line with ``id``, ``gold`` and ``predicted`` (a label or a
list of labels; Wu–Palmer and the confusion shares use single labels) and the field
named by ``--cluster-by``. Taxonomy: JSONL/CSV edges with ``parent`` and ``child``.
The work is :func:`ragstat.api.verbs.ontology.ontology`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli import options as o


def ontology(
    file: Annotated[Path, typer.Argument(help="JSONL items: id, gold, predicted")],
    taxonomy: Annotated[Path, typer.Option(help="Edges file (parent, child): JSONL or CSV")],
    cluster_by: Annotated[str | None, typer.Option(help="Field with the cluster")] = None,
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 1999,
    seed: o.Seed = None,
    as_json: o.Json = False,
) -> None:
    """Hierarchical precision/recall/F1 over ancestor sets, Wu–Palmer, confusion shares.

    Items: JSONL with id, gold, predicted; taxonomy: parent,child edges. Fields, examples,
    output: docs/formats.md.
    """
    from ragstat.api.verbs.ontology import ontology as score_items

    result = score_items(
        file,
        taxonomy,
        cluster_by=cluster_by,
        level=level,
        bootstrap_reps=bootstrap_reps,
        seed=seed,
    )
    items.emit(result, as_json, file)
