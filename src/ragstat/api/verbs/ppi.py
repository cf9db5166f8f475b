"""``ragstat.ppi``: few human labels, many judge scores — clustered prediction-powered
inference for a mean or a paired difference of two systems.

The formulas (PPI, PPI++ power tuning, the per-document influence function, the two
designs) are in :mod:`ragstat.inference.ppi`; this module reads the table, checks the
columns and builds the tidy result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ragstat.api.data import Data, as_frame, label_of
from ragstat.errors import InputError
from ragstat.inference.headline import describe, headline
from ragstat.inference.ppi import JudgeOnly, Lam, PPIAnalysis, PPIMean, ppi_analysis
from ragstat.inference.verdict import verdicts
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


def _kind(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "boolean"
    if isinstance(v, (int, float, np.number)):
        return "number"
    if isinstance(v, str):
        try:
            float(v)
        except ValueError:
            return "text"
        return "number"
    return type(v).__name__


def _numbers(s: pd.Series, col: str, what: str) -> np.ndarray:
    """A column as float64 (NaN where missing); refuses text and mixed types."""
    if s.dtype == object:
        values = s[s.notna() & (s.astype(str).str.strip() != "")]
        kinds = sorted({_kind(v) for v in values})
        if len(kinds) > 1:
            raise InputError(f"{what} column {col!r} mixes types ({', '.join(kinds)}): "
                             "use numbers only, empty where missing")  # fmt: skip
        if kinds and kinds != ["number"]:
            raise InputError(f"{what} column {col!r} holds {kinds[0]} values, not numbers")
        s = pd.to_numeric(s.where(s.astype(str).str.strip() != ""), errors="coerce")
    elif not (pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s)):
        raise InputError(f"{what} column {col!r} is {s.dtype}, not numbers")
    return np.asarray(s.astype("float64"), dtype=np.float64)


def _column(frame: pd.DataFrame, col: str, what: str) -> pd.Series:
    if col not in frame.columns:
        raise InputError(f"no {what} column {col!r}; columns: {', '.join(map(str, frame.columns))}")
    return frame[col]


def _check_scale(f: np.ndarray, y: np.ndarray, judge: str, human: str) -> None:
    labels = y[~np.isnan(y)]
    if f.size and f.min() >= 0 and f.max() <= 1 and labels.size:
        bad = labels[(labels < 0) | (labels > 1)]
        if bad.size:
            raise InputError(
                f"human labels outside the judge's scale: {judge!r} is in [0, 1] but {human!r} "
                f"has {bad.size} value(s) outside it (e.g. {bad[0]:g}); put both on one scale"
            )


def _items(frame: pd.DataFrame, judge: str, human: str, cluster: str) -> pd.DataFrame:
    f = _numbers(_column(frame, judge, "judge"), judge, "judge")
    y = _numbers(_column(frame, human, "human label"), human, "human label")
    if np.isnan(f).any():
        raise InputError(f"judge column {judge!r} is missing on {int(np.isnan(f).sum())} "
                         "item(s): the judge must score every item")  # fmt: skip
    doc = _column(frame, cluster, "cluster")
    if doc.isna().any():
        raise InputError(f"cluster column {cluster!r} is missing on some items")
    _check_scale(f, y, judge, human)
    return pd.DataFrame({"f": f, "y": y, "doc": doc.astype(str).to_numpy()}, index=frame.index)


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
) -> PPIResult:
    """Clustered PPI(++) for the mean of ``human`` using ``judge`` scores on every item.

    ``data``: one row per item (path, DataFrame or pyarrow Table) with the judge's score on
    every row, the human label where one exists (empty elsewhere) and the document
    (``cluster``). ``system`` keeps one system's rows; ``systems=(A, B)`` estimates the
    paired difference A − B (PPI on per-item differences, paired on ``query_id``).
    ``lam``: "auto" (PPI++), 0 (human-only), 1 (classic PPI) or a number. ``method``: the
    variance — "auto" (the document jackknife for ``same_documents`` with the t interval,
    else CR1, CR0 for ``dist="normal"``), "jackknife" or "cr1".
    """
    frame = _frame(data).reset_index(drop=True)
    if frame.empty:
        raise InputError(f"{label_of(data)}: the table has no rows")
    items = _items(frame, judge, human, cluster)
    if systems is not None:
        pair = tuple(str(s) for s in systems)
        items, estimand = _paired(frame, items, pair), f"difference {pair[0]} − {pair[1]}"
    elif system is not None:
        items, estimand, pair = _by_system(frame, items, system), "mean", None
    else:
        _one_system(frame)
        estimand, pair = "mean", None
    if target_half_width is not None and not math.isfinite(target_half_width):
        raise InputError("target_half_width must be a finite positive number")
    a = ppi_analysis(items["f"].to_numpy(np.float64), items["y"].to_numpy(np.float64),
                     items["doc"].to_numpy(), lam=lam, design=design, level=level, dist=dist,
                     target_half_width=target_half_width, method=method)  # fmt: skip
    return PPIResult(estimand, judge, human, cluster, pair, a, label_of(data), _notes(a))
