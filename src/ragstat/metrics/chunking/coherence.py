"""Lexical coherence of chunks: are the sentences inside a chunk about the same thing, and is
the cut between two chunks a change of topic?

Definitions (one chunk set, e.g. one chunker's chunks of a corpus):

* **sentences** of a chunk: its text split at line breaks and after ``.``, ``!``, ``?`` or
  ``…`` followed by whitespace and a capital letter (optionally after an opening quote or
  bracket); blank pieces dropped. Abbreviations such as "Sr. Silva" are split too.
* **vectors**: scikit-learn's ``TfidfVectorizer()`` with its defaults (lowercase, tokens of
  two or more word characters, smoothed idf, L2 norm) is *fitted on the chunk texts* (each
  chunk one document), then every sentence is transformed with it. A sentence without any
  vocabulary token has no direction and takes part in no pair.
* ``coherence`` of a chunk = the mean cosine similarity of its adjacent sentence pairs
  (sentence j with sentence j + 1, both with a token); NaN (not scored) when the chunk has
  no such pair (fewer than two sentences with a token).
* ``boundary_similarity`` of a chunk = the cosine similarity of its last sentence and the
  first sentence of the next chunk of the same document; NaN for a document's last chunk
  or when either sentence has no token. Healthy chunks are similar inside and dissimilar
  across the cut: high coherence, low boundary similarity.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array

__all__ = ["LexicalCoherence", "lexical_coherence", "split_sentences"]

_SPLIT = re.compile(r"\n+|(?<=[.!?…])\s+(?=[\"'“‘«(\[]?[A-ZÀ-ÖØ-Þ])")


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (module rule), stripped, blank ones dropped."""
    return [s.strip() for s in _SPLIT.split(text) if s.strip()]


@dataclass(frozen=True)
class LexicalCoherence:
    """Per chunk: ``coherence``, ``pairs`` (adjacent sentence pairs averaged) and
    ``boundary_similarity`` (see the module docstring; NaN = not scored)."""

    item_ids: tuple[str, ...]
    coherence: np.ndarray
    pairs: np.ndarray
    boundary_similarity: np.ndarray

    def records(self, name: str = "coherence") -> dict[str, float]:
        values = getattr(self, name)
        return dict(zip(self.item_ids, np.asarray(values, float).tolist(), strict=True))


def _vectors(texts: list[str], sentences: list[str]):
    """TF-IDF fitted on the chunk texts; the sentence matrix, or None with no vocabulary."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer()
    try:
        vectorizer.fit(texts)
    except ValueError:  # empty vocabulary: no chunk has a token
        return None
    return vectorizer.transform(sentences).tocsr()


def _adjacent(matrix, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Cosine of row j with row j + 1 (rows are L2-normalised), and whether both have a token."""
    if n < 2:
        return np.zeros(0), np.zeros(0, bool)
    cos = np.asarray(matrix[:-1].multiply(matrix[1:]).sum(axis=1)).ravel()
    has = np.diff(matrix.indptr) > 0
    return cos, has[:-1] & has[1:]


def lexical_coherence(documents: Mapping[str, Sequence[tuple[str, str]]]) -> LexicalCoherence:
    """Coherence and boundary similarity of every chunk: ``documents`` maps doc id → its
    chunks in order, as ``(item id, text)``."""
    ids: list[str] = []
    texts: list[str] = []
    sentences: list[str] = []
    spans: list[tuple[int, int]] = []  # each chunk's sentence rows [start, stop)
    last_of_doc: list[bool] = []
    for chunks in documents.values():
        for k, (item, text) in enumerate(chunks):
            found = split_sentences(text)
            spans.append((len(sentences), len(sentences) + len(found)))
            sentences += found
            ids.append(str(item))
            texts.append(text)
            last_of_doc.append(k == len(chunks) - 1)
    n = len(ids)
    coherence = np.full(n, np.nan)
    pairs = np.zeros(n, int)
    across = np.full(n, np.nan)
    matrix = _vectors(texts, sentences) if sentences else None
    if matrix is not None:
        cos, ok = _adjacent(matrix, len(sentences))
        for i, (start, stop) in enumerate(spans):
            inside = ok[start : max(stop - 1, start)]
            pairs[i] = int(inside.sum())
            if pairs[i]:
                coherence[i] = float(cos[start : stop - 1][inside].mean())
            nxt = spans[i + 1] if i + 1 < n else (stop, stop)
            if not last_of_doc[i] and start < stop == nxt[0] < nxt[1] and ok[stop - 1]:
                across[i] = float(cos[stop - 1])
    return LexicalCoherence(
        tuple(ids),
        frozen_array(coherence, float),
        frozen_array(pairs, int),
        frozen_array(across, float),
    )
