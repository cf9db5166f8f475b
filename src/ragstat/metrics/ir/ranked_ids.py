"""Checks shared by the id-keyed IR helpers (`rrf_fuse`, `rerank_delta`).

Their inputs are plain Python: a mapping query id → ranked document ids. These
checks turn them into ``list[str]`` rankings, or raise an `InputError` that
names the input, the query and the offending id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ragstat.errors import InputError

__all__ = ["ranked_ids", "rankings_by_query"]


def ranked_ids(qid: object, ids: object, where: str) -> list[str]:
    """``ids`` as a list of unique ``str`` document ids, or InputError naming query and list."""
    if not isinstance(qid, str):
        raise InputError(f"{where}: query ids must be strings, got {qid!r}")
    if isinstance(ids, np.ndarray) and ids.ndim == 1:
        ids = ids.tolist()
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise InputError(
            f"{where}, query {qid!r}: the ranking must be a sequence of document ids, "
            f"got {type(ids).__name__}"
        )
    out = list(ids)
    seen: set[str] = set()
    for doc in out:
        if not isinstance(doc, str):
            raise InputError(f"{where}, query {qid!r}: document ids must be strings, got {doc!r}")
        if doc in seen:
            raise InputError(
                f"{where}, query {qid!r}: document {doc!r} appears more than once "
                "(rankings must hold unique document ids)"
            )
        seen.add(doc)
    return out


def rankings_by_query(obj: object, where: str) -> Mapping:
    """``obj`` itself when it is a mapping (query id → ranking), else InputError."""
    if not isinstance(obj, Mapping):
        raise InputError(f"{where} must be a mapping query id → ranked document ids")
    return obj
