"""A census: every document of the population, with its sufficient statistics."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragstat.errors import InputError
from ragstat.records import DocStats, aggregate_file, table_columns
from ragstat.simulation.results import CensusSummary

__all__ = ["Census", "load_census"]


@dataclass(frozen=True, eq=False)
class Census:
    """Population arrays (one entry per document) and the true values samples aim at."""

    n: np.ndarray
    s: np.ndarray
    w: np.ndarray
    binary: bool
    stratum: np.ndarray | None
    in_unit: bool = False
    #: The range every score is known to lie in (the range-respecting methods use it);
    #: None: [0, 1] when ``in_unit``, else unknown.
    bounds: tuple[float, float] | None = None
    #: Rows left out because their score was not a number (``non_numeric="missing"``).
    non_numeric: int = 0

    @classmethod
    def from_docstats(cls, stats: DocStats) -> Census:
        known = stats.known_bounds()
        return cls(
            stats.n,
            stats.s,
            stats.within_ss,
            stats.binary,
            stats.stratum,
            known == (0.0, 1.0),
            known,
            stats.non_numeric,
        )

    @property
    def known_bounds(self) -> tuple[float, float] | None:
        """``bounds``, else [0, 1] for scores in the unit interval, else None."""
        if self.bounds is not None:
            return self.bounds
        return (0.0, 1.0) if self.in_unit else None

    @property
    def M(self) -> int:
        return int(self.n.shape[0])

    @property
    def micro(self) -> float:
        return float(self.s.sum() / self.n.sum())

    @property
    def macro(self) -> float:
        return float(np.mean(self.s / self.n))

    def type_mean(self) -> float | None:
        """Mean over types of the mean document rate (the two-stage target)."""
        if self.stratum is None:
            return None
        _labels, codes = np.unique(self.stratum.astype(str), return_inverse=True)
        r = self.s / self.n
        return float(np.mean(np.bincount(codes, weights=r) / np.bincount(codes)))

    def summary(self) -> CensusSummary:
        return CensusSummary(self.M, round(self.n.sum()), self.micro, self.macro, self.type_mean())


def load_census(
    path: str | Path,
    *,
    cluster: str = "doc_id",
    score: str = "hit",
    stratum: str | None = None,
    system: str | None = None,
    non_numeric: str = "error",
) -> Census:
    """A census from a per-query table, or from a per-document table with columns n and s
    (optionally q or w, and the stratum column). A score cell that is not a number is an
    error unless ``non_numeric="missing"`` (its row left out, counted in ``non_numeric``)."""
    cols = table_columns(path)
    if {"n", "s"} <= set(cols) and score not in cols:
        return _from_doc_table(path, cluster, stratum, non_numeric)
    stats = aggregate_file(path, cluster=cluster, score=score, stratum=stratum, system=system,
                           non_numeric=non_numeric)  # fmt: skip
    return Census.from_docstats(stats)


def _totals(frame, path, non_numeric: str) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The per-document columns n, s (and q, w when present) as numbers, one rule for their
    cells (:mod:`ragstat.records.cells`): a cell that is not a number stops with one line
    unless ``non_numeric="missing"``, and then its document's row is left out (the mask of
    those rows is returned); a missing cell is an error either way (a document without its
    totals)."""
    from ragstat.records.cells import numeric_cells, parse_cells

    out, bad = {}, np.zeros(len(frame), bool)
    for name in [c for c in ("n", "s", "q", "w") if c in frame.columns]:
        values, cells = numeric_cells(frame[name], name, str(path), non_numeric)
        if cells.missing:
            raise InputError(
                f"{path}: column {name!r} of the per-document table is missing in "
                f"{cells.missing} row(s): every document needs its totals"
            )
        if cells.non_numeric:
            bad |= parse_cells(frame[name])[1]
        out[name] = values
    return {k: v[~bad] for k, v in out.items()}, bad


def _from_doc_table(path, cluster: str, stratum: str | None, non_numeric: str) -> Census:
    import pandas as pd

    from ragstat.records import duck

    con = duck.connect()
    try:
        duck.attach(con, path, "docs")
        frame = duck.run(con, str(path), "SELECT * FROM docs").df()
    finally:
        con.close()
    if cluster not in frame.columns:
        raise InputError(f"{path}: per-document table needs {cluster!r}, n and s columns")
    if stratum is not None and stratum not in frame.columns:
        raise InputError(f"{path}: no stratum column {stratum!r}; columns: {list(frame.columns)}")
    t, left_out = _totals(frame, path, non_numeric)
    frame = frame[~left_out]
    n, s = t["n"], t["s"]
    q = t.get("q")
    if q is None and "w" in t:  # w = Σ (y − r_d)², so Σ y² = w + s²/n
        q = t["w"] + s**2 / n
    binary = q is None and bool(np.all(s == np.round(s)) and np.all((s >= 0) & (s <= n)))
    if q is None and not binary:
        raise InputError(f"{path}: non-binary scores need a q (Σy²) or w column per document")
    stats = DocStats(
        doc_id=frame[cluster].astype(str).to_numpy(),
        n=n,
        s=s,
        q=s if q is None else q,
        w=t.get("w"),
        binary=binary,
        stratum=None if stratum is None else pd.Series(frame[stratum]).astype(str).to_numpy(),
        non_numeric=int(left_out.sum()),
    )
    return Census.from_docstats(stats)
