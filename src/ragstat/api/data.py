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
from ragstat.resources.inputs import regular_file

__all__ = ["Data", "as_frame", "as_path", "label_of", "read_table"]

#: A per-query table: a path, a DataFrame or a Table (``interval`` also reads a folder or a
#: glob of Parquet files as one dataset).
Data = str | Path | Any


def _table(data: Any) -> Any:
    """``data`` as a pyarrow Table, or None when it is not a frame or a table."""
    import pyarrow as pa

    from ragstat.api.sources import Source

    if isinstance(data, Source):
        data = data.frame
    if isinstance(data, pa.Table):
        return data
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return None
    if isinstance(data, pd.DataFrame):
        try:
            return pa.Table.from_pandas(data, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            # a column mixing numbers and text ("ERROR"): stored as text, so the reader
            # names its cells that are not numbers instead of failing here
            return pa.Table.from_pandas(_mixed_as_text(data), preserve_index=False)
    return None


def _mixed_as_text(frame: Any) -> Any:
    """``frame`` with its object columns as text (None where missing; booleans as 1/0)."""
    import pandas as pd

    def text(v: Any) -> str | None:
        if v is None or (isinstance(v, float) and v != v) or v is pd.NA:
            return None
        return str(int(v)) if isinstance(v, bool) else str(v)

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object:
            out[column] = out[column].map(text).astype(object)
    return out


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
    info = getattr(data, "info", None)
    if info is not None and hasattr(info, "path"):  # a Source: its file
        return str(info.path)
    return f"<{type(data).__name__} {name}>"


def read_table(path: Path) -> Any:
    """A per-query table (Parquet, CSV, TSV, JSONL) as a DataFrame."""
    import pandas as pd

    regular_file(path, "table")  # a FIFO or a device: refused, never opened
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(path)
        if suffix in (".csv", ".tsv"):
            return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",")
        if suffix in (".jsonl", ".ndjson"):
            return pd.read_json(path, lines=True, dtype=False)  # ids like "001" stay text
    except (ValueError, OSError) as exc:
        raise InputError(f"{path}: cannot be read as {suffix} ({exc})") from None
    raise InputError(f"{path}: unknown format {suffix!r}; use .parquet, .csv, .tsv or .jsonl")


def as_frame(data: Data, name: str = "data") -> Any:
    """``data`` as a pandas DataFrame: a path read by :func:`read_table`, a DataFrame as
    is, a pyarrow Table converted."""
    import pandas as pd

    if isinstance(data, (str, Path)):
        return read_table(Path(data))
    if isinstance(data, pd.DataFrame):
        return data
    from ragstat.api.sources import Source

    if isinstance(data, Source):
        return data.frame
    to_pandas = getattr(data, "to_pandas", None)
    if callable(to_pandas):
        frame = to_pandas()
        if isinstance(frame, pd.DataFrame):
            return frame
    raise InputError(
        f"{name}: expected a path, a pandas DataFrame or a pyarrow Table, got {type(data).__name__}"
    )
