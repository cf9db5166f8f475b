"""Input checks and batched tokenisation shared by the retrievers.

An *analyzer* is any callable ``str -> list[str]``; when it also has a ``many``
method (``ragstat.corpus.analysis.Analyzer`` does), ``many(texts)`` tokenises a
whole batch at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np
import scipy.sparse as sp

from ragstat.errors import InputError

__all__ = ["Analyzer", "check_analyzer", "check_texts", "count_matrix", "tokenize_many"]

Analyzer = Callable[[str], list[str]]


def check_analyzer(analyzer: object) -> Analyzer:
    """The analyzer itself, or InputError when it is not callable."""
    if not callable(analyzer):
        raise InputError(
            f"analyzer must be a callable str -> list[str] (e.g. ragstat.corpus.analysis.Analyzer()), "
            f"got {type(analyzer).__name__}"
        )
    return analyzer


def check_texts(texts: object, what: str, allow_empty: bool) -> list[str]:
    """``texts`` as a list of str; a bare string, a non-str item or (unless allowed) no text → InputError."""
    if isinstance(texts, (str, bytes)):
        raise InputError(f"{what} must be a sequence of strings, not a single string")
    try:
        out = list(texts)  # type: ignore[call-overload]
    except TypeError as exc:
        raise InputError(
            f"{what} must be a sequence of strings, got {type(texts).__name__}"
        ) from exc
    bad = next((i for i, t in enumerate(out) if not isinstance(t, str)), None)
    if bad is not None:
        raise InputError(f"{what}[{bad}] is {type(out[bad]).__name__}, expected str")
    if not out and not allow_empty:
        raise InputError(f"{what} is empty: the index needs at least one chunk")
    return out


def tokenize_many(analyzer: Analyzer, texts: Sequence[str]) -> list[list[str]]:
    """Tokens of every text, via ``analyzer.many`` when present."""
    many = getattr(analyzer, "many", None)
    tokens = many(texts) if callable(many) else [analyzer(t) for t in texts]
    tokens = [list(t) for t in tokens]
    if len(tokens) != len(texts):
        raise InputError(f"analyzer returned {len(tokens)} token lists for {len(texts)} texts")
    return tokens


def count_matrix(tokens: Sequence[Sequence[str]], vocab: dict[str, int]) -> sp.csr_matrix:
    """Term counts, rows = texts, columns = ``vocab`` ids (float64); unknown tokens are ignored.

    ``c[i, t]`` = number of occurrences of term t in text i (query-term multiplicity kept).
    """
    lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
    total = int(lengths.sum())
    ids = np.fromiter(
        (vocab.get(tok, -1) for tok in chain.from_iterable(tokens)), dtype=np.int64, count=total
    )
    rows = np.repeat(np.arange(len(tokens), dtype=np.int64), lengths)
    known = ids >= 0
    data = np.ones(int(known.sum()), dtype=np.float64)
    coo = sp.coo_matrix((data, (rows[known], ids[known])), shape=(len(tokens), len(vocab)))
    mat = coo.tocsr()  # sums duplicates
    mat.sum_duplicates()
    return mat
