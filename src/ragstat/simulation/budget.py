"""What a coverage simulation may ask for: caps on samples and bootstrap work, and memory.

Rules (checked by :func:`check_budget` before any sample is drawn, so the Python API
and the CLI fail at once, with the estimate):

* samples per K ≤ :data:`MAX_REPS` (10⁸). The Monte-Carlo SE of a 95 % coverage is
  sqrt(0.95 · 0.05 / R): 0.0003 at 5·10⁵, 0.00002 at 10⁸. More samples cannot change
  a conclusion drawn from a coverage, and 10⁹ would take days.
* bootstrap work per K, samples × bootstrap replicates, ≤ :data:`MAX_BOOT_WORK` (10¹¹):
  every sample draws B replicates of K documents, so the work is R · B · K count cells.
* memory: the simulation works in blocks of :data:`~ragstat.simulation.coverage.BLOCK`
  samples, so its peak does not depend on R — each worker holds one block's arrays
  (:func:`block_bytes`, dominated by the document bootstrap's count matrices and its
  samples × B replicate statistics), the client one window of block results and the
  running tallies. The sum must fit the budget of :mod:`ragstat.resources`.

The caps are counts, not times measured on this machine, so a run accepted here is
accepted everywhere; the projected time in the messages is only a guide.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragstat.errors import InputError
from ragstat.resources import check_memory

__all__ = ["MAX_BOOT_WORK", "MAX_REPS", "block_bytes", "check_budget", "simulation_bytes"]

#: Most samples per K.
MAX_REPS = 10**8
#: Most samples × bootstrap replicates per K.
MAX_BOOT_WORK = 10**11
#: Samples per second and worker of the analytic methods, both estimands (measured at K = 5:
#: ~8,500; K = 20: ~20,000); bootstrap count cells per second and worker. Only for messages.
_SAMPLES_PER_S = 10_000
_CELLS_PER_S = 2e7

_DOC_BOOT = ("doc_bootstrap_t", "doc_bootstrap_percentile")
_SHARE = 25  # samples sharing one count matrix (simulation.batch_boot.SHARE)
_BOOT_ELEMENTS = 1 << 22  # simulation.batch_boot.BLOCK_ELEMENTS
_BASE = 40 << 20  # interpreter, numpy/scipy and the census: not counted per worker


def _boot_shape(block: int, K: int, B: int) -> tuple[int, int]:
    """(samples, replicates) of one bootstrap step, as `batch_boot.plan_blocks` cuts them."""
    per = B * K
    rows = min(block, max(1, _BOOT_ELEMENTS // per))
    chunk = B if per <= _BOOT_ELEMENTS else max(1, _BOOT_ELEMENTS // K)
    return rows, chunk


def block_bytes(K: int, B: int, methods: Sequence[str], block: int = 100) -> float:
    """Peak bytes of one block of ``block`` samples of K documents in a worker.

    Samples and analytic methods: ~60 arrays of (block × K) float64. Document bootstrap:
    count matrices (chunk × K: counts float64, indices uint16, flat int32), the inner
    products (≤ 25 samples × chunk × 10, twice), and ~10 arrays of (rows × B) replicate
    statistics and pivots. Query bootstrap: draws and binomial counts (rows × K × chunk).
    The two bootstraps run one after the other: the larger counts. Against tracemalloc's
    peak of one block, K from 2 to 1,000 and B from 999 to 10⁶, this is 1.0–3× the measure.
    """
    rows, chunk = _boot_shape(block, K, B)
    doc = query = 0.0
    if any(m in _DOC_BOOT for m in methods):
        doc = chunk * K * 14 + 2 * min(_SHARE, rows) * chunk * 10 * 8 + 12 * rows * B * 8
    if "query_bootstrap" in methods:
        query = 4 * rows * B * 8 + 2 * rows * K * chunk * 8
    return 60.0 * block * K * 8 + max(doc, query)


def simulation_bytes(
    ks: Sequence[int], reps: int, methods: Sequence[str], n_estimands: int, B: int, workers: int
) -> float:
    """Estimated peak bytes of a simulation: base + workers × the largest block + the client's
    window of results and running tallies (bounded whatever ``reps``)."""
    from ragstat.simulation.coverage import WINDOW_BYTES
    from ragstat.simulation.tally import EXACT_REPS

    pairs = max(1, len(methods)) * max(1, n_estimands)
    tallies = pairs * min(reps, EXACT_REPS) * 40
    worker = max(block_bytes(int(k), B, methods) for k in ks)
    return _BASE + workers * worker + WINDOW_BYTES + tallies


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86_400), ("hours", 3_600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:,.0f} s"


def _projected(ks: Sequence[int], reps: int, methods: Sequence[str], B: int) -> float:
    """A rough serial time in seconds (one worker), for the messages."""
    seconds = len(ks) * reps / _SAMPLES_PER_S
    if any(m in _DOC_BOOT or m == "query_bootstrap" for m in methods):
        seconds += sum(reps * B * int(k) for k in ks) / _CELLS_PER_S
    return seconds


def check_budget(
    ks: Sequence[int],
    reps: int,
    methods: Sequence[str],
    n_estimands: int,
    bootstrap_reps: int,
    workers: int = 1,
) -> None:
    """InputError before any work when the caps or the memory budget are exceeded."""
    time = _duration(_projected(ks, reps, methods, bootstrap_reps))
    if reps > MAX_REPS:
        raise InputError(
            f"--reps {reps:,} is above the cap of {MAX_REPS:,} samples per K: the Monte-Carlo "
            f"SE of a 95% coverage is already 0.00002 there, and this run would take about "
            f"{time} on one worker; use --reps {MAX_REPS:,} or fewer (5,000 gives ±0.003)"
        )
    boot = [m for m in methods if m in _DOC_BOOT or m == "query_bootstrap"]
    if boot and reps * bootstrap_reps > MAX_BOOT_WORK:
        raise InputError(
            f"--reps {reps:,} × --bootstrap-reps {bootstrap_reps:,} = "
            f"{reps * bootstrap_reps:,} bootstrap replicates per K, above the cap of "
            f"{MAX_BOOT_WORK:,} (about {time} on one worker for {', '.join(boot)}); "
            f"lower either, or leave the bootstrap methods out of --methods"
        )
    check_memory(
        simulation_bytes(ks, reps, methods, n_estimands, bootstrap_reps, workers),
        f"the simulation (K up to {max(ks):,}, --bootstrap-reps {bootstrap_reps:,}, "
        f"{workers} worker(s), blocks of 100 samples)",
        "lower --bootstrap-reps or --workers",
    )
