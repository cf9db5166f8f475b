"""The built-in default interval: coverage measured on similar data, in every family.

One packaged table, written by a committed script: ``data/contest_table.json``
(``scripts/small_k_contest.py``, the small-K contest) holds the coverage, Monte-Carlo SE
and median width of every method, the small-K candidates included, at K = 5, 10, 20, 40,
80 on families of populations — the three built-in corpora' self-retrieval hit@1 and
synthetic censuses spanning intra-document correlation, document sizes, rates and 0/1 and
continuous scores, and the per-query difference hit@1 of BM25 − hit@1 of TF-IDF on the
three corpora, in [−1, 1]. Sections (``SECTIONS``): ``binary`` (a 0/1 score: the corpora
and the 0/1 synthetic families), ``continuous`` (a score in a known range that is not 0/1:
the continuous families) and ``paired`` (a difference of two bounded scores; its corpora
are its families). docs/recommendation.md writes the rule out with the tables.

The rule, at the nearest tabulated K: a method reaches nominal in a family when its coverage
is at least nominal − 2 MC SE there; the default is the narrowest method (mean width relative
to CR2 over the families) that reaches it in every family; if none does, the method with the
highest mean coverage over the families, and the output says how far its worst family falls
short. Naive methods and the effective-n diagnostic never. Where the pick gives no interval
on a sample (every document at the same rate), Korn–Graubard's (`FALLBACK`) is shown: the
contest counts that interval in the pick's place. The recommended interval must lie in the
known range: when the pick leaves it on this sample, the best method that cannot leave it
is recommended instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Protocol, TypeVar

from ragstat.inference.results import METHODS, NAIVE_METHODS

__all__ = [
    "BOUNDED_METHODS",
    "FALLBACK",
    "GUIDE",
    "MC_SLACK",
    "NEVER_RECOMMENDED",
    "SECTIONS",
    "TABLE_LEVEL",
    "Choice",
    "Row",
    "contest_table",
    "default_choice",
    "family_rows",
    "pick_row",
    "section_of",
    "table_section",
]

#: Contrast-only methods and diagnostics: shown in the tables, never recommended.
NEVER_RECOMMENDED = NAIVE_METHODS | {"wald_effective_n"}
#: Monte-Carlo SEs of slack below nominal that still count as reaching it.
MC_SLACK = 2.0
#: Methods whose interval cannot leave [0, 1] for scores in [0, 1].
BOUNDED_METHODS = frozenset(
    {
        "logit",
        "logit_cr2_bm",
        "korn_graubard",
        "doc_bootstrap_percentile",
        "doc_bootstrap_bca",
        "doc_bootstrap_calibrated",
        "beta_binomial",
    }
)
#: The interval shown where the table's pick has none on a sample (available at 0 and 1).
FALLBACK = "korn_graubard"
#: Seed 000's method guide: the fixed choice outside the table's level.
GUIDE = {"micro": "cr2_bm", "macro": "t_rates"}
#: The only level the table was measured at.
TABLE_LEVEL = 0.95
#: The tables' sections: a 0/1 score, another bounded score, a paired difference of two.
SECTIONS = ("binary", "continuous", "paired")


@dataclass(frozen=True)
class Row:
    """One method's coverage at one K and estimand (pooled, or of one simulation)."""

    method: str
    coverage: float
    coverage_se: float
    mean_width: float | None
    #: Over several families: the mean coverage (``coverage`` is the binding family's).
    mean_coverage: float | None = None

    @property
    def typical(self) -> float:
        """The mean coverage over families when known, else ``coverage``."""
        return self.coverage if self.mean_coverage is None else self.mean_coverage


@dataclass(frozen=True)
class Choice:
    """The default method for one estimand and why: ``note`` is the sentence shown."""

    method: str | None
    coverage: float | None
    K: int | None
    corpora: tuple[str, ...]
    note: str
    reached: bool = True


class _Scored(Protocol):
    @property
    def method(self) -> str: ...
    @property
    def coverage(self) -> float: ...
    @property
    def coverage_se(self) -> float: ...
    @property
    def mean_width(self) -> float | None: ...


R = TypeVar("R", bound=_Scored)


def _order(r: _Scored) -> int:
    return METHODS.index(r.method) if r.method in METHODS else len(METHODS)


def _width(r: _Scored) -> float:
    w = r.mean_width
    return w if w is not None and math.isfinite(w) else math.inf


