"""``ragstat.ppi``: few human labels, many judge scores — clustered prediction-powered
inference for a mean or a paired difference of two systems.

The formulas (PPI, PPI++ power tuning, the per-document influence function, the two
designs) are in :mod:`ragstat.inference.ppi`; this module reads the table, checks the
columns and builds the tidy result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ragstat.api.data import Data, as_frame, label_of
from ragstat.api.verbs.ppi_checks import cell_notes, check_ppi_memory, ppi_arguments
from ragstat.errors import InputError
from ragstat.inference.headline import describe, headline
from ragstat.inference.ppi import JudgeOnly, Lam, PPIAnalysis, PPIMean, ppi_analysis
from ragstat.inference.verdict import verdicts
from ragstat.records.cells import CellCounts, check_non_numeric, numeric_cells
from ragstat.tidy import Tidy, plain

__all__ = ["PPIResult", "ppi"]


def _interval(fit: PPIMean | JudgeOnly) -> dict[str, Any]:
    out = {"estimate": fit.estimate, "se": fit.se, "lower": fit.lower, "upper": fit.upper,
           "df": fit.df}  # fmt: skip
    return {k: plain(v) for k, v in out.items()}


@dataclass(frozen=True, repr=False)
class PPIResult(Tidy):
    """PPI(++) beside the human-only interval and the judge-only (biased) estimate."""

    estimand: str
    judge: str
    human: str
    cluster: str
    systems: tuple[str, ...] | None
    analysis: PPIAnalysis
    source: str
    notes: tuple[str, ...] = ()
    #: Cells without a number per column ("judge", "human"): missing vs not a number.
    cells: Mapping[str, CellCounts] = field(default_factory=dict)

    headline_columns = ("estimand", "method", "estimate", "lower", "upper", "lambda")

    def title(self) -> str:
        a = self.analysis.ppi
        return (f"ppi: {self.estimand} of {self.human} with judge {self.judge} "
                f"({a.n_labelled} labelled / {a.n_unlabelled} unlabelled items, "
                f"{a.K} documents; {a.design}, {a.level:.0%})")  # fmt: skip

    def headline_report(self) -> dict[str, Any]:
        """The PPI interval in a report's shape (K = the labelled documents, whose human
        labels it rests on; bounds (0, 1) for a mean of labels in [0, 1], (−1, 1) for a
        difference), read by :func:`ragstat.inference.headline.headline` like every output."""
        p = self.analysis.ppi
        bounds = (-1.0, 1.0) if self.systems is not None else (0.0, 1.0)
        outside = bool(p.lower < bounds[0] or p.upper > bounds[1])
        iv = {"method": "ppi", "lower": plain(p.lower), "upper": plain(p.upper),
              "available": True, "outside_range": outside}  # fmt: skip
        est = {"estimate": plain(p.estimate), "recommended": "ppi", "intervals": [iv]}
        return {"K": p.K_labelled, "level": p.level, "bounds": list(bounds),
                "estimands": {"micro": est}}  # fmt: skip

    def sentences(self) -> list[str]:
        """One plain sentence: the PPI interval (or why there is none), naming the design."""
        data, p = self.headline_report(), self.analysis.ppi
        tail = f"; PPI with judge {self.judge}, design {p.design}"
        if self.systems is not None:
            a, b = self.systems
            found = verdicts(data, a, b, score=self.human, clusters="labelled documents")
            return [found[0].sentence.replace("a random query", "a random item", 1) + tail]
        h = replace(headline(data, "micro"), question="a random item")
        label = f"the human label {self.human}"
        return [describe(h, label, noun="labelled documents") + tail]

    def rows(self) -> list[dict[str, Any]]:
        a = self.analysis
        rows = []
        for method, fit, lam in (("ppi", a.ppi, a.ppi.lam), ("human_only", a.human_only, 0.0),
                                 ("judge_only", a.judge_only, None)):  # fmt: skip
            rows.append({"estimand": self.estimand, "method": method, **_interval(fit),
                         "lambda": lam, "level": a.ppi.level})  # fmt: skip
        return rows

    def headline_rows(self) -> list[dict[str, Any]]:
        return self.rows()[:2]

    def to_dict(self) -> dict[str, Any]:
        a = self.analysis
        p = a.ppi
        needed = a.labels_needed
        return {
            "verb": "ppi",
            "source": self.source,
            "estimand": self.estimand,
            "columns": {"judge": self.judge, "human": self.human, "cluster": self.cluster},
            "systems": None if self.systems is None else list(self.systems),
            "design": p.design,
            "dist": p.dist,
            "method": p.method,
            "level": p.level,
            "lambda": p.lam,
            "lambda_rule": "auto (PPI++, clipped to [0, 1])" if p.lam_auto else "fixed",
            "counts": {
                "labelled": p.n_labelled,
                "unlabelled": p.n_unlabelled,
                "documents": p.K,
                "labelled_documents": p.K_labelled,
                "cells": {k: c.to_dict() for k, c in self.cells.items()},
            },
            "ppi": _interval(p),
            "human_only": _interval(a.human_only),
            "judge_only": _interval(a.judge_only),
            "effective_labels": plain(a.effective_labels),
            "target_half_width": a.target_half_width,
            "labels_needed": needed,
            "additional_labels": None if needed is None else max(0, needed - p.n_labelled),
            "notes": list(self.notes),
        }


def _frame(data: Data) -> pd.DataFrame:
    return as_frame(data)


def _column(frame: pd.DataFrame, col: str, what: str) -> pd.Series:
    if col not in frame.columns:
        raise InputError(f"no {what} column {col!r}; columns: {', '.join(map(str, frame.columns))}")
    return frame[col]


def _check_scale(f: np.ndarray, y: np.ndarray, judge: str, human: str) -> None:
    scores, labels = f[~np.isnan(f)], y[~np.isnan(y)]
    if scores.size and scores.min() >= 0 and scores.max() <= 1 and labels.size:
        bad = labels[(labels < 0) | (labels > 1)]
        if bad.size:
            raise InputError(
                f"human labels outside the judge's scale: {judge!r} is in [0, 1] but {human!r} "
                f"has {bad.size} value(s) outside it (e.g. {bad[0]:g}); put both on one scale"
            )


def _items(
    frame: pd.DataFrame, judge: str, human: str, cluster: str, where: str, non_numeric: str
) -> tuple[pd.DataFrame, dict[str, CellCounts]]:
    """Judge score, human label and document per row, with the cell counts of both columns.

    A cell that is not a number stops here (one line) unless ``non_numeric="missing"``:
    then a judge cell that is not a number leaves its item out (f is NaN until
    :func:`_scored` drops it) and a human cell that is not a number counts as unlabelled.
    """
    f, f_cells = numeric_cells(_column(frame, judge, "judge"), judge, where, non_numeric)
    y, y_cells = numeric_cells(_column(frame, human, "human label"), human, where, non_numeric)
    if f_cells.missing:
        raise InputError(f"judge column {judge!r} is missing on {f_cells.missing} "
                         "item(s): the judge must score every item")  # fmt: skip
    doc = _column(frame, cluster, "cluster")
    if doc.isna().any():
        raise InputError(f"cluster column {cluster!r} is missing on some items")
    _check_scale(f, y, judge, human)
    items = pd.DataFrame({"f": f, "y": y, "doc": doc.astype(str).to_numpy()}, index=frame.index)
    return items, {"judge": f_cells, "human": y_cells}


def _scored(items: pd.DataFrame) -> pd.DataFrame:
    """The items with a judge score (a pair: both), those left out as not numbers dropped."""
    return items[items["f"].notna()]


def _by_system(frame: pd.DataFrame, items: pd.DataFrame, name: str) -> pd.DataFrame:
    rows = items[(_column(frame, "system", "system") == name).to_numpy()]
    if rows.empty:
        raise InputError(f"no rows of system {name!r}")
    return rows


def _paired(frame: pd.DataFrame, items: pd.DataFrame, systems: tuple[str, ...]) -> pd.DataFrame:
    """Per-item differences A − B, paired on query_id (a label only where both have one)."""
    if len(systems) != 2 or systems[0] == systems[1]:
        raise InputError(f"systems: expected two different names, got {list(systems)}")
    key = _column(frame, "query_id", "query_id (to pair the systems)").astype(str)
    a, b = (_by_system(frame, items, s).assign(q=key) for s in systems)
    for part, s in ((a, systems[0]), (b, systems[1])):
        if part["q"].duplicated().any():
            raise InputError(f"system {s!r} has more than one row for some query_id")
    both = a.merge(b, on="q", suffixes=("_a", "_b"), how="outer", indicator=True)
    if (both["_merge"] != "both").any():
        lone = int((both["_merge"] != "both").sum())
        raise InputError(f"{lone} query_id(s) appear for only one of {systems[0]!r}, "
                         f"{systems[1]!r}: the paired difference needs both")  # fmt: skip
    return pd.DataFrame({"f": both["f_a"] - both["f_b"], "y": both["y_a"] - both["y_b"],
                         "doc": both["doc_a"]})  # fmt: skip


def _one_system(frame: pd.DataFrame) -> None:
    if "system" in frame.columns and frame["system"].nunique() > 1:
        names = ", ".join(map(str, sorted(frame["system"].dropna().unique(), key=str)[:5]))
        raise InputError(f"the table holds several systems ({names}): keep one with system "
                         "(--system) or compare two with systems (--systems A,B)")  # fmt: skip


#: The design in words, and when the interval is ppi_py's.
_DESIGN_WORDS = {
    "same_documents": "Design same_documents: the labelled items are a random subset of the "
    "same documents' items. ppi_py's ppi_mean_ci is a different computation here; it is "
    "reproduced only with --design disjoint_documents --dist normal and one item per document.",
    "disjoint_documents": "Design disjoint_documents: labelled and unlabelled items come from "
    "separate documents. With --dist normal and one item per document this equals ppi_py's "
    "ppi_mean_ci.",
}


def _notes(a: PPIAnalysis) -> tuple[str, ...]:
    p = a.ppi
    notes = [f"The judge is worth about {a.effective_labels:.0f} human labels "
             f"({p.n_labelled} used): human-only variance / PPI variance × labels."]  # fmt: skip
    if p.method == "jackknife":
        tail = f"t interval on K − 1 = {p.K - 1} df" if p.dist == "t" else "normal interval"
        notes.append("Delete-one-document jackknife of the whole estimator (λ re-tuned on "
                     f"every replicate); {tail}.")  # fmt: skip
    elif p.design == "same_documents":
        notes.append("One influence value per document sums its labelled and unlabelled "
                     f"items; t interval on K − 1 = {p.K - 1} df (CR1)." if p.dist == "t" else
                     "One influence value per document; normal interval (CR0).")  # fmt: skip
    notes.append(_DESIGN_WORDS[p.design])
    if a.target_half_width is not None and a.labels_needed is None:
        notes.append("The target half-width is out of reach by labels alone: the judge-scored "
                     "part of the variance already exceeds it.")  # fmt: skip
    return tuple(notes)


def ppi(
    data: Data,
    *,
    judge: str,
    human: str,
    cluster: str = "doc_id",
    system: str | None = None,
    systems: tuple[str, ...] | list[str] | None = None,
    lam: Lam = "auto",
    design: str = "same_documents",
    level: float = 0.95,
    target_half_width: float | None = None,
    dist: str = "t",
    method: str = "auto",
    non_numeric: str = "error",
) -> PPIResult:
    """Clustered PPI(++) for the mean of ``human`` using ``judge`` scores on every item.

    ``data``: one row per item (path, DataFrame or pyarrow Table) with the judge's score on
    every row, the human label where one exists (empty elsewhere) and the document
    (``cluster``). ``system`` keeps one system's rows; ``systems=(A, B)`` estimates the
    paired difference A − B (PPI on per-item differences, paired on ``query_id``).
    ``lam``: "auto" (PPI++), 0 (human-only), 1 (classic PPI) or a number. ``method``: the
    variance — "auto" (the document jackknife for ``same_documents`` with the t interval,
    else CR1, CR0 for ``dist="normal"``), "jackknife" or "cr1". A cell of ``judge`` or
    ``human`` that is not a number is an error unless ``non_numeric="missing"`` (then the
    item is left out, or, for a human label, counted as unlabelled; the notes count them).
    """
    level, target_half_width = ppi_arguments(level, target_half_width)
    frame = _frame(data).reset_index(drop=True)
    where = label_of(data)
    if frame.empty:
        raise InputError(f"{where}: the table has no rows")
    check_ppi_memory(len(frame), where)
    items, cells = _items(frame, judge, human, cluster, where, check_non_numeric(non_numeric))
    if systems is not None:
        pair = tuple(str(s) for s in systems)
        items, estimand = _paired(frame, items, pair), f"difference {pair[0]} − {pair[1]}"
    elif system is not None:
        items, estimand, pair = _by_system(frame, items, system), "mean", None
    else:
        _one_system(frame)
        estimand, pair = "mean", None
    items = _scored(items)
    a = ppi_analysis(items["f"].to_numpy(np.float64), items["y"].to_numpy(np.float64),
                     items["doc"].to_numpy(), lam=lam, design=design, level=level, dist=dist,
                     target_half_width=target_half_width, method=method)  # fmt: skip
    notes = (*cell_notes(cells, judge, human), *_notes(a))
    return PPIResult(estimand, judge, human, cluster, pair, a, where, notes, cells)
