"""TF-IDF cosine retriever (scikit-learn ``TfidfVectorizer`` over analyzer tokens).

With N chunks, raw term counts tf(t, x) (``sublinear_tf=False``) and scikit-learn's
smoothed IDF (``smooth_idf=True``, the default)::

    idf(t)   = ln((1 + N) / (1 + df(t))) + 1
    v(x)_t   = tf(t, x) · idf(t),      x̂ = v(x) / ‖v(x)‖₂            (norm="l2")
    s(q, d)  = x̂_q · x̂_d               (cosine similarity, in [0, 1])

The vocabulary and IDF come from the chunks (the whole index, own chunk
included); query terms absent from it are ignored, and a query with no known
term matches nothing. Scores are sparse products of the normalised matrices in
blocks of queries, ranked by :func:`ragstat.retrieval.topk.topk_dense`: score
descending, chunk index ascending, positive scores only (with numba, the compiled
kernel of :mod:`ragstat.retrieval.topk_compiled`: bit-identical lists).

Saved indexes (:meth:`TfidfRetriever.save`, :meth:`TfidfRetriever.load`) are plain
files, no pickle: the normalised chunk matrix as its three CSR arrays
(``data.npy``, ``indices.npy``, ``indptr.npy``, memory-mapped on load), the
vocabulary (``vocabulary.json``, terms in column order) and ``idf.npy``. On load
the vectorizer is rebuilt from the fixed vocabulary and ``idf_`` — the same
scikit-learn transform code on the same numbers, so query vectors and scores are
bit-identical to the fitted retriever's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import scipy.sparse as sp

from ragstat.errors import BackendUnavailable, InputError
from ragstat.retrieval.base import SearchResult, read_index_info, write_index_info
from ragstat.retrieval.text import Analyzer, check_analyzer, check_texts, tokenize_many
from ragstat.retrieval.topk import (
    check_exclude,
    check_k,
    check_positive_int,
    empty_result,
    topk_product,
)

__all__ = ["TfidfRetriever"]


def _pretokenized(tokens: list[str]) -> list[str]:
    """Analyzer handed to scikit-learn: the texts are already token lists."""
    return tokens


def _vectorizer(vocabulary: dict[str, int] | None = None):
    try:
        from sklearn.feature_extraction.text import TfidfVectorizer
    except ImportError as exc:
        raise BackendUnavailable(
            "the tfidf retriever needs scikit-learn: pip install 'scikit-learn>=1.3'"
        ) from exc
    return TfidfVectorizer(
        analyzer=_pretokenized,
        lowercase=False,
        norm="l2",
        use_idf=True,
        smooth_idf=True,
        sublinear_tf=False,
        dtype=np.float64,
        vocabulary=vocabulary,
    )


class TfidfRetriever:
    """Cosine similarity of l2-normalised TF-IDF vectors; see the module doc.

    ``block_elements`` and ``n_jobs`` as in :class:`ragstat.retrieval.BM25Retriever`.
    """

    name = "tfidf"

    def __init__(
        self, analyzer: Analyzer, block_elements: int | None = None, n_jobs: int = 1
    ) -> None:
        self.analyzer = check_analyzer(analyzer)
        self.block_elements = block_elements
        self.n_jobs = check_positive_int(n_jobs, "n_jobs")
        self.vectorizer = None
        self.chunk_matrix: sp.csr_matrix | None = None  # vocabulary × chunks, x̂_d as columns
        self.n_chunks = 0

    def fit(self, texts: Sequence[str]) -> TfidfRetriever:
        """Tokenise the chunks, learn vocabulary and IDF, store the normalised vectors."""
        texts = check_texts(texts, "texts", allow_empty=False)
        tokens = tokenize_many(self.analyzer, texts)
        self.n_chunks = len(texts)
        vectorizer = _vectorizer()
        if any(tokens):
            matrix = vectorizer.fit_transform(tokens)
            self.vectorizer = vectorizer
            self.chunk_matrix = sp.csr_matrix(matrix.T)
        else:  # no chunk has a token (scikit-learn refuses an empty vocabulary)
            self.vectorizer = None
            self.chunk_matrix = sp.csr_matrix((0, self.n_chunks), dtype=np.float64)
        return self

    def save(self, folder: str | Path) -> None:
        """Write the fitted index into ``folder`` (see the module doc)."""
        chunks = self._fitted()
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        for part in ("data", "indices", "indptr"):
            np.save(folder / f"{part}.npy", getattr(chunks, part), allow_pickle=False)
        terms: list[str] = []
        if self.vectorizer is not None:
            vocab = self.vectorizer.vocabulary_
            terms = sorted(vocab, key=vocab.__getitem__)
            np.save(folder / "idf.npy", self.vectorizer.idf_, allow_pickle=False)
        (folder / "vocabulary.json").write_text(json.dumps(terms, ensure_ascii=False), "utf-8")
        info = {"name": self.name, "n_chunks": self.n_chunks, "shape": list(chunks.shape)}
        write_index_info(folder, "tfidf", info)

    @classmethod
    def load(
        cls,
        folder: str | Path,
        analyzer: Analyzer,
        *,
        mmap: bool = True,
        block_elements: int | None = None,
        n_jobs: int = 1,
    ) -> TfidfRetriever:
        """A fitted retriever from :meth:`save`'s folder (``mmap``: matrix memory-mapped)."""
        folder = Path(folder)
        info = read_index_info(folder, "tfidf", "TF-IDF")
        self = cls(analyzer, block_elements=block_elements, n_jobs=n_jobs)
        self.n_chunks = int(info["n_chunks"])
        mode: Literal["r"] | None = "r" if mmap else None
        arrays = [
            np.load(folder / f"{p}.npy", mmap_mode=mode) for p in ("data", "indices", "indptr")
        ]
        self.chunk_matrix = sp.csr_matrix(tuple(arrays), shape=tuple(info["shape"]))
        terms = json.loads((folder / "vocabulary.json").read_text(encoding="utf-8"))
        if terms:
            vectorizer = _vectorizer({t: i for i, t in enumerate(terms)})
            vectorizer.idf_ = np.load(folder / "idf.npy")
            self.vectorizer = vectorizer
        return self

    def _fitted(self) -> sp.csr_matrix:
        if self.chunk_matrix is None:
            raise InputError("TfidfRetriever.search called before fit(texts)")
        return self.chunk_matrix

    def query_matrix(self, queries: Sequence[str]) -> sp.csr_matrix:
        """Normalised TF-IDF vectors x̂_q of the queries (queries × vocabulary)."""
        chunks = self._fitted()
        queries = check_texts(queries, "queries", allow_empty=True)
        if self.vectorizer is None:
            return sp.csr_matrix((len(queries), chunks.shape[0]), dtype=np.float64)
        return sp.csr_matrix(self.vectorizer.transform(tokenize_many(self.analyzer, queries)))

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """Dense cosine s(q, d) for every query and chunk (tests and audits; Q × N memory)."""
        return np.asarray((self.query_matrix(queries) @ self._fitted()).toarray())

    def search(
        self, queries: Sequence[str], k: int, exclude: np.ndarray | None = None
    ) -> SearchResult:
        """Top-k chunks by cosine > 0, ties by chunk index; ``exclude[i]`` never returned."""
        k = check_k(k)
        chunks = self._fitted()
        queries = check_texts(queries, "queries", allow_empty=True)
        excl = check_exclude(exclude, len(queries), self.n_chunks)
        if not queries or chunks.shape[0] == 0:
            return SearchResult(*empty_result(len(queries), k))
        vectors = self.query_matrix(queries)
        idx, val = topk_product(vectors, chunks, k, excl, True, self.block_elements, self.n_jobs)
        return SearchResult(idx, val)
