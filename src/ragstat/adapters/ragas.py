"""ragas results: ``EvaluationResult.to_pandas()`` saved by pandas as CSV, Parquet or JSONL.

One row per sample: ragas' sample fields (``user_input``, ``retrieved_contexts``,
``response``, ``reference``, ``reference_context_ids`` …) and one numeric column per
metric. ``reference_context_ids`` → ``reference_ids``; the other non-score columns →
``meta_<name>``. ``item_id``: a column ``id`` or ``item_id`` when the file has one, else
the row number. The file names neither the system (the file's stem is used) nor the
ragas version (None, unless a column ``ragas_version`` carries it), and holds no
aggregate: ragas' own is the mean of each metric column over the rows.
"""

from __future__ import annotations

import ast
import io
import json
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragstat.adapters.base import ITEM, REFERENCE_IDS, REPEAT, SYSTEM, ReadOptions, SourceTable
from ragstat.errors import InputError
from ragstat.records.textio import jsonl_objects, open_regular, read_bytes, regular_file
from ragstat.resources.inputs import json_value

__all__ = ["SAMPLE_FIELDS", "TOOL", "read", "sniff"]

TOOL = "ragas"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ()
#: A folder is read file by file (``ragstat.adapters.folders``), not by this reader.
FOLDERS = False

#: ragas' sample fields (SingleTurnSample, MultiTurnSample, testset columns): never scores.
SAMPLE_FIELDS = frozenset(
    {
        "user_input", "retrieved_contexts", "reference_contexts", "retrieved_context_ids",
        "reference_context_ids", "response", "multi_responses", "reference", "rubrics",
        "reference_tool_calls", "reference_topics", "persona_name", "query_style",
        "query_length", "synthesizer_name",
    }
)  # fmt: skip
#: A file is ragas' when it has ``user_input`` and one of these.
_WITH = ("retrieved_contexts", "response", "reference", "reference_contexts")
_IDS = ("item_id", "id")
_VERSION = "ragas_version"
_LIST_FIELDS = ("retrieved_contexts", "reference_contexts", "retrieved_context_ids",
                "reference_context_ids", "multi_responses")  # fmt: skip
_PARQUET = (".parquet", ".pq")


def sniff(path: Path) -> bool:
    """True when ``path`` is a ragas result table (CSV, JSONL or Parquet; never raises)."""
    try:
        columns = _columns(Path(path))
    except Exception:  # sniffing never raises
        return False
    return "user_input" in columns and any(c in columns for c in _WITH)


def _columns(path: Path) -> list[str]:
    if path.suffix.lower() in _PARQUET:
        import pyarrow.parquet as pq

        return list(pq.read_schema(regular_file(path, "ragas table")).names)
    with open_regular(path, "ragas table") as fh:
        first = fh.readline(1 << 20).decode("utf-8").strip()
    if first.startswith("{"):
        record = json_value(first, str(path))
        return list(record) if isinstance(record, dict) else []
    import csv

    return next(csv.reader([first]), [])


def read(path: Path, options: ReadOptions | None = None) -> SourceTable:
    """The per-sample scores of a saved ragas result, one row per sample."""
    path = Path(path)
    frame = _load(path)
    if "user_input" not in frame.columns:
        if {"question", "contexts"} <= {str(c) for c in frame.columns}:
            raise InputError(
                f"{path}: a ragas 0.1 result table (question/contexts columns); "
                "unsupported, save it with ragas 0.2 or later (user_input/retrieved_contexts)"
            )
        raise InputError(f"{path}: not a ragas result table (no user_input column)")
    frame, index, note = _without_index(frame)
    scores = _score_columns(frame)
    if not scores:
        raise InputError(f"{path}: ragas result table with no metric (score) columns")
    table = _table(path, frame, scores, index)
    return replace(table, notes=(*note, *table.notes))


#: pandas' names for a saved row index: ``Unnamed: 0`` (CSV), ``__index_level_0__``
#: (Parquet), or a first column named ``index`` or nothing holding 0, 1, …, n − 1.
_INDEX = re.compile(r"^(Unnamed: 0|__index_level_0__|index|)$")


