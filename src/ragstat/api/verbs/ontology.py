"""``ragstat.ontology``: hierarchical precision/recall/F1 and Wu–Palmer per item.

Items: one record per item with ``id``, ``gold`` and ``predicted`` (a label or a list of
labels; Wu–Palmer and the confusion shares use single labels) and the field named by
``cluster_by``. Taxonomy: a file (JSONL, CSV, Parquet) or a DataFrame of ``parent`` /
``child`` edges, a list of (parent, child) pairs, or a `Taxonomy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragstat.api.data import as_path
from ragstat.api.evaluation import draw_seed
from ragstat.api.items import ItemScores, Records, Scores, read_records, require_ids
from ragstat.api.items import score_intervals as intervals
from ragstat.errors import InputError
from ragstat.metrics import Taxonomy

__all__ = ["TaxonomyInput", "ontology", "read_taxonomy"]

#: A taxonomy: a path or a DataFrame of edges, a list of (parent, child) pairs, a Taxonomy.
TaxonomyInput = Any


def _edges_file(path: Path) -> Taxonomy:
    from ragstat.records import duck

    con = duck.connect()
    try:
        duck.attach(con, path, "edges")
        cols = duck.columns_of(con, "edges")
        if not {"parent", "child"} <= set(cols):
            raise InputError(
                f"{path}: taxonomy edges need 'parent' and 'child' columns; found {cols}"
            )
        rows = duck.run(
            con, str(path), "SELECT CAST(parent AS VARCHAR), CAST(child AS VARCHAR) FROM edges"
        ).fetchall()
    finally:
        con.close()
    return Taxonomy.from_edges(rows)


def read_taxonomy(taxonomy: TaxonomyInput) -> Taxonomy:
    """A `Taxonomy` from an edges file or frame (``parent``, ``child``) or (parent, child)
    pairs; a frame is read like a file, so both give the same taxonomy."""
    if isinstance(taxonomy, Taxonomy):
        return taxonomy
    if isinstance(taxonomy, (str, Path)):
        return _edges_file(Path(taxonomy))
    if hasattr(taxonomy, "columns") or hasattr(taxonomy, "num_rows"):
        with as_path(taxonomy, "taxonomy") as path:
            return _edges_file(path)
    if isinstance(taxonomy, Sequence):
        return Taxonomy.from_edges(list(taxonomy))
    raise InputError(
        "taxonomy: expected a path, a DataFrame of parent/child edges, (parent, child) pairs "
        f"or a Taxonomy; got {type(taxonomy).__name__}"
    )


def _scores(tax: Taxonomy, rows: list[dict[str, Any]]) -> tuple[Scores, list[str]]:
    from ragstat.metrics.ontology import hierarchical_prf, hierarchy_confusion, wu_palmer

    ids = [str(r["id"]) for r in rows]
    gold = {str(r["id"]): r["gold"] for r in rows}
    pred = {str(r["id"]): r["predicted"] for r in rows}
    h = hierarchical_prf(tax, pred, gold)
    scores: Scores = {
        m: (ids, np.array([h.records(m)[i] for i in ids], float)) for m in ("hp", "hr", "hf1")
    }
    notes = [f"micro hP {h.precision:.4f}, hR {h.recall:.4f}, hF1 {h.f1:.4f} (sums over items)"]
    single = all(isinstance(v, str) for v in list(gold.values()) + list(pred.values()))
    if single:
        wp = wu_palmer(tax, pred, gold).records()
        scores["wu_palmer"] = (ids, np.array([wp[i] for i in ids], float))
        try:
            conf = hierarchy_confusion(tax, pred, gold)
            notes.append(
                "wrong predictions: " + ", ".join(f"{k} {v:.0%}" for k, v in conf.shares.items())
            )
        except InputError as exc:
            notes.append(str(exc))
    return scores, notes


def ontology(
    data: Records,
    taxonomy: TaxonomyInput,
    *,
    cluster_by: str | None = None,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> ItemScores:
    """Hierarchical precision/recall/F1 over ancestor sets, Wu–Palmer and the confusion
    shares per item, each score with intervals clustered by ``cluster_by`` (see the module
    docstring). ``seed=None`` draws a seed, kept in ``result.seed``."""
    rows, label = read_records(data)
    require_ids(rows, label)
    bad = [i for i, r in enumerate(rows, 1) if not {"id", "gold", "predicted"} <= set(r)]
    if bad:
        raise InputError(f"{label}: record {bad[0]} needs id, gold and predicted")
    tax = read_taxonomy(taxonomy)
    seed = draw_seed(seed)
    scores, notes = _scores(tax, rows)
    found, note = intervals(scores, rows, cluster_by, level=level, seed=seed, reps=bootstrap_reps)
    return ItemScores("ontology", label, found, note, tuple(notes), level, seed)