def pick_row(rows: Iterable[R], level: float) -> tuple[R, int] | None:
    """The recommended row and how many reached the bar (0: nominal not reached).

    Narrowest among coverage ≥ nominal − 2 MC SE (ties: higher coverage, then the stable
    method order); if none reached it, the highest coverage — over families, the highest
    mean coverage (`Row.typical`; ties: narrower). Naive methods and wald_effective_n are
    never picked.
    """
    rows = [r for r in rows if r.method not in NEVER_RECOMMENDED]
    if not rows:
        return None
    eligible = [r for r in rows if r.coverage >= level - MC_SLACK * r.coverage_se]
    if eligible:
        best = min(eligible, key=lambda r: (_width(r), -r.coverage, _order(r), r.method))
        return best, len(eligible)
    best = min(rows, key=lambda r: (-_typical(r), _width(r), _order(r), r.method))
    return best, 0


def _typical(r: _Scored) -> float:
    return float(getattr(r, "typical", r.coverage))


@lru_cache(maxsize=1)
def contest_table() -> dict | None:
    """The packaged small-K contest table (read once); None when it is missing, e.g. while
    ``scripts/small_k_contest.py`` builds it."""
    path = resources.files("ragstat.inference").joinpath("data/contest_table.json")
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def section_of(binary: bool, difference: bool = False) -> str:
    """The table section that describes a score: paired, binary (0/1) or continuous."""
    if difference:
        return "paired"
    return "binary" if binary else "continuous"


def table_section(kind: str = "binary") -> dict | None:
    """``{"settings", "corpora"}`` of one section (``SECTIONS``; ``rates``, the name of
    older files, means ``binary``): its families under ``corpora``; None when missing."""
    kind = "binary" if kind == "rates" else kind
    contest = contest_table()
    if contest is None:
        return None
    families = {
        name: fam for name, fam in contest["families"].items() if _kind(fam["census"]) == kind
    }
    return {"settings": contest["settings"], "corpora": families} if families else None


def _kind(census: Mapping) -> str:
    return str(census.get("kind") or ("binary" if census.get("binary") else "continuous"))


def _table(kind: str = "binary") -> dict:
    table = table_section(kind)
    if table is None:
        raise LookupError(f"the built-in coverage table ({kind}) is missing")
    return table


def nearest_k(K: int, ks: Iterable[int]) -> int:
    """The tabulated K nearest to ``K`` on the log scale (ties: the smaller)."""
    return min(ks, key=lambda k: (abs(math.log(k / max(K, 1))), k))


@lru_cache(maxsize=64)
def family_rows(estimand: str, k: int, kind: str = "binary") -> tuple[Row, ...]:
    """Per method, its binding family at tabulated ``k``: the coverage and MC SE of the family
    where coverage − (nominal − 2 MC SE) is smallest (so `pick_row`'s bar on this row is the
    bar in every family), the mean over families of the width relative to CR2
    (``width_vs_reference``; the absolute mean width in tables without it) and of the
    coverage. Methods missing from any family are left out."""
    families = _table(kind)["corpora"]
    cells = [c["by_k"][str(k)][estimand] for c in families.values()]
    common = set.intersection(*(set(c) for c in cells))
    rows = []
    for method in sorted(common):
        cs = [c[method] for c in cells]
        worst = min(cs, key=lambda x: x["coverage"] + MC_SLACK * x["mc_se"])
        widths = [x.get("width_vs_reference", x.get("mean_width")) for x in cs]
        width = None if None in widths else sum(widths) / len(widths)
        mean = sum(x["coverage"] for x in cs) / len(cs)
        rows.append(Row(method, worst["coverage"], worst["mc_se"], width, mean))
    return tuple(rows)


def worst_family(estimand: str, k: int, method: str, kind: str = "binary") -> str:
    """The label of ``method``'s binding family at tabulated ``k`` (its name if unlabelled)."""
    families = _table(kind)["corpora"]
    name = min(
        families,
        key=lambda f: (lambda x: x["coverage"] + MC_SLACK * x["mc_se"])(
            families[f]["by_k"][str(k)][estimand][method]
        ),
    )
    return str(families[name].get("label", name))


def _pct(x: float) -> str:
    return f"{x * 100:.1f} %"


