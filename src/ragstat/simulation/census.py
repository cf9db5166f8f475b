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
        return _from_doc_table(path, cluster, stratum)
    stats = aggregate_file(path, cluster=cluster, score=score, stratum=stratum, system=system,
                           non_numeric=non_numeric)  # fmt: skip
    return Census.from_docstats(stats)


def _from_doc_table(path, cluster: str, stratum: str | None) -> Census:
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
    n, s = frame["n"].to_numpy(float), frame["s"].to_numpy(float)
    q = frame["q"].to_numpy(float) if "q" in frame.columns else None
    if q is None and "w" in frame.columns:  # w = Σ (y − r_d)², so Σ y² = w + s²/n
        q = frame["w"].to_numpy(float) + s**2 / n
    binary = q is None and bool(np.all(s == np.round(s)) and np.all((s >= 0) & (s <= n)))
    if q is None and not binary:
        raise InputError(f"{path}: non-binary scores need a q (Σy²) or w column per document")
    stats = DocStats(
        doc_id=frame[cluster].astype(str).to_numpy(),
        n=n,
        s=s,
        q=s if q is None else q,
        w=frame["w"].to_numpy(float) if "w" in frame.columns else None,
        binary=binary,
        stratum=None if stratum is None else pd.Series(frame[stratum]).astype(str).to_numpy(),
    )
    return Census.from_docstats(stats)
