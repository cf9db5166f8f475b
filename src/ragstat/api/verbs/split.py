"""``ragstat.split``: leak-free evaluation sets (dev / judge calibration / release …).

Queries linked by any shared value of the grouping columns form one unit (connected
components); whole units go to the named sets with target shares, stratified where
asked, reproducibly by seed. The leakage report is computed on the sets' rows.
The assignment rule is stated in :mod:`ragstat.testsets.split`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragstat.api.columns import resolve_column
from ragstat.api.data import Data, label_of, read_table
from ragstat.errors import InputError
from ragstat.resources.caps import check_list
from ragstat.testsets.split import Assignment, Leakage, check_leakage, split_rows
from ragstat.tidy import Tidy, plain

__all__ = ["DEFAULT_SETS", "SplitResult", "parse_groups", "parse_sets", "split"]

#: The default sets and their target shares of the queries.
DEFAULT_SETS: Mapping[str, float] = {"dev": 0.6, "calibration": 0.2, "release": 0.2}
#: How far the shares may sum from 1.
SHARE_TOLERANCE = 1e-6
ID = "query_id"
RULE = (
    "units (queries linked by a shared group value) in a seeded random order are laid end "
    "to end and cut at the cumulative target shares; a unit goes to the set holding its "
    "midpoint, so each set is within one unit of its target. Strata are cut smallest first, "
    "each against the shares still owed overall; a unit's stratum is its most common value"
)
_FORMATS = {".parquet": ".parquet", ".pq": ".parquet", ".csv": ".csv", ".tsv": ".tsv",
            ".jsonl": ".jsonl", ".ndjson": ".jsonl"}  # fmt: skip
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def parse_sets(sets: Mapping[str, float] | str) -> dict[str, float]:
    """``{"dev": 0.6, …}`` or ``"dev=0.6,calibration=0.2,release=0.2"``, checked: names
    usable as file names, shares in (0, 1] summing to 1."""
    if isinstance(sets, str):
        pairs = [p.strip() for p in sets.split(",") if p.strip()]
        check_list(pairs, "--sets")
        if any(p.count("=") != 1 for p in pairs):
            raise InputError(f"--sets {sets!r}: write NAME=SHARE pairs, e.g. dev=0.6,release=0.4")
        try:
            parsed = [(n.strip(), float(v)) for n, v in (p.split("=") for p in pairs)]
        except ValueError:
            raise InputError(f"--sets {sets!r}: every share must be a number") from None
        names = [n for n, _ in parsed]
        if len(set(names)) != len(names):
            raise InputError(f"--sets {sets!r}: a set is named twice")
        sets = dict(parsed)
    out = {str(k): float(v) for k, v in sets.items()}
    if len(out) < 2:
        raise InputError("sets: name at least two sets, e.g. dev=0.8,release=0.2")
    bad = [n for n in out if not _NAME.match(n)]
    if bad:
        raise InputError(f"sets: {bad} cannot name a file; use letters, digits, '_', '-', '.'")
    off = {n: v for n, v in out.items() if not (0 < v <= 1)}
    if off:
        raise InputError(f"sets: every share must be in (0, 1]; got {off}")
    total = sum(out.values())
    if abs(total - 1) > SHARE_TOLERANCE:
        raise InputError(f"sets: the shares sum to {total:g}, not 1; e.g. dev=0.6,release=0.4")
    return out


def parse_groups(groups: Sequence[str] | str) -> list[str]:
    """Grouping columns from a sequence or a comma list (at least one, none twice)."""
    items = [g.strip() for g in groups.split(",")] if isinstance(groups, str) else list(groups)
    items = [g for g in items if g]
    check_list(items, "--groups")
    if not items or len(set(items)) != len(items):
        raise InputError(f"--groups {groups!r}: name one or more distinct grouping columns")
    return items


def _read(data: Data) -> tuple[pd.DataFrame, str]:
    """The table and the format its sets are written in (a frame or table: Parquet)."""
    if not isinstance(data, (str, Path)):
        import pyarrow as pa

        if isinstance(data, pa.Table):
            data = data.to_pandas()
        if not isinstance(data, pd.DataFrame):
            raise InputError(f"data: expected a path or a DataFrame, got {type(data).__name__}")
        return data.reset_index(drop=True), ".parquet"
    path = Path(data)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputError(
            f"{path}: unknown format {path.suffix!r}; use .parquet, .csv, .tsv or .jsonl"
        )
    return read_table(path), fmt


def _rows_where(mask: np.ndarray) -> str:
    rows = np.flatnonzero(mask)
    shown = ", ".join(str(int(r)) for r in rows[:5])
    return f"{len(rows)} row(s), at rows {shown}{' …' if len(rows) > 5 else ''} (counted from 0)"


def _check(frame: pd.DataFrame, groups: list[str], stratify: str | None, where: str) -> list[str]:
    """The grouping columns as named in ``frame``; unknown columns, missing or duplicate
    query ids and null group values are errors."""
    names = [str(c) for c in frame.columns]
    if len(frame) == 0:
        raise InputError(f"{where}: the table has no rows")
    cols = [resolve_column(names, g, "--groups", where) for g in groups]
    if stratify is not None:
        resolve_column(names, stratify, "--stratify", where)
    if ID not in names:
        raise InputError(f"{where}: no {ID} column; add one naming each query")
    if frame[ID].isna().any():
        raise InputError(f"{where}: {ID} is empty in {_rows_where(frame[ID].isna().to_numpy())}")
    dup = frame[ID].duplicated(keep=False).to_numpy()
    if dup.any():
        first = frame[ID][dup].iloc[0]
        raise InputError(f"{where}: duplicate {ID}s: {_rows_where(dup)}, e.g. {first!r}")
    for c in cols:
        null = frame[c].isna().to_numpy()
        if null.any():
            raise InputError(f"{where}: grouping column {c!r} is empty in {_rows_where(null)}")
    return cols


@dataclass(frozen=True, repr=False)
class SplitResult(Tidy):
    """Leak-free sets: ``frames[name]`` holds the set's rows (input order); the report
    gives achieved shares per set and stratum, the leakage checks and the largest unit."""

    frames: dict[str, pd.DataFrame] = field(compare=False)
    targets: dict[str, float]
    groups: tuple[str, ...]
    stratify: str | None
    seed: int
    source: str
    format: str
    assignment: Assignment = field(compare=False)
    leakage: Leakage = field(compare=False)
    largest_values: dict[str, int] = field(compare=False)
    headline_columns = ("set", "stratum", "queries", "units", "share", "target_share")

    @property
    def n_queries(self) -> int:
        return int(self.assignment.unit_sizes.sum())

    def title(self) -> str:
        leak = "no group value shared" if self.leakage.total == 0 else "LEAKING"
        return (
            f"split of {self.n_queries} queries into {len(self.assignment.unit_sizes)} units "
            f"by {', '.join(self.groups)} (seed {self.seed}): {leak}"
        )

    def _set_counts(self, j: int) -> tuple[int, int]:
        a = self.assignment
        return int(a.unit_sizes[a.unit_set == j].sum()), int(np.sum(a.unit_set == j))

    def rows(self) -> list[dict[str, Any]]:
        """One row per set × stratum (per set without a stratification column)."""
        a, out = self.assignment, []
        for j, name in enumerate(a.names):
            if a.unit_stratum is None:
                queries, units = self._set_counts(j)
                out.append({"set": name, "stratum": None, "queries": queries, "units": units,
                            "share": queries / self.n_queries,
                            "target_share": self.targets[name]})  # fmt: skip
                continue
            for stratum in np.unique(a.unit_stratum):
                in_h = a.unit_stratum == stratum
                mine = in_h & (a.unit_set == j)
                total = int(a.unit_sizes[in_h].sum())
                queries = int(a.unit_sizes[mine].sum())
                out.append({"set": name, "stratum": str(stratum), "queries": queries,
                            "units": int(mine.sum()), "share": queries / total,
                            "target_share": self.targets[name]})  # fmt: skip
        return out

    def largest(self) -> dict[str, Any]:
        """The largest unit: its queries, share of all queries, set, and distinct values
        per grouping column."""
        a = self.assignment
        u = int(np.argmax(a.unit_sizes))
        return {"queries": int(a.unit_sizes[u]), "share": float(a.unit_sizes[u]) / self.n_queries,
                "set": a.names[int(a.unit_set[u])],
                "group_values": dict(self.largest_values)}  # fmt: skip

    def warnings(self) -> list[str]:
        """A warning per set whose target share one unit alone exceeds."""
        big = self.largest()
        return [
            f"the largest unit holds {big['share']:.1%} of the queries, more than the target "
            f"share of set {name!r} ({share:.1%}): that set cannot be sized finely"
            for name, share in self.targets.items()
            if big["share"] > share
        ]

    def to_dict(self) -> dict[str, Any]:
        """What ``ragstat split --json`` prints."""
        a, N = self.assignment, self.n_queries
        sets = {}
        for j, name in enumerate(a.names):
            queries, units = self._set_counts(j)
            strata = {r["stratum"]: {"queries": r["queries"], "units": r["units"],
                                     "share": plain(r["share"])}
                      for r in self.rows() if r["set"] == name and r["stratum"] is not None}  # fmt: skip
            sets[name] = {"target_share": self.targets[name], "target_queries": self.targets[name] * N,
                          "queries": queries, "units": units, "share": queries / N,
                          "strata": strata}  # fmt: skip
        pairs = [{"sets": list(pair), "shared": dict(c), "total": sum(c.values())}
                 for pair, c in self.leakage.shared.items()]  # fmt: skip
        return {"source": self.source, "format": self.format, "groups": list(self.groups),
                "stratify": self.stratify, "seed": self.seed, "queries": N,
                "units": len(a.unit_sizes), "rule": RULE, "sets": sets,
                "leakage": {"checked_on": "the sets' rows", "pairs": pairs,
                            "shared_values": self.leakage.total,
                            "leak_free": self.leakage.total == 0},
                "largest_unit": self.largest(), "warnings": self.warnings()}  # fmt: skip

    def write(self, folder: str | Path) -> list[Path]:
        """One file per set, ``<set><ext>`` in the input's format, written atomically."""
        from ragstat.atomic import atomic_write

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        return [
            atomic_write(folder / f"{name}{self.format}", partial(_write, frame, fmt=self.format))
            for name, frame in self.frames.items()
        ]


