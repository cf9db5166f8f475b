"""Generation metrics (seed 004, part 6): faithfulness, citations, refusals.

Plain per-item kernels. Each returns a frozen dataclass holding the item ids and
read-only numpy arrays, plus ``records()`` (item id → value) so the per-item
values flow into the same records → document-clustered intervals as the IR
metrics. Items that have no score (no claims, no citations, empty context) are
reported in their own slice and never averaged in as 0 or 1.

Short-answer EM/F1, the unseen-entity flag and pairwise position bias live in
:mod:`ragstat.metrics.generation_text`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ragstat.errors import InputError
from ragstat.metrics.filters import _frozen

__all__ = [
    "CitationScores",
    "Faithfulness",
    "FaithfulnessJudgment",
    "RefusalCorrectness",
    "citation_scores",
    "faithfulness",
    "refusal_correctness",
]


class FaithfulnessJudgment(BaseModel):
    """A judge's faithfulness verdict (the seed-004 schema-guided contract).

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
        supported=_frozen(sup, np.int64),
        extracted=_frozen(ext, np.int64),
        score=_frozen(score, np.float64),
        no_claims=tuple(k for k, e in zip(parsed, ext, strict=True) if e == 0),
    )


def _idset(value: object, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InputError(f"{where}: expected a collection of passage ids")
    return frozenset(str(v) for v in value)


def _ratio(num: int, den: int) -> float:
    return num / den if den else np.nan


@dataclass(frozen=True)
class CitationScores:
    """Per answer, over distinct passage ids (C cited, S supporting, P provided):

    ``precision = |C ∩ S| / |C|`` (NaN when nothing is cited),
    ``recall = |C ∩ S| / |S|`` (NaN when no passage supports the answer),
    ``coverage = |C ∩ P| / |P|`` — the share of provided context chunks that got a
    citation. Answers with empty context have NaN coverage and are listed in
    ``empty_context`` (reported apart, never scored as zero). Aggregates are
    means over the answers where the ratio is defined; none → InputError.
    """

    item_ids: tuple[str, ...]
    precision: np.ndarray
    recall: np.ndarray
    coverage: np.ndarray
    empty_context: tuple[str, ...]
    no_citations: tuple[str, ...]

    def _mean(self, arr: np.ndarray, name: str) -> float:
        ok = ~np.isnan(arr)
        if not ok.any():
            raise InputError(f"citation {name}: no answer where it is defined (empty denominator)")
        return float(arr[ok].mean())

    @property
    def mean_precision(self) -> float:
        return self._mean(self.precision, "precision")

    @property
    def mean_recall(self) -> float:
        return self._mean(self.recall, "recall")

    @property
    def mean_coverage(self) -> float:
        return self._mean(self.coverage, "coverage")

    def records(self, which: str = "precision") -> dict[str, float]:
        """Defined values only: item id → ``which`` (precision, recall or coverage)."""
        if which not in ("precision", "recall", "coverage"):
            raise InputError(f"citation records: unknown metric {which!r}")
        arr = getattr(self, which)
        return {i: float(v) for i, v in zip(self.item_ids, arr, strict=True) if not np.isnan(v)}


def citation_scores(
    cited: Mapping[str, Iterable[str]],
    supporting: Mapping[str, Iterable[str]],
    context: Mapping[str, Iterable[str]] | None = None,
) -> CitationScores:
    """Citation precision/recall and coverage of the provided context per answer.

    Answers are the keys of ``supporting`` (the labels), in order; an answer
    absent from ``cited`` cites nothing. ``context`` maps answer → provided
    passage ids; an answer absent from it (or with none) has empty context.
    """
    if not isinstance(supporting, Mapping) or not supporting:
        raise InputError("citation_scores: supporting must be a non-empty mapping answer → ids")
    if not isinstance(cited, Mapping) or (context is not None and not isinstance(context, Mapping)):
        raise InputError("citation_scores: cited and context must map answer id → passage ids")
    context = context or {}
    unknown = sorted(set(map(str, cited)) - set(map(str, supporting)))
    if unknown:
        raise InputError(f"citation_scores: cited answers without labels: {unknown[:5]}")
    prec, rec, cov, empty, none = [], [], [], [], []
    for key in supporting:
        c = _idset(cited.get(key), f"cited, answer {key!r}")
        s = _idset(supporting[key], f"supporting, answer {key!r}")
        p = _idset(context.get(key), f"context, answer {key!r}")
        prec.append(_ratio(len(c & s), len(c)))
        rec.append(_ratio(len(c & s), len(s)))
        cov.append(_ratio(len(c & p), len(p)))
        if not p:
            empty.append(str(key))
        if not c:
            none.append(str(key))
    return CitationScores(
        item_ids=tuple(map(str, supporting)),
        precision=_frozen(prec, np.float64),
        recall=_frozen(rec, np.float64),
        coverage=_frozen(cov, np.float64),
        empty_context=tuple(empty),
        no_citations=tuple(none),
    )


@dataclass(frozen=True)
class RefusalCorrectness:
    """Per item: ``refused`` and ``should_abstain`` (bool arrays).

    ``refusal_precision = Σ(refused ∧ abstain) / Σ refused`` — correct refusals
    among refusals; ``refusal_recall = Σ(refused ∧ abstain) / Σ abstain`` —
    refusals among should-abstain cases. Empty denominator → InputError.
    """

    item_ids: tuple[str, ...]
    refused: np.ndarray
    should_abstain: np.ndarray

    @property
    def refusal_precision(self) -> float:
        den = int(self.refused.sum())
        if den == 0:
            raise InputError("refusal precision: no refusal at all (empty denominator)")
        return int((self.refused & self.should_abstain).sum()) / den

    @property
    def refusal_recall(self) -> float:
        den = int(self.should_abstain.sum())
        if den == 0:
            raise InputError("refusal recall: no should-abstain case (empty denominator)")
        return int((self.refused & self.should_abstain).sum()) / den

    def records(self, which: str = "precision") -> dict[str, float]:
        """``precision``: refused items → 1.0 if they should abstain; ``recall``:
        should-abstain items → 1.0 if refused (means equal the ratios above)."""
        if which == "precision":
            mask, val = self.refused, self.should_abstain
        elif which == "recall":
            mask, val = self.should_abstain, self.refused
        else:
            raise InputError(f"refusal records: unknown metric {which!r}")
        return {i: float(v) for i, v, m in zip(self.item_ids, val, mask, strict=True) if m}


def _bool(value: object, where: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise InputError(f"{where}: expected a boolean, got {value!r}")


def refusal_correctness(
    refused: Mapping[str, bool], should_abstain: Mapping[str, bool]
) -> RefusalCorrectness:
    """Refusal behaviour against labels of whether the evidence allows an answer.

    Both mappings must cover the same item ids (a mismatch is an InputError
    naming up to five ids); order follows ``should_abstain``.
    """
    if not isinstance(refused, Mapping) or not isinstance(should_abstain, Mapping):
        raise InputError("refusal_correctness: expected mappings item id → bool")
    if not should_abstain:
        raise InputError("refusal_correctness: no labelled item")
    missing = [k for k in should_abstain if k not in refused]
    extra = [k for k in refused if k not in should_abstain]
    if missing or extra:
        raise InputError(
            f"refusal_correctness: ids differ; unlabelled {extra[:5]}, without outcome {missing[:5]}"
        )
    ids = tuple(should_abstain)
    return RefusalCorrectness(
        item_ids=tuple(map(str, ids)),
        refused=_frozen([_bool(refused[k], f"refused[{k!r}]") for k in ids], bool),
        should_abstain=_frozen(
            [_bool(should_abstain[k], f"should_abstain[{k!r}]") for k in ids], bool
        ),
    )
