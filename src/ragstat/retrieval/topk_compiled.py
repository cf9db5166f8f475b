"""Compiled exact top-k of a sparse product (numba), the fast path of the lexical retrievers.

:func:`ragstat.retrieval.topk.topk_product` hands ``left @ right`` here when both
are CSR float64 matrices, only positive scores count (BM25, TF-IDF) and the
kernel is available; otherwise it scores blocks with scipy and ranks them with
:func:`ragstat.retrieval.topk.topk_dense` (the fallback).

The kernel (:mod:`ragstat.retrieval.topk_numba`) scores one query at a time into
a dense accumulator with the loop of scipy's ``csr_matmat`` — same products, same
order of additions — so the scores are bit-identical to the fallback's, and
keeps the first k of its positive scores by (score descending, chunk index
ascending): the same indices, scores and ties as the fallback, without the
(queries × chunks) score blocks. ``tests/test_topk_compiled.py`` compares both
paths on the shared corpora.

numba is optional. The compiled path is off when numba cannot be imported, when
:data:`ENABLED` is False, or when the environment variable ``RAGSTAT_NO_NUMBA``
is set to anything but ``""``/``"0"`` (read at every call). The first call in a
fresh environment compiles the kernel (seconds); numba caches it on disk
(``cache=True``, in ``__pycache__`` beside the module or numba's user cache), so
later processes only load it — still ≈ 0.5 s of CPU for numba's compiler state,
which is why the automatic mode (:data:`ENABLED` None) keeps small products on
the fallback until the kernel has run once (:data:`COLD_WORK`).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import numpy as np

from ragstat.errors import InputError

__all__ = ["COLD_WORK", "ENABLED", "available", "compiled_product", "supports"]

#: None: automatic (below); True: the compiled path whenever it applies; False: never
#: (the numpy/scipy fallback; tests compare both paths).
ENABLED: bool | None = None

#: Multiply-adds (stored entries of ``right`` read by all queries) from which the
#: automatic mode uses the kernel before it has run in this process: the first call
#: sets up numba's compiler and loads the cached kernel (≈ 0.5 s of CPU), about what
#: the fallback needs for 10⁸ multiply-adds (≈ 7 ns each, ≈ 3 ns compiled).
COLD_WORK = 100_000_000

_kernel: Any = None  # the compiled function once imported; False when numba is missing


def available() -> bool:
    """Whether the compiled path may run: numba importable, :data:`ENABLED` not False and
    ``RAGSTAT_NO_NUMBA`` unset (or ``"0"``)."""
    if ENABLED is False or os.environ.get("RAGSTAT_NO_NUMBA", "") not in ("", "0"):
        return False
    return _load() is not None


def _load() -> Any:
    global _kernel
    if _kernel is None:
        try:
            from ragstat.retrieval.topk_numba import sparse_topk_rows
        except ImportError:
            _kernel = False
        else:
            _kernel = sparse_topk_rows
    return _kernel or None


def _csr64(matrix: object) -> bool:
    """A scipy CSR matrix (or array) of float64."""
    if getattr(matrix, "format", None) != "csr" or getattr(matrix, "ndim", 0) != 2:
        return False
    data = getattr(matrix, "data", None)
    return isinstance(data, np.ndarray) and data.dtype == np.float64


def _work(left: Any, right: Any) -> int:
    """Multiply-adds of ``left @ right``: the stored entries of ``right`` each query reads."""
    per_term = np.diff(np.asarray(right.indptr, dtype=np.int64))
    used = np.asarray(left.indices[: left.indptr[-1]])
    return int(np.take(per_term, used, mode="clip").sum()) if per_term.size else 0


def _check_csr(matrix: Any, n_cols: int, what: str) -> None:
    """The kernel does not bounds-check: refuse a CSR whose arrays do not fit its shape."""
    ptr, ind = matrix.indptr, matrix.indices
    bad = ptr.shape[0] != matrix.shape[0] + 1 or matrix.shape[1] != n_cols
    bad = bad or ptr[0] != 0 or ptr[-1] > min(ind.shape[0], matrix.data.shape[0])
    if not bad and ptr[-1] > 0:
        used = ind[: ptr[-1]]
        bad = bool(np.any(np.diff(ptr) < 0)) or used.min() < 0 or used.max() >= n_cols
    if bad:
        raise InputError(
            f"the {what} matrix is malformed or does not match the product's shape "
            f"({matrix.shape}, {ind.shape[0]} stored entries)"
        )


def supports(left: object, right: object, positive_only: bool) -> bool:
    """Whether :func:`topk_product <ragstat.retrieval.topk.topk_product>` should call
    :func:`compiled_product`: positive scores only, CSR float64 operands, the kernel
    available, and (automatic mode) either already run in this process or a product
    of at least :data:`COLD_WORK` multiply-adds (numba is not even imported below)."""
    if not (positive_only and _csr64(left) and _csr64(right)):
        return False
    if ENABLED is None and not _warm() and _work(left, right) < COLD_WORK:
        return False
    return available()


def _warm() -> bool:
    """Whether the kernel has been compiled or loaded in this process."""
    return bool(_kernel) and bool(_kernel.signatures)


def compiled_product(
    left: Any,
    right: Any,
    exclude: np.ndarray,
    out_idx: np.ndarray,
    out_val: np.ndarray,
    n_jobs: int = 1,
) -> None:
    """Fill ``out_idx``/``out_val`` (Q × k, padded with −1/NaN on entry) with the exact top-k
    positive scores of ``left @ right`` per row, ``exclude[i]`` (−1: none) never kept.

    ``n_jobs > 1``: that many threads on contiguous ranges of rows (the kernel releases
    the GIL); the result does not depend on it.
    """
    kernel = _load()
    n_rows, n_cols = left.shape[0], right.shape[1]
    _check_csr(left, right.shape[0], "queries")
    _check_csr(right, n_cols, "index")
    if n_rows == 0 or n_cols == 0:
        return
    arrays = (left.indptr, left.indices, left.data, right.indptr, right.indices, right.data)
    exclude = np.ascontiguousarray(exclude, dtype=np.int64)

    def run(bounds: tuple[int, int]) -> None:
        kernel(*arrays, n_cols, exclude, bounds[0], bounds[1], out_idx, out_val)

    parts = max(1, min(n_jobs, n_rows))
    edges = np.linspace(0, n_rows, parts + 1).astype(np.int64).tolist()
    ranges = list(pairwise(edges))
    if parts == 1:
        run(ranges[0])
        return
    with ThreadPoolExecutor(max_workers=parts) as pool:
        list(pool.map(run, ranges))
