"""An LLM judge's own biases, one row per unit with its document (the cluster).

* **Position bias** from swapped pairwise calls (Zheng et al. 2023, "Judging
  LLM-as-a-Judge with MT-Bench and Chatbot Arena", §3.3): each pair (A, B) is judged
  with A listed first and with B listed first. A verdict names the winning *position*
  (first, second, tie). The pair is **consistent** when the same answer wins in both
  orders, or both calls are ties. The **first-slot preference** is the share of calls
  won by the first-listed answer among the calls that are not ties,
  Σ_pairs first_wins / Σ_pairs decisive (0.5: no position bias).
* **Verbosity bias** (Dubois et al. 2024, "Length-Controlled AlpacaEval"): per pairwise
  judgment the preference for A, y ∈ {1 (A wins), ½ (tie), 0 (B wins)} or a number in
  [0, 1], and the length difference x = (len_A − len_B) / per. The linear-probability
  regression y = α + β x gives β, the change in the preference per ``per`` length units,
  and α, the **length-controlled preference** for A: the preference predicted at zero
  length difference (a linear analogue of AlpacaEval's length-controlled win rate).
  Standard errors are document-clustered CR2 (Bell & McCaffrey 2002; Pustejovsky &
  Tipton 2018) with Bell–McCaffrey degrees of freedom (working model Ω = I).
* **Self-consistency** of sampled generations (Wang et al. 2023, "Self-Consistency
  Improves Chain of Thought Reasoning"): per item m sampled answers; the modal answer
  (the most frequent normalised answer; a tie goes to the one seen first) and the
  agreement a_i = count(modal) / m. Items with a_i below a threshold are flagged.

Intervals are computed by the API twin (:mod:`ragstat.api.verbs.judge_bias`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragstat.errors import InputError

__all__ = [
    "ClusteredFit",
    "SelfConsistency",
    "SwapPairs",
    "VerbosityBias",
    "cr2_regression",
    "normalize_answer",
    "preference_value",
    "self_consistency",
    "swap_pairs",
    "verbosity_bias",
]

_POSITION = {"first": "first", "a": "first", "1": "first",
             "second": "second", "b": "second", "2": "second", "tie": "tie", "c": "tie"}  # fmt: skip
_WINNER_AB = {"first": "A", "second": "B", "tie": "tie"}  # A listed first
_WINNER_BA = {"first": "B", "second": "A", "tie": "tie"}  # B listed first
_PREFERENCE = {"a": 1.0, "b": 0.0, "tie": 0.5}


def _position(value: object, where: str) -> str:
    v = _POSITION.get(str(value).strip().lower()) if isinstance(value, (str, int)) else None
    if v is None:
        raise InputError(
            f"{where}: a verdict names the winning position: first|A|1, second|B|2 or "
            f"tie|C; got {value!r}"
        )
    return v


def _records(**columns: Sequence[Any]) -> list[dict[str, Any]]:
    """Columns of equal length as one mapping per row."""
    return [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def _docs(doc_id: Sequence[object], n: int, what: str) -> np.ndarray:
    if len(doc_id) != n:
        raise InputError(f"{what}: {len(doc_id)} documents for {n} rows")
    if n == 0:
        raise InputError(f"{what}: no rows")
    return np.array([str(d) for d in doc_id], dtype=object)


@dataclass(frozen=True)
class SwapPairs:
    """Pairs judged in both orders: per pair the winner in each order (A, B or tie), whether
    they agree, and how many of its two calls the first-listed answer won (``first_wins``)
    out of the calls that were not ties (``decisive``)."""

    pair_id: tuple[str, ...]
    doc_id: np.ndarray
    winner_ab: tuple[str, ...]
    winner_ba: tuple[str, ...]
    consistent: np.ndarray
    first_wins: np.ndarray
    decisive: np.ndarray

    @property
    def consistency(self) -> float:
        """Share of pairs with the same winner (or a tie) in both orders."""
        return float(self.consistent.mean())

    @property
    def first_slot_preference(self) -> float:
        """Σ first_wins / Σ decisive: calls won by the first-listed answer, ties excluded."""
        den = int(self.decisive.sum())
        return float(self.first_wins.sum() / den) if den else float("nan")

    def first_slot_calls(self) -> tuple[np.ndarray, np.ndarray]:
        """One row per decisive call: its document and 1 when the first-listed answer won."""
        docs = np.repeat(self.doc_id, self.decisive)
        starts = np.cumsum(self.decisive) - self.decisive
        within = np.arange(docs.size) - np.repeat(starts, self.decisive)
        return docs, (within < np.repeat(self.first_wins, self.decisive)).astype(np.float64)

    def rows(self) -> list[dict[str, Any]]:
        return _records(
            pair_id=self.pair_id, doc_id=self.doc_id.tolist(), winner_ab=self.winner_ab,
            winner_ba=self.winner_ba, consistent=self.consistent.tolist(),
            first_wins=self.first_wins.tolist(), decisive_calls=self.decisive.tolist(),
        )  # fmt: skip


def swap_pairs(
    pair_id: Sequence[object],
    doc_id: Sequence[object],
    verdict_ab: Sequence[object],
    verdict_ba: Sequence[object],
) -> SwapPairs:
    """Position bias from each pair's verdict with A listed first (``verdict_ab``) and with
    B listed first (``verdict_ba``); a verdict names the winning position."""
    n = len(pair_id)
    if not (len(verdict_ab) == len(verdict_ba) == n):
        raise InputError("position bias: every pair needs both verdicts (A first, B first)")
    docs = _docs(doc_id, n, "position bias")
    ab = [_position(v, f"pair {p!r} verdict_ab") for p, v in zip(pair_id, verdict_ab, strict=True)]
    ba = [_position(v, f"pair {p!r} verdict_ba") for p, v in zip(pair_id, verdict_ba, strict=True)]
    win_ab = tuple(_WINNER_AB[v] for v in ab)
    win_ba = tuple(_WINNER_BA[v] for v in ba)
    return SwapPairs(
        pair_id=tuple(map(str, pair_id)),
        doc_id=docs,
        winner_ab=win_ab,
        winner_ba=win_ba,
        consistent=np.array([a == b for a, b in zip(win_ab, win_ba, strict=True)], dtype=bool),
        first_wins=np.array([(x == "first") + (y == "first") for x, y in zip(ab, ba, strict=True)]),
        decisive=np.array([(x != "tie") + (y != "tie") for x, y in zip(ab, ba, strict=True)]),
    )


# ------------------------------------------------------------------ clustered regression


@dataclass(frozen=True)
class ClusteredFit:
    """OLS coefficients with CR2 standard errors and Bell–McCaffrey df per coefficient."""

    coef: np.ndarray
    vcov: np.ndarray
    df: np.ndarray
    N: int
    K: int

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.diag(self.vcov))


def _inverse_sqrt(m: np.ndarray) -> np.ndarray:
    """(I − H_gg)^(−1/2) by eigendecomposition; a zero eigenvalue gets a zero (pseudo-inverse)."""
    lam, vec = np.linalg.eigh(m)
    inv = np.where(lam > 1e-12, 1.0 / np.sqrt(np.clip(lam, 1e-300, None)), 0.0)
    return (vec * inv) @ vec.T


def _bm_df(W: list[np.ndarray], B: np.ndarray, M: np.ndarray) -> float:
    """ν = tr(GᵀG)² / tr((GᵀG)²) with GᵀG = diag(‖w_g‖²) − BᵀMB (the N-space G of
    Bell–McCaffrey under Ω = I, reduced to K × K: columns g = (I − H)ᵀ_{·g} w_g)."""
    GG = -(B.T @ M @ B)
    GG[np.diag_indices_from(GG)] += np.array([w @ w for w in W])
    tr, tr2 = float(np.trace(GG)), float(np.sum(GG * GG))
    return tr * tr / tr2 if tr2 > 0 else float("nan")


def cr2_regression(
    X: np.ndarray, y: np.ndarray, cluster: Sequence[object] | np.ndarray
) -> ClusteredFit:
    """OLS of ``y`` on ``X`` with the CR2 sandwich clustered by ``cluster``.

    β = M Xᵀy, M = (XᵀX)⁻¹, e = y − Xβ; A_g = (I − X_g M X_gᵀ)^(−1/2);
    V = M [Σ_g X_gᵀ A_g e_g e_gᵀ A_g X_g] M (Bell & McCaffrey 2002). For coefficient j,
    w_g = A_g X_g M c_j and the df are :func:`_bm_df`'s. With X = 1 this is
    ``ragstat.inference.variance.se_cr2`` and ``df_bell_mccaffrey``.
    """
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    _, codes = np.unique(np.asarray([str(c) for c in cluster]), return_inverse=True)
    K, p = int(codes.max()) + 1, X.shape[1]
    if K < 2:
        raise InputError(f"need at least two documents for a clustered interval, got K = {K}")
    if np.linalg.matrix_rank(X) < p:
        raise InputError("the regression is not identified: a predictor is constant")
    M = np.linalg.inv(X.T @ X)
    coef = M @ X.T @ y
    e = y - X @ coef
    order = np.argsort(codes, kind="stable")
    groups = np.split(order, np.cumsum(np.bincount(codes, minlength=K))[:-1])
    A = [_inverse_sqrt(np.eye(g.size) - X[g] @ M @ X[g].T) for g in groups]
    U = np.array([X[g].T @ a @ e[g] for g, a in zip(groups, A, strict=True)])  # K × p
    vcov = M @ (U.T @ U) @ M
    df = np.empty(p)
    for j in range(p):
        W = [a @ X[g] @ M[:, j] for g, a in zip(groups, A, strict=True)]
        B = np.array([X[g].T @ w for g, w in zip(groups, W, strict=True)]).T  # p × K
        df[j] = _bm_df(W, B, M)
    return ClusteredFit(coef=coef, vcov=vcov, df=df, N=int(y.size), K=K)


# ------------------------------------------------------------------ verbosity


def preference_value(value: object, where: str) -> float:
    """The preference for A: A → 1, B → 0, tie → ½, or a number in [0, 1]."""
    if isinstance(value, str):
        v = _PREFERENCE.get(value.strip().lower())
        if v is not None:
            return v
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    raise InputError(f"{where}: the preference is A, B, tie or a number in [0, 1]; got {value!r}")


@dataclass(frozen=True)
class VerbosityBias:
    """Pairwise judgments: the preference for A, the length difference len_A − len_B and the
    clustered fit of preference = α + β (len_A − len_B) / per."""

    doc_id: np.ndarray
    preference: np.ndarray
    length_diff: np.ndarray
    per: float
    fit: ClusteredFit

    @property
    def length_controlled(self) -> float:
        """α: the preference for A predicted at zero length difference."""
        return float(self.fit.coef[0])

    @property
    def slope(self) -> float:
        """β: the change in the preference for A per ``per`` units of length difference."""
        return float(self.fit.coef[1])

    def longer_wins(self) -> tuple[np.ndarray, np.ndarray]:
        """Judgments with unequal lengths and no tie: document and 1 when the longer won."""
        keep = (self.length_diff != 0) & (self.preference != 0.5)
        longer_a = self.length_diff[keep] > 0
        won_a = self.preference[keep] > 0.5
        return self.doc_id[keep], (longer_a == won_a).astype(np.float64)

    def rows(self) -> list[dict[str, Any]]:
        return [
            {"doc_id": d, "preference": float(y), "length_diff": float(x)}
            for d, y, x in zip(self.doc_id, self.preference, self.length_diff, strict=True)
        ]


def verbosity_bias(
    doc_id: Sequence[object],
    preference: Sequence[float],
    length_a: Sequence[float],
    length_b: Sequence[float],
    *,
    per: float = 100.0,
) -> VerbosityBias:
    """Regress the preference for A on (len_A − len_B) / ``per``, clustered by document."""
    if not (isinstance(per, (int, float)) and per > 0):
        raise InputError(f"per must be a positive number of length units, got {per!r}")
    y = np.asarray(preference, dtype=np.float64)
    docs = _docs(doc_id, y.size, "verbosity bias")
    try:
        la, lb = np.asarray(length_a, dtype=np.float64), np.asarray(length_b, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("verbosity bias: lengths must be numbers") from None
    x = la - lb
    if x.shape != y.shape or not np.all(np.isfinite(x)) or np.any(np.minimum(la, lb) < 0):
        raise InputError("verbosity bias: every judgment needs two finite lengths ≥ 0")
    if np.all(x == x[0]):
        raise InputError("verbosity bias: the length difference is the same in every judgment")
    X = np.column_stack([np.ones_like(x), x / per])
    fit = cr2_regression(X, y, docs)
    return VerbosityBias(doc_id=docs, preference=y, length_diff=x, per=float(per), fit=fit)


# ------------------------------------------------------------------ self-consistency


def normalize_answer(value: object) -> str:
    """An answer as compared: text case-folded with runs of whitespace made one space."""
    return " ".join(str(value).split()).casefold()


@dataclass(frozen=True)
class SelfConsistency:
    """Per item: its samples, the modal answer and the agreement a = count(modal) / m."""

    item_id: tuple[str, ...]
    doc_id: np.ndarray
    samples: np.ndarray
    modal: tuple[str, ...]
    agreement: np.ndarray
    threshold: float

    @property
    def flagged(self) -> np.ndarray:
        """Items whose agreement is below the threshold."""
        return self.agreement < self.threshold

    def distribution(self) -> list[dict[str, Any]]:
        """How many items have each agreement value (ascending)."""
        values, counts = np.unique(np.round(self.agreement, 12), return_counts=True)
        return [
            {"agreement": float(v), "items": int(c)} for v, c in zip(values, counts, strict=True)
        ]

    def rows(self) -> list[dict[str, Any]]:
        return _records(
            item_id=self.item_id, doc_id=self.doc_id.tolist(), samples=self.samples.tolist(),
            modal_answer=self.modal, agreement=self.agreement.tolist(),
            flagged=self.flagged.tolist(),
        )  # fmt: skip


def _modal(answers: Sequence[object]) -> tuple[str, int]:
    counts = Counter(normalize_answer(a) for a in answers)
    top = max(counts.values())
    first = next(a for a in map(normalize_answer, answers) if counts[a] == top)
    return first, top


def self_consistency(
    item_id: Sequence[object],
    doc_id: Sequence[object],
    answers: Sequence[Sequence[object]],
    *,
    threshold: float = 0.5,
) -> SelfConsistency:
    """Agreement of each item's sampled answers with their modal answer (≥ 2 samples each)."""
    if not (isinstance(threshold, (int, float)) and 0 <= threshold <= 1):
        raise InputError(f"threshold must be a number in [0, 1], got {threshold!r}")
    docs = _docs(doc_id, len(item_id), "self-consistency")
    if len(answers) != len(item_id):
        raise InputError("self-consistency: one list of sampled answers per item")
    few = [str(i) for i, a in zip(item_id, answers, strict=True) if len(a) < 2]
    if few:
        raise InputError(f"self-consistency: item {few[0]!r} has fewer than two sampled answers")
    modal = [_modal(a) for a in answers]
    m = np.array([len(a) for a in answers])
    return SelfConsistency(
        item_id=tuple(map(str, item_id)),
        doc_id=docs,
        samples=m,
        modal=tuple(a for a, _ in modal),
        agreement=np.array([c for _, c in modal]) / m,
        threshold=float(threshold),
    )
