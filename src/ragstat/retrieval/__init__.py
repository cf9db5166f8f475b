"""Retrievers behind one protocol: ``fit(texts)``, ``search(queries, k, exclude)``.

Every retriever ranks by score descending, then chunk index (corpus order)
ascending, exactly, also at the top-k boundary; ``exclude[i]`` (−1 = none) is a
chunk never returned for query i. Lexical retrievers (bm25, tfidf) return only
chunks with a positive score; rows are padded with index −1 and score NaN.

=========  ==========================================  =====================
name       class                                       needs
=========  ==========================================  =====================
``bm25``   :class:`BM25Retriever` (Lucene IDF, bm25s)  an analyzer
``tfidf``  :class:`TfidfRetriever` (scikit-learn)      an analyzer
``dense``  :class:`DenseRetriever` (MiniLM, offline)   ``ragstat[dense]``
``rrf``    :class:`RRFRetriever` (k = 60)              its members (bm25 + tfidf)
=========  ==========================================  =====================

Fitted bm25, tfidf and dense indexes are saved as files and opened again
memory-mapped by :func:`save_retriever` / :func:`load_retriever` (:mod:`.store`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ragstat.errors import InputError
from ragstat.retrieval.base import Retriever, SearchResult
from ragstat.retrieval.bm25 import BM25Retriever
from ragstat.retrieval.dense import DenseRetriever
from ragstat.retrieval.fusion import RRFRetriever, rrf
from ragstat.retrieval.store import load_retriever, save_retriever
from ragstat.retrieval.text import Analyzer
from ragstat.retrieval.tfidf import TfidfRetriever
from ragstat.retrieval.topk import topk_dense

__all__ = [
    "RETRIEVERS",
    "BM25Retriever",
    "DenseRetriever",
    "RRFRetriever",
    "Retriever",
    "SearchResult",
    "TfidfRetriever",
    "load_retriever",
    "make_retriever",
    "rrf",
    "save_retriever",
    "topk_dense",
]

#: Names accepted by :func:`make_retriever`.
RETRIEVERS = ("bm25", "tfidf", "dense", "rrf")

_LEXICAL = ("bm25", "tfidf")


def _default_analyzer() -> Analyzer:
    try:
        from ragstat.corpus.analysis import Analyzer as DefaultAnalyzer
    except ImportError as exc:
        raise InputError(
            "no analyzer given and ragstat.corpus.analysis.Analyzer is unavailable; "
            "pass analyzer=<callable str -> list[str]>"
        ) from exc
    return DefaultAnalyzer()


def _build(cls: type, *args: object, **options: object) -> Retriever:
    try:
        return cls(*args, **options)
    except TypeError as exc:
        raise InputError(f"bad options for {cls.__name__}: {exc}") from exc


def make_retriever(name: str, analyzer: Analyzer | None = None, **options: object) -> Retriever:
    """A retriever by name (see :data:`RETRIEVERS`), with its keyword options.

    ``analyzer`` is used by the lexical retrievers (None: the default
    ``ragstat.corpus.analysis.Analyzer()``). For ``rrf``, ``members`` (default
    ``("bm25", "tfidf")``) names the fused retrievers and ``k`` / ``depth`` go to
    :class:`RRFRetriever`; the members are built with default options.
    """
    key = str(name).strip().lower()
    if key not in RETRIEVERS:
        raise InputError(f"unknown retriever {name!r}; choose one of {', '.join(RETRIEVERS)}")
    if key == "dense":
        return _build(DenseRetriever, **options)
    if key == "rrf":
        members: Sequence[str] = options.pop("members", _LEXICAL)  # type: ignore[assignment]
        if isinstance(members, str):
            members = [m for m in members.split(",") if m.strip()]
        if not members or any(str(m).strip().lower() == "rrf" for m in members):
            raise InputError("rrf members must be a non-empty list of bm25, tfidf, dense")
        needs_text = any(str(m).strip().lower() in _LEXICAL for m in members)
        if analyzer is None and needs_text:
            analyzer = _default_analyzer()
        built = [make_retriever(m, analyzer) for m in members]
        return _build(RRFRetriever, built, **options)
    if analyzer is None:
        analyzer = _default_analyzer()
    if key == "bm25":
        return _build(BM25Retriever, analyzer, **options)
    return _build(TfidfRetriever, analyzer, **options)
