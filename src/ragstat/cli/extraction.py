"""`ragstat extraction ITEMS.jsonl`: tables, entities, relations and titles against a
reference (the work is in :mod:`ragstat.api.verbs.extraction`).

Records: ``id``, optional ``class``, the ``--cluster-by`` field, and any of
``table_pred`` + ``table_ref`` (TEDS, TEDS-S), ``tags_pred`` + ``tags_ref`` (BIO tags),
``entities_pred`` + ``entities_ref`` (spans), ``relations_pred`` + ``relations_ref``
(triples), ``title_pred`` + ``title_ref`` (titles or headings).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli.verb import options_command

File = Annotated[Path, typer.Argument(help="JSONL: id, *_pred + *_ref pairs")]
Scheme = Annotated[
    str, typer.Option(help="Tag scheme of strict mode: IOB1, IOB2, IOE1, IOE2, IOBES, BILOU")
]


@dataclass(frozen=True, kw_only=True)
class ExtractionOptions(items.ItemOptions):
    file: File
    scheme: Scheme = "IOB2"


@options_command(ExtractionOptions)
def extraction(a: ExtractionOptions) -> None:
    """TEDS of tables, entity and relation precision/recall/F1, title match and similarity.

    JSONL: id and *_pred + *_ref pairs. Fields, examples, output: docs/formats/extraction.md.
    """
    from ragstat.api.verbs.extraction import extraction as score_extraction

    result = items.run_recorded(
        "extraction", a, {"file": a.file},
        lambda: score_extraction(
            a.file, cluster_by=a.cluster_by, scheme=a.scheme, level=a.level,
            bootstrap_reps=a.bootstrap_reps, seed=a.seed,
        ),
        items.describe_items,
    )  # fmt: skip
    items.emit(result, a.as_json, a.file)
