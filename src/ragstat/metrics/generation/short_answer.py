"""Short-answer exact match and token F1 (the RAG reference, part 6), SQuAD-style.

Same shape as :mod:`ragstat.metrics.generation.claims`: per-item kernels returning
frozen dataclasses with item ids, read-only numpy arrays and ``records()``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = [
    "ARTICLES",
    "ShortAnswerScores",
    "exact_match",
    "fold_diacritics",
    "normalize_answer",
    "short_answer_scores",
    "token_f1",
]

ARTICLES: tuple[str, ...] = ("a", "an", "the")
_ARTICLE_RE = re.compile(r"\b(?:" + "|".join(ARTICLES) + r")\b")


def fold_diacritics(text: str) -> str:
    """Unicode accent folding: NFKD, then drop combining marks (``é`` → ``e``)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def normalize_answer(text: str, fold_accents: bool = False) -> str:
    """SQuAD-style normalisation: lowercase, drop every Unicode punctuation (``P*``)
    and symbol (``S*``) character — a superset of the ASCII ``string.punctuation``
    the SQuAD script strips — drop the English articles :data:`ARTICLES`
    ("a", "an", "the"; no other language's articles), collapse whitespace.
    ``fold_accents`` also strips diacritics (``Café`` → ``cafe``)."""
    if not isinstance(text, str):
        raise InputError(f"normalize_answer: expected a string, got {type(text).__name__}")
    text = text.lower()
    if fold_accents:
        text = fold_diacritics(text)
    text = "".join(c for c in text if unicodedata.category(c)[0] not in "PS")
    text = _ARTICLE_RE.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str, reference: str, fold_accents: bool = False) -> float:
    """``1.0`` if the normalised strings are equal, else ``0.0``."""
    return float(
        normalize_answer(prediction, fold_accents) == normalize_answer(reference, fold_accents)
    )


def token_f1(prediction: str, reference: str, fold_accents: bool = False) -> float:
    """Token F1 over normalised tokens (multiset overlap, SQuAD):
    ``P = |p ∩ r| / |p|``, ``R = |p ∩ r| / |r|``, ``F1 = 2PR / (P + R)``;
    if either side is empty, ``F1 = 1`` when both are, else ``0``."""
    p = normalize_answer(prediction, fold_accents).split()
    r = normalize_answer(reference, fold_accents).split()
    if not p or not r:
        return float(p == r)
    common = sum((Counter(p) & Counter(r)).values())
    if common == 0:
        return 0.0
    prec, rec = common / len(p), common / len(r)
    return 2 * prec * rec / (prec + rec)


@dataclass(frozen=True)
class ShortAnswerScores:
    """Per labelled item: ``exact`` and ``f1`` (max over that item's references).

    ``missing``: labelled items with no prediction (scored as the empty answer).
    Aggregates: ``exact_match = mean(exact)``, ``f1 = mean(f1)``.
    """

    item_ids: tuple[str, ...]
    exact: np.ndarray
    f1: np.ndarray
    missing: tuple[str, ...]

    @property
    def exact_match(self) -> float:
        return float(self.exact.mean())

    @property
    def mean_f1(self) -> float:
        return float(self.f1.mean())

    def records(self, which: str = "f1") -> dict[str, float]:
        if which not in ("exact", "f1"):
            raise InputError(f"short-answer records: unknown metric {which!r}")
        return dict(zip(self.item_ids, map(float, getattr(self, which)), strict=True))


def _refs(value: object, item: str) -> list[str]:
    refs = [value] if isinstance(value, str) else value
    if not isinstance(refs, Sequence) or not refs or not all(isinstance(r, str) for r in refs):
        raise InputError(f"short_answer_scores, item {item!r}: need a reference string or list")
    return list(refs)


def short_answer_scores(
    predictions: Mapping[str, str],
    references: Mapping[str, str | Sequence[str]],
    fold_accents: bool = False,
) -> ShortAnswerScores:
    """Exact match and token F1 per labelled item, max over its references.

    Items are the keys of ``references`` (in order); predictions for unlabelled
    items are ignored. No labelled item → InputError.
    """
    if not isinstance(predictions, Mapping) or not isinstance(references, Mapping):
        raise InputError("short_answer_scores: expected mappings item id → text")
    if not references:
        raise InputError("short_answer_scores: no labelled item (empty denominator)")
    em, f1 = [], []
    for key, value in references.items():
        refs = _refs(value, key)
        pred = predictions.get(key, "")
        if not isinstance(pred, str):
            raise InputError(f"short_answer_scores, item {key!r}: prediction must be a string")
        em.append(max(exact_match(pred, r, fold_accents) for r in refs))
        f1.append(max(token_f1(pred, r, fold_accents) for r in refs))
    return ShortAnswerScores(
        item_ids=tuple(map(str, references)),
        exact=frozen_array(em, np.float64),
        f1=frozen_array(f1, np.float64),
        missing=tuple(str(k) for k in references if k not in predictions),
    )