def _without_index(frame: Any) -> tuple[Any, list[str] | None, tuple[str, ...]]:
    """The table without pandas' saved row index (``to_csv(path)`` writes it as a first
    column with no name, read back as ``Unnamed: 0``; Parquet as ``__index_level_0__``):
    its values as text (the item ids when the table has no id column) and a note."""
    import pandas as pd

    if frame.shape[1] == 0:
        return frame, None, ()
    first = str(frame.columns[0])
    if not _INDEX.match(first):
        return frame, None, ()
    values = frame.iloc[:, 0]
    numbers = pd.to_numeric(values, errors="coerce")
    if first in ("", "index") and not numbers.equals(
        pd.Series(range(len(frame)), dtype=numbers.dtype)
    ):
        return frame, None, ()  # a named column that is not a row number: kept
    shown = first or "(no name)"
    note = (f"{shown}: pandas' saved row index (to_csv without index=False); not a score",)
    return frame.drop(columns=[frame.columns[0]]), [_text(v) for v in values], note


def _load(path: Path) -> Any:
    import pandas as pd

    what = "ragas table"
    if path.suffix.lower() in _PARQUET:
        try:
            return pd.read_parquet(regular_file(path, what))
        except (OSError, ValueError, ImportError) as exc:
            raise InputError(f"{path}: not a ragas result table ({_first(exc)})") from None
    data = read_bytes(path, what)
    if data.lstrip().startswith(b"{") or path.suffix.lower() == ".jsonl":
        return pd.DataFrame.from_records([obj for _, obj in jsonl_objects(path, what)])
    try:
        return pd.read_csv(io.BytesIO(data), keep_default_na=True, encoding="utf-8")
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path}: not a ragas result table ({_first(exc)})") from None


def _first(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _score_columns(frame: Any) -> tuple[str, ...]:
    import pandas as pd

    out = []
    for col in frame.columns:
        name = str(col)
        if name in SAMPLE_FIELDS or name in _IDS or name == _VERSION:
            continue
        values = frame[col]
        if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
            continue
        out.append(name)
    return tuple(out)


def _table(
    path: Path, frame: Any, scores: tuple[str, ...], index: list[str] | None = None
) -> SourceTable:
    import pandas as pd

    id_col = next((c for c in _IDS if c in frame.columns), None)
    notes = [f"system: the file name ({path.stem}); a ragas result holds one system"]
    if id_col is None and index is not None:
        items = index
        notes.append("item_id: the saved row index (the file has no id or item_id column)")
    elif id_col is None:
        items = [str(i) for i in range(len(frame))]
        notes.append("item_id: the row number (the file has no id or item_id column)")
    else:
        items = [_text(v) for v in frame[id_col]]
    out = pd.DataFrame({ITEM: items, SYSTEM: path.stem, REPEAT: 0})
    for name in scores:
        out[name] = pd.to_numeric(frame[name], errors="coerce").astype(float).to_numpy()
    for col in frame.columns:
        name = str(col)
        if name in scores or name == id_col or name == "reference_context_ids":
            continue
        out[f"meta_{name}"] = [_meta(name, v) for v in frame[col]]
    if "reference_context_ids" in frame.columns:
        out[REFERENCE_IDS] = [_id_list(path, v) for v in frame["reference_context_ids"]]
    version = _version(frame)
    if version is None:
        notes.append("version: a saved ragas result does not record it")
    notes.append("aggregates: ragas reports the mean of each metric column (not in the file)")
    return SourceTable(out, scores, TOOL, version, str(path), {}, tuple(notes))


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _as_list(value: Any) -> list[Any] | None:
    """A list cell as saved by pandas: a list/array (Parquet, JSONL) or its repr (CSV)."""
    if isinstance(value, str):
        text = value.strip()
        if not (text.startswith("[") and text.endswith("]")):
            return None
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        return list(parsed) if isinstance(parsed, (list, tuple)) else None
    if hasattr(value, "tolist") and not isinstance(value, (int, float)):
        value = value.tolist()
    return list(value) if isinstance(value, (list, tuple)) else None


def _meta(name: str, value: Any) -> Any:
    """A meta cell: text or a number (a list field is kept as JSON text)."""
    if _missing(value):
        return None
    if name in _LIST_FIELDS or not isinstance(value, (str, int, float, bool)):
        items = _as_list(value)
        if items is not None:
            return json.dumps(items, ensure_ascii=False, default=str)
        return value if isinstance(value, (str, int, float)) else str(value)
    return value


def _id_list(path: Path, value: Any) -> list[str]:
    if _missing(value) or (isinstance(value, str) and not value.strip()):
        return []
    items = _as_list(value)
    if items is None:
        raise InputError(f"{path}: reference_context_ids holds {str(value)[:40]!r}, not a list")
    return [_text(v) for v in items if not _missing(v)]


def _version(frame: Any) -> str | None:
    if _VERSION not in frame.columns:
        return None
    values = {str(v) for v in frame[_VERSION] if not _missing(v)}
    return values.pop() if len(values) == 1 else None
