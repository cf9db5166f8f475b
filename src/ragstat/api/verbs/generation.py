"""``ragstat.generation``: answer-level generation metrics with clustered intervals.

One record per answer: ``id``, and any of ``judgment`` (a faithfulness judgment:
``extracted_claims``, ``supported_claims``, ``unsupported_claims``, ``outcome`` =
scored|no_claims, ``failure_mode``, ``rationale``), ``answer`` + ``gold`` (short answers:
exact match, token F1), ``cited`` + ``supporting`` (+ ``context_ids``: citation
precision and recall), ``answer`` + ``context`` (the lexical unseen-entity flag),
``refused`` + ``should_abstain`` (refusal precision and recall); plus the field named by
``cluster_by`` (e.g. the source document).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from ragstat.api.evaluation import draw_seed
from ragstat.api.items import (
    ItemScores,
    Records,
    Scores,
    read_records,
    require_ids,
    score_intervals,
)
from ragstat.errors import InputError

__all__ = ["generation"]

Rows = list[dict[str, Any]]


def _having(rows: Rows, *fields: str) -> dict[str, dict[str, Any]]:
    return {str(r["id"]): r for r in rows if all(f in r for f in fields)}


def _as_scores(
    records: Mapping[str, float], order: list[str], present: Collection[str]
) -> tuple[list[str], np.ndarray]:
    """Every item that has the metric's fields; NaN (counted as not scored) when undefined."""
    ids = [i for i in order if i in present]
    return ids, np.array([records.get(i, np.nan) for i in ids], dtype=float)


def _text(value: object) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


def _answers(rows: Rows, order: list[str], out: Scores, notes: list[str]) -> None:
    """Faithfulness and short answers (exact match, token F1)."""
    from ragstat.metrics.generation import faithfulness, short_answer_scores

    if rows_j := _having(rows, "judgment"):
        f = faithfulness({k: r["judgment"] for k, r in rows_j.items()})
        out["faithfulness"] = _as_scores(f.records(), order, rows_j)
        notes.append(f"{int((~f.scored).sum())} answers without claims: no faithfulness score")
    if rows_s := _having(rows, "answer", "gold"):
        s = short_answer_scores(
            {k: r["answer"] for k, r in rows_s.items()}, {k: r["gold"] for k, r in rows_s.items()}
        )
        out["exact_match"] = _as_scores(s.records("exact"), order, rows_s)
        out["token_f1"] = _as_scores(s.records("f1"), order, rows_s)


def _citations(rows: Rows, order: list[str], out: Scores, notes: list[str]) -> None:
    """Citation precision and recall, the unseen-entity flag, refusals."""
    from ragstat.metrics.generation import (
        citation_scores,
        refusal_correctness,
        unseen_entity_flags,
    )

    if rows_c := _having(rows, "cited", "supporting"):
        c = citation_scores(
            {k: r["cited"] for k, r in rows_c.items()},
            {k: r["supporting"] for k, r in rows_c.items()},
            {k: r.get("context_ids", []) for k, r in rows_c.items()},
        )
        out["citation_precision"] = _as_scores(c.records("precision"), order, rows_c)
        out["citation_recall"] = _as_scores(c.records("recall"), order, rows_c)
    if rows_u := _having(rows, "answer", "context"):
        u = unseen_entity_flags(
            {k: r["answer"] for k, r in rows_u.items()},
            {k: _text(r["context"]) for k, r in rows_u.items()},
        )
        out["unseen_entity_flag"] = _as_scores(u.records(), order, rows_u)
        notes.append("unseen_entity_flag is a lexical flag, not a grounding check")
    if rows_r := _having(rows, "refused", "should_abstain"):
        r = refusal_correctness(
            {k: v["refused"] for k, v in rows_r.items()},
            {k: v["should_abstain"] for k, v in rows_r.items()},
        )
        for which in ("precision", "recall"):
            rec = r.records(which)
            if rec:
                out[f"refusal_{which}"] = _as_scores(rec, order, rec)


def generation_scores(rows: Rows) -> tuple[Scores, list[str]]:
    """Every generation metric the records have the fields of, and notes on them."""
    order = [str(r["id"]) for r in rows]
    out: Scores = {}
    notes: list[str] = []
    _answers(rows, order, out, notes)
    _citations(rows, order, out, notes)
    if not out:
        raise InputError("no record has the fields of any generation metric (see --help)")
    return out, notes


def generation(
    data: Records,
    *,
    cluster_by: str | None = None,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> ItemScores:
    """Faithfulness, short-answer EM/F1, citation P/R, unseen-entity flags and refusals per
    answer, each with its mean and intervals clustered by ``cluster_by`` (see the module
    docstring). ``data``: a JSONL path, a list of mappings, a DataFrame or a pyarrow Table;
    ``seed=None`` draws a seed, kept in ``result.seed``."""
    rows, label = read_records(data)
    require_ids(rows, label)
    seed = draw_seed(seed)
    scores, notes = generation_scores(rows)
    found, note = score_intervals(
        scores, rows, cluster_by, level=level, seed=seed, reps=bootstrap_reps
    )
    return ItemScores("generation", label, found, note, tuple(notes), level, seed)
