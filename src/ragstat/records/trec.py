"""File parsing for qrels and runs: TREC text, JSONL, CSV/TSV and Parquet → one table.

Every reader returns a `RawTable`: a DataFrame with the canonical columns
(``query_id``, ``doc_id`` and ``relevance`` or ``score`` [``rank``]) and a
``locate`` function that turns a row index into a location for error messages
(``path:line`` for text formats). The column checks shared by files and
DataFrames (`frame_ids`, `frame_numbers`) live here too; `ragstat.records.qrels`
applies them and builds the columnar `Qrels` / `Run`.

TREC files are read by pandas' C parser first; when that pass finds anything
wrong the file is re-read line by line, so every error names ``path:line``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragstat.errors import InputError
from ragstat.records.query_columns import Locate
from ragstat.records.textio import iter_lines, jsonl_objects, read_bytes, regular_file

__all__ = [
    "TREC_QRELS",
    "TREC_RUN",
    "RawTable",
    "TrecLayout",
    "detect_format",
    "frame_ids",
    "frame_numbers",
    "read_table",
    "require_columns",
]


@dataclass(frozen=True)
class TrecLayout:
    """Whitespace-separated TREC layout: column names and which one holds the value."""

    kind: str  # "qrels" or "run"
    names: tuple[str, ...]
    value: str  # "relevance" or "score"

    @property
    def spec(self) -> str:
        return " ".join(self.names)


#: Relevance grades must satisfy |grade| < GRADE_LIMIT (they are stored as int64; real
#: grades are small: 0, 1, 2, 3 …).
GRADE_LIMIT = 2**31

TREC_QRELS = TrecLayout("qrels", ("query_id", "iteration", "doc_id", "relevance"), "relevance")
TREC_RUN = TrecLayout("run", ("query_id", "Q0", "doc_id", "rank", "score", "tag"), "score")


@dataclass(frozen=True)
class RawTable:
    """Parsed rows, before checks.

    ``reread``, when set, re-parses the file line by line: the caller uses it when
    a check fails on a fast-path table, whose ``locate`` cannot give exact lines.
    """

    frame: pd.DataFrame
    locate: Locate
    reread: Callable[[], RawTable] | None = None


def detect_format(path: Path) -> str:
    """``trec``, ``jsonl``, ``csv``, ``tsv`` or ``parquet`` from the suffix (``.gz`` looked through)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    return {
        ".jsonl": "jsonl",
        ".ndjson": "jsonl",
        ".json": "jsonl",
        ".csv": "csv",
        ".tsv": "tsv",
        ".parquet": "parquet",
        ".pq": "parquet",
    }.get(last, "trec")


def _line_locate(path: Path, lines: list[int]) -> Locate:
    return lambda i: f"{path}:{lines[i]}"


def _empty(path: Path, kind: str) -> InputError:
    return InputError(f"{kind} file {path} is empty (no data lines): check the path or the export")


def _trec_fast(path: Path, layout: TrecLayout) -> RawTable | None:
    """pandas' C parser; None when the file needs the line-by-line pass (any irregularity)."""
    value_type = np.int64 if layout.kind == "qrels" else np.float64
    try:
        frame = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            dtype=str,
            quoting=csv.QUOTE_NONE,
            na_filter=False,
            engine="c",
            encoding="utf-8",
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return None
    if frame.shape[1] != len(layout.names) or (frame == "").to_numpy().any():
        return None
    frame.columns = list(layout.names)
    raw = frame[layout.value]
    try:
        if layout.kind == "qrels":
            values = np.array([int(v) for v in raw.tolist()], dtype=value_type)
            if values.size and np.abs(values).max() >= GRADE_LIMIT:
                return None  # the slow pass names the line
        else:
            # float(str) per value: Python's correctly rounded strtod, like trec_eval's atof
            values = raw.astype(object).to_numpy().astype(np.float64)
    except (ValueError, OverflowError):
        return None
    if layout.kind == "run" and not np.isfinite(values).all():
        return None
    out = pd.DataFrame(
        {"query_id": frame["query_id"], "doc_id": frame["doc_id"], layout.value: values}
    )
    return RawTable(out, lambda i: f"{path} (data line {i + 1})", lambda: _trec_slow(path, layout))


