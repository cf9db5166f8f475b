"""`ragstat nuggets FILE.jsonl`: nugget completeness per answer, TREC 2024 RAG track style
(the work is in :mod:`ragstat.api.verbs.nuggets`).

Records: ``id``, ``nuggets`` (a list of ``{text, importance, support}``) and the
``--cluster-by`` field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli.verb import options_command

File = Annotated[Path, typer.Argument(help="JSONL: id, nuggets [{text, importance, support}]")]


@dataclass(frozen=True, kw_only=True)
class NuggetsOptions(items.ItemOptions):
    file: File


@options_command(NuggetsOptions)
def nuggets(a: NuggetsOptions) -> None:
    """Nugget completeness per answer: V_strict, V, A_strict, A with clustered intervals.

    JSONL: id, nuggets. Fields, examples, output: docs/formats/nuggets.md.
    """
    from ragstat.api.verbs.nuggets import nuggets as score_nuggets

    result = items.run_recorded(
        "nuggets", a, {"file": a.file},
        lambda: score_nuggets(
            a.file, cluster_by=a.cluster_by, level=a.level, bootstrap_reps=a.bootstrap_reps,
            seed=a.seed,
        ),
        items.describe_items,
    )  # fmt: skip
    items.emit(result, a.as_json, a.file)
