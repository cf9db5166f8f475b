"""Coverage simulation (the self-retrieval benchmark): draw many samples from a census, compute every interval,
count how often each covers the census value.

For each K in the grid, R samples are drawn by the design — SRS of K documents
without replacement, stratified (fixed strata, K allocated proportionally), or
two-stage (types, then documents within each type) — in blocks of fixed size,
each block with its own spawned seed, so results are identical whatever the
number of workers. SRS samples are evaluated all at once (vectorised across
replicates, `simulation.batch`); design-based samples one by one.

Memory is bounded whatever R: blocks go to the executor a window at a time
(:func:`window_blocks`, ~:data:`WINDOW_BYTES` of results), each block's intervals are
folded into a running tally (`simulation.tally`) and dropped, and no list of all
blocks or seeds is ever built. R, the bootstrap work and the memory estimate are
checked before any sample is drawn (`simulation.budget`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ragstat.engine.local import Executor, blocks_of, get_executor
from ragstat.errors import InputError
from ragstat.inference import APPLICABLE, METHODS
from ragstat.inference.estimators import ESTIMANDS
from ragstat.inference.names import SMALL_K_METHODS
from ragstat.simulation.budget import check_budget
from ragstat.simulation.census import Census
from ragstat.simulation.designs_sim import run_design_block
from ragstat.simulation.recommend import recommend
from ragstat.simulation.results import CoverageReport, MethodCoverage
from ragstat.simulation.tally import RunningTally

__all__ = ["BLOCK", "WINDOW_BYTES", "simulate", "window_blocks"]

#: Replicates per task: the unit of parallel work and of seeding.
BLOCK = 100
#: Results of the blocks in flight at once (before they are folded into running tallies).
WINDOW_BYTES = 16 << 20
#: Bytes per sample and (estimand, method) of a block's result: estimate, bounds, availability.
RESULT_BYTES = 25


@dataclass(frozen=True, eq=False)
class _Task:
    census: Census
    design: str
    k: int
    reps: int
    seed: np.random.SeedSequence | None
    methods: tuple[str, ...]
    estimands: tuple[str, ...]
    level: float
    bootstrap_reps: int
    fpc: bool
    allocation: dict | None = None
    types: int | None = None


def _srs_indices(rng: np.random.Generator, M: int, k: int, reps: int) -> np.ndarray:
    """``reps`` samples of k of M documents without replacement, shape (reps, k).

    Small k: uniform draws, rows with a repeated document redrawn (rejection keeps every
    k-subset equally likely); else the k smallest of M uniform keys per row.
    """
    if k * k < M // 4:
        idx = rng.integers(0, M, size=(reps, k))
        while True:
            s = np.sort(idx, axis=1)
            bad = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
            if bad.size == 0:
                return idx
            idx[bad] = rng.integers(0, M, size=(bad.size, k))
    keys = rng.random((reps, M))
    return np.argpartition(keys, k - 1, axis=1)[:, :k]


def run_srs_block(task: _Task) -> dict:
    from ragstat.simulation.batch import batch_intervals

    rng = np.random.default_rng(task.seed)
    c = task.census
    idx = _srs_indices(rng, c.M, task.k, task.reps)
    fpc = 1.0 - task.k / c.M if task.fpc else 1.0
    out = batch_intervals(
        c.n[idx],
        c.s[idx],
        c.w[idx],
        binary=c.binary,
        level=task.level,
        fpc=fpc,
        methods=task.methods,
        estimands=task.estimands,
        bootstrap_reps=task.bootstrap_reps,
        rng=rng,
        scores_in_unit=c.in_unit,
        bounds=c.bounds,
    )
    return {
        (b.estimand, b.method): (b.estimate, b.lower, b.upper, b.available, b.reason) for b in out
    }


def _run_block(task: _Task) -> dict:
    return run_srs_block(task) if task.design == "srs" else run_design_block(task)


def _check(
    census: Census,
    ks: Sequence[int],
    reps: int,
    methods,
    estimands,
    design,
    types: int | None = None,
    level: float = 0.95,
    seed: int = 0,
    bootstrap_reps: int = 999,
) -> None:
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise InputError(f"replicates must be a positive whole number, got {reps!r}")
    if not 0 < level < 1:
        raise InputError(f"level must be between 0 and 1, got {level}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative whole number, got {seed!r}")
    if not 1 <= bootstrap_reps <= 1_000_000:
        raise InputError(f"bootstrap replicates must be in [1, 1,000,000], got {bootstrap_reps}")
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
            raise InputError(f"every K must be a whole number ≥ 2, got {k!r}")
        if design != "two-stage" and k > census.M:
            raise InputError(f"K = {k} exceeds the census ({census.M} documents)")
    bad = sorted(set(methods) - set(METHODS))
    if bad:
        raise InputError(f"unknown method(s) {bad}; choose from {', '.join(METHODS)}")
    if set(estimands) - set(ESTIMANDS):
        raise InputError(f"unknown estimand(s) {sorted(set(estimands) - set(ESTIMANDS))}")
    if design not in ("srs", "stratified", "two-stage"):
        raise InputError(f"unknown design {design!r}; choose srs, stratified or two-stage")
    if design != "srs" and census.stratum is None:
        raise InputError(f"the {design} design needs a stratum/type per document (--strata)")
    if design == "srs" and not any(m in APPLICABLE[e] for e in estimands for m in methods):
        raise InputError("none of the requested methods applies to the requested estimands")
    if design != "srs":
        _check_design(census, ks, design, types)


def _check_design(census: Census, ks: Sequence[int], design: str, types: int | None) -> None:
    """Fail before any work: every K must be allocatable, the type count must fit."""
    from ragstat.inference.planning import allocate

    labels, counts = np.unique(np.asarray(census.stratum).astype(str), return_counts=True)
    if design == "stratified":
        for k in ks:
            allocate(int(k), dict(zip(labels.tolist(), counts.tolist(), strict=True)))
    elif types is None or not 2 <= types <= labels.size:
        raise InputError(f"two-stage needs --types between 2 and {labels.size}, got {types}")


def simulate(
    census: Census,
    ks: Sequence[int],
    *,
    reps: int = 2_000,
    design: str = "srs",
    methods: Sequence[str] | None = None,
    estimands: Sequence[str] = ESTIMANDS,
    level: float = 0.95,
    bootstrap_reps: int = 999,
    seed: int = 0,
    workers: int = 1,
    fpc: bool = False,
    types: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
) -> CoverageReport:
    """Coverage, width, bias and RMSE of every interval method for each K (see module doc).

    ``executor`` (e.g. ``get_executor(engine="dask")``; the caller closes it) runs the
    blocks; without one, ``get_executor(workers)`` does. Same seed, same results, whatever
    the executor.
    """
    methods = tuple(
        (m for m in METHODS if m not in SMALL_K_METHODS) if methods is None else methods
    )
    _check(census, ks, reps, methods, estimands, design, types, level, seed, bootstrap_reps)
    check_budget(
        ks,
        int(reps),
        methods if design == "srs" else (),
        len(estimands),
        int(bootstrap_reps),
        workers if executor is None else executor.workers,
    )
    base = _Task(
        census=census,
        design=design,
        k=0,
        reps=0,
        seed=None,
        methods=methods,
        estimands=tuple(estimands),
        level=level,
        bootstrap_reps=bootstrap_reps,
        fpc=fpc,
        types=types,
    )
    ks = [int(k) for k in ks]
    if executor is None:
        with get_executor(workers) as local:
            parts = _run_all(local, base, ks, reps, seed, progress)
    else:
        parts = _run_all(executor, base, ks, reps, seed, progress)
    return _report(base, parts, reps=reps, seed=seed)


def _report(
    base: _Task, parts: list[tuple[list[MethodCoverage], list[str]]], *, reps: int, seed: int
) -> CoverageReport:
    """The report of every K's rows and notes, with the recommended method per K/estimand."""
    results: list[MethodCoverage] = []
    notes: list[str] = []
    if base.design != "srs":
        notes.append(
            f"{base.design} design: design-based intervals with finite corrections; "
            "--methods, --fpc and --bootstrap-reps apply to srs only"
        )
    for rows, why in parts:
        results += rows
        notes += why
    report = CoverageReport(
        census=base.census.summary(),
        design=base.design,
        level=base.level,
        seed=seed,
        reps=reps,
        bootstrap_reps=base.bootstrap_reps,
        results=tuple(results),
        notes=tuple(notes),
        population=base.census,
    )
    return recommend(report)


