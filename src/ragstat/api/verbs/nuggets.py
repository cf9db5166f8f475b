"""``ragstat.nuggets``: nugget completeness per answer (TREC 2024 RAG track style), with
intervals clustered by document.

One record per answer: ``id``, ``nuggets`` — a list of ``{text, importance, support}`` with
importance ``vital`` | ``okay`` and support ``support`` | ``partial_support`` |
``not_support`` — and the field named by ``cluster_by`` (e.g. the source document or the
topic). Scores per answer (see :mod:`ragstat.metrics.generation.nuggets`): ``V_strict``,
``V``, ``A_strict``, ``A``; an answer with no nugget (no vital nugget for ``V*``) is not
scored, and counted.
"""

from __future__ import annotations

from typing import Any

from ragstat.api.evaluation import draw_seed
from ragstat.api.items import ItemScores, Records, Scores, check_reps, read_records, require_ids
from ragstat.api.items import score_intervals as intervals
from ragstat.errors import InputError

__all__ = ["nuggets"]


def nugget_score_table(rows: list[dict[str, Any]], label: str) -> tuple[Scores, list[str]]:
    """The four scores per answer (NaN = not scored) and notes on the answers left out."""
    from ragstat.metrics.generation.nuggets import NUGGET_SCORES, nugget_scores

    lacking = [str(r["id"]) for r in rows if r.get("nuggets") is None]
    if lacking:
        raise InputError(f"{label}: answer {lacking[0]!r} has no 'nuggets' list")
    n = nugget_scores({str(r["id"]): r["nuggets"] for r in rows})
    ids = list(n.item_ids)
    scores: Scores = {name: (ids, n.scores[name]) for name in NUGGET_SCORES}
    no_nugget = int((n.nuggets == 0).sum())
    no_vital = int((n.vital == 0).sum()) - no_nugget
    notes = [
        f"{int(n.nuggets.sum())} nuggets ({int(n.vital.sum())} vital) over {len(ids)} answers",
        f"{no_nugget} answer(s) with no nugget: not scored",
        f"{no_vital} more answer(s) with no vital nugget: no V_strict or V",
        "partial support counts 0.5 in V and A, 0 in V_strict and A_strict (TREC 2024 RAG "
        "track, Pradeep et al. 2024)",
    ]
    return scores, notes


def nuggets(
    data: Records,
    *,
    cluster_by: str | None = None,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> ItemScores:
    """Nugget completeness per answer — ``V_strict``, ``V``, ``A_strict``, ``A`` — each with
    its mean and intervals clustered by ``cluster_by`` (see the module docstring). ``data``: a
    JSONL path, a list of mappings, a DataFrame or a pyarrow Table; ``seed=None`` draws a
    seed, kept in ``result.seed``."""
    check_reps(bootstrap_reps)
    rows, label = read_records(data)
    require_ids(rows, label)
    seed = draw_seed(seed)
    scores, notes = nugget_score_table(rows, label)
    found, note = intervals(scores, rows, cluster_by, level=level, seed=seed, reps=bootstrap_reps)
    return ItemScores("nuggets", label, found, note, tuple(notes), level, seed)
