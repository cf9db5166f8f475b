"""Reading summary.json's parts back: checked objects, dataclasses from their fields, the
interval reports (shared by the typed study summary)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from ragstat.errors import InputError
from ragstat.inference.results import (
    DesignInfo,
    Diagnostics,
    EstimandResult,
    Interval,
    IntervalReport,
)
from ragstat.tidy import plain

__all__ = ["expect_object", "interval_report_from_dict", "json_ready", "make_fields"]

T = TypeVar("T")


def json_ready(value: Any) -> Any:
    """``value`` with tuples as lists and numpy scalars as Python ones (what JSON reads back)."""
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return plain(value)


def expect_object(data: object, path: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise InputError(f"{path}: expected an object, got {type(data).__name__}")
    return data


def make_fields(cls: type[T], data: object, path: str, **given: Any) -> T:
    """``cls`` from the keys of ``data`` that are its fields (``given`` overrides); a missing
    field without a default is an InputError naming it."""
    obj = expect_object(data, path)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    kwargs = {f.name: obj[f.name] for f in fields if f.name in obj}
    kwargs.update(given)
    for f in fields:
        no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if f.name not in kwargs and no_default:
            raise InputError(f"{path}: missing field {f.name!r}")
    return cls(**kwargs)


def _estimand(name: str, data: object, path: str) -> EstimandResult:
    obj = expect_object(data, path)
    rows = obj.get("intervals")
    if not isinstance(rows, list):
        raise InputError(f"{path}.intervals: expected a list")
    intervals = tuple(
        make_fields(
            Interval, {"estimand": name, **expect_object(iv, f"{path}.intervals[{i}]")}, path
        )
        for i, iv in enumerate(rows)
    )
    return make_fields(EstimandResult, obj, path, estimand=name, intervals=intervals)


def interval_report_from_dict(data: object, path: str = "hit1") -> IntervalReport:
    """An ``IntervalReport`` from its ``to_dict()`` (``width`` is derived, so dropped)."""
    obj = expect_object(data, path)
    estimands = {
        str(k): _estimand(str(k), v, f"{path}.estimands.{k}")
        for k, v in expect_object(obj.get("estimands"), f"{path}.estimands").items()
    }
    diag = expect_object(obj.get("diagnostics", {}), f"{path}.diagnostics")
    names = [f.name for f in dataclasses.fields(Diagnostics)]
    values: dict[str, Any] = {n: diag.get(n) for n in names}  # absent in an older file: None
    diagnostics = Diagnostics(**values)
    design = obj.get("design")
    info = DesignInfo("srs")
    if isinstance(design, Mapping):
        groups = list(design.get("groups") or [])
        info = DesignInfo(
            name=str(design.get("name", "srs")),
            groups=tuple(str(g["name"]) for g in groups),
            sampled=tuple(int(g["sampled"]) for g in groups),
            population=tuple(int(g["population"]) for g in groups),
            df_rule=str(design.get("df_rule", "per method")),
        )
    return make_fields(
        IntervalReport,
        obj,
        path,
        estimands=estimands,
        diagnostics=diagnostics,
        warnings=tuple(obj.get("warnings") or ()),
        design=info,
    )
