"""Unicode drift (the RAG reference part 3): compatibility forms and invisible code points.

:func:`unicode_drift` flags documents whose NFC and NFKC forms differ (ligatures,
full-width letters, superscripts) and counts invisible / default-ignorable code
points (:func:`invisible_code_points`), which NFC/NFKC comparison does not see.
Neither detects cross-script confusables (homoglyphs).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["INVISIBLE_CODE_POINTS", "UnicodeDrift", "invisible_code_points", "unicode_drift"]


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
        nfkc_differs=frozen_array(differs, bool),
        invisible_count=frozen_array(counts, np.int64),
        invisible=tuple(found),
    )
