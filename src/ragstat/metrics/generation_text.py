"""Lexical generation checks (seed 004, part 6): short-answer EM / token F1, the
unseen-entity *flag*, and pairwise-judge position bias (swap consistency).

Same shape as :mod:`ragstat.metrics.generation`: per-item kernels returning frozen
dataclasses with item ids, read-only numpy arrays and ``records()``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.errors import InputError
from ragstat.metrics.filters import _frozen

__all__ = [
    "ARTICLES",
    "PositionBias",
    "ShortAnswerScores",
    "UnseenEntityFlags",
    "exact_match",
    "normalize_answer",
    "position_bias",
    "short_answer_scores",
    "token_f1",
    "unseen_entities",
    "unseen_entity_flag",
    "unseen_entity_flags",
]

#: English articles removed by :func:`normalize_answer` (as in the SQuAD script).
ARTICLES: tuple[str, ...] = ("a", "an", "the")
_ARTICLE_RE = re.compile(r"\b(?:" + "|".join(ARTICLES) + r")\b")


def _fold(text: str) -> str:
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
        text = _fold(text)
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
        exact=_frozen(em, np.float64),
        f1=_frozen(f1, np.float64),
        missing=tuple(str(k) for k in references if k not in predictions),
    )


_CANDIDATE_RE = re.compile(r"\d+(?:[.,:/-]\d+)*|[^\W\d_][\w'’-]*")


def _candidates(answer: str) -> list[str]:
    """Capitalised word tokens and number tokens of ``answer``, in order, distinct."""
    out = []
    for tok in _CANDIDATE_RE.findall(answer):
        if (tok[0].isdigit() or tok[0].isupper()) and tok not in out:
            out.append(tok)
    return out


def _norm(text: str, fold_accents: bool) -> str:
    text = " ".join(text.casefold().split())
    return _fold(text) if fold_accents else text


def unseen_entities(
    answer: str,
    context: str,
    entities: Sequence[str] | None = None,
    fold_accents: bool = False,
) -> tuple[str, ...]:
    """Entity strings of ``answer`` absent from ``context`` — a LEXICAL FLAG.

    This is *not* a grounding check: it cannot see identity, relations,
    negation, time or provenance ("Paris was founded in 1994" against the
    context "Paris was not founded in 1994." raises nothing). Candidates are
    ``entities`` when given (e.g. spaCy ents), else every capitalised token and
    number of the answer (sentence-initial words included). A candidate is seen
    when it occurs as a whole-word match in the casefolded, whitespace-collapsed
    (optionally accent-folded) context.
    """
    if not isinstance(answer, str) or not isinstance(context, str):
        raise InputError("unseen_entities: answer and context must be strings")
    cands = _candidates(answer) if entities is None else list(entities)
    ctx = _norm(context, fold_accents)
    out = []
    for ent in cands:
        if not isinstance(ent, str) or not ent.strip():
            raise InputError(f"unseen_entities: bad entity {ent!r}")
        pat = r"(?<!\w)" + re.escape(_norm(ent, fold_accents)) + r"(?!\w)"
        if re.search(pat, ctx) is None:
            out.append(ent)
    return tuple(out)


def unseen_entity_flag(
    answer: str, context: str, entities: Sequence[str] | None = None, fold_accents: bool = False
) -> bool:
    """True when :func:`unseen_entities` finds any — a lexical flag, not a grounding check."""
    return bool(unseen_entities(answer, context, entities, fold_accents))


@dataclass(frozen=True)
class UnseenEntityFlags:
    """Per answer: ``flagged`` (bool) and the ``unseen`` strings. ``rate = mean(flagged)``.

    A lexical flag only: an unflagged answer may still contradict its context.
    """

    item_ids: tuple[str, ...]
    flagged: np.ndarray
    unseen: tuple[tuple[str, ...], ...]

    @property
    def rate(self) -> float:
        return float(self.flagged.mean())

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, map(float, self.flagged), strict=True))


def unseen_entity_flags(
    answers: Mapping[str, str], contexts: Mapping[str, str], fold_accents: bool = False
) -> UnseenEntityFlags:
    """:func:`unseen_entities` per answer; every answer needs a context (may be "")."""
    if not isinstance(answers, Mapping) or not isinstance(contexts, Mapping) or not answers:
        raise InputError("unseen_entity_flags: expected non-empty mappings item id → text")
    missing = [k for k in answers if k not in contexts]
    if missing:
        raise InputError(f"unseen_entity_flags: answers without context: {missing[:5]}")
    unseen = tuple(unseen_entities(answers[k], contexts[k], None, fold_accents) for k in answers)
    return UnseenEntityFlags(
        item_ids=tuple(map(str, answers)),
        flagged=_frozen([bool(u) for u in unseen], bool),
        unseen=unseen,
    )


_VERDICTS = {"first": "first", "a": "first", "second": "second", "b": "second", "tie": "tie"}
_FLIP = {"first": "second", "second": "first", "tie": "tie"}


def _verdict(value: object, where: str) -> str:
    v = _VERDICTS.get(value.strip().lower()) if isinstance(value, str) else None
    if v is None:
        raise InputError(f"{where}: verdict must be 'first'/'A', 'second'/'B' or 'tie': {value!r}")
    return v


@dataclass(frozen=True)
class PositionBias:
    """Pairs judged in both orders. Verdicts name the winning *position*.

    ``consistent[i]``: the swapped-order verdict picks the same answer
    (first ↔ second, tie ↔ tie). ``swap_consistency = mean(consistent)``.
    ``first_both`` / ``second_both``: the judge chose the same *position* in both
    orders (primacy / recency). ``one_order``: pairs judged in only one order.
    """

    pair_ids: tuple[str, ...]
    consistent: np.ndarray
    first_both: np.ndarray
    second_both: np.ndarray
    one_order: tuple[str, ...]

    @property
    def swap_consistency(self) -> float:
        return float(self.consistent.mean())

    @property
    def primacy_share(self) -> float:
        """Share of pairs where the first position won in both orders."""
        return float(self.first_both.mean())

    def records(self) -> dict[str, float]:
        return dict(zip(self.pair_ids, map(float, self.consistent), strict=True))


def position_bias(original: Mapping[str, str], swapped: Mapping[str, str]) -> PositionBias:
    """Swap consistency over pairs judged in both presentation orders.

    ``original[pair]`` is the verdict with answer X first; ``swapped[pair]`` with
    Y first. No pair in both → InputError.
    """
    if not isinstance(original, Mapping) or not isinstance(swapped, Mapping):
        raise InputError("position_bias: expected mappings pair id → verdict")
    both = [k for k in original if k in swapped]
    if not both:
        raise InputError("position_bias: no pair judged in both orders (empty denominator)")
    a = [_verdict(original[k], f"original[{k!r}]") for k in both]
    b = [_verdict(swapped[k], f"swapped[{k!r}]") for k in both]
    one = [k for k in original if k not in swapped] + [k for k in swapped if k not in original]
    return PositionBias(
        pair_ids=tuple(map(str, both)),
        consistent=_frozen([x == _FLIP[y] for x, y in zip(a, b, strict=True)], bool),
        first_both=_frozen([x == y == "first" for x, y in zip(a, b, strict=True)], bool),
        second_both=_frozen([x == y == "second" for x, y in zip(a, b, strict=True)], bool),
        one_order=tuple(map(str, one)),
    )
