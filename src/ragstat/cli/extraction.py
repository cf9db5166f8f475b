"""`ragstat extraction ITEMS.jsonl`: tables, entities, relations and titles against a
reference (the work is in :mod:`ragstat.api.verbs.extraction`).

Records: ``id``, optional ``class``, the ``--cluster-by`` field, and any of
``table_pred`` + ``table_ref`` (TEDS, TEDS-S), ``tags_pred`` + ``tags_ref`` (BIO tags),
``entities_pred`` + ``entities_ref`` (spans), ``relations_pred`` + ``relations_ref``
(triples), ``title_pred`` + ``title_ref`` (titles or headings).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli import options as o


def extraction(
    file: Annotated[Path, typer.Argument(help="JSONL: id, *_pred + *_ref pairs")],
    cluster_by: Annotated[str | None, typer.Option(help="Field with the cluster")] = None,
    scheme: Annotated[
        str, typer.Option(help="Tag scheme of strict mode: IOB1, IOB2, IOE1, IOE2, IOBES, BILOU")
    ] = "IOB2",
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 1999,
    seed: o.Seed = None,
    as_json: o.Json = False,
) -> None:
    """TEDS of tables, entity and relation precision/recall/F1, title match and similarity.

    JSONL: id and *_pred + *_ref pairs. Fields, examples, output: docs/formats.md.
    """
    from ragstat.api.verbs.extraction import extraction as score_extraction

    result = score_extraction(
        file,
        cluster_by=cluster_by,
        scheme=scheme,
        level=level,
        bootstrap_reps=bootstrap_reps,
        seed=seed,
    )
    items.emit(result, as_json, file)
