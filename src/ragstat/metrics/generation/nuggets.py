"""Nugget completeness (the RAG reference, answer completeness), as scored in the TREC 2024
RAG track: Pradeep et al. 2024, "Initial Nugget Evaluation Results for the TREC 2024 RAG Track
with the AutoNuggetizer Framework" (arXiv:2411.09607), and its ``nuggetizer`` package.

Each answer has nuggets, each with an ``importance`` (``vital`` or ``okay``) and a ``support``
assignment (``support``, ``partial_support``, ``not_support``). With ``s_i`` the nugget's
credit — 1 for support, 0.5 for partial support, 0 otherwise — and ``s*_i`` the strict
credit — 1 for support only — the four scores of an answer are

* ``A = Σ_{all} s_i / |all|`` (All), ``A_strict = Σ_{all} s*_i / |all|`` (All strict);
* ``V = Σ_{vital} s_i / |vital|`` (Vital), ``V_strict = Σ_{vital} s*_i / |vital|``
  (Vital strict, the track's primary score).

An answer with no nugget has no score; an answer with no vital nugget has no ``V`` /
``V_strict`` (the ``nuggetizer`` package writes 0.0 there; ragstat leaves them out and
counts them, so an empty denominator never reads as a failed answer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["IMPORTANCE", "NUGGET_SCORES", "SUPPORT", "NuggetScores", "nugget_scores"]

#: The importance labels of a nugget.
IMPORTANCE = ("vital", "okay")
#: Support assignment → credit (partial support counts half outside the strict scores).
SUPPORT = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
#: The track's four scores, primary first.
NUGGET_SCORES = ("V_strict", "V", "A_strict", "A")


@dataclass(frozen=True)
class NuggetScores:
    """Per answer: nugget counts and the four scores (NaN when the denominator is empty)."""

    item_ids: tuple[str, ...]
    nuggets: np.ndarray
    vital: np.ndarray
    scores: Mapping[str, np.ndarray]

    def records(self, which: str) -> dict[str, float]:
        """Answer id → score ``which`` (one of ``NUGGET_SCORES``), scored answers only."""
        if which not in self.scores:
            raise InputError(f"nugget scores: unknown score {which!r}; one of {NUGGET_SCORES}")
        values = self.scores[which]
        return {i: float(v) for i, v in zip(self.item_ids, values, strict=True) if v == v}


def _nugget(n: object, item: str, k: int) -> tuple[bool, float, float]:
    """(is vital, credit, strict credit) of nugget ``k`` of answer ``item``."""
    where = f"answer {item!r}, nugget {k}"
    if not isinstance(n, Mapping):
        raise InputError(f"{where}: expected an object with importance and support")
    importance, support = n.get("importance"), n.get("support")
    if importance not in IMPORTANCE:
        raise InputError(f"{where}: importance {importance!r} is not one of {list(IMPORTANCE)}")
    if not isinstance(support, str) or support not in SUPPORT:
        raise InputError(f"{where}: support {support!r} is not one of {list(SUPPORT)}")
    if "text" in n and not isinstance(n["text"], str):
        raise InputError(f"{where}: text must be a string")
    return importance == "vital", SUPPORT[support], float(support == "support")


def _mean(credit: list[float], keep: list[bool]) -> float:
    picked = [c for c, k in zip(credit, keep, strict=True) if k]
    return sum(picked) / len(picked) if picked else np.nan


def nugget_scores(nuggets: Mapping[str, Sequence[Mapping[str, object]]]) -> NuggetScores:
    """The four track scores per answer from its assigned nuggets (answer id → list of
    ``{text, importance, support}``). Unknown importance or support: InputError naming the
    answer and the nugget's position (0-based)."""
    if not isinstance(nuggets, Mapping) or not nuggets:
        raise InputError("nugget_scores: expected a non-empty mapping answer id → nuggets")
    counts, vitals = [], []
    out: dict[str, list[float]] = {name: [] for name in NUGGET_SCORES}
    for item, ns in nuggets.items():
        if isinstance(ns, (str, Mapping)) or not isinstance(ns, Sequence):
            raise InputError(f"answer {item!r}: nuggets must be a list, got {type(ns).__name__}")
        parsed = [_nugget(n, str(item), k) for k, n in enumerate(ns)]
        vital = [p[0] for p in parsed]
        every = [True] * len(parsed)
        credit, strict = [p[1] for p in parsed], [p[2] for p in parsed]
        out["V_strict"].append(_mean(strict, vital))
        out["V"].append(_mean(credit, vital))
        out["A_strict"].append(_mean(strict, every))
        out["A"].append(_mean(credit, every))
        counts.append(len(parsed))
        vitals.append(sum(vital))
    return NuggetScores(
        item_ids=tuple(map(str, nuggets)),
        nuggets=frozen_array(counts, np.int64),
        vital=frozen_array(vitals, np.int64),
        scores={k: frozen_array(v, float) for k, v in out.items()},
    )