def _write(frame: pd.DataFrame, path: Path, *, fmt: str) -> None:
    if fmt == ".parquet":
        frame.to_parquet(path, index=False)
    elif fmt == ".jsonl":
        frame.to_json(path, orient="records", lines=True, force_ascii=False)
    else:
        frame.to_csv(path, sep="\t" if fmt == ".tsv" else ",", index=False)


def split(
    data: Data,
    *,
    groups: Sequence[str] | str = ("doc_id",),
    sets: Mapping[str, float] | str = DEFAULT_SETS,
    stratify: str | None = None,
    seed: int = 0,
) -> SplitResult:
    """Split a query table into leak-free sets.

    ``data``: a path (.parquet, .csv, .tsv, .jsonl) or a DataFrame with a unique
    ``query_id`` and the ``groups`` columns (no empty values). Queries sharing any group
    value are one unit; units go to ``sets`` (name → target share of the queries, summing
    to 1), stratified by the ``stratify`` column when given, in an order drawn from
    ``seed``. Each set's size is within one unit of its target.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed: expected a whole number ≥ 0, got {seed!r}")
    targets, wanted = parse_sets(sets), parse_groups(groups)
    where = label_of(data, "data")
    frame, fmt = _read(data)
    cols = _check(frame, wanted, stratify, where)
    strat = None
    if stratify is not None:
        strat = resolve_column([str(c) for c in frame.columns], stratify, "--stratify", where)
    work = frame if strat is None else frame.assign(**{strat: frame[strat].fillna("(missing)")})
    assignment = split_rows(work, cols, targets, stratify=strat, seed=int(seed))
    frames = {name: frame[assignment.row_set == j] for j, name in enumerate(assignment.names)}
    biggest = assignment.units == int(np.argmax(assignment.unit_sizes))
    return SplitResult(
        frames=frames, targets=targets, groups=tuple(cols), stratify=strat, seed=int(seed),
        source=where, format=fmt, assignment=assignment, leakage=check_leakage(frames, cols),
        largest_values={c: int(frame[c][biggest].nunique()) for c in cols},
    )  # fmt: skip
