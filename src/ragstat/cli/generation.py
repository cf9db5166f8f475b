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

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli import options as o


def generation(
    file: Annotated[
        Path, typer.Argument(help="JSONL, one answer per line (fields: docs/formats.md#generation)")
    ],
    cluster_by: Annotated[
        str | None, typer.Option(help="Field with the cluster (e.g. doc_id)")
    ] = None,
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 1999,
    seed: o.Seed = None,
    as_json: o.Json = False,
) -> None:
    """Faithfulness, short-answer EM/F1, citation P/R, unseen-entity flags, refusals.

    One JSON object per answer: id, and per metric judgment | answer + gold | cited +
    supporting | answer + context | refused + should_abstain. Fields, examples: docs/formats.md.
    """
    from ragstat.api.verbs.generation import generation as score_answers

    result = score_answers(
        file, cluster_by=cluster_by, level=level, bootstrap_reps=bootstrap_reps, seed=seed
    )
    items.emit(result, as_json, file)
