"""How often the other 95 % intervals covered in simulation at small K, said in one sentence.

``data/other_coverage.json`` (written by ``scripts/make_other_coverage.py``) holds, per
interval (the agreement statistics' document bootstrap, the extraction F1 bootstrap, the
PPI jackknife), census family, statistic and number of documents K, the coverage of the
95 % interval, its Monte-Carlo SE and the samples. :func:`coverage_at` reads the coverage
at the user's K: the tabulated value at a simulated K; between two simulated K's, linear
interpolation on log K (coverage and SE); below the fewest simulated, the fewest's value
(said: fewer documents usually cover less); above the most simulated, nothing is known and
None is returned. :func:`shortfall_sentence` says it in one plain sentence when the
coverage is below nominal − 2 MC SE, and returns None where the interval reaches it, at a
level other than 95 % (the table's) or where the table has no row.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = [
    "TABLE_LEVEL", "Coverage", "agreement_note", "coverage_at", "other_coverage_table",
    "shortfall_sentence", "tells",
]  # fmt: skip

#: The level the table was simulated at; no sentence at any other.
TABLE_LEVEL = 0.95


@functools.cache
def other_coverage_table() -> dict[str, Any] | None:
    """The committed table, or None when the file is absent."""
    path = resources.files("ragstat.inference").joinpath("data/other_coverage.json")
    if not path.is_file():
        return None
    table: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return table


@dataclass(frozen=True)
class Coverage:
    """Simulated coverage at the user's K and how it was read from the table."""

    coverage: float
    mc_se: float
    how: str

    @property
    def short(self) -> bool:
        """Below nominal − 2 MC SE."""
        return self.coverage < TABLE_LEVEL - 2.0 * self.mc_se


def _points(interval: str, family: str, statistic: str) -> list[tuple[int, float, float]]:
    table = other_coverage_table() or {}
    out = [
        (int(r["K"]), float(r["coverage"]), float(r["mc_se"]))
        for r in table.get("rows", ())
        if (r["interval"], r["family"], r["statistic"]) == (interval, family, statistic)
        and r.get("mc_se") is not None
    ]
    return sorted(out)


def coverage_at(interval: str, family: str, statistic: str, K: int) -> Coverage | None:
    """The table's coverage for K documents (see the module docstring), or None."""
    n = int(K)
    pts = _points(interval, family, statistic)
    if not pts or n > pts[-1][0]:
        return None
    if n <= pts[0][0]:
        k0, c, se = pts[0]
        how = f"simulated at {k0} documents"
        if n < k0:
            how += ", the fewest simulated; fewer usually cover less"
        return Coverage(c, se, how)
    for (k0, c0, s0), (k1, c1, s1) in itertools.pairwise(pts):
        if n == k1:
            return Coverage(c1, s1, f"simulated at {k1} documents")
        if k0 < n < k1:
            t = (math.log(n) - math.log(k0)) / (math.log(k1) - math.log(k0))
            how = f"interpolated between {k0} and {k1} documents"
            return Coverage(c0 + t * (c1 - c0), s0 + t * (s1 - s0), how)
    return None


def shortfall_sentence(
    interval: str, family: str, statistics: Sequence[tuple[str, str]], K: int, level: float,
    what: str,
) -> str | None:  # fmt: skip
    """One sentence naming each statistic (``(table name, words)``) whose interval covered
    below nominal − 2 MC SE with K documents, e.g. "with 12 documents these 95 % intervals
    covered less than 95 % in simulation on 0/1 labels (interpolated between 10 and 20
    documents): Cohen's κ about 90 %, …; the true uncertainty is wider than shown"; None
    when every one reaches it, at another level, or when the table does not tell."""
    if not math.isclose(level, TABLE_LEVEL):
        return None
    found = [(words, coverage_at(interval, family, name, K)) for name, words in statistics]
    short = [(words, c) for words, c in found if c is not None and c.short]
    if not short:
        return None
    parts = ", ".join(f"{words} about {100 * c.coverage:.0f} %" for words, c in short)
    hows = sorted({c.how for _, c in short})
    these = "this 95 % interval" if len(short) == 1 else "these 95 % intervals"
    return (
        f"with {K} documents {these} covered less than 95 % in simulation on {what} "
        f"({'; '.join(hows)}): {parts}; the true uncertainty is wider than shown"
    )


#: Agreement statistic → its words in the sentence.
AGREEMENT_WORDS = {
    "accuracy": "accuracy", "cohen_kappa": "Cohen's κ", "cohen_kappa_linear": "linear weighted κ",
    "cohen_kappa_quadratic": "quadratic weighted κ", "krippendorff_alpha": "Krippendorff's α",
    "gwet_ac1": "Gwet's AC1", "precision": "precision", "recall": "recall",
}  # fmt: skip


def _agreement_row(name: str, q: int, scale: str) -> str:
    """The statistic's row in the table: on two labels every weighting and level gives κ
    and nominal α; on more, α is tabulated per level (nominal under its plain name)."""
    if q == 2:
        return next((s for s in ("cohen_kappa", "krippendorff_alpha") if name.startswith(s)), name)
    if name == "krippendorff_alpha" and scale != "nominal":
        return f"krippendorff_alpha_{scale}"
    return name


def agreement_note(K: int, q: int, scale: str, names: Sequence[str], level: float) -> str | None:
    """The agreement verb's sentence for its statistics ``names`` on ``q`` labels at K
    documents: the binary table for two labels, the three-category one for more; None
    when they reach nominal − 2 MC SE or the table does not tell (:func:`tells`)."""
    family, what = (
        ("binary", "0/1 labels") if q == 2 else ("three-category", "three-category labels")
    )
    stats = [(_agreement_row(n, q, scale), AGREEMENT_WORDS.get(n, n)) for n in names]
    return shortfall_sentence("agreement", family, stats, K, level, what)


def tells(interval: str, family: str, statistic: str, K: int, level: float) -> bool:
    """Whether the table speaks for this interval at K documents and this level."""
    found = coverage_at(interval, family, statistic, K)
    return found is not None and math.isclose(level, TABLE_LEVEL)
