"""Small value conversions the readers share (JSON values → table cells)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ragstat.errors import InputError
from ragstat.records.textio import read_json_file

__all__ = ["flatten", "is_number", "json_file", "number", "scalar"]


def is_number(value: Any) -> bool:
    """An int or a float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number(value: Any) -> float:
    """``value`` as a float, NaN when it is not a number (booleans included)."""
    return float(value) if is_number(value) else math.nan


def scalar(value: Any) -> Any:
    """A table cell: None, text, numbers and booleans as they are, anything else as JSON."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    """Nested dicts into ``out`` as ``prefix.key.inner`` cells; lists as JSON text."""
    if isinstance(value, dict):
        for key, inner in value.items():
            flatten(f"{prefix}.{key}", inner, out)
    elif isinstance(value, (list, tuple)):
        out[prefix] = json.dumps(value, default=str)
    else:
        out[prefix] = value


def json_file(path: Path, prefix: str) -> Any:
    """The JSON value of ``path`` read strictly (:func:`ragstat.records.textio.read_json_file`:
    regular file, UTF-8, caps); a failure is one line ``"{path}: {prefix} ({why})"``."""
    try:
        return read_json_file(path, "file")
    except InputError as exc:
        why = str(exc).split(str(path), 1)[-1].lstrip(": ").strip()
        raise InputError(f"{path}: {prefix} ({why})") from None
