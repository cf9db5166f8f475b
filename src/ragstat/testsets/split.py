"""Leak-free splits: queries linked by a shared group value never straddle two sets.

A *unit* is a connected component of the graph whose nodes are the queries and the
values of the grouping columns (``doc_id``, ``session_id``, ``user_id``, …), with an
edge from each query to each of its values: a session touching two documents joins
them. Units, not queries, are assigned to the named sets.

Assignment rule (systematic cut of a seeded random order). The units are put in a
random order (``numpy.random.default_rng(seed)``) and laid end to end, each as long as
its number of queries; set ``s`` takes the units whose *midpoint* falls in its slice
``[c_{s-1}, c_s)`` of the cumulative target shares. A set's two boundaries are each
missed by at most half the unit straddling them, so its achieved size differs from
its target by at most one unit (the largest unit bounds the error).

With a stratification column a unit's stratum is its most common value (ties: the
first value in sorted order). Strata are cut one after another, smallest first, each
against the shares still owed overall (the targets up to and including this stratum
minus what earlier strata gave), so every stratum is split in the target shares and
the largest stratum, cut last, absorbs the carried remainder: the overall error stays
within one unit whenever no set is already past its overall target.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragstat.errors import InputError

__all__ = [
    "Assignment",
    "Leakage",
    "assign_units",
    "check_leakage",
    "connected_units",
    "split_rows",
    "unit_strata",
]


def connected_units(frame: pd.DataFrame, groups: Sequence[str]) -> np.ndarray:
    """Unit label (0, 1, …, in order of first appearance) of every row of ``frame``.

    Queries and group values are the nodes of one sparse bipartite graph (one edge per
    query and grouping column); :func:`scipy.sparse.csgraph.connected_components` labels it.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(frame)
    rows, cols, offset = [], [], n
    for column in groups:
        codes, values = pd.factorize(frame[column], sort=False)
        rows.append(np.arange(n))
        cols.append(codes + offset)
        offset += len(values)
    r, c = np.concatenate(rows), np.concatenate(cols)
    graph = coo_matrix((np.ones(len(r), dtype=np.int8), (r, c)), shape=(offset, offset))
    _, labels = connected_components(graph.tocsr(), directed=False)
    units, _ = pd.factorize(labels[:n], sort=False)  # every component holds a query
    return np.asarray(units, dtype=np.int64)


def unit_strata(units: np.ndarray, values: pd.Series) -> np.ndarray:
    """Each unit's stratum: the most common value among its queries (ties: the first in
    sorted order), as strings."""
    counts = (
        pd.DataFrame({"unit": units, "value": values.astype(str).to_numpy()})
        .groupby(["unit", "value"], sort=True)
        .size()
        .reset_index(name="n")
        .sort_values(["unit", "n", "value"], ascending=[True, False, True], kind="stable")
        .drop_duplicates("unit")
    )
    return counts["value"].to_numpy(dtype=object)


def _cut(sizes: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Set index of each unit (in the given order): the slice of the cumulative ``targets``
    (queries, summing to ``sizes.sum()``) that holds the unit's midpoint."""
    mid = np.cumsum(sizes) - sizes / 2.0
    bounds = np.cumsum(targets)[:-1]
    return np.searchsorted(bounds, mid, side="right")


def assign_units(
    sizes: np.ndarray, shares: np.ndarray, rng: np.random.Generator, strata: np.ndarray | None
) -> np.ndarray:
    """Set index (into ``shares``) of every unit; see the module docstring for the rule."""
    K = len(sizes)
    order = rng.permutation(K)
    out = np.empty(K, dtype=np.int64)
    if strata is None:
        out[order] = _cut(sizes[order].astype(float), shares * sizes.sum())
        return out
    names, codes = np.unique(strata.astype(str), return_inverse=True)
    totals = np.bincount(codes, weights=sizes, minlength=len(names))
    given = np.zeros(len(shares))
    done = 0.0
    for h in np.argsort(totals, kind="stable"):  # smallest stratum first
        members = order[codes[order] == h]
        done += totals[h]
        owed = np.clip(shares * done - given, 0.0, None)
        owed = owed * (totals[h] / owed.sum()) if owed.sum() > 0 else shares * totals[h]
        out[members] = _cut(sizes[members].astype(float), owed)
        given += np.bincount(out[members], weights=sizes[members], minlength=len(shares))
    return out


@dataclass(frozen=True)
class Leakage:
    """Group values shared by two sets, counted on the sets' rows (never assumed zero).

    ``shared[(a, b)][column]`` is the number of values of ``column`` found in both set
    ``a`` and set ``b``, for every pair of sets.
    """

    shared: Mapping[tuple[str, str], Mapping[str, int]]

    @property
    def total(self) -> int:
        return sum(sum(c.values()) for c in self.shared.values())


def check_leakage(frames: Mapping[str, pd.DataFrame], groups: Sequence[str]) -> Leakage:
    """Count, for every pair of sets and every grouping column, the values both sets hold
    (a value × set presence matrix; its cross-product's off-diagonal cells)."""
    names = list(frames)
    shared: dict[tuple[str, str], dict[str, int]] = {
        (a, b): {} for i, a in enumerate(names) for b in names[i + 1 :]
    }
    for column in groups:
        parts = [
            pd.DataFrame({"value": f[column].to_numpy(), "set": j})
            for j, f in enumerate(frames.values())
        ]
        both = pd.concat(parts, ignore_index=True)
        codes, _ = pd.factorize(both["value"])
        presence = np.zeros((int(codes.max()) + 1 if len(codes) else 0, len(names)), np.int64)
        presence[codes, both["set"].to_numpy()] = 1
        pairs = presence.T @ presence
        for (a, b), counts in shared.items():
            counts[column] = int(pairs[names.index(a), names.index(b)])
    return Leakage(shared)


@dataclass(frozen=True)
class Assignment:
    """The split of one table: each row's unit and set, and each unit's size and stratum."""

    units: np.ndarray  # per row: unit label
    row_set: np.ndarray  # per row: index into ``names``
    unit_sizes: np.ndarray  # per unit: queries
    unit_set: np.ndarray  # per unit: index into ``names``
    unit_stratum: np.ndarray | None  # per unit: stratum (str), or None
    names: tuple[str, ...]


def split_rows(
    frame: pd.DataFrame,
    groups: Sequence[str],
    shares: Mapping[str, float],
    *,
    stratify: str | None,
    seed: int,
) -> Assignment:
    """Units of ``frame`` by ``groups``, assigned to the sets of ``shares`` by ``seed``."""
    units = connected_units(frame, groups)
    sizes = np.bincount(units)
    names = tuple(shares)
    if len(sizes) < len(names):
        raise InputError(
            f"the groups {', '.join(groups)} link the {len(frame)} queries into {len(sizes)} "
            f"unit(s), fewer than the {len(names)} sets; use fewer sets or finer groups"
        )
    strata = None if stratify is None else unit_strata(units, frame[stratify])
    weights = np.array([shares[s] for s in names], dtype=float)
    unit_set = assign_units(sizes, weights, np.random.default_rng(seed), strata)
    empty = [s for j, s in enumerate(names) if not np.any(unit_set == j)]
    if empty:
        raise InputError(
            f"set(s) {', '.join(empty)} received no queries: a share of "
            f"{min(shares[s] for s in empty):g} of {len(frame)} queries is less than one "
            f"unit here (largest unit: {int(sizes.max())} queries); raise it or drop the set"
        )
    return Assignment(units, unit_set[units], sizes, unit_set, strata, names)
