"""Checks ``ragstat.judge_bias`` makes before it computes: its arguments and its memory.

The memory estimate (:func:`check_bias_memory`) covers the allocations that grow with
the input, checked against ``RAGSTAT_MEMORY_BUDGET`` before any is made:

* every unit's row, pair or item record and its tidy row (≈ 1 KB per unit measured with
  tracemalloc: 20,000 position pairs, 1,999 replicates peaked at 20 MB);
* the bootstrap's replicate statistics (blocked over documents, so linear in the
  replicates only; 64 bytes a replicate bounds what was measured);
* for ``verbosity``, the CR2 sandwich: one n_g × n_g matrix (I − H_gg)^(−1/2) per
  document, kept for every document, and ≈ 3 more of the largest while it is built (one
  document of 1,500 judgments peaked at 4.0 × 8 · 1,500² bytes). One document of 20,000
  judgments would need ≈ 13 GB: this is the check that stops it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ragstat.errors import InputError

__all__ = ["BYTES_PER_REPLICATE", "BYTES_PER_UNIT", "check_bias_memory", "check_kind"]

BYTES_PER_UNIT = 2048
BYTES_PER_REPLICATE = 64
KINDS = ("position", "verbosity", "self_consistency")


def check_kind(kind: str, level: float, reps: int) -> str:
    """The kind (``self-consistency`` read as ``self_consistency``) with level and reps
    checked."""
    k = str(kind).strip().lower().replace("-", "_")
    if k not in KINDS:
        raise InputError(f"kind must be position, verbosity or self-consistency; got {kind!r}")
    if isinstance(level, bool) or not (isinstance(level, float | int) and 0 < level < 1):
        raise InputError(f"level must be a number in (0, 1), got {level!r}")
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise InputError(f"bootstrap_reps must be a positive whole number, got {reps!r}")
    return k


def bias_bytes(kind: str, docs: Sequence[object], reps: int) -> float:
    """The estimated peak in bytes (module docstring)."""
    estimate = float(BYTES_PER_UNIT) * len(docs) + float(BYTES_PER_REPLICATE) * reps
    if kind == "verbosity":
        sizes = Counter(str(d) for d in docs).values()
        largest = max(sizes, default=0)
        estimate += 8.0 * (sum(float(n) * n for n in sizes) + 3.0 * largest * largest)
    return estimate


def check_bias_memory(kind: str, docs: Sequence[object], reps: int, label: str) -> None:
    """InputError before the work when the estimate exceeds the memory budget."""
    from ragstat.resources import check_memory

    if kind == "verbosity":
        largest = max(Counter(str(d) for d in docs).values(), default=0)
        what = (f"{label}: judge-bias verbosity over {len(docs):,} judgments (the CR2 "
                f"standard errors build an n × n matrix per document; the largest has "
                f"{largest:,})")  # fmt: skip
        fix = "split the largest documents' judgments or sample them"
    else:
        what = f"{label}: judge-bias {kind} over {len(docs):,} units and {reps:,} replicates"
        fix = "use fewer units or lower --bootstrap-reps"
    check_memory(bias_bytes(kind, docs, reps), what, fix)
