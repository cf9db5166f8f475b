"""The unseen-entity *flag* (the RAG reference, part 6): answer entities absent from the context.

A lexical flag, not a grounding check (see :func:`unseen_entities`). Same shape as
:mod:`ragstat.metrics.generation.claims`: a frozen dataclass with ``records()``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError
from ragstat.metrics.generation.short_answer import fold_diacritics

__all__ = ["UnseenEntityFlags", "unseen_entities", "unseen_entity_flag", "unseen_entity_flags"]


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
    return fold_diacritics(text) if fold_accents else text


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
        flagged=frozen_array([bool(u) for u in unseen], bool),
        unseen=unseen,
    )
