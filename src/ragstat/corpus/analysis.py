r"""Text analysis shared by the lexical retrievers (BM25, TF-IDF).

Default pipeline (``stemmer=None``), applied in this order:

1. accent folding: Unicode NFKD, then every combining mark is dropped
   (``"ação"`` → ``"acao"``, ``"ﬁ"`` → ``"fi"``, ``"nº"`` → ``"no"``);
2. lowercase;
3. tokens = ``re.findall(r"\w+")``. Folding comes *before* the regex because
   Python's ``\w`` does not match combining marks: a decomposed ``"ação"``
   (``"ac\u0327a\u0303o"``) would otherwise split into ``"ac"`` and ``"ao"``;
4. stopwords (if requested) are dropped; the list is folded too, so ``"não"``
   and ``"nao"`` both go.

With a stemmer (Snowball via PyStemmer), applied in this order:

1. lowercase, then Unicode NFC (Snowball expects composed accented words, so a
   decomposed ``"ação"`` is recomposed first);
2. tokens = ``re.findall(r"\w+")``;
3. stopwords dropped — compared after lowercasing and before stemming; the set
   holds each stopword as listed and folded, so accented and unaccented forms
   both match;
4. stem with Snowball (``"portuguese"`` / ``"english"``) — before folding, since
   the Portuguese rules look at accented endings (``"regulação"`` and
   ``"regulações"`` → ``"regul"``);
5. fold the accents of the stem (NFKD, drop combining marks).

Unaccented input is stemmed as written (``"regulacao"`` stems differently from
``"regulação"``): the stemmer cannot restore accents that the text lacks.

Stopword lists come from ``bm25s.stopwords``: ``pt`` is the Snowball Portuguese
list (207 words), ``en`` is Lucene's default English list (33 words).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from ragstat.errors import BackendUnavailable, InputError

__all__ = ["LANGUAGES", "Analyzer", "fold_accents", "stopword_set"]

LANGUAGES = ("pt", "en")
_STEMMER_NAMES = {"pt": "portuguese", "en": "english"}
_STOPWORD_NAMES = {"pt": "STOPWORDS_PORTUGUESE", "en": "STOPWORDS_EN"}
_WORD = re.compile(r"\w+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_CACHE_LIMIT = 1_000_000  # distinct tokens whose stems an analyzer keeps


@lru_cache(maxsize=1 << 16)
def _fold_run(run: str) -> str:
    decomposed = unicodedata.normalize("NFKD", run)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _fold_match(match: re.Match[str]) -> str:
    return _fold_run(match.group())


def fold_accents(text: str) -> str:
    """NFKD, then drop combining marks. Only non-ASCII runs are touched (ASCII is
    already folded, and NFKD never merges across an ASCII character), which keeps
    it fast on mostly-Latin text."""
    if text.isascii():
        return text
    return _NON_ASCII.sub(_fold_match, text)


def _language(name: str, value: object) -> str | None:
    if value is None or value == "none":
        return None
    if value not in LANGUAGES:
        raise InputError(f"{name} must be one of 'pt', 'en' or 'none', got {value!r}")
    return str(value)


@cache
def stopword_set(language: str) -> frozenset[str]:
    """The stopwords of ``language`` ("pt" or "en"), lowercased, as listed and folded."""
    if _language("stopwords", language) is None:
        return frozenset()
    try:
        from bm25s import stopwords as lists
    except ImportError:
        raise BackendUnavailable(
            "stopword lists need the package 'bm25s'; install it with `pip install bm25s`"
        ) from None
    words = {
        unicodedata.normalize("NFC", w.lower()) for w in getattr(lists, _STOPWORD_NAMES[language])
    }
    return frozenset(words | {fold_accents(w) for w in words})


def _snowball(language: str):
    try:
        import Stemmer
    except ImportError:
        raise BackendUnavailable(
            "stemming needs the package 'PyStemmer'; install it with `pip install PyStemmer`"
        ) from None
    return Stemmer.Stemmer(_STEMMER_NAMES[language])


@dataclass(frozen=True)
class Analyzer:
    """Text → tokens, shared by the lexical retrievers (see the module docstring).

    ``stopwords`` and ``stemmer`` are ``"pt"``, ``"en"`` or ``None`` (``"none"`` is
    accepted too). Call it on one text, or use :meth:`many` on a sequence. It pickles
    (and deep-copies) by its settings, so it can go to worker processes.
    """

    stopwords: str | None = None
    stemmer: str | None = None
    _stop: frozenset[str] = field(default=frozenset(), init=False, repr=False, compare=False)
    _stemmer: Any = field(default=None, init=False, repr=False, compare=False)
    _cache: dict[str, str | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _lock: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        stopwords = _language("stopwords", self.stopwords)
        stemmer = _language("stemmer", self.stemmer)
        object.__setattr__(self, "stopwords", stopwords)
        object.__setattr__(self, "stemmer", stemmer)
        object.__setattr__(self, "_stop", stopword_set(stopwords) if stopwords else frozenset())
        if stemmer is not None:
            object.__setattr__(self, "_stemmer", _snowball(stemmer))
            object.__setattr__(self, "_lock", threading.Lock())

    def __reduce__(self):
        return (type(self), (self.stopwords, self.stemmer))

    def __call__(self, text: str) -> list[str]:
        """Tokens of one text."""
        if self._stemmer is None:
            tokens = _WORD.findall(fold_accents(text).lower())
            if self._stop:
                stop = self._stop
                return [t for t in tokens if t not in stop]
            return tokens
        tokens = _WORD.findall(unicodedata.normalize("NFC", text.lower()))
        cache = self._cache
        missing = [t for t in set(tokens) if t not in cache]
        if not missing:
            return [s for t in tokens if (s := cache[t]) is not None]
        fresh = self._stem(missing)
        return [s for t in tokens if (s := fresh[t] if t in fresh else cache[t]) is not None]

    def _stem(self, words: list[str]) -> dict[str, str | None]:
        """Stem and fold new words (``None`` marks a stopword); cache them while the
        cache is below its limit. Entries are never evicted, so concurrent callers
        always find what they looked up."""
        with self._lock:  # PyStemmer objects are not thread-safe
            stems = self._stemmer.stemWords(words)
        stop = self._stop
        fresh = {
            w: None if w in stop else fold_accents(s) for w, s in zip(words, stems, strict=True)
        }
        if len(self._cache) < _CACHE_LIMIT:
            self._cache.update(fresh)
        return fresh

    def many(self, texts: Iterable[str]) -> list[list[str]]:
        """Tokens of each text, in order."""
        return [self(text) for text in texts]

    def to_dict(self) -> dict[str, object]:
        """Settings for the run's config (JSON-ready)."""
        return {
            "stopwords": self.stopwords or "none",
            "stemmer": self.stemmer or "none",
            "folding": "nfkd-drop-combining",
            "lowercase": True,
            "token_pattern": _WORD.pattern,
        }
