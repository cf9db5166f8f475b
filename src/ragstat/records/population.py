"""Population counts per stratum or type (``--population-file``): a small CSV/JSONL/Parquet
table with a group column (``stratum`` or ``type``) and a count column ``M``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ragstat.errors import InputError
from ragstat.records import duck

__all__ = ["read_population_counts"]

_GROUP_COLUMNS = ("stratum", "type", "group")


def read_population_counts(path: str | Path) -> dict[str, int]:
    """{group: number of documents in the population}; every count a positive integer."""
    path = Path(path)
    con = duck.connect()
    try:
        duck.attach(con, path, "pop")
        cols = duck.columns_of(con, "pop")
        group = next((c for c in _GROUP_COLUMNS if c in cols), None)
        if group is None or "M" not in cols:
            raise InputError(
                f"{path}: needs a group column ({' or '.join(_GROUP_COLUMNS)}) and a count column "
                f"'M'; found {cols}"
            )
        rows = duck.run(
            con, str(path), f'SELECT CAST({duck.ident(group)} AS VARCHAR), "M" FROM pop'
        ).fetchall()
    finally:
        con.close()
    counts: dict[str, int] = {}
    for label, m in rows:
        if label is None:
            raise InputError(f"{path}: a row has no {group!r}")
        if label in counts:
            raise InputError(f"{path}: {group} {label!r} appears twice")
        try:
            value = float(m)
        except (TypeError, ValueError):
            raise InputError(f"{path}: M of {label!r} is not a number ({m!r})") from None
        if not np.isfinite(value) or value < 1 or value != round(value):
            raise InputError(f"{path}: M of {label!r} must be a positive whole number, got {m!r}")
        counts[label] = int(value)
    if not counts:
        raise InputError(f"{path}: no rows")
    return counts
