"""Ingestion metrics (seed 004 part 3): does the corpus and its index preserve the source?

Per-item kernels, each returning a frozen dataclass of item ids + read-only numpy arrays
whose ``records()`` give item id → value for document-clustered intervals:

* :func:`cer`, :func:`wer` — OCR / extraction error rates per document and corpus-level;
* :func:`unicode_drift` — NFC ≠ NFKC share and invisible / default-ignorable code points;
* :func:`length_ratio` — extracted chars / reference chars, summarised per document class;
* :func:`chunk_attribution` — chunks whose source reference is verifiable;
* :func:`heading_preservation` — chunks whose heading path is kept;
* near-duplicate detection (MinHash/LSH) lives in :mod:`ragstat.metrics.ingestion_dedup`,
  chunk attribution and heading preservation in :mod:`ragstat.metrics.ingestion_chunks`.

Empty denominators raise :class:`ragstat.errors.InputError`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.errors import BackendUnavailable, InputError
from ragstat.metrics.filters import _frozen
from ragstat.metrics.ingestion_chunks import (
    ChunkAttribution,
    HeadingPreservation,
    chunk_attribution,
    heading_preservation,
)
from ragstat.metrics.ingestion_dedup import (
    DedupQuality,
    dedup_quality,
    minhash_candidates,
    minhash_pairs,
    shingles,
)

__all__ = [
    "INVISIBLE_CODE_POINTS",
    "ChunkAttribution",
    "DedupQuality",
    "EditErrorRates",
    "HeadingPreservation",
    "LengthRatio",
    "UnicodeDrift",
    "cer",
    "chunk_attribution",
    "dedup_quality",
    "heading_preservation",
    "invisible_code_points",
    "length_ratio",
    "minhash_candidates",
    "minhash_pairs",
    "shingles",
    "unicode_drift",
    "wer",
]


def _ratio(num: float, den: float, what: str) -> float:
    if den == 0:
        raise InputError(f"{what}: empty denominator")
    return float(num) / float(den)


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
        return _ratio(self.errors.sum(), self.reference_length.sum(), f"{self.unit} error rate")

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
        substitutions=_frozen(cols["s"], np.int64),
        deletions=_frozen(cols["d"], np.int64),
        insertions=_frozen(cols["i"], np.int64),
        reference_length=_frozen(cols["n"], np.int64),
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


# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) plus the soft hyphen and
# other invisibles: listed explicitly because NFC/NFKC comparison does not see them.
_INVISIBLE_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x00AD, 0x00AD, "soft hyphen"),
    (0x034F, 0x034F, "combining grapheme joiner"),
    (0x061C, 0x061C, "Arabic letter mark"),
    (0x115F, 0x1160, "Hangul choseong/jungseong fillers"),
    (0x17B4, 0x17B5, "Khmer inherent vowels"),
    (0x180B, 0x180F, "Mongolian free variation selectors / vowel separator"),
    (0x200B, 0x200F, "zero width space / ZWNJ / ZWJ / LRM / RLM"),
    (0x202A, 0x202E, "bidi embeddings and overrides"),
    (0x2060, 0x2064, "word joiner / invisible operators"),
    (0x2065, 0x206F, "bidi isolates / deprecated format characters"),
    (0x3164, 0x3164, "Hangul filler"),
    (0xFE00, 0xFE0F, "variation selectors"),
    (0xFEFF, 0xFEFF, "zero width no-break space (BOM)"),
    (0xFFA0, 0xFFA0, "halfwidth Hangul filler"),
    (0xFFF0, 0xFFF8, "reserved specials"),
    (0x1BCA0, 0x1BCA3, "shorthand format controls"),
    (0x1D173, 0x1D17A, "musical symbol format controls"),
    (0xE0000, 0xE0FFF, "tags / variation selectors supplement"),
)

INVISIBLE_CODE_POINTS: frozenset[int] = frozenset(
    cp for lo, hi, _ in _INVISIBLE_RANGES for cp in range(lo, hi + 1)
)


def invisible_code_points(text: str) -> tuple[str, ...]:
    """Sorted distinct ``"U+XXXX"`` in ``text`` that are invisible: in
    :data:`INVISIBLE_CODE_POINTS` or of general category ``Cf`` (format)."""
    found = {
        ord(ch)
        for ch in text
        if ord(ch) in INVISIBLE_CODE_POINTS or unicodedata.category(ch) == "Cf"
    }
    return tuple(f"U+{cp:04X}" for cp in sorted(found))


@dataclass(frozen=True)
class UnicodeDrift:
    """Per document: ``nfkc_differs[i]`` = NFC(text) ≠ NFKC(text) (compatibility forms such
    as ligatures, full-width letters, superscripts) and ``invisible_count[i]`` occurrences of
    invisible code points, the distinct ones listed in ``invisible[i]``.

    ``drift_share = mean(nfkc_differs)``; ``invisible_share`` = share of documents with at
    least one invisible code point. Neither detects cross-script confusables (homoglyphs).
    """

    item_ids: tuple[str, ...]
    nfkc_differs: np.ndarray
    invisible_count: np.ndarray
    invisible: tuple[tuple[str, ...], ...]

    @property
    def drift_share(self) -> float:
        return float(self.nfkc_differs.mean())

    @property
    def invisible_share(self) -> float:
        return float((self.invisible_count > 0).mean())

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.nfkc_differs.astype(float).tolist(), strict=True))


def unicode_drift(docs: Mapping[str, str]) -> UnicodeDrift:
    """NFC vs NFKC drift and invisible code points per document (``unicodedata``)."""
    if not isinstance(docs, Mapping) or not docs:
        raise InputError("unicode_drift: no document (empty denominator)")
    differs, counts, found = [], [], []
    for did, text in docs.items():
        if not isinstance(text, str):
            raise InputError(f"unicode_drift: document {did!r} is not a string")
        differs.append(unicodedata.normalize("NFC", text) != unicodedata.normalize("NFKC", text))
        inv = invisible_code_points(text)
        found.append(inv)
        codes = {int(c[2:], 16) for c in inv}
        counts.append(sum(ord(ch) in codes for ch in text))
    return UnicodeDrift(
        item_ids=tuple(str(k) for k in docs),
        nfkc_differs=_frozen(differs, bool),
        invisible_count=_frozen(counts, np.int64),
        invisible=tuple(found),
    )


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
    return LengthRatio(tuple(str(k) for k in reference), tuple(cls), _frozen(ratios, float))
