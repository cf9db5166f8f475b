"""`ragstat generation FILE.jsonl`: answer-level generation metrics with clustered intervals.

One JSON object per answer: ``id``, and any of ``judgment`` (a FaithfulnessJudgment:
``extracted_claims``, ``supported_claims``, ``unsupported_claims``, ``outcome`` =
scored|no_claims, ``failure_mode``, ``rationale``), ``answer`` + ``gold`` (short answers),
``cited`` + ``supporting`` (+ ``context_ids``), ``answer`` + ``context``
(unseen-entity flag), ``refused`` + ``should_abstain``; plus the field named
by ``--cluster-by`` (e.g. the source document).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from ragstat.cli import items
from ragstat.cli import options as o
from ragstat.errors import InputError


def _having(rows: list[dict], *fields: str) -> dict[str, dict]:
    return {str(r["id"]): r for r in rows if all(f in r for f in fields)}


def _as_scores(
    records: dict[str, float], order: list[str], present
) -> tuple[list[str], np.ndarray]:
    """Every item that has the metric's fields; NaN (counted as not scored) when undefined."""
    ids = [i for i in order if i in present]
    return ids, np.array([records.get(i, np.nan) for i in ids], dtype=float)


def _scores(rows: list[dict]) -> tuple[dict, list[str]]:
    from ragstat.metrics.generation import (
        citation_scores,
        faithfulness,
        refusal_correctness,
        short_answer_scores,
        unseen_entity_flags,
    )

    order = [str(r["id"]) for r in rows]
    out, notes = {}, []
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
    if not out:
        raise InputError("no record has the fields of any generation metric (see --help)")
    return out, notes


def _text(value: object) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


def generation(
    file: Annotated[Path, typer.Argument(help="JSONL, one answer per line (see module doc)")],
    cluster_by: Annotated[
        str | None, typer.Option(help="Field with the cluster (e.g. doc_id)")
    ] = None,
    level: o.Level = 0.95,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap")] = 0,
    as_json: o.Json = False,
) -> None:
    """Faithfulness, short-answer EM/F1, citation P/R, unseen-entity flags, refusals."""
    rows = items.read_jsonl(file)
    items.require_ids(rows, file)
    scores, notes = _scores(rows)
    result = items.score_intervals(scores, rows, cluster_by, level=level, seed=seed)
    result["notes"] = notes
    items.emit(result, as_json, f"generation metrics: {file}")
