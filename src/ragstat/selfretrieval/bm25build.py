"""The study's BM25 index built in blocks of chunks straight into memory-mapped ``.npy`` files.

:meth:`ragstat.retrieval.BM25Retriever.fit` holds every chunk's tokens as Python lists of
Python ints (≈ 4 KB a chunk) while bm25s builds the matrix; at a million chunks that alone
is several GB. Here the chunks are tokenised :data:`BLOCK` at a time; each block keeps only
its (term, tf) pairs as int32 arrays, then the weights are computed with numpy and written
term by term into the files of bm25s's own save format (``data.csc.index.npy``,
``indices.csc.index.npy``, ``indptr.csc.index.npy``, ``vocab.index.json``,
``params.index.json``) plus ``ragstat-bm25.json``, so
:meth:`ragstat.retrieval.BM25Retriever.load` opens it memory-mapped like any saved index.

The numbers are bit-identical to ``BM25Retriever.fit``'s (the equivalence test compares
whole study tables): the vocabulary is numbered in order of first occurrence (as
``_term_ids``), avgdl is the mean of the int64 token counts, idf(t) is bm25s's
``math.log(1 + (N − df + 0.5) / (df + 0.5))`` per term, and each weight is bm25s's
``idf · tf / (k1 · ((1 − b) + b · |d| / avgdl) + tf)`` times (k1 + 1), every step one
correctly rounded float64 operation in the same order. Each term's row lists its chunks in
ascending order, as bm25s's CSC does.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragstat.retrieval.base import write_index_info
from ragstat.retrieval.text import Analyzer, tokenize_many

__all__ = ["BLOCK", "build_bm25"]

#: Chunks tokenised at a time (bounds the memory held by token strings: ≈ 6 KB a chunk).
BLOCK = 20_000

_NAMES = {"data": "data.csc.index.npy", "indices": "indices.csc.index.npy"}
_NAMES["indptr"] = "indptr.csc.index.npy"


@dataclass
class _Postings:
    """Per block of chunks: the distinct terms of each chunk (chunk order, term ascending),
    their counts, and how many distinct terms each chunk has."""

    terms: list[np.ndarray]
    tf: list[np.ndarray]
    per_chunk: list[np.ndarray]
    lengths: list[np.ndarray]


def _block_pairs(codes: np.ndarray, lengths: np.ndarray, n_terms: int) -> tuple:
    """(terms, tf, distinct terms per chunk) of one block, chunks in order, terms ascending."""
    chunk = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    keys, tf = np.unique(chunk * n_terms + codes, return_counts=True)
    owner = keys // n_terms
    per_chunk = np.bincount(owner, minlength=lengths.size).astype(np.int32)
    return (keys - owner * n_terms).astype(np.int32), tf.astype(np.int32), per_chunk


def _postings(analyzer: Analyzer, texts: Sequence[str]) -> tuple[dict[str, int], _Postings]:
    """The vocabulary (ids by first occurrence) and every block's postings."""
    import pandas as pd

    vocab: dict[str, int] = {}
    out = _Postings([], [], [], [])
    for start in range(0, len(texts), BLOCK):
        tokens = tokenize_many(analyzer, texts[start : start + BLOCK])
        lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
        flat = np.fromiter((w for t in tokens for w in t), dtype=object, count=int(lengths.sum()))
        del tokens
        codes, terms = pd.factorize(flat, sort=False)
        del flat
        known = np.fromiter(
            (vocab.setdefault(t, len(vocab)) for t in terms.tolist()), np.int64, len(terms)
        )
        codes = known[codes] if codes.size else codes.astype(np.int64)
        pairs = _block_pairs(codes, lengths, max(len(vocab), 1))
        out.terms.append(pairs[0])
        out.tf.append(pairs[1])
        out.per_chunk.append(pairs[2])
        out.lengths.append(lengths)
    return vocab, out


def _idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    """bm25s's Lucene idf, term by term with ``math.log`` (as bm25s computes it)."""
    return np.array(
        [math.log(1 + (n_docs - d + 0.5) / (d + 0.5)) for d in df.tolist()], dtype=np.float64
    )


