"""`ragstat nuggets FILE.jsonl`: nugget completeness per answer, TREC 2024 RAG track style
(the work is in :mod:`ragstat.api.verbs.nuggets`).

Records: ``id``, ``nuggets`` (a list of ``{text, importance, support}``) and the
``--cluster-by`` field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli import options as o


def nuggets(
    file: Annotated[Path, typer.Argument(help="JSONL: id, nuggets [{text, importance, support}]")],
    cluster_by: Annotated[str | None, typer.Option(help="Field with the cluster")] = None,
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 1999,
    seed: o.Seed = None,
    as_json: o.Json = False,
) -> None:
    """Nugget completeness per answer: V_strict, V, A_strict, A with clustered intervals.

    JSONL: id, nuggets. Fields, examples, output: docs/formats.md.
    """
    from ragstat.api.verbs.nuggets import nuggets as score_nuggets

    result = score_nuggets(
        file, cluster_by=cluster_by, level=level, bootstrap_reps=bootstrap_reps, seed=seed
    )
    items.emit(result, as_json, file)
