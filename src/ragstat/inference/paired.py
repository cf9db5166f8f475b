"""Paired comparison of two systems on the same queries (the interval guide, "comparar dois sistemas").

With y = y_A − y_B per query, aggregated per document (s_d = Σ differences),
every micro and macro method of the core applies to the differences. On top:

- ``ties_share``: documents whose two rates are equal (s_d = 0);
  ``identical_share``: documents where every query scored the same (q_d = 0);
- a document-level sign-flip permutation test of "no difference": under the
  null, A and B are exchangeable within a document, so each document's
  difference total may flip sign. Statistics: micro T = Σ ε_d s_d / N,
  macro T = (1/K) Σ ε_d r_d; two-sided p = P(|T*| ≥ |T|). Exact enumeration
  of all 2^K' sign vectors (K' = documents with s_d ≠ 0) when K' ≤ 20, else
  Monte Carlo with the +1 correction, p = (1 + #{|T*| ≥ |T|}) / (B + 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ragstat.errors import InputError
from ragstat.inference.design_analysis import analyze_design
from ragstat.inference.estimators import ESTIMANDS
from ragstat.inference.names import SMALL_K_METHODS
from ragstat.inference.results import (
    METHODS,
    EstimandResult,
    Interval,
    IntervalReport,
    recommended_rows,
)
from ragstat.inference.verdict import verdicts
from ragstat.records.docstats import DocStats
from ragstat.records.paired import Pairing
from ragstat.tidy import Tidy, plain

__all__ = [
    "EXACT_MAX_DOCS",
    "ComparisonReport",
    "PairedSummary",
    "compare",
    "estimand_disagreement",
    "paired_summary",
    "sign_flip_p",
]

EXACT_MAX_DOCS = 20
_BLOCK = 1 << 16


@dataclass(frozen=True)
class PairedSummary:
    ties_share: float
    identical_share: float
    permutation_p: dict[str, float]
    permutation_method: str
    permutation_reps: int | None

    def to_dict(self) -> dict:
        return {
            "ties_share": self.ties_share,
            "identical_share": self.identical_share,
            "permutation_p": dict(self.permutation_p),
            "permutation_method": self.permutation_method,
            "permutation_reps": self.permutation_reps,
        }


def _exceed_exact(x: np.ndarray, t_obs: float, tol: float) -> tuple[int, int]:
    """Count sign vectors over x (all 2^k of them) with |Σ ε x| ≥ |t_obs|."""
    k = x.size
    total, hits = 1 << k, 0
    bits = np.arange(k)
    for start in range(0, total, _BLOCK):
        codes = np.arange(start, min(start + _BLOCK, total))
        signs = 1.0 - 2.0 * ((codes[:, None] >> bits) & 1)
        hits += int(np.sum(np.abs(signs @ x) >= t_obs - tol))
    return hits, total


def sign_flip_p(
    x: np.ndarray, reps: int, rng: np.random.Generator, exact_max: int = EXACT_MAX_DOCS
) -> tuple[float, str]:
    """Two-sided sign-flip p-value of Σ x (x = per-document contributions)."""
    x = x[x != 0]
    if x.size == 0:
        return 1.0, "exact"
    t_obs = abs(float(x.sum()))
    tol = 1e-9 * float(np.abs(x).sum())
    if x.size <= exact_max:
        hits, total = _exceed_exact(x, t_obs, tol)
        return hits / total, "exact"
    hits = 0
    block = max(1, _BLOCK // max(x.size, 1) * 16)
    done = 0
    while done < reps:
        b = min(block, reps - done)
        signs = rng.integers(0, 2, size=(b, x.size)) * 2.0 - 1.0
        hits += int(np.sum(np.abs(signs @ x) >= t_obs - tol))
        done += b
    return (1 + hits) / (reps + 1), "monte_carlo"


def paired_summary(
    diff: DocStats, reps: int, rng: np.random.Generator, estimands: tuple[str, ...]
) -> PairedSummary:
    """Ties and the sign-flip permutation test for per-document differences."""
    p, method = {}, "exact"
    for est in estimands:
        x = diff.s / diff.N if est == "micro" else diff.r / diff.K
        p[est], method = sign_flip_p(x, reps, rng)
    return PairedSummary(
        ties_share=float(np.mean(diff.s == 0)),
        identical_share=float(np.mean(diff.q == 0)),
        permutation_p=p,
        permutation_method=method,
        permutation_reps=None if method == "exact" else reps,
    )


@dataclass(frozen=True, repr=False)
class ComparisonReport(Tidy):
    """Intervals on the per-query differences A − B plus the paired summary.

    ``to_frame()`` has one row per estimand × method (the difference A − B, with the
    sign-flip p-value of the estimand); ``repr`` leads with the plain verdicts.
    """

    report: IntervalReport
    paired: PairedSummary
    pairing: Pairing | None = None

    def to_dict(self) -> dict:
        out = self.report.to_dict()
        out["paired"] = self.paired.to_dict()
        if self.pairing is not None:
            out["paired"]["pairing"] = self.pairing.to_dict()
            out["paired"]["systems"] = list(self.pairing.systems)
        a, b = self.pairing.systems if self.pairing is not None else ("A", "B")
        out["verdicts"] = [v.to_dict() for v in verdicts(self, a, b, score=self.report.score)]
        return out

    @property
    def systems(self) -> tuple[str, str]:
        return self.pairing.systems if self.pairing is not None else ("A", "B")

    def rows(self) -> list[dict[str, Any]]:
        a, b = self.systems
        p = self.paired.permutation_p
        return [
            {"a": a, "b": b, **r, "permutation_p": plain(p.get(r["estimand"]))}
            for r in self.report.rows()
        ]

    def headline_rows(self) -> list[dict[str, Any]]:
        return recommended_rows(self.report.estimands)

    def sentences(self) -> list[str]:
        """The plain verdicts, one per estimand (what the ``repr`` opens with)."""
        a, b = self.systems
        return [v.sentence for v in verdicts(self, a, b, score=self.report.score)]

    def title(self) -> str:
        a, b = self.systems
        return f"{a} − {b}: " + self.report.title()


#: Monte-Carlo sign flips: at 10⁷ the SE of a p-value near 0.05 is 0.00007; more only costs time.
MAX_PERMUTATION_REPS = 10_000_000


def _check_permutation_reps(reps: int) -> None:
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise InputError(f"permutation replicates must be a positive whole number, got {reps!r}")
    if reps > MAX_PERMUTATION_REPS:
        raise InputError(
            f"--permutation-reps {reps:,} is above the cap of {MAX_PERMUTATION_REPS:,}: the "
            "Monte-Carlo SE of a p-value near 0.05 is already 0.00007 there; use fewer "
            "(9,999 gives ±0.002)"
        )


def compare(
    diff: DocStats,
    *,
    pairing: Pairing | None = None,
    design: str = "srs",
    population_counts: Mapping[str, int] | None = None,
    estimands: Sequence[str] = ESTIMANDS,
    permutation_reps: int = 9_999,
    seed: int | None = None,
    bounds: tuple[float, float] | None = None,
    **options,
) -> ComparisonReport:
    """Paired comparison from per-document sums of y_A − y_B (see module docstring).

    ``bounds``: the range of the difference, [a_lo − b_hi, a_hi − b_lo] for A and B known
    in [a_lo, a_hi] and [b_lo, b_hi] (``records.difference_range``; [−1, 1] for two rates);
    every interval is then flagged against it, the range-respecting methods (logit,
    Korn–Graubard) are computed on it, and the recommendation (the contest's paired section)
    never leaves it. Without it (and without ``diff.bounds``) nothing is known about the
    range and the range-respecting methods are not computed. ``options`` go to `analyze`
    (level, methods, population, bootstrap_reps, query_scores) or, for non-SRS designs, to
    `analyze_design`.
    """
    _check_permutation_reps(permutation_reps)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    # Differences are never 0/1 hits; their range is the difference of the two ranges.
    diff = replace(diff, binary=False, difference=True, bounds=bounds or diff.bounds)
    if design == "srs" and options.get("methods") is None and diff.known_bounds() is None:
        bounded = ("logit", "korn_graubard", "logit_cr2_bm")  # no known range to respect
        options["methods"] = [m for m in METHODS if m not in bounded + SMALL_K_METHODS]
    report = analyze_design(
        diff,
        design=design,
        population_counts=population_counts,
        estimands=estimands,
        seed=seed,
        **options,
    )
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(len(ESTIMANDS),)))
    perm_estimands = tuple(e for e in estimands if e in ("micro", "macro"))
    summary = paired_summary(diff, permutation_reps, rng, perm_estimands)
    if design != "srs":
        report = replace(
            report,
            warnings=(
                *report.warnings,
                (
                    "the sign-flip test uses the unweighted micro/macro statistics (valid under the "
                    "null for any design, but not weighted like the design-based estimate)"
                ),
            ),
        )
    disagree = estimand_disagreement(report)
    if disagree:
        report = replace(report, warnings=(*report.warnings, disagree))
    return ComparisonReport(report=report, paired=summary, pairing=pairing)


def _shown(res: EstimandResult) -> Interval | None:
    """The recommended interval of ``res``, else its first available non-naive one."""
    ivs = [iv for iv in res.intervals if iv.available and not iv.naive]
    rec = [iv for iv in ivs if iv.method == res.recommended]
    return (rec or ivs)[0] if ivs else None


def estimand_disagreement(report: IntervalReport, reference: float = 0.0) -> str | None:
    """One warning line when the recommended micro and macro intervals of a difference
    disagree on ``reference`` (one excludes it, the other does not); else None."""
    if not {"micro", "macro"} <= set(report.estimands):
        return None
    micro, macro = _shown(report.estimands["micro"]), _shown(report.estimands["macro"])
    if micro is None or macro is None:
        return None
    covers = {"micro": micro.covers(reference), "macro": macro.covers(reference)}
    if None in covers.values() or covers["micro"] == covers["macro"]:
        return None
    excludes = {e: not c for e, c in covers.items()}
    what = {True: "excludes", False: "includes"}
    return (
        f"micro and macro disagree: the micro interval ({micro.method}) "
        f"{what[excludes['micro']]} {reference:g} (a difference for a random query) while the "
        f"macro interval ({macro.method}) {what[excludes['macro']]} it (a difference for a "
        "typical document); micro weights documents by their queries, macro counts each once — "
        "report the one that answers your question, not whichever is significant"
    )
