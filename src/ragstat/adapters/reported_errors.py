"""The standard errors other tools report beside their aggregates, read from the parsed file.

Each function takes what a reader already parsed and returns ``(se, method, label,
cluster)`` — ``method`` ``"cr1"`` (clustered, the C/(C−1) factor) or ``"iid"`` (items
taken as independent: sd with the n − 1 divisor over √n), ``label`` the tool's own name
for the number, ``cluster`` the field a clustered SE grouped by — or None when the file
gives none (or gives something that is not a finite number, such as lm-eval's ``"N/A"``).
A reader puts them in ``SourceTable.errors`` under the keys of its ``aggregates``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["Reported", "inspect_stderr", "lm_eval_stderr"]

#: ``(se, method, label, cluster)``.
Reported = tuple[float, str, str, str | None]


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def inspect_stderr(metrics: Mapping[str, Any]) -> Reported | None:
    """inspect's ``stderr`` metric of one score entry (``results.scores[i].metrics``):
    ``stderr(cluster="f")`` is CR1 over the epoch-reduced samples grouped by metadata field
    ``f``; plain ``stderr()`` is sd/√n over the samples."""
    stderr = metrics.get("stderr")
    if not isinstance(stderr, Mapping):
        return None
    value = _finite(stderr.get("value"))
    if value is None:
        return None
    cluster = (stderr.get("params") or {}).get("cluster")
    if cluster:
        return value, "cr1", f'stderr(cluster="{cluster}")', str(cluster)
    return value, "iid", "stderr()", None


def lm_eval_stderr(reported: Mapping[str, Any], key: str) -> Reported | None:
    """lm-eval's ``<metric>_stderr,<filter>`` beside ``<metric>,<filter>`` (``key``) in
    ``results[<task>]``: for a metric aggregated by the mean, sd/√n over the documents."""
    metric, _, filter_name = str(key).partition(",")
    name = f"{metric}_stderr" + (f",{filter_name}" if filter_name else "")
    value = _finite(reported.get(name))
    if value is None:
        return None
    return value, "iid", f"{metric}_stderr", None
