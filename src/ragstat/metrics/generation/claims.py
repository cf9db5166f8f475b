"""Answer faithfulness (the RAG reference, part 6): the share of an answer's claims its context supports.

A judge (or a person) splits the answer into atomic claims and marks each as
supported or not by the context; :class:`FaithfulnessJudgment` is that verdict's
schema-guided contract and :func:`faithfulness` turns verdicts into per-answer
scores. Like every generation kernel it returns a frozen dataclass holding the
item ids and read-only numpy arrays, plus ``records()`` (item id → value) so the
per-item values flow into the same records → document-clustered intervals as the
IR metrics. Answers with no claims are reported in their own slice and never
averaged in as 0 or 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["Faithfulness", "FaithfulnessJudgment", "faithfulness"]


class FaithfulnessJudgment(BaseModel):
    """A judge's faithfulness verdict (the RAG reference's schema-guided contract).

    ``supported_claims`` and ``unsupported_claims`` must form a complete,
    disjoint partition of ``extracted_claims`` (no duplicates, no blanks).
    An empty extraction is the ``no_claims`` outcome: it has no score (None),
    it is not a perfect score, and a refusal must be scored by
    :func:`refusal_correctness` instead.

    ``score = |supported| / |extracted|``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    extracted_claims: list[str] = Field(
        description="Atomic factual claims in the answer, one per item."
    )
    supported_claims: list[str] = Field(
        description="Subset of extracted_claims that are entailed by the context."
    )
    unsupported_claims: list[str] = Field(description="Subset that is NOT entailed by the context.")
    outcome: Literal["scored", "no_claims"]
    failure_mode: Literal["none", "fabrication", "overgeneralization", "wrong_entity", "stale_fact"]
    rationale: str

    @model_validator(mode="after")
    def _require_claim_partition(self) -> FaithfulnessJudgment:
        lists = (self.extracted_claims, self.supported_claims, self.unsupported_claims)
        if any(not claim.strip() for claims in lists for claim in claims):
            raise ValueError("claims must contain non-whitespace text")
        extracted, supported, unsupported = (set(x) for x in lists)
        if not extracted:
            if supported or unsupported or self.outcome != "no_claims":
                raise ValueError("an empty extraction must be a no_claims outcome")
            return self
        if (
            any(len(set(x)) != len(x) for x in lists)
            or supported & unsupported
            or supported | unsupported != extracted
            or self.outcome != "scored"
        ):
            raise ValueError("verdict lists must be a complete, disjoint claim partition")
        return self

    @property
    def score(self) -> float | None:
        """``|supported| / |extracted|``; None for ``no_claims``."""
        if not self.extracted_claims:
            return None
        return len(self.supported_claims) / len(self.extracted_claims)


def _judgment(value: object, item: str) -> FaithfulnessJudgment:
    if isinstance(value, FaithfulnessJudgment):
        return value
    if not isinstance(value, Mapping):
        raise InputError(f"faithfulness, item {item!r}: expected a FaithfulnessJudgment or dict")
    try:
        return FaithfulnessJudgment.model_validate(dict(value))
    except ValidationError as exc:
        msgs = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'judgment'}: {e['msg']}" for e in exc.errors()
        )
        raise InputError(f"faithfulness, item {item!r}: invalid judgment: {msgs}") from None


@dataclass(frozen=True)
class Faithfulness:
    """Per answer: ``supported`` and ``extracted`` claim counts, ``score`` (float).

    ``score[i] = supported[i] / extracted[i]``, NaN for a ``no_claims`` answer;
    those answers are listed in ``no_claims`` and excluded from every aggregate.
    ``mean = (1/S) Σ_{i scored} score[i]`` (answer-level macro mean) and
    ``micro = Σ supported / Σ extracted`` (claim-level), both over scored answers.
    """

    item_ids: tuple[str, ...]
    supported: np.ndarray
    extracted: np.ndarray
    score: np.ndarray
    no_claims: tuple[str, ...]

    @property
    def scored(self) -> np.ndarray:
        return self.extracted > 0

    @property
    def n_scored(self) -> int:
        return int(self.scored.sum())

    @property
    def n_no_claims(self) -> int:
        return len(self.no_claims)

    @property
    def mean(self) -> float:
        if self.n_scored == 0:
            raise InputError("faithfulness: no answer with claims (empty denominator)")
        return float(self.score[self.scored].mean())

    @property
    def micro(self) -> float:
        if self.n_scored == 0:
            raise InputError("faithfulness: no answer with claims (empty denominator)")
        return int(self.supported.sum()) / int(self.extracted.sum())

    def records(self) -> dict[str, float]:
        """Scored answers only: item id → faithfulness score."""
        return {
            i: float(s)
            for i, s, ok in zip(self.item_ids, self.score, self.scored, strict=True)
            if ok
        }


def faithfulness(judgments: Mapping[str, FaithfulnessJudgment | Mapping]) -> Faithfulness:
    """Answer-level faithfulness from validated judgments (item id → judgment).

    Dict values are validated against :class:`FaithfulnessJudgment` (a broken
    partition → InputError naming the item). No item at all → InputError.
    """
    if not isinstance(judgments, Mapping) or not judgments:
        raise InputError("faithfulness: expected a non-empty mapping item id → judgment")
    parsed = {str(k): _judgment(v, str(k)) for k, v in judgments.items()}
    sup = [len(j.supported_claims) for j in parsed.values()]
    ext = [len(j.extracted_claims) for j in parsed.values()]
    score = [s / e if e else np.nan for s, e in zip(sup, ext, strict=True)]
    return Faithfulness(
        item_ids=tuple(parsed),
        supported=frozen_array(sup, np.int64),
        extracted=frozen_array(ext, np.int64),
        score=frozen_array(score, np.float64),
        no_claims=tuple(k for k, e in zip(parsed, ext, strict=True) if e == 0),
    )
