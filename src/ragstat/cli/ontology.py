"""`ragstat ontology ITEMS.jsonl --taxonomy EDGES`: hierarchical P/R/F1 and Wu–Palmer per item.

Items: one JSON object per line with ``id``, ``gold`` and ``predicted`` (a label or a
list of labels; Wu–Palmer and the confusion shares use single labels) and the field
named by ``--cluster-by``. Taxonomy: JSONL/CSV edges with ``parent`` and ``child``.
The work is :func:`ragstat.api.verbs.ontology.ontology`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli.verb import options_command

File = Annotated[Path, typer.Argument(help="JSONL items: id, gold, predicted")]
Taxonomy = Annotated[Path, typer.Option(help="Edges file (parent, child): JSONL or CSV")]


@dataclass(frozen=True, kw_only=True)
class OntologyOptions(items.ItemOptions):
    file: File
    taxonomy: Taxonomy


@options_command(OntologyOptions)
def ontology(a: OntologyOptions) -> None:
    """Hierarchical precision/recall/F1 over ancestor sets, Wu–Palmer, confusion shares.

    Items: JSONL with id, gold, predicted; taxonomy: parent,child edges. Fields, examples,
    output: docs/formats/ontology.md.
    """
    from ragstat.api.verbs.ontology import ontology as score_items

    result = items.run_recorded(
        "ontology", a, {"file": a.file, "taxonomy": a.taxonomy},
        lambda: score_items(
            a.file, a.taxonomy, cluster_by=a.cluster_by, level=a.level,
            bootstrap_reps=a.bootstrap_reps, seed=a.seed,
        ),
        items.describe_items,
    )  # fmt: skip
    items.emit(result, a.as_json, a.file)
