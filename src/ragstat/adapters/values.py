"""Small value conversions the readers share (JSON values → table cells)."""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["flatten", "is_number", "number", "scalar"]


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
