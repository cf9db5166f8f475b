"""Column names as users type them: the default score, ``meta_`` prefixes, suggestions.

* The score defaults to the table's only score column, or to ``hit1`` on the study's
  records (``ragstat study`` writes ``hit1``, ``hit5``, ``hit10``, ``rr`` …).
* A metadata column is found with or without its ``meta_`` prefix (``law`` and
  ``meta_law`` name the same column of study records).
* An unknown name is an error that suggests the nearest names ("did you mean hit1?").
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

from ragstat.errors import InputError
from ragstat.records import table_schema

__all__ = ["ROLE_COLUMNS", "Schema", "read_schema", "resolve_column", "resolve_score"]

#: Columns with a role other than a score (ids, grouping, weights, the study's audit columns).
ROLE_COLUMNS = frozenset(
    {
        "query_id",
        "doc_id",
        "system",
        "retriever",
        "stratum",
        "type",
        "position",
        "weight",
        "first_rank",
        "top1_chunk",
        "top1_doc",
        "top1_score",
        "top1_tied",
        "chunk",
        "chunk_id",
    }
)
#: What the study writes per query × retriever; its headline score is hit1.
STUDY_SCORE = "hit1"
_NUMERIC = ("BOOLEAN", "INT", "FLOAT", "DOUBLE", "DECIMAL", "REAL", "NUMERIC")

#: (name, DuckDB type) per column.
Schema = list[tuple[str, str]]


def read_schema(path: str | Path) -> Schema:
    """The columns of a per-query table (file, folder or glob of Parquet files)."""
    return table_schema(path)


def _numeric(kind: str) -> bool:
    kind = kind.upper()
    return any(word in kind for word in _NUMERIC)


def _is_study(names: Sequence[str]) -> bool:
    return STUDY_SCORE in names and ("retriever" in names or "top1_doc" in names)


def suggestion(name: str, names: Sequence[str]) -> str:
    """``"; did you mean X?"`` for the nearest names, or ``""``."""
    near = difflib.get_close_matches(name, list(names), n=3, cutoff=0.5)
    near += [n for n in names if n.startswith(name) and n not in near][: 3 - len(near)]
    return f"; did you mean {' or '.join(near)}?" if near else ""


def resolve_column(names: Sequence[str], name: str, what: str, where: str) -> str:
    """``name`` as present in ``names``, with or without the ``meta_`` prefix; else an error
    naming ``what`` (e.g. ``--cluster``) and ``where`` (the file) with suggestions."""
    if name in names:
        return name
    alias = name.removeprefix("meta_") if name.startswith("meta_") else f"meta_{name}"
    if alias in names:
        return alias
    raise InputError(
        f"{where}: {what} {name!r} is not a column{suggestion(name, names)} "
        f"(columns: {', '.join(names)})"
    )


def resolve_score(schema: Schema, score: str | None, where: str) -> str:
    """The score column: ``score`` if given (checked), else hit1 on study records, else the
    only numeric column without another role; several candidates is an error listing them."""
    names = [n for n, _ in schema]
    if score is not None:
        return resolve_column(names, score, "--score", where)
    if _is_study(names):
        return STUDY_SCORE
    free = [  # pandas' saved index (__index_level_0__) is no score either
        n for n in names if n not in ROLE_COLUMNS and not n.startswith(("meta_", "__"))
    ]
    candidates = [n for n, kind in schema if n in free and _numeric(kind)] or free
    if len(candidates) == 1:  # a lone text column too: its reader says why it is no score
        return candidates[0]
    if not candidates:
        raise InputError(f"{where}: no score column; name one with --score")
    raise InputError(
        f"{where}: several score columns ({', '.join(candidates)}); choose one with --score"
    )