def _grade_range(value: int, where: str) -> int:
    """A relevance grade, checked to lie in (−2**31, 2**31): grades are small integers."""
    if not -GRADE_LIMIT < value < GRADE_LIMIT:
        raise InputError(
            f"{where}: relevance {value} is out of range; qrels grades are small integers "
            f"(0 = not relevant, 1, 2, … graded; |grade| < 2**31): fix the grade"
        )
    return value


def _trec_value(layout: TrecLayout, text: str, where: str) -> int | float:
    if layout.kind == "qrels":
        try:
            grade = int(text)
        except ValueError:
            raise InputError(
                f"{where}: relevance {text!r} is not an integer; qrels grades are integers "
                "(0 = not relevant, 1, 2, … graded): fix the fourth column"
            ) from None
        return _grade_range(grade, where)
    try:
        score = float(text)
    except ValueError:
        raise InputError(f"{where}: score {text!r} is not a number: fix the fifth column") from None
    if not math.isfinite(score):
        raise InputError(
            f"{where}: score {text!r} is not finite: give every document a finite score"
        )
    return score


def _trec_slow(path: Path, layout: TrecLayout) -> RawTable:
    """Line-by-line TREC parse; every error names ``path:line``."""
    n = len(layout.names)
    qids: list[str] = []
    docs: list[str] = []
    values: list[Any] = []
    lines: list[int] = []
    qi, di = layout.names.index("query_id"), layout.names.index("doc_id")
    vi = layout.names.index(layout.value)
    for lineno, line in iter_lines(path, f"{layout.kind} file"):
        fields = line.split()
        if not fields:
            continue
        where = f"{path}:{lineno}"
        if len(fields) != n:
            raise InputError(
                f"{where}: expected {n} whitespace-separated columns "
                f"({layout.spec}), found {len(fields)}: {line.strip()[:120]!r}"
            )
        values.append(_trec_value(layout, fields[vi], where))
        qids.append(fields[qi])
        docs.append(fields[di])
        lines.append(lineno)
    if not lines:
        raise _empty(path, layout.kind)
    dtype = np.int64 if layout.kind == "qrels" else np.float64
    frame = pd.DataFrame(
        {"query_id": qids, "doc_id": docs, layout.value: np.array(values, dtype=dtype)}
    )
    return RawTable(frame, _line_locate(path, lines))


def _json_id(value: Any, key: str, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"{where}: {key!r} must be a string (or an integer), got {value!r}")


def _json_number(value: Any, key: str, where: str, integer: bool) -> int | float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if ok and integer and isinstance(value, float):
        ok = value.is_integer()
    if ok and not integer and isinstance(value, int):
        ok = abs(value) < 2**1023  # a longer integer literal has no float
    if not ok or (not integer and not math.isfinite(value)):
        need = "an integer grade" if integer else "a finite number"
        raise InputError(f"{where}: {key!r} must be {need}, got {value!r}")
    if integer and not -GRADE_LIMIT < value < GRADE_LIMIT:
        raise InputError(
            f"{where}: {key!r} {value!r} is out of range; qrels grades are small integers "
            "(|grade| < 2**31)"
        )
    return int(value) if integer else value


def _jsonl(path: Path, kind: str, required: tuple[str, ...], optional: tuple[str, ...]) -> RawTable:
    cols: dict[str, list[Any]] = {c: [] for c in required + optional}
    lines: list[int] = []
    value_key = required[2]
    for lineno, obj in jsonl_objects(path, f"{kind} file"):
        where = f"{path}:{lineno}"
        missing = [c for c in required if c not in obj]
        if missing:
            raise InputError(
                f"{where}: missing key(s) {missing}; a {kind} line needs {list(required)} "
                f"(found {sorted(obj)})"
            )
        cols["query_id"].append(_json_id(obj["query_id"], "query_id", where))
        cols["doc_id"].append(_json_id(obj["doc_id"], "doc_id", where))
        is_int = value_key == "relevance"
        cols[value_key].append(_json_number(obj[value_key], value_key, where, is_int))
        for c in optional:
            cols[c].append(obj.get(c))
        lines.append(lineno)
    if not lines:
        raise _empty(path, kind)
    frame = pd.DataFrame({c: v for c, v in cols.items() if c in required})
    for c in optional:
        if any(v is not None for v in cols[c]):
            frame[c] = pd.Series(cols[c], dtype=object)
    return RawTable(frame, _line_locate(path, lines))


