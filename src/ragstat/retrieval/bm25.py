"""BM25 with Lucene's IDF, exact batched scoring on the term–chunk weight matrix of bm25s.

For a query q and chunk d of an index of N chunks with average length avgdl
(lengths |d| in analyzer tokens)::

    idf(t)   = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))                (Lucene)
    w(t, d)  = idf(t) · tf(t,d) · (k1 + 1) / (tf(t,d) + k1 · (1 − b + b · |d| / avgdl))
    s(q, d)  = Σ_t  c(t, q) · w(t, d)

``c(t, q)`` is the number of times term t occurs in the query: a repeated query
term counts as many times as it occurs, as in bm25s (which sums the weight row
once per query token) and in Lucene (a repeated term is one more SHOULD clause
of the BooleanQuery). Query terms absent from the index are ignored.

The (k1 + 1) factor is the classic Robertson/Lucene < 8 form; bm25s and Lucene
≥ 8 drop it, which scales every score by 1/(k1 + 1) and leaves every ranking
unchanged. Lucene's lossy one-byte length norms are not reproduced: |d| is exact.

Collection statistics (N, df, avgdl) are over the whole index; a query's own
chunk is only removed from its results (``exclude``). bm25s builds w(t, d)
(``method="lucene"``, float64) as a sparse CSC matrix; scores are the sparse
product C · Wᵀ (queries × vocabulary counts times vocabulary × chunks), taken in
blocks of queries, and the ranking is :func:`ragstat.retrieval.topk.topk_dense`
(score descending, chunk index ascending, positive scores only) — or, with numba,
the compiled kernel of :mod:`ragstat.retrieval.topk_compiled`, which scores one
query at a time in the same order and returns bit-identical lists. bm25s's own
top-k selection is not used: its order among equal scores is arbitrary.

Saved indexes (:meth:`BM25Retriever.save`, :meth:`BM25Retriever.load`) are bm25s's
own format (``bm25s.BM25.save``: ``data/indices/indptr.csc.index.npy``,
``vocab.index.json``, ``params.index.json``), loaded with ``bm25s.BM25.load(mmap=True)``.
The stored CSC data are the weights used here, w(t, d)·(k1 + 1): the matrix is
wrapped as is on load (no arithmetic, no copy), so the scores of a loaded index are
bit-identical to those of the fitted one; bm25s itself would rank the saved index
exactly as its own (every score scaled by k1 + 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ragstat.errors import BackendUnavailable, InputError
from ragstat.retrieval.base import SearchResult, read_index_info, write_index_info
from ragstat.retrieval.text import (
    Analyzer,
    check_analyzer,
    check_texts,
    count_matrix,
    tokenize_many,
)
from ragstat.retrieval.topk import (
    check_exclude,
    check_k,
    check_positive_int,
    empty_result,
    topk_product,
)

__all__ = ["BM25Retriever"]


def _import_bm25s():
    try:
        import bm25s
    except ImportError as exc:  # pragma: no cover - bm25s is a core dependency
        raise BackendUnavailable(
            "the bm25 retriever needs the bm25s package: pip install 'bm25s>=0.2'"
        ) from exc
    return bm25s


def _number(value: object, name: str) -> float:
    try:
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be a number, got {value!r}") from exc
    if not np.isfinite(out):
        raise InputError(f"{name} must be finite, got {value!r}")
    return out


#: Texts tokenised at a time while fitting (bounds the memory held by token strings).
FIT_BLOCK = 50_000


def _term_ids(analyzer: Analyzer, texts: Sequence[str]) -> tuple[dict[str, int], list[list[int]]]:
    """Term → id with ids in order of first occurrence in the corpus (deterministic), and
    each text's tokens as ids. Texts are tokenised in blocks of :data:`FIT_BLOCK`; each block
    is one hash pass (``pandas.factorize``, first-occurrence order) whose new terms are
    appended to the vocabulary in that order — the same ids as one pass over everything."""
    import pandas as pd

    vocab: dict[str, int] = {}
    ids: list[list[int]] = []
    for start in range(0, len(texts), FIT_BLOCK):
        tokens = tokenize_many(analyzer, texts[start : start + FIT_BLOCK])
        lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
        flat = np.fromiter(chain.from_iterable(tokens), dtype=object, count=int(lengths.sum()))
        del tokens
        codes, terms = pd.factorize(flat, sort=False)
        known = np.fromiter(
            (vocab.setdefault(t, len(vocab)) for t in terms.tolist()), np.int64, len(terms)
        )
        codes = known[codes] if codes.size else codes
        ids.extend(part.tolist() for part in np.split(codes, np.cumsum(lengths)[:-1]))
    return vocab, ids


class BM25Retriever:
    """Lucene-IDF BM25 (defaults k1 = 1.2, b = 0.75) over analyzer tokens; see the module doc.

    ``block_elements``: scores held per block of queries (default
    :data:`ragstat.retrieval.topk.BLOCK_ELEMENTS`); ``n_jobs``: threads working on
    blocks (the results do not depend on it).
    """

    name = "bm25"

    def __init__(
        self,
        analyzer: Analyzer,
        k1: float = 1.2,
        b: float = 0.75,
        block_elements: int | None = None,
        n_jobs: int = 1,
    ) -> None:
        self.analyzer = check_analyzer(analyzer)
        self.k1 = _number(k1, "k1")
        self.b = _number(b, "b")
        if self.k1 < 0:
            raise InputError(f"k1 must be a finite number ≥ 0, got {k1!r}")
        if not 0 <= self.b <= 1:
            raise InputError(f"b must be in [0, 1], got {b!r}")
        self.block_elements = block_elements
        self.n_jobs = check_positive_int(n_jobs, "n_jobs")
        self.vocab: dict[str, int] | None = None
        self.weights: sp.csr_matrix | None = None  # vocabulary × chunks, w(t, d)
        self.n_chunks = 0

    def fit(self, texts: Sequence[str]) -> BM25Retriever:
        """Tokenise the chunks and build the weight matrix w(t, d) with bm25s."""
        texts = check_texts(texts, "texts", allow_empty=False)
        vocab, ids = _term_ids(self.analyzer, texts)
        self.n_chunks = len(texts)
        self.vocab = vocab
        if not vocab:  # no chunk has a token: nothing can ever match
            self.weights = sp.csr_matrix((0, self.n_chunks), dtype=np.float64)
            return self
        bm25s = _import_bm25s()
        model = bm25s.BM25(
            k1=self.k1, b=self.b, method="lucene", idf_method="lucene", dtype="float64"
        )
        model.index((ids, dict(vocab)), create_empty_token=False, show_progress=False)
        s = model.scores
        chunk_by_term = sp.csc_matrix(
            (s["data"] * (self.k1 + 1.0), s["indices"], s["indptr"]),
            shape=(self.n_chunks, len(vocab)),
        )
        self.weights = chunk_by_term.T.tocsr()  # vocabulary × chunks
        return self

    def save(self, folder: str | Path) -> None:
        """Write the fitted index into ``folder`` with bm25s's ``save`` (see the module doc)."""
        vocab, weights = self._fitted()
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        info = {"name": self.name, "k1": self.k1, "b": self.b, "n_chunks": self.n_chunks}
        info["weights"] = "bm25s lucene w(t, d) × (k1 + 1), float64"
        info["empty"] = not vocab
        if vocab:
            model = _import_bm25s().BM25(
                k1=self.k1, b=self.b, method="lucene", idf_method="lucene", dtype="float64"
            )
            # vocabulary × chunks CSR = chunks × vocabulary CSC: bm25s's own layout
            model.scores = {
                "data": weights.data,
                "indices": weights.indices,
                "indptr": weights.indptr,
                "num_docs": self.n_chunks,
            }
            model.vocab_dict = vocab
            model.nonoccurrence_array = None
            model.save(folder, show_progress=False)
        write_index_info(folder, "bm25", info)

    @classmethod
    def load(
        cls,
        folder: str | Path,
        analyzer: Analyzer,
        *,
        mmap: bool = True,
        block_elements: int | None = None,
        n_jobs: int = 1,
    ) -> BM25Retriever:
        """A fitted retriever from :meth:`save`'s folder (``mmap``: arrays memory-mapped)."""
        folder = Path(folder)
        info = read_index_info(folder, "bm25", "BM25")
        self = cls(analyzer, info["k1"], info["b"], block_elements=block_elements, n_jobs=n_jobs)
        self.n_chunks = int(info["n_chunks"])
        if info["empty"]:
            self.vocab = {}
            self.weights = sp.csr_matrix((0, self.n_chunks), dtype=np.float64)
            return self
        model = _import_bm25s().BM25.load(folder, mmap=mmap, show_progress=False)
        s = model.scores
        self.vocab = dict(model.vocab_dict)
        self.weights = sp.csr_matrix(
            (s["data"], s["indices"], s["indptr"]), shape=(len(self.vocab), self.n_chunks)
        )
        return self

    def _fitted(self) -> tuple[dict[str, int], sp.csr_matrix]:
        if self.vocab is None or self.weights is None:
            raise InputError("BM25Retriever.search called before fit(texts)")
        return self.vocab, self.weights

    def query_matrix(self, queries: Sequence[str]) -> sp.csr_matrix:
        """Query-term counts c(t, q) (queries × vocabulary), unknown terms dropped."""
        vocab, _ = self._fitted()
        queries = check_texts(queries, "queries", allow_empty=True)
        return count_matrix(tokenize_many(self.analyzer, queries), vocab)

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """Dense s(q, d) for every query and chunk (for tests and audits; Q × N memory)."""
        _, weights = self._fitted()
        return np.asarray((self.query_matrix(queries) @ weights).toarray())

    def search(
        self, queries: Sequence[str], k: int, exclude: np.ndarray | None = None
    ) -> SearchResult:
        """Top-k chunks by s(q, d) > 0, ties by chunk index; ``exclude[i]`` never returned."""
        k = check_k(k)
        _, weights = self._fitted()
        queries = check_texts(queries, "queries", allow_empty=True)
        excl = check_exclude(exclude, len(queries), self.n_chunks)
        if not queries or weights.shape[0] == 0:
            return SearchResult(*empty_result(len(queries), k))
        counts = self.query_matrix(queries)
        idx, val = topk_product(counts, weights, k, excl, True, self.block_elements, self.n_jobs)
        return SearchResult(idx, val)
