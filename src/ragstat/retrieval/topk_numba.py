"""numba kernels of :mod:`ragstat.retrieval.topk_compiled` (imported only when numba is used).

One query at a time, for rows ``lo:hi`` of ``left @ right`` (CSR × CSR, float64):

1. accumulate: for each stored entry (t, v) of the query's row, in stored order,
   and each stored entry (d, w) of ``right``'s row t, in stored order,
   ``acc[d] += v * w`` — the loop of scipy's ``csr_matmat`` (same operands, same
   order, one multiply and one add each: numba does not fuse them without
   ``fastmath``), so every score is bit-identical to the scipy product's;
2. select: the first k of the touched chunks with ``acc[d] > 0`` (NaN never
   passes) and ``d != exclude``, ordered by score descending then index ascending,
   kept in a sorted buffer (a candidate enters only when it beats the current k-th);
3. reset the touched cells.

A query that reads many stored entries (≥ n_cols / :data:`DENSE_SHARE`) skips the
bookkeeping of touched chunks: it accumulates the same way, scans the whole
accumulator in index order and clears it — the same scores and the same selection.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = [
    "DENSE_SHARE",
    "accumulate_dense",
    "accumulate_row",
    "row_work",
    "select_row",
    "sparse_topk_rows",
]

#: A query whose multiply-adds reach n_cols / DENSE_SHARE is scored without tracking the
#: touched chunks and selected by one scan of the whole accumulator (cheaper then).
DENSE_SHARE = 4


@numba.njit(nogil=True, cache=True)
def accumulate_row(a_ptr, a_ind, a_val, b_ptr, b_ind, b_val, i, acc, seen, touched):
    """Scores of query row ``i`` into ``acc``; returns how many chunks it touched."""
    n = 0
    for jj in range(a_ptr[i], a_ptr[i + 1]):
        t = a_ind[jj]
        v = a_val[jj]
        for kk in range(b_ptr[t], b_ptr[t + 1]):
            d = b_ind[kk]
            acc[d] += v * b_val[kk]
            if not seen[d]:
                seen[d] = True
                touched[n] = d
                n += 1
    return n


@numba.njit(nogil=True, cache=True)
def accumulate_dense(a_ptr, a_ind, a_val, b_ptr, b_ind, b_val, i, acc):
    """Scores of query row ``i`` into ``acc`` without tracking the touched chunks."""
    for jj in range(a_ptr[i], a_ptr[i + 1]):
        t = a_ind[jj]
        v = a_val[jj]
        for kk in range(b_ptr[t], b_ptr[t + 1]):
            acc[b_ind[kk]] += v * b_val[kk]


@numba.njit(nogil=True, cache=True)
def row_work(a_ptr, a_ind, b_ptr, i):
    """Stored entries of ``right`` that query row ``i`` reads (its multiply-adds)."""
    n = 0
    for jj in range(a_ptr[i], a_ptr[i + 1]):
        t = a_ind[jj]
        n += b_ptr[t + 1] - b_ptr[t]
    return n


@numba.njit(nogil=True, cache=True)
def select_row(acc, touched, n, excl, idx_row, val_row):
    """Top-k positive scores of ``acc`` at ``touched[:n]`` (all of ``acc`` when ``n`` < 0),
    ties: lower index first."""
    k = idx_row.shape[0]
    m = 0
    for q in range(n if n >= 0 else acc.shape[0]):
        d = touched[q] if n >= 0 else q
        s = acc[d]
        if not s > 0.0 or d == excl:
            continue
        if m == k:
            if s < val_row[k - 1] or (s == val_row[k - 1] and d > idx_row[k - 1]):
                continue
            pos = k - 1
        else:
            pos = m
            m += 1
        while pos > 0 and (
            val_row[pos - 1] < s or (val_row[pos - 1] == s and idx_row[pos - 1] > d)
        ):
            val_row[pos] = val_row[pos - 1]
            idx_row[pos] = idx_row[pos - 1]
            pos -= 1
        val_row[pos] = s
        idx_row[pos] = d


@numba.njit(nogil=True, cache=True)
def sparse_topk_rows(
    a_ptr, a_ind, a_val, b_ptr, b_ind, b_val, n_cols, exclude, lo, hi, out_idx, out_val
):
    """Rows ``lo:hi`` of the top-k of ``left @ right`` into ``out_idx``/``out_val``.

    The output rows must hold the padding (−1, NaN) on entry.
    """
    acc = np.zeros(n_cols, dtype=np.float64)
    seen = np.zeros(n_cols, dtype=np.bool_)
    touched = np.empty(n_cols, dtype=np.int64)
    for i in range(lo, hi):
        if row_work(a_ptr, a_ind, b_ptr, i) * DENSE_SHARE >= n_cols:
            accumulate_dense(a_ptr, a_ind, a_val, b_ptr, b_ind, b_val, i, acc)
            select_row(acc, touched, -1, exclude[i], out_idx[i], out_val[i])
            acc[:] = 0.0
            continue
        n = accumulate_row(a_ptr, a_ind, a_val, b_ptr, b_ind, b_val, i, acc, seen, touched)
        select_row(acc, touched, n, exclude[i], out_idx[i], out_val[i])
        for q in range(n):
            d = touched[q]
            acc[d] = 0.0
            seen[d] = False