def _from_table(
    estimand: str,
    K: int,
    available: set[str],
    level: float,
    kind: str = "binary",
    computed: set[str] | None = None,
) -> tuple[Choice, str] | None:
    """The table's pick among ``available`` and the sentence saying how it did.

    With ``computed`` (the methods computed, available on this sample or not): the pick among
    those; when it has no interval on this sample, `FALLBACK`'s interval, which the contest
    counts in its place (else the pick among ``available``)."""
    table = _table(kind)
    k = nearest_k(K, table["settings"]["ks"])
    families = tuple(table["corpora"])
    rows = family_rows(estimand, k, kind)
    found = pick_row([r for r in rows if r.method in (computed or available)], level)
    if found is not None and found[0].method not in available:
        if FALLBACK in available:
            best = found[0]
            text = (
                f"{best.method}, the default here, gives no interval on this sample, so "
                f"{FALLBACK}'s, which the coverage table counts in its place"
            )
            return Choice(FALLBACK, best.coverage, k, families, text, found[1] > 0), text
        found = pick_row([r for r in rows if r.method in available], level)
    if found is None:
        return None
    best, n = found
    what = "differences" if kind == "paired" else "data"
    if n:
        text = (
            f"on similar {what} this method reached {level * 100:g} % at K = {k} in all "
            f"{len(families)} families simulated (lowest: {_pct(best.coverage)})"
        )
    else:
        text = (
            f"with K = {K} documents no method reaches {level * 100:g} % in every family of "
            f"similar {what}: {best.method} covered {_pct(best.typical)} on average over "
            f"{len(families)} families, {_pct(best.coverage)} in its worst "
            f"({worst_family(estimand, k, best.method, kind)}): "
            f"{(level - best.coverage) * 100:.1f} points short there"
        )
    return Choice(best.method, best.coverage, k, families, text, n > 0), text


def _guide(estimand: str, available: set[str], level: float, why: str = "") -> Choice | None:
    method = GUIDE.get(estimand)
    if method not in available:
        return None
    why = why or (
        f"the built-in coverage table applies to {TABLE_LEVEL * 100:g} % intervals, "
        f"not {level * 100:g} %"
    )
    return Choice(method, None, None, (), f"the document-level method guide; {why}")


def _range_text(bounds: tuple[float, float] | None) -> str:
    lo, hi = bounds or (0.0, 1.0)
    return f"[{lo:g}, {hi:g}]"


def default_choice(
    estimand: str,
    K: int,
    level: float,
    bounded: bool,
    available: set[str],
    outside: Iterable[str] = (),
    kind: str = "binary",
    bounds: tuple[float, float] | None = None,
    computed: Iterable[str] | None = None,
) -> Choice:
    """The default method for ``estimand`` with ``K`` documents among ``available``.

    ``computed``: every method computed on the sample, with or without an interval; the
    table's pick among them, when it has none here, is replaced by `FALLBACK` (the contest
    counts that interval in its place).

    At 95 % the rule (module doc) on the ``kind`` section of the table (``rates`` for one
    bounded score, ``paired`` for a difference of two); at another level, or without that
    section, the document-level method guide (CR2 for micro, t on rates for macro).
    ``bounded``: scores with a known range (``bounds``, [0, 1] when None); ``outside`` names
    the methods whose interval on this sample leaves it, and when the pick is one of them
    the best range-respecting method (table order) replaces it.
    """
    available = set(available) - NEVER_RECOMMENDED
    outside = set(outside) if bounded else set()
    if table_section(kind) is None:
        why = f"the built-in coverage table ({kind}) is missing"
        choice = _guide(estimand, available, level, why)
        if choice is not None and choice.method not in outside:
            return choice
        inside = sorted((available - outside) & BOUNDED_METHODS, key=_method_order)
        if inside:
            return Choice(inside[0], None, None, (), f"{why}; a range-respecting method")
        return Choice(None, None, None, (), "no requested method can be recommended")
    if math.isclose(level, TABLE_LEVEL):
        done = None if computed is None else set(computed) - NEVER_RECOMMENDED
        first = _from_table(estimand, K, available, level, kind, done)
        choice = None if first is None else first[0]
    else:
        choice = _guide(estimand, available, level)
    if choice is not None and choice.method not in outside:
        return choice
    return _in_range(estimand, K, level, available - outside, choice, kind, bounds)


def _method_order(method: str) -> int:
    return METHODS.index(method) if method in METHODS else len(METHODS)


def _in_range(
    estimand: str,
    K: int,
    level: float,
    inside: set[str],
    was: Choice | None,
    kind: str = "binary",
    bounds: tuple[float, float] | None = None,
) -> Choice:
    """The best method whose interval stays in the known range (bounded ones first)."""
    pool = (inside & BOUNDED_METHODS) or inside
    found = _from_table(estimand, K, pool, TABLE_LEVEL, kind)
    if found is None:
        return Choice(None, None, None, (), "no requested method can be recommended")
    choice, text = found
    if was is not None:
        text = (
            f"{was.method}'s interval leaves {_range_text(bounds)}, so the best "
            f"range-respecting method: {text}"
        )
    if not math.isclose(level, TABLE_LEVEL):
        text += f" (table measured at {TABLE_LEVEL * 100:g} %)"
    return Choice(choice.method, choice.coverage, choice.K, choice.corpora, text, choice.reached)


def choices_note(choices: Mapping[str, Choice]) -> list[str]:
    """Warning lines for the estimands where no method reached nominal on similar data."""
    return [
        f"{est}: {c.note}" for est, c in choices.items() if c.method is not None and not c.reached
    ]