def _tabular(path: Path, fmt: str, kind: str) -> RawTable:
    try:
        if fmt == "parquet":
            frame = pd.read_parquet(path)
            locate: Callable[[int], str] = lambda i: f"{path}, row {i + 1}"  # noqa: E731
        else:
            frame = pd.read_csv(
                io.BytesIO(read_bytes(path, f"{kind} file")),  # gzip within the caps
                sep="\t" if fmt == "tsv" else ",",
                dtype={"query_id": str, "doc_id": str},
                keep_default_na=False,
                na_values={"relevance": [""], "score": [""], "rank": [""]},
            )
            locate = lambda i: f"{path}, data row {i + 1}"  # noqa: E731
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise InputError(f"cannot read {kind} file {path} as {fmt}: {exc}") from None
    if len(frame) == 0:
        raise _empty(path, kind)
    return RawTable(frame, locate)


def read_table(path: str | Path, layout: TrecLayout, optional: tuple[str, ...] = ()) -> RawTable:
    """Parse ``path`` by its suffix (TREC text when not JSONL/CSV/TSV/Parquet)."""
    path = Path(path)
    regular_file(path, f"{layout.kind} file")  # no FIFO or device; exists
    fmt = detect_format(path)
    if fmt == "jsonl":
        return _jsonl(path, layout.kind, ("query_id", "doc_id", layout.value), optional)
    if fmt in ("csv", "tsv", "parquet"):
        return _tabular(path, fmt, layout.kind)
    if path.stat().st_size == 0:
        raise _empty(path, layout.kind)
    fast = _trec_fast(path, layout) if path.suffix.lower() != ".gz" else None
    return fast if fast is not None else _trec_slow(path, layout)


# --------------------------------------------------------------------------- checks


def frame_ids(frame: pd.DataFrame, col: str, locate: Locate, what: str) -> pd.Series:
    """Column ``col`` as non-empty string ids (integers turned into strings)."""
    s = frame[col]
    bad = s.isna().to_numpy(dtype=bool).copy()
    if pd.api.types.infer_dtype(s, skipna=True) not in ("string", "empty"):
        s = s.astype(str)  # integer ids → "17"; nulls are reported below
    bad |= s.eq("").to_numpy(dtype=bool)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"{what}, {locate(i)}: {col} is missing or empty: every row needs one")
    return s


def frame_numbers(s: pd.Series, col: str, locate: Locate, what: str, integer: bool) -> np.ndarray:
    """Finite float64 scores, or int64 grades (integral values only)."""
    if s.dtype == bool:
        s = s.astype(np.int64)
    num = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(num)
    if integer:
        with np.errstate(invalid="ignore"):
            bad |= (num != np.round(num)) | ~(np.abs(num) < GRADE_LIMIT)
    if bad.any():
        i = int(np.argmax(bad))
        need = (
            "an integer grade (0 = not relevant, 1, 2, …; |grade| < 2**31)"
            if integer
            else "a finite number"
        )
        value = s.iloc[i]
        value = value.item() if isinstance(value, np.generic) else value
        raise InputError(f"{what}, {locate(i)}: {col} {value!r} is not {need}")
    if integer:
        exact = s.to_numpy() if pd.api.types.is_integer_dtype(s.dtype) else num
        return np.asarray(exact, dtype=np.int64)
    return num


def require_columns(frame: pd.DataFrame, cols: list[str], what: str) -> None:
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise InputError(f"{what}: missing column(s) {missing}; found {list(frame.columns)}")
