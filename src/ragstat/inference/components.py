"""Repeats nested within items within documents: how much of the noise do repeats remove?

A score ``y_dir`` of repeat r of item i of document d follows the two-stage nested
random-effects model

    y_dir = μ + a_d + b_di + e_dir,   a_d ~ (0, σ²_d), b_di ~ (0, σ²_i), e_dir ~ (0, σ²_e),

with σ²_d the variance between documents, σ²_i between items of one document and σ²_e
between repeats of one item (sampling and judge noise). :func:`nested_components`
estimates the three by the method of moments (the ANOVA estimator) and projects the
standard error of the overall mean for other numbers of repeats per item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ragstat.errors import InputError
from ragstat.tidy import Tidy

__all__ = ["PROJECTED_REPEATS", "VarianceComponents", "nested_components", "se_with_repeats"]

#: Repeats per item for which :attr:`VarianceComponents.se_by_repeats` is given.
PROJECTED_REPEATS = (1, 2, 3, 5, 10)


@dataclass(frozen=True, repr=False)
class VarianceComponents(Tidy):
    """σ²_d, σ²_i, σ²_e (truncated at 0; ``*_raw`` before truncation) and projected SEs.

    ``n_repeats`` is the mean number of repeats per item, ``repeats_harmonic`` their
    harmonic mean (the r that gives today's standard error ``se_now`` exactly).
    ``se_by_repeats``: (r, SE with r repeats of every item) for r in 1, 2, 3, 5, 10;
    ``se_infinite_repeats``: the SE if the within-item noise were averaged away.
    """

    between_documents: float
    between_items: float
    within_items: float
    n_documents: int
    n_items: int
    n_repeats: float
    se_now: float
    se_by_repeats: tuple[tuple[int, float], ...]
    se_infinite_repeats: float
    between_documents_raw: float
    between_items_raw: float
    within_items_raw: float
    repeats_harmonic: float
    balanced: bool
    notes: tuple[str, ...] = ()

    headline_columns = ("quantity", "repeats", "value")

    def title(self) -> str:
        return (
            f"Variance components: {self.n_documents} documents, {self.n_items} items, "
            f"{self.n_repeats:.3g} repeats per item"
        )

    def rows(self) -> list[dict[str, Any]]:
        parts = (("variance between documents", self.between_documents),
                 ("variance between items of a document", self.between_items),
                 ("variance between repeats of an item", self.within_items))  # fmt: skip
        rows: list[dict[str, Any]] = [
            {"quantity": q, "repeats": None, "value": v} for q, v in parts
        ]
        rows.append({"quantity": "standard error now", "repeats": self.repeats_harmonic,
                     "value": self.se_now})  # fmt: skip
        rows += [{"quantity": "standard error", "repeats": r, "value": se}
                 for r, se in self.se_by_repeats]  # fmt: skip
        rows.append({"quantity": "standard error with endless repeats", "repeats": None,
                     "value": self.se_infinite_repeats})  # fmt: skip
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "components": {
                "between_documents": self.between_documents,
                "between_items": self.between_items,
                "within_items": self.within_items,
            },
            "components_raw": {
                "between_documents": self.between_documents_raw,
                "between_items": self.between_items_raw,
                "within_items": self.within_items_raw,
            },
            "counts": {
                "documents": self.n_documents,
                "items": self.n_items,
                "repeats_mean": self.n_repeats,
                "repeats_harmonic": self.repeats_harmonic,
            },
            "balanced": self.balanced,
            "se_now": self.se_now,
            "se_by_repeats": {str(r): se for r, se in self.se_by_repeats},
            "se_infinite_repeats": self.se_infinite_repeats,
            "summary": self.summary(),
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """What repeats do for the interval, in two plain sentences."""
        r = self.repeats_harmonic
        if self.balanced:
            head = f"Repeats: {r:.3g} per item."
        else:
            head = f"Repeats: {r:.3g} per item (harmonic mean; items have different numbers)."
        total = self.between_documents + self.between_items + self.within_items
        if not total > 0 or not self.se_now > 0:
            return f"{head} The scores do not vary, so repeats cannot narrow the interval."
        share = self.within_items / total
        if self.between_documents + self.between_items <= 0:
            return (
                f"{head} All of the estimated variance is within-item noise (the between-"
                "document and between-item parts estimate at 0, as few documents often "
                "give), so how much more repeats would narrow the interval cannot be told "
                "from these data."
            )
        if self.within_items <= 0:
            return f"{head} No within-item noise is estimated: more repeats would not help."
        floor = 1.0 - self.se_infinite_repeats / self.se_now
        se10 = dict(self.se_by_repeats)[10]
        if r < 10:
            more = (f"10 repeats would narrow the interval by {1.0 - se10 / self.se_now:.0%}, "
                    f"infinitely many by {floor:.0%}.")  # fmt: skip
        else:
            more = f"more repeats would narrow the interval by at most {floor:.0%}."
        return f"{head} Within-item noise is {share:.0%} of the variance of one score; {more}"


def se_with_repeats(
    m: np.ndarray, sigma2_d: float, sigma2_i: float, sigma2_e: float, r: float
) -> float:
    """SE of the item-weighted mean when every item's score is its mean over r repeats.

    Var(ȳ) = Σ_d m_d² (σ²_d + (σ²_i + σ²_e / r) / m_d) / M²,  M = Σ_d m_d,
    with m_d the items of document d (documents independent, items within a document
    exchangeable; r = ∞ gives the floor σ²_e / r = 0). Cochran 1977, *Sampling
    Techniques*, §10.2 (two-stage sampling), with the repeat stage added.
    """
    M = float(m.sum())
    var_item_mean = sigma2_i + (0.0 if np.isinf(r) else sigma2_e / r)
    return float(np.sqrt(np.sum(m * m * sigma2_d + m * var_item_mean)) / M)


@dataclass(frozen=True)
class _Design:
    """Sums of the nested layout: per item and per document."""

    y: np.ndarray
    item_of_row: np.ndarray  # item code of each score
    doc_of_item: np.ndarray  # document code of each item
    n_di: np.ndarray  # repeats per item
    n_d: np.ndarray  # scores per document
    m_d: np.ndarray  # items per document


def _design(y: Any, document: Any, item: Any) -> tuple[_Design, tuple[str, ...]]:
    import pandas as pd

    y = np.asarray(y, dtype=float)
    document, item = np.asarray(document, dtype=object), np.asarray(item, dtype=object)
    if not (y.shape == document.shape == item.shape) or y.ndim != 1:
        raise InputError("nested_components: y, document and item must be 1-d of one length")
    keep = np.isfinite(y)
    notes = () if keep.all() else (f"{int((~keep).sum())} scores are missing; left out",)
    y, document, item = y[keep], document[keep], item[keep]
    item_code, items = pd.factorize(pd.Series(item).map(str), sort=False)
    doc_code, _ = pd.factorize(pd.Series(document).map(str), sort=False)
    I = len(items)  # noqa: E741  (I items, as in the formulas)
    doc_of_item = np.full(I, -1, dtype=np.int64)
    doc_of_item[item_code] = doc_code
    if np.any(doc_of_item[item_code] != doc_code):
        bad = items[int(item_code[doc_of_item[item_code] != doc_code][0])]
        raise InputError(f"nested_components: item {bad!r} appears in more than one document")
    n_di = np.bincount(item_code, minlength=I).astype(float)
    D = int(doc_code.max()) + 1 if doc_code.size else 0
    n_d = np.bincount(doc_of_item, weights=n_di, minlength=D)
    m_d = np.bincount(doc_of_item, minlength=D).astype(float)
    return _Design(y, item_code, doc_of_item, n_di, n_d, m_d), notes


def _mean_squares(s: _Design) -> tuple[np.ndarray, np.ndarray]:
    """(MS_d, MS_i, MS_e) and their degrees of freedom (D − 1, I − D, N − I)."""
    D, I, N = len(s.n_d), len(s.n_di), float(s.n_di.sum())  # noqa: E741
    ybar_di = np.bincount(s.item_of_row, weights=s.y, minlength=I) / s.n_di
    ybar_d = np.bincount(s.doc_of_item, weights=ybar_di * s.n_di, minlength=D) / s.n_d
    ybar = float(s.y.sum()) / N
    ss_e = float(np.sum((s.y - ybar_di[s.item_of_row]) ** 2))
    ss_i = float(np.sum(s.n_di * (ybar_di - ybar_d[s.doc_of_item]) ** 2))
    ss_d = float(np.sum(s.n_d * (ybar_d - ybar) ** 2))
    df = np.array([D - 1, I - D, N - I], dtype=float)
    ss = np.array([ss_d, ss_i, ss_e])
    return np.divide(ss, df, out=np.zeros(3), where=df > 0), df


def _ems_coefficients(s: _Design) -> tuple[float, float, float]:
    """k₁, k₂, k₃ of E[MS_i] = σ²_e + k₁σ²_i and E[MS_d] = σ²_e + k₂σ²_i + k₃σ²_d.

    k₁ = (N − Σ_d Σ_i n_di² / n_d) / (I − D),
    k₂ = (Σ_d Σ_i n_di² / n_d − Σ_di n_di² / N) / (D − 1),
    k₃ = (N − Σ_d n_d² / N) / (D − 1)   (Searle, Casella & McCulloch 1992, ch. 5;
    Sahai & Ojeda 2005, *Analysis of Variance for Random Models* II, two-way nested).
    """
    D, I, N = len(s.n_d), len(s.n_di), float(s.n_di.sum())  # noqa: E741
    within_d = float(np.sum(np.bincount(s.doc_of_item, weights=s.n_di**2, minlength=D) / s.n_d))
    k1 = (N - within_d) / (I - D) if I > D else float("nan")
    k2 = (within_d - float(np.sum(s.n_di**2)) / N) / (D - 1)
    k3 = (N - float(np.sum(s.n_d**2)) / N) / (D - 1)
    return k1, k2, k3


def _anova(s: _Design) -> tuple[tuple[float, float, float], tuple[str, ...]]:
    """Untruncated (σ²_d, σ²_i, σ²_e) from equating mean squares to their expectations:

    σ²_e = MS_e,  σ²_i = (MS_i − MS_e) / k₁,  σ²_d = (MS_d − MS_e − k₂ σ²_i) / k₃.
    """
    (ms_d, ms_i, ms_e), _ = _mean_squares(s)
    k1, k2, k3 = _ems_coefficients(s)
    sigma2_e = ms_e
    if len(s.n_di) == len(s.n_d):  # one item per document: k₂ = k₃, only σ²_d + σ²_i shows
        note = ("every document has one item: differences between documents and between "
                "items cannot be told apart; both are counted as between items")  # fmt: skip
        return (0.0, (ms_d - ms_e) / k3, sigma2_e), (note,)
    sigma2_i = (ms_i - ms_e) / k1
    sigma2_d = (ms_d - ms_e - k2 * sigma2_i) / k3
    return (sigma2_d, sigma2_i, sigma2_e), ()


def nested_components(y: Any, document: Any, item: Any) -> VarianceComponents:
    """σ²_d, σ²_i, σ²_e of scores ``y`` (one per repeat) of ``item`` within ``document``.

    The ANOVA (method-of-moments) estimator of the unbalanced two-stage nested model
    (Searle, Casella & McCulloch 1992, *Variance Components*, ch. 5): the mean squares
    MS_d (between documents, D − 1 df), MS_i (items within documents, I − D df) and
    MS_e (repeats within items, N − I df) are set equal to their expectations
    E[MS_e] = σ²_e, E[MS_i] = σ²_e + k₁σ²_i, E[MS_d] = σ²_e + k₂σ²_i + k₃σ²_d and solved.
    Unbiased before truncation; negative estimates are set to 0 (and a note says so).
    Standard errors follow :func:`se_with_repeats`.
    """
    s, notes = _design(y, document, item)
    if len(s.n_d) < 2:
        raise InputError("nested_components: needs scores from at least two documents")
    if not np.any(s.n_di > 1):
        raise InputError(
            "nested_components: no item has two or more repeats, so the noise between "
            "repeats cannot be told apart from the differences between items"
        )
    raw_np, more = _anova(s)
    raw = tuple(float(v) for v in raw_np)
    notes += more
    names = ("between documents", "between items", "within items")
    cut = [n for n, v in zip(names, raw, strict=True) if v < 0]
    if cut:
        notes += (f"the estimate of the variance {', '.join(cut)} came out below 0; set to 0",)
    sigma2_d, sigma2_i, sigma2_e = (max(v, 0.0) for v in raw)
    r_h = float(len(s.n_di) / np.sum(1.0 / s.n_di))
    balanced = bool(np.all(s.n_di == s.n_di[0]))

    def se(r: float) -> float:
        return se_with_repeats(s.m_d, sigma2_d, sigma2_i, sigma2_e, r)

    return VarianceComponents(
        between_documents=sigma2_d, between_items=sigma2_i, within_items=sigma2_e,
        n_documents=len(s.n_d), n_items=len(s.n_di), n_repeats=float(s.n_di.mean()),
        se_now=se(r_h), se_by_repeats=tuple((r, se(r)) for r in PROJECTED_REPEATS),
        se_infinite_repeats=se(float("inf")),
        between_documents_raw=raw[0], between_items_raw=raw[1], within_items_raw=raw[2],
        repeats_harmonic=r_h, balanced=balanced, notes=notes,
    )  # fmt: skip