def _seed(seed: int, k: int, block: int) -> np.random.SeedSequence:
    """Child ``block`` of SeedSequence([seed, k]): ``spawn_seeds(seed, n, key=(k,))[block]``,
    made on its own so that the seeds of 10⁷ blocks are never all held at once."""
    parent = np.random.SeedSequence([seed, k])
    return np.random.SeedSequence(parent.entropy, spawn_key=(block,), pool_size=parent.pool_size)


def _tasks(base: _Task, ks: list[int], reps: int, seed: int) -> Iterator[tuple[int, bool, _Task]]:
    """(K, last block of this K?, task) for every block of every K, made lazily."""
    last = -(-reps // BLOCK) - 1
    for k in ks:
        for i, (start, stop) in enumerate(blocks_of(reps, BLOCK)):
            yield k, i == last, replace(base, k=k, reps=stop - start, seed=_seed(seed, k, i))


def window_blocks(n_pairs: int, workers: int) -> int:
    """Blocks in flight at once: their results take about :data:`WINDOW_BYTES`."""
    per_block = max(1, n_pairs) * (BLOCK * RESULT_BYTES + 4 * 112)
    return max(4 * workers, WINDOW_BYTES // per_block)


def _run_all(
    executor: Executor, base: _Task, ks: list[int], reps: int, seed: int, progress
) -> list[tuple[list[MethodCoverage], list[str]]]:
    """Every block of every K, in windows of blocks (one stream across K, so a cluster stays
    busy), each window's results folded into running tallies before the next is submitted.
    Seeds are fixed by (seed, K) and the block. Returns (rows, notes) per K."""
    stream = _tasks(base, ks, reps, seed)
    window = window_blocks(len(base.methods) * len(base.estimands), executor.workers)
    total, done = len(ks) * -(-reps // BLOCK), [0]
    target = _targets(base.census, base.design)
    out: list[tuple[list[MethodCoverage], list[str]]] = []
    open_k: dict[tuple[str, str], RunningTally] = {}

    def tick() -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], total)

    while batch := list(itertools.islice(stream, window)):
        results = executor.map(_run_block, [t for _, _, t in batch], on_done=tick)
        for (k, last, _task), part in zip(batch, results, strict=True):
            for key, block in part.items():
                if key not in open_k:
                    est, method = key
                    at = np.random.SeedSequence([seed, k, len(open_k)])  # the reservoir's own seed
                    open_k[key] = RunningTally(k, est, method, target[est], reps, at)
                open_k[key].add(block)
            if last:
                out.append(_summarise(k, open_k, target))
                open_k = {}
        del results
    return out


def _targets(census: Census, design: str) -> dict[str, float]:
    if design == "two-stage":
        return {"type_mean": float(np.asarray(census.type_mean(), dtype=float))}
    return {"micro": census.micro, "macro": census.macro}


def _order(target: dict[str, float]):
    def key(item: tuple[str, str]) -> tuple[int, int, str]:
        est, method = item
        methods = APPLICABLE.get(est, ())
        return list(target).index(est), methods.index(method) if method in methods else 99, method

    return key


def _summarise(
    k: int, tallies: dict[tuple[str, str], RunningTally], target: dict[str, float]
) -> tuple[list[MethodCoverage], list[str]]:
    out, notes = [], []
    for key in sorted(tallies, key=_order(target)):
        row = tallies[key].result()
        reason = tallies[key].reason
        if reason and row.unavailable == 1.0:
            notes.append(f"k={k} {key[0]} {key[1]}: unavailable by construction — {reason}")
        out.append(row)
    return out, notes
