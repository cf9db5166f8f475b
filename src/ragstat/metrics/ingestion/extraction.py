"""Extraction fidelity (the RAG reference part 3): extracted text against the reference text.

* :func:`cer`, :func:`wer` — OCR / extraction error rates per document and corpus-level;
* :func:`length_ratio` — extracted chars / reference chars, summarised per document class.

Per-item kernels, each returning a frozen dataclass of item ids + read-only numpy arrays
whose ``records()`` give item id → value for document-clustered intervals. Empty
denominators raise :class:`ragstat.errors.InputError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import BackendUnavailable, InputError
from ragstat.metrics import rates

__all__ = ["EditErrorRates", "LengthRatio", "cer", "length_ratio", "wer"]


def _paired_texts(
    references: Mapping[str, str] | Sequence[str], hypotheses: Mapping[str, str] | Sequence[str]
) -> tuple[tuple[str, ...], list[str], list[str]]:
    """Align references and hypotheses by id (mappings) or position (sequences → ids "0", …)."""
    if isinstance(references, str) or isinstance(hypotheses, str):
        raise InputError("references/hypotheses must be mappings id → text or lists of texts")
    if isinstance(references, Mapping):
        if not isinstance(hypotheses, Mapping):
            raise InputError("references is a mapping: hypotheses must map the same ids")
        missing = [k for k in references if k not in hypotheses]
        if missing:
            raise InputError(f"no hypothesis for document(s) {missing[:5]}")
        ids = tuple(str(k) for k in references)
        refs, hyps = list(references.values()), [hypotheses[k] for k in references]
    else:
        refs, hyps = list(references), list(hypotheses)
        if len(refs) != len(hyps):
            raise InputError(f"{len(refs)} references but {len(hyps)} hypotheses")
        ids = tuple(str(i) for i in range(len(refs)))
    if not ids:
        raise InputError("no document to score (empty denominator)")
    for i, r, h in zip(ids, refs, hyps, strict=True):
        if not isinstance(r, str) or not isinstance(h, str):
            raise InputError(f"document {i!r}: reference and hypothesis must be strings")
    return ids, refs, hyps


@dataclass(frozen=True)
class EditErrorRates:
    """Per document edit operations against the reference, at ``unit`` = "char" or "word".

    ``rate[i] = (S_i + D_i + I_i) / N_i`` with ``N_i = S_i + D_i + H_i`` reference units;
    corpus-level ``corpus_rate = Σ(S + D + I) / Σ N`` (what ``jiwer.cer(refs, hyps)`` returns
    for lists), which weights documents by length; ``mean_rate`` weights them equally.
    """

    unit: str
    item_ids: tuple[str, ...]
    substitutions: np.ndarray
    deletions: np.ndarray
    insertions: np.ndarray
    reference_length: np.ndarray

    @property
    def errors(self) -> np.ndarray:
        return self.substitutions + self.deletions + self.insertions

    @property
    def rate(self) -> np.ndarray:
        return self.errors / self.reference_length

    @property
    def corpus_rate(self) -> float:
        return rates.rate(self.errors.sum(), self.reference_length.sum(), f"{self.unit} error rate")

    @property
    def mean_rate(self) -> float:
        return float(self.rate.mean())

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.rate.tolist(), strict=True))


def _edit_rates(references, hypotheses, unit: str) -> EditErrorRates:
    try:
        import jiwer
    except ImportError as exc:
        raise BackendUnavailable("CER/WER need jiwer: pip install 'ragstat[ingestion]'") from exc
    ids, refs, hyps = _paired_texts(references, hypotheses)
    process = jiwer.process_characters if unit == "char" else jiwer.process_words
    cols: dict[str, list[int]] = {"s": [], "d": [], "i": [], "n": []}
    for did, r, h in zip(ids, refs, hyps, strict=True):
        if not r.strip():
            raise InputError(f"document {did!r}: empty reference (no {unit} to score against)")
        out = process(r, h)
        cols["s"].append(out.substitutions)
        cols["d"].append(out.deletions)
        cols["i"].append(out.insertions)
        cols["n"].append(out.substitutions + out.deletions + out.hits)
    return EditErrorRates(
        unit=unit,
        item_ids=ids,
        substitutions=frozen_array(cols["s"], np.int64),
        deletions=frozen_array(cols["d"], np.int64),
        insertions=frozen_array(cols["i"], np.int64),
        reference_length=frozen_array(cols["n"], np.int64),
    )


def cer(references, hypotheses) -> EditErrorRates:
    """Character error rate ``CER = (S + D + I) / N`` per document (jiwer defaults).

    Normalisation is jiwer's default and the seed's: strip leading/trailing whitespace only;
    case, punctuation and inner spaces count. Seed 004's Mars pair gives 4 edits / 38 chars
    = 0.105. Normalise (case, Unicode form) before calling if your policy says so.
    """
    return _edit_rates(references, hypotheses, "char")


def wer(references, hypotheses) -> EditErrorRates:
    """Word error rate ``WER = (S_w + D_w + I_w) / N_w`` per document (jiwer defaults:
    whitespace tokens, multiple spaces collapsed, punctuation kept attached). Seed 004's Mars
    pair gives 2 / 7 = 0.286."""
    return _edit_rates(references, hypotheses, "word")


@dataclass(frozen=True)
class LengthRatio:
    """Per document ``ratio[i] = len(extracted_i) / len(reference_i)`` (characters) and its
    document ``doc_class``. Below 1: text lost; above 1: duplicated or boilerplate text.
    ``by_class()`` summarises each class: n, mean, median, min, max."""

    item_ids: tuple[str, ...]
    doc_class: tuple[str, ...]
    ratio: np.ndarray

    def by_class(self) -> dict[str, dict[str, float]]:
        classes = np.asarray(self.doc_class, dtype=object)
        out = {}
        for c in sorted(set(self.doc_class)):
            r = self.ratio[classes == c]
            out[c] = {
                "n": int(r.size),
                "mean": float(r.mean()),
                "median": float(np.median(r)),
                "min": float(r.min()),
                "max": float(r.max()),
            }
        return out

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.ratio.tolist(), strict=True))


def length_ratio(
    extracted: Mapping[str, str], reference: Mapping[str, str], classes: Mapping[str, str]
) -> LengthRatio:
    """Extracted-length ratio per document, keyed by the ids of ``reference``.

    Every reference document needs an extraction and a class; an empty reference is an
    empty denominator (InputError).
    """
    if not isinstance(reference, Mapping) or not reference:
        raise InputError("length_ratio: no reference document (empty denominator)")
    ratios, cls = [], []
    for did, ref in reference.items():
        if did not in extracted or did not in classes:
            raise InputError(f"length_ratio: document {did!r} lacks an extraction or a class")
        if not ref:
            raise InputError(f"length_ratio: document {did!r} has an empty reference")
        ratios.append(len(extracted[did]) / len(ref))
        cls.append(str(classes[did]))
    return LengthRatio(tuple(str(k) for k in reference), tuple(cls), frozen_array(ratios, float))
