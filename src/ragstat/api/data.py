"""What a verb's ``data`` may be: a path, a pandas DataFrame or a pyarrow Table.

A frame or table is written to a temporary Parquet file and read by the same reader as
a file, so a notebook and the command line give identical numbers on the same rows.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragstat.errors import InputError

__all__ = ["Data", "as_path", "label_of"]

#: A per-query table: a path, a DataFrame or a Table (``interval`` also reads a folder or a
#: glob of Parquet files as one dataset).
Data = str | Path | Any


def _table(data: Any) -> Any:
    """``data`` as a pyarrow Table, or None when it is not a frame or a table."""
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return data
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return None
    if isinstance(data, pd.DataFrame):
        return pa.Table.from_pandas(data, preserve_index=False)
    return None


@contextmanager
def as_path(data: Data, name: str = "data") -> Iterator[Path]:
    """A path to read ``data`` from (a temporary Parquet file for a frame or a table)."""
    if isinstance(data, (str, Path)):
        yield Path(data)
        return
    table = _table(data)
    if table is None:
        raise InputError(
            f"{name}: expected a path, a pandas DataFrame or a pyarrow Table, "
            f"got {type(data).__name__}"
        )
    if table.num_rows == 0:
        raise InputError(f"{name}: the table has no rows")
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory(prefix="ragstat-") as tmp:
        path = Path(tmp) / f"{name}.parquet"
        pq.write_table(table, path)
        try:
            yield path
        except InputError as exc:  # name the frame, not the temporary file
            raise InputError(str(exc).replace(str(path), label_of(data, name))) from None


def label_of(data: Data, name: str = "data") -> str:
    """How ``data`` is named in messages and reports: its path, or ``<DataFrame>``."""
    if isinstance(data, (str, Path)):
        return str(data)
    return f"<{type(data).__name__} {name}>"
