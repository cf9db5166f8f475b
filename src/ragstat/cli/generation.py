"""`ragstat generation FILE.jsonl`: answer-level generation metrics with clustered intervals.

One JSON object per answer: ``id``, and any of ``judgment`` (a FaithfulnessJudgment:
``extracted_claims``, ``supported_claims``, ``unsupported_claims``, ``outcome`` =
scored|no_claims, ``failure_mode``, ``rationale``), ``answer`` + ``gold`` (short answers),
``cited`` + ``supporting`` (+ ``context_ids``), ``answer`` + ``context``
(unseen-entity flag), ``refused`` + ``should_abstain``; plus the field named
by ``--cluster-by`` (e.g. the source document). The work is
:func:`ragstat.api.verbs.generation.generation`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli.verb import options_command

File = Annotated[
    Path, typer.Argument(help="JSONL, one answer per line (fields: docs/formats/generation.md)")
]


@dataclass(frozen=True, kw_only=True)
class GenerationOptions(items.ItemOptions):
    file: File


@options_command(GenerationOptions)
def generation(a: GenerationOptions) -> None:
    """Faithfulness, short-answer EM/F1, citation P/R, unseen-entity flags, refusals.

    One JSON object per answer: id, and per metric judgment | answer + gold | cited +
    supporting | answer + context | refused + should_abstain. Fields, examples:
    docs/formats/generation.md.
    """
    from ragstat.api.verbs.generation import generation as score_answers

    result = items.run_recorded(
        "generation", a, {"file": a.file},
        lambda: score_answers(
            a.file, cluster_by=a.cluster_by, level=a.level, bootstrap_reps=a.bootstrap_reps,
            seed=a.seed,
        ),
        items.describe_items,
    )  # fmt: skip
    items.emit(result, a.as_json, a.file)
