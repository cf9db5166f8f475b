"""Citation precision, recall and context coverage per answer (the RAG reference, part 6).

Same shape as :mod:`ragstat.metrics.generation.claims`: a frozen dataclass of item
ids and read-only arrays with ``records()``. A ratio without a denominator (nothing
cited, nothing supporting, no context) is NaN and reported apart, never a 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array, ratio
from ragstat.errors import InputError

__all__ = ["CitationScores", "citation_scores"]


def _idset(value: object, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InputError(f"{where}: expected a collection of passage ids")
    return frozenset(str(v) for v in value)


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
        prec.append(ratio(len(c & s), len(c)))
        rec.append(ratio(len(c & s), len(s)))
        cov.append(ratio(len(c & p), len(p)))
        if not p:
            empty.append(str(key))
        if not c:
            none.append(str(key))
    return CitationScores(
        item_ids=tuple(map(str, supporting)),
        precision=frozen_array(prec, np.float64),
        recall=frozen_array(rec, np.float64),
        coverage=frozen_array(cov, np.float64),
        empty_context=tuple(empty),
        no_citations=tuple(none),
    )
