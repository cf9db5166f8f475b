"""Aggregate per-query scores held in memory (numpy arrays, pandas) to `DocStats`."""

from __future__ import annotations

import numpy as np

from ragstat.errors import InputError
from ragstat.records.cells import numeric_cells
from ragstat.records.docstats import DocStats, LagSums

__all__ = ["aggregate_arrays", "aggregate_frame", "lag_sums"]

_DROP = "leave those rows out"


def _check_scores(y: np.ndarray, doc_id: np.ndarray, score: str) -> None:
    bad = ~np.isfinite(y)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"score {score!r} has {int(bad.sum())} non-finite value(s) (NaN or inf); "
            f"first at row {i} (document {doc_id[i]!r}): fix or remove them explicitly"
        )


def lag_sums(codes: np.ndarray, y: np.ndarray, position: np.ndarray, K: int) -> LagSums:
    """Lag-1 sums over neighbouring queries of the same document (ordered by position)."""
    order = np.lexsort((position, codes))
    c_sorted, y_sorted = codes[order], y[order]
    same = c_sorted[1:] == c_sorted[:-1]
    left, right, doc = y_sorted[:-1][same], y_sorted[1:][same], c_sorted[1:][same]
    return LagSums(
        c=np.bincount(doc, weights=left * right, minlength=K),
        a=np.bincount(doc, weights=left + right, minlength=K),
        p=np.bincount(doc, minlength=K).astype(np.float64),
    )


def aggregate_arrays(
    doc_id: object,
    y: object,
    *,
    stratum: object | None = None,
    position: object | None = None,
    score: str = "score",
) -> DocStats:
    """Aggregate per-query scores ``y`` clustered by ``doc_id`` to per-document sums.

    Documents are sorted by id. ``stratum`` must be constant
    within a document; ``position`` (order of the query inside its document)
    enables the lag-1 autocorrelation diagnostic.
    """
    doc_id = _column(doc_id, "doc_id", None)
    cells = np.asarray(y, dtype=None if hasattr(y, "dtype") else object)
    if cells.ndim != 1:
        raise InputError(f"score {score!r} must be one-dimensional")
    y, _ = numeric_cells(cells, score, "scores", "error", _DROP)  # "ERROR": one-line error
    if y.shape != doc_id.shape:
        raise InputError(f"doc_id has {doc_id.size} rows but score {score!r} has {y.size}")
    if y.size == 0:
        raise InputError("no rows: the per-query table is empty")
    _check_scores(y, doc_id, score)
    uniq, codes = np.unique(doc_id.astype(str), return_inverse=True)
    K = uniq.size
    n = np.bincount(codes, minlength=K).astype(np.float64)
    s = np.bincount(codes, weights=y, minlength=K)
    dev = y - (s / n)[codes]
    strata = None
    if stratum is not None:
        strata = _doc_strata(_column(stratum, "stratum", y.size).astype(str), codes, K, uniq)
    lag = None
    if position is not None:
        lag = lag_sums(codes, y, _positions(position, y.size, codes, uniq), K)
    return DocStats(
        doc_id=uniq,
        n=n,
        s=s,
        q=np.bincount(codes, weights=y * y, minlength=K),
        w=np.bincount(codes, weights=dev * dev, minlength=K),
        binary=bool(np.all((y == 0) | (y == 1))),
        score_range=(float(y.min()), float(y.max())),
        stratum=strata,
        lag=lag,
        score=score,
    )


def _missing(values: np.ndarray) -> np.ndarray:
    """Mask of None / NaN entries in an object or numeric array."""
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind == "O":
        return np.array([v is None or (isinstance(v, float) and v != v) for v in values], bool)
    return np.zeros(values.shape, bool)


def _column(values: object, name: str, size: int | None) -> np.ndarray:
    """A one-dimensional column of the expected length with no missing values."""
    arr = np.asarray(values, dtype=object if not hasattr(values, "dtype") else None)
    if arr.ndim != 1:
        raise InputError(f"{name} must be one-dimensional")
    if size is not None and arr.size != size:
        raise InputError(f"{name} has {arr.size} rows, expected {size}")
    bad = _missing(arr)
    if bad.any():
        raise InputError(
            f"{name} is missing in {int(bad.sum())} row(s) (first at row {int(np.flatnonzero(bad)[0])})"
        )
    return arr


def _positions(position: object, size: int, codes: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Numeric positions, unique within each document."""
    column = _column(position, "position", size)
    try:
        pos = np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(
            "position must be numeric (the order of the query in its document)"
        ) from None
    if not np.isfinite(pos).all():
        raise InputError("position has NaN or infinite values")
    order = np.lexsort((pos, codes))
    tie = (codes[order][1:] == codes[order][:-1]) & (pos[order][1:] == pos[order][:-1])
    if tie.any():
        i = order[1:][tie][0]
        raise InputError(f"document {ids[codes[i]]!r} has two queries at position {pos[i]:g}")
    return pos


def _doc_strata(stratum: np.ndarray, codes: np.ndarray, K: int, ids: np.ndarray) -> np.ndarray:
    levels, scodes = np.unique(stratum, return_inverse=True)
    per_doc = np.empty(K, dtype=np.int64)
    per_doc[codes] = scodes  # last write wins; any disagreement shows below
    clash = per_doc[codes] != scodes
    if clash.any():
        bad = ids[codes[int(np.flatnonzero(clash)[0])]]
        raise InputError(f"document {bad!r} has more than one stratum; strata must be per document")
    return levels[per_doc].astype(object)


def aggregate_frame(
    frame,
    *,
    cluster: str = "doc_id",
    score: str,
    stratum: str | None = None,
    position: str | None = None,
) -> DocStats:
    """Aggregate a pandas DataFrame with one row per query."""
    missing = [c for c in (cluster, score, stratum, position) if c and c not in frame.columns]
    if missing:
        raise InputError(f"column(s) {missing} not found; available columns: {list(frame.columns)}")
    if frame[cluster].isna().any():
        raise InputError(f"column {cluster!r} has missing values: every query needs a document")
    y, _ = numeric_cells(frame[score], score, "frame", "error", _DROP)
    return aggregate_arrays(
        frame[cluster].astype(str).to_numpy(),
        y,
        stratum=None if stratum is None else frame[stratum].to_numpy(),
        position=None if position is None else frame[position].to_numpy(),
        score=score,
    )
