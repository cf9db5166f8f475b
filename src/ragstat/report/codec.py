"""Frozen dataclasses ↔ JSON-ready dicts, driven by the field annotations.

Supported annotations: ``str``, ``int``, ``float``, ``bool``, ``X | None``,
``tuple[X, ...]``, ``dict[str, X]`` and nested dataclasses. Loading checks every
value against its annotation, so a corrupt file fails with the field's path
instead of producing a half-valid object.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from functools import cache
from types import MappingProxyType
from typing import Any

from ragstat.errors import InputError

__all__ = ["OMIT_EMPTY", "from_dict", "to_dict"]

#: Field metadata: leave the field out of ``to_dict`` while it is empty (None, (), {}), so a
#: field added later does not change the JSON of objects that do not use it.
OMIT_EMPTY = MappingProxyType({"omit_empty": True})


def _omitted(f: dataclasses.Field, value: object) -> bool:
    return bool(f.metadata.get("omit_empty")) and (value is None or value == () or value == {})


def to_dict(obj: object) -> Any:
    """A dataclass (recursively) as plain dicts, lists, numbers and strings; NaN → None."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {
            f.name: to_dict(getattr(obj, f.name))
            for f in dataclasses.fields(obj)
            if not _omitted(f, getattr(obj, f.name))
        }
    if isinstance(obj, (tuple, list)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_dict(v) for k, v in obj.items()}
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


@cache
def _hints(cls: type) -> dict[str, object]:
    return typing.get_type_hints(cls)


def from_dict(cls: type, data: object, path: str = "report") -> Any:
    """Rebuild ``cls`` from ``to_dict`` output; raises InputError naming the bad field."""
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected an object, got {type(data).__name__}")
    hints = _hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            kwargs[f.name] = _value(hints[f.name], data[f.name], f"{path}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise InputError(f"{path}: missing field {f.name!r}")
    return cls(**kwargs)


def _value(tp: object, value: object, path: str) -> object:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _value(inner, value, path)
    if origin is tuple:
        if not isinstance(value, list):
            raise InputError(f"{path}: expected a list, got {type(value).__name__}")
        inner = typing.get_args(tp)[0]
        return tuple(_value(inner, v, f"{path}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise InputError(f"{path}: expected an object, got {type(value).__name__}")
        inner = typing.get_args(tp)[1]
        return {str(k): _value(inner, v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return from_dict(tp, value, path)
    return _scalar(tp, value, path)


def _scalar(tp: object, value: object, path: str) -> object:
    if tp is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # an integer literal past the float range
            raise InputError(f"{path}: number out of range ({str(value)[:20]}…)") from None
    if tp is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if tp in (str, bool) and type(value) is tp:
        return value
    name = getattr(tp, "__name__", str(tp))
    raise InputError(f"{path}: expected {name}, got {value!r}")
