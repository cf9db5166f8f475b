"""From per-replicate intervals to coverage, width, bias and RMSE, block by block.

The simulator folds each block of samples into a running tally as it arrives and
drops the block, so memory does not grow with the number of samples R:

* R ≤ :data:`EXACT_REPS` (every default run): the blocks' per-sample values are kept
  (at most EXACT_REPS per method) and :func:`tally` summarises them — the same numbers,
  bit for bit, as summarising all samples at once;
* R > EXACT_REPS: counts (samples, available and covering intervals) are exact
  integers, so coverage, its SE and the unavailable share are exact too; the sums
  behind mean width, bias and RMSE are per-block sums added with Neumaier's
  compensated summation (equal to a one-pass sum up to rounding, ~1e-16 relative);
  the median width is the median of a uniform reservoir of EXACT_REPS available
  widths (Algorithm R, drawn from its own seed so the samples themselves are untouched),
  within about ±0.5 % of the widths' spread of the exact median.

Blocks are folded in task order, so the results do not depend on the executor,
the number of workers or how many blocks are in flight.
"""

from __future__ import annotations

import numpy as np

from ragstat.simulation.results import MethodCoverage

__all__ = ["EXACT_REPS", "RunningTally", "tally"]

#: Samples per (K, estimand, method) summarised exactly; beyond, the streaming tally.
EXACT_REPS = 20_000

Block = tuple  # (estimate, lower, upper, available[, reason]) as a simulation block returns


def _covered(target: float, lower, upper, available) -> tuple[np.ndarray, np.ndarray]:
    """(available with finite bounds, covering the target within a relative 1e-12)."""
    ok = available & np.isfinite(lower) & np.isfinite(upper)
    eps = 1e-12 * max(1.0, abs(target))
    return ok, ok & (lower - eps <= target) & (target <= upper + eps)


def tally(
    k: int,
    estimand: str,
    method: str,
    target: float,
    estimate: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    available: np.ndarray,
) -> MethodCoverage:
    """Coverage with its Monte-Carlo SE sqrt(c(1 − c)/R); an unavailable interval is a miss.

    The SE treats samples as independent; samples in one group of 25 share their
    bootstrap count matrix, a dependence measured here to change the variance of the
    coverage by less than its own Monte-Carlo error. The target is compared with a
    relative tolerance of 1e-12 so that point intervals of a census are not lost to
    summation order.
    """
    R = estimate.shape[0]
    ok, covered = _covered(target, lower, upper, available)
    c = float(covered.mean())
    width = (upper - lower)[ok]
    err = estimate - target
    return MethodCoverage(
        k=k,
        estimand=estimand,
        method=method,
        reps=R,
        coverage=c,
        coverage_se=float(np.sqrt(c * (1 - c) / R)),
        coverage_available=float(covered[ok].mean()) if ok.any() else None,
        mean_width=float(width.mean()) if width.size else None,
        median_width=float(np.median(width)) if width.size else None,
        bias=float(err.mean()),
        rmse=float(np.sqrt(np.mean(err * err))),
        unavailable=float(1 - ok.mean()),
    )


class _Sum:
    """Neumaier's compensated running sum of floats."""

    __slots__ = ("c", "s")

    def __init__(self) -> None:
        self.s, self.c = 0.0, 0.0

    def add(self, x: float) -> None:
        t = self.s + x
        self.c += (self.s - t) + x if abs(self.s) >= abs(x) else (x - t) + self.s
        self.s = t

    @property
    def value(self) -> float:
        return self.s + self.c


class RunningTally:
    """The tally of one (K, estimand, method), fed one block of samples at a time.

    ``reps`` is the total number of samples to come (it picks the exact or the
    streaming summary, see the module doc); ``seed`` seeds the width reservoir.
    """

    def __init__(
        self,
        k: int,
        estimand: str,
        method: str,
        target: float,
        reps: int,
        seed: int | np.random.SeedSequence = 0,
    ) -> None:
        self.k, self.estimand, self.method, self.target = k, estimand, method, target
        self.exact = reps <= EXACT_REPS
        self.reason: str | None = None
        self._blocks: list[tuple[np.ndarray, ...]] = []
        self._n = {"R": 0, "ok": 0, "covered": 0, "seen": 0}
        self._sums = {"width": _Sum(), "err": _Sum(), "err2": _Sum()}
        self._reservoir = np.empty(0 if self.exact else EXACT_REPS)
        self._rng = np.random.default_rng(seed)

    def add(self, block: Block) -> None:
        """Fold one block's (estimate, lower, upper, available[, reason]) in."""
        if self.reason is None and len(block) > 4:
            self.reason = block[4]
        estimate, lower, upper, available = block[:4]
        if self.exact:
            self._blocks.append((estimate, lower, upper, available))
            return
        ok, covered = _covered(self.target, lower, upper, available)
        err = estimate - self.target
        width = (upper - lower)[ok]
        n = self._n
        n["R"] += int(estimate.shape[0])
        n["ok"] += int(np.count_nonzero(ok))
        n["covered"] += int(np.count_nonzero(covered))
        self._sums["width"].add(float(width.sum()))
        self._sums["err"].add(float(err.sum()))
        self._sums["err2"].add(float(np.sum(err * err)))
        self._keep(width)

    def _keep(self, width: np.ndarray) -> None:
        """Algorithm R over the available widths, in block order (vectorised per block)."""
        size, seen = self._reservoir.size, self._n["seen"]
        take = max(0, min(size - seen, width.size))
        self._reservoir[seen : seen + take] = width[:take]
        rest = width[take:]
        if rest.size:
            index = seen + take + np.arange(rest.size)  # 0-based position in the stream
            slot = self._rng.integers(0, index + 1)
            hit = slot < size
            # later items replace earlier ones in the same slot, as one at a time would
            slots, values = slot[hit][::-1], rest[hit][::-1]
            unique, last = np.unique(slots, return_index=True)
            self._reservoir[unique] = values[last]
        self._n["seen"] = seen + int(width.size)

    def result(self) -> MethodCoverage:
        """The summary of every block added (see the module doc for exactness)."""
        if self.exact:
            cols = [np.concatenate([b[i] for b in self._blocks]) for i in range(4)]
            return tally(self.k, self.estimand, self.method, self.target, *cols)
        n, sums = self._n, self._sums
        R, ok = n["R"], n["ok"]
        c = n["covered"] / R
        kept = self._reservoir[: min(n["seen"], self._reservoir.size)]
        return MethodCoverage(
            k=self.k,
            estimand=self.estimand,
            method=self.method,
            reps=R,
            coverage=c,
            coverage_se=float(np.sqrt(c * (1 - c) / R)),
            coverage_available=n["covered"] / ok if ok else None,
            mean_width=sums["width"].value / ok if ok else None,
            median_width=float(np.median(kept)) if ok else None,
            bias=sums["err"].value / R,
            rmse=float(np.sqrt(sums["err2"].value / R)),
            unavailable=float(1 - ok / R),
        )
