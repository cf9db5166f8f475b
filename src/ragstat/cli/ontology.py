"""`ragstat ontology ITEMS.jsonl --taxonomy EDGES`: hierarchical P/R/F1 and Wu–Palmer per item.

Items: one JSON object per line with ``id``, ``gold`` and ``predicted`` (a label or a
list of labels; Wu–Palmer and the confusion shares use single labels) and the field
named by ``--cluster-by``. Taxonomy: JSONL/CSV edges with ``parent`` and ``child``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from ragstat.cli import items
from ragstat.cli import options as o
from ragstat.errors import InputError


def _taxonomy(path: Path):
    from ragstat.metrics.ontology import Taxonomy
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


def ontology(
    file: Annotated[Path, typer.Argument(help="JSONL items: id, gold, predicted")],
    taxonomy: Annotated[Path, typer.Option(help="Edges file (parent, child): JSONL or CSV")],
    cluster_by: Annotated[str | None, typer.Option(help="Field with the cluster")] = None,
    level: o.Level = 0.95,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap")] = 0,
    as_json: o.Json = False,
) -> None:
    """Hierarchical precision/recall/F1 over ancestor sets, Wu–Palmer, confusion shares."""
    from ragstat.metrics.ontology import hierarchical_prf, hierarchy_confusion, wu_palmer

    rows = items.read_jsonl(file)
    items.require_ids(rows, file)
    bad = [i for i, r in enumerate(rows, 1) if not {"id", "gold", "predicted"} <= set(r)]
    if bad:
        raise InputError(f"{file}: record {bad[0]} needs id, gold and predicted")
    tax = _taxonomy(taxonomy)
    ids = [str(r["id"]) for r in rows]
    gold = {str(r["id"]): r["gold"] for r in rows}
    pred = {str(r["id"]): r["predicted"] for r in rows}
    h = hierarchical_prf(tax, pred, gold)
    scores = {
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
    result = items.score_intervals(scores, rows, cluster_by, level=level, seed=seed)
    result["notes"] = notes
    items.emit(result, as_json, f"ontology metrics: {file}")
