"""Per-query weights of a within-document sample: expand `DocStats` to the documents' sizes.

A sampled study scores m_d of the n_d queries of every document (SRS within the
document) and records ``weight = n_d / m_d`` on each scored query. The weighted
per-document totals are then

    n_d = Σ_i w_i,  s_d = Σ_i w_i y_i = (n_d / m_d) Σ_i y_i,  q_d = (n_d / m_d) Σ_i y_i²

so the micro ratio Σ s_d / Σ n_d is the weighted mean Σ w y / Σ w over queries and
the document rates s_d / n_d are the unweighted means of the scored queries (the
weights are constant within a document). The document-clustered variances on
these totals are the ultimate-cluster (with-replacement first stage) variances of
R ``survey``'s ``svydesign(ids = ~doc_id, weights = ~weight)``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ragstat.errors import InputError
from ragstat.records.docstats import DocStats

__all__ = ["WEIGHT", "expand", "expand_pairs", "expand_path", "has_weight", "weight_sums"]

WEIGHT = "weight"
_TOL = 1e-6


def has_weight(path: str | Path | None) -> bool:
    """Whether the per-query table (or a dataset's first file) has a ``weight`` column."""
    if path is None:
        return False
    from ragstat.records.files import dataset_files, table_columns

    first = dataset_files(Path(path))[0][0]
    return WEIGHT in table_columns(first)


def weight_sums(stats: DocStats, weights: DocStats) -> np.ndarray:
    """n_d = Σ_i w_i per document of ``stats`` from the aggregated weight column ``weights``.

    The weights must be positive, constant within a document, and sum to a whole
    number of queries per document (w = n_d / m_d); else an `InputError` naming the
    first documents that break it.
    """
    if not np.array_equal(stats.doc_id, weights.doc_id):
        raise InputError("the weight column and the score cover different documents")
    w_min = float(weights.score_range[0]) if weights.score_range is not None else 1.0
    if w_min <= 0:
        raise InputError(f"weight has a value {w_min:g} ≤ 0: weights must be positive (n_d/m_d)")
    mean_w = weights.s / weights.n
    varying = weights.within_ss > _TOL * weights.n * np.maximum(mean_w * mean_w, 1.0)
    _fail(stats.doc_id, varying, "weights that differ between its queries")
    total = weights.s
    _fail(stats.doc_id, np.abs(total - np.round(total)) > _TOL * np.maximum(total, 1.0),
          "weights that do not sum to a whole number of queries")  # fmt: skip
    return np.round(total)


def _fail(doc_id: np.ndarray, bad: np.ndarray, what: str) -> None:
    if bad.any():
        first = ", ".join(repr(str(d)) for d in doc_id[bad][:3])
        raise InputError(
            f"{int(bad.sum())} document(s) have {what} (first: {first}); the weight column "
            "must be n_d / m_d: every query of a document sampled with the same probability"
        )


def expand(stats: DocStats, weights: DocStats) -> DocStats:
    """``stats`` of the scored queries expanded to the document sizes n_d = Σ w (see module)."""
    n_pop = weight_sums(stats, weights)
    g = n_pop / stats.n
    return DocStats(
        doc_id=stats.doc_id,
        n=n_pop,
        s=stats.s * g,
        q=stats.q * g,
        binary=False,
        score_range=stats.score_range,
        stratum=stats.stratum,
        score=stats.score,
        w=None if stats.w is None else stats.w * g,
        m=stats.n,
    )


def expand_path(path: str | Path, stats: DocStats, *, executor=None, **options) -> DocStats:
    """``stats`` aggregated from ``path`` expanded by the file's weight column (same options:
    cluster, system …; the weights are aggregated with DuckDB like the score)."""
    from ragstat.records.scale import aggregate_path

    opts = {**options, "score": WEIGHT, "stratum": None, "position": None}
    return expand(stats, aggregate_path(path, executor=executor, **opts))


def expand_pairs(con, label: str, cols, stats: DocStats, sides: tuple[bool, bool]) -> DocStats:
    """Paired differences ``stats`` (view ``pairs`` of matched queries KA ⋈ KB) expanded by the
    weight both systems share per query; ``sides`` says which side has a weight column.

    A weight on one side only, or weights that disagree on a query, is an `InputError`
    naming the first few queries.
    """
    from ragstat.records import duck
    from ragstat.records.duck import Columns, ident

    if sides[0] != sides[1]:
        which = "first" if sides[0] else "second"
        raise InputError(
            f"{label}: only the {which} system's table has a weight column; paired weighted "
            "records need the same weight (n_d/m_d) on both sides"
        )
    w, d = ident(WEIGHT), ident(cols.cluster)
    pair = "FROM KA JOIN KB USING (__qid)"
    differ = (
        f"abs(TRY_CAST(KA.{w} AS DOUBLE) - TRY_CAST(KB.{w} AS DOUBLE)) > "
        f"{_TOL} * greatest(abs(TRY_CAST(KA.{w} AS DOUBLE)), 1.0)"
    )
    (count,) = duck.run(con, label, f"SELECT count(*) {pair} WHERE {differ}").fetchone()
    if count:
        rows = duck.run(
            con, label, f"SELECT __qid, KA.{w}, KB.{w} {pair} WHERE {differ} ORDER BY 1 LIMIT 3"
        ).fetchall()
        shown = "; ".join(f"{r[0]!r}: {r[1]} vs {r[2]}" for r in rows)
        raise InputError(
            f"{label}: the weight differs between the two systems on {count} query(ies) "
            f"(first: {shown}); both sides must come from the same sample"
        )
    duck.run(
        con,
        label,
        f"CREATE TEMP VIEW wpairs AS SELECT __qid, KA.{d}, KA.{w} {pair}",
    )
    wcols = Columns(cols.cluster, WEIGHT, None, None, "__qid")
    center = duck.validate(con, label, "wpairs", wcols)
    return expand(stats, duck.aggregate(con, label, "wpairs", wcols, center))