def _write_matrix(folder: Path, post: _Postings, n_terms: int, k1: float, b: float) -> int:
    """Weights as a vocabulary × chunks CSR into ``folder``'s .npy files; returns nnz."""
    from numpy.lib.format import open_memmap

    df = np.zeros(n_terms, dtype=np.int64)
    for terms in post.terms:
        df += np.bincount(terms, minlength=n_terms)
    lengths = np.concatenate(post.lengths)
    n_docs, nnz = lengths.size, int(df.sum())
    avg = lengths.mean()
    denom = k1 * ((1 - b) + b * lengths.astype(np.float64) / avg)  # per chunk, as bm25s
    idf = _idf(df, n_docs)
    index_dtype = np.int32 if max(nnz, n_docs) < 2**31 - 1 else np.int64
    indptr = np.zeros(n_terms + 1, dtype=index_dtype)
    np.cumsum(df, out=indptr[1:])
    np.save(folder / _NAMES["indptr"], indptr, allow_pickle=False)
    data = open_memmap(folder / _NAMES["data"], mode="w+", dtype=np.float64, shape=(nnz,))
    indices = open_memmap(folder / _NAMES["indices"], mode="w+", dtype=index_dtype, shape=(nnz,))
    heads = indptr[:-1].astype(np.int64)
    first = 0
    for terms, tf, per_chunk in zip(post.terms, post.tf, post.per_chunk, strict=True):
        chunk = np.repeat(np.arange(first, first + per_chunk.size, dtype=np.int64), per_chunk)
        first += per_chunk.size
        tf_f = tf.astype(np.float64)
        weight = idf[terms] * (tf_f / (denom[chunk] + tf_f)) * (k1 + 1.0)
        order = np.argsort(terms, kind="stable")  # chunks stay ascending within a term
        sorted_terms = terms[order]
        run_start = np.flatnonzero(np.r_[True, sorted_terms[1:] != sorted_terms[:-1]])
        run_len = np.diff(np.r_[run_start, sorted_terms.size])
        rank = np.arange(sorted_terms.size) - np.repeat(run_start, run_len)
        at = heads[sorted_terms] + rank
        data[at] = weight[order]
        indices[at] = chunk[order]
        heads[sorted_terms[run_start]] += run_len
    data.flush()
    indices.flush()
    del data, indices
    return nnz


def _write_meta(folder: Path, vocab: dict[str, int], n_docs: int, k1: float, b: float) -> None:
    (folder / "vocab.index.json").write_text(json.dumps(vocab, ensure_ascii=False), "utf-8")
    params = {"k1": k1, "b": b, "delta": 0.5, "method": "lucene", "idf_method": "lucene"}
    params.update(dtype="float64", int_dtype="int32", num_docs=n_docs, backend="numpy")
    (folder / "params.index.json").write_text(json.dumps(params, indent=4), "utf-8")
    info = {"name": "bm25", "k1": k1, "b": b, "n_chunks": n_docs}
    info["weights"] = "bm25s lucene w(t, d) × (k1 + 1), float64"
    info["empty"] = False
    write_index_info(folder, "bm25", info)


def build_bm25(
    texts: Sequence[str], folder: str | Path, analyzer: Analyzer, k1: float, b: float
) -> bool:
    """Build the BM25 index of ``texts`` as ``folder`` (written into a temporary sibling and
    renamed into place). False, with nothing written, when no chunk has a token (the
    caller then fits and saves the empty retriever as before)."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent))
    try:
        vocab, post = _postings(analyzer, list(texts))
        if not vocab:
            shutil.rmtree(tmp, ignore_errors=True)
            return False
        _write_matrix(tmp, post, len(vocab), float(k1), float(b))
        n_docs = sum(p.size for p in post.per_chunk)
        del post
        _write_meta(tmp, vocab, n_docs, float(k1), float(b))
        if folder.exists():
            old = folder.with_name(f".{folder.name}.{os.getpid()}.old")
            os.replace(folder, old)
            shutil.rmtree(old, ignore_errors=True)
        os.replace(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return True
