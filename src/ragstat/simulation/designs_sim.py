"""Design-based samples for the coverage simulator: stratified and two-stage, one at a time.

Stratified: fixed strata, K allocated proportionally to the strata sizes
(at least two per stratum), SRS within each; intervals from the combined ratio
(micro) and the stratified mean (macro). Two-stage: ``types`` types by SRS,
then K documents (or all, if fewer) within each; the target is the mean over
types of their mean document rate.
"""

from __future__ import annotations

import numpy as np

from ragstat.errors import DesignError
from ragstat.inference.designs import stratified_macro, stratified_micro, two_stage_type_mean
from ragstat.inference.planning import allocate
from ragstat.records import DocStats

__all__ = ["run_design_block"]


def _groups(stratum: np.ndarray) -> dict[str, np.ndarray]:
    labels, codes = np.unique(stratum.astype(str), return_inverse=True)
    return {str(h): np.flatnonzero(codes == i) for i, h in enumerate(labels)}


def _stats(census, idx: np.ndarray) -> DocStats:
    return DocStats(
        doc_id=idx.astype(str),
        n=census.n[idx],
        s=census.s[idx],
        q=census.w[idx] + census.s[idx] ** 2 / census.n[idx],
        w=census.w[idx],
        binary=census.binary,
        stratum=census.stratum[idx],
    )


def _stratified_sample(rng, groups, alloc) -> np.ndarray:
    return np.concatenate([rng.choice(groups[h], alloc[h], replace=False) for h in sorted(groups)])


def _two_stage_sample(rng, groups, types: int, k: int) -> np.ndarray:
    chosen = rng.choice(sorted(groups), types, replace=False)
    return np.concatenate(
        [rng.choice(groups[h], min(k, groups[h].size), replace=False) for h in chosen]
    )


def run_design_block(task) -> dict:
    """Per-replicate design-based intervals for one block of a stratified or two-stage run."""
    rng = np.random.default_rng(task.seed)
    c = task.census
    groups = _groups(c.stratum)
    counts = {h: int(g.size) for h, g in groups.items()}
    if task.design == "stratified":
        alloc = allocate(task.k, counts, "proportional")
        fns = {"micro": stratified_micro, "macro": stratified_macro}
        fns = {e: f for e, f in fns.items() if e in task.estimands}
    else:
        if task.types is None or not 2 <= task.types <= len(groups):
            raise DesignError(f"two-stage needs 2 ≤ types ≤ {len(groups)}, got {task.types}")
        fns = {"type_mean": two_stage_type_mean}
    cols = {e: np.full((4, task.reps), np.nan) for e in fns}
    names = {}
    for r in range(task.reps):
        if task.design == "stratified":
            idx = _stratified_sample(rng, groups, alloc)
        else:
            idx = _two_stage_sample(rng, groups, task.types, task.k)
        stats = _stats(c, idx)
        for est, fn in fns.items():
            try:
                e = fn(stats, counts)
            except DesignError:  # unreachable with the allocation above; kept unavailable
                cols[est][0, r] = np.nan
                continue
            names[est] = e.method
            iv = e.interval(task.level)
            cols[est][:, r] = (
                e.estimate,
                iv.lower if iv.available else np.nan,
                iv.upper if iv.available else np.nan,
                1.0 if iv.available else 0.0,
            )
    out = {}
    fallback = {"type_mean": "two_stage_t", "micro": "stratified_ratio", "macro": "stratified_mean"}
    for est, arr in cols.items():
        out[(est, names.get(est, fallback[est]))] = (arr[0], arr[1], arr[2], arr[3] == 1.0, None)
    return out
