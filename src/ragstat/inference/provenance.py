"""Where a table came from when another tool wrote it: the tool, its version, how its
items were grouped into documents, with repeats the variance components, and the tool's own
numbers (its aggregate and standard error) beside ragstat's."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragstat.inference.components import VarianceComponents
    from ragstat.inference.tool_agreement import ToolComparison

__all__ = ["SE_METHODS", "RepeatComponents", "SourceInfo", "ToolValue", "tool_values"]

#: How a tool computed the standard error it reports: ``"cr1"`` clustered by a field with
#: the C/(C−1) factor (inspect's ``stderr(cluster=…)``); ``"iid"`` the items taken as
#: independent, sd/√n (lm-eval's ``*_stderr``, inspect's plain ``stderr()``).
SE_METHODS = ("cr1", "iid")


@dataclass(frozen=True)
class ToolValue:
    """The tool's own reported number for one system × score: its aggregate (a mean over
    items) and, where the file carries one, its standard error with the tool's method
    (``se_method`` one of :data:`SE_METHODS`, ``se_label`` the tool's own name for it,
    ``cluster`` the field a clustered SE grouped by)."""

    system: str
    score: str
    value: float | None
    se: float | None = None
    se_method: str | None = None
    se_label: str | None = None
    cluster: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "score": self.score,
            "value": self.value,
            "se": self.se,
            "se_method": self.se_method,
            "se_label": self.se_label,
            "cluster": self.cluster,
        }


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def tool_values(
    aggregates: Mapping[str, float], errors: Mapping[str, Sequence[Any]] | None = None
) -> tuple[ToolValue, ...]:
    """The tool's numbers from a reader's ``aggregates`` (``"<system>/<score>"`` → mean)
    and ``errors`` (same keys → ``(se, se_method, se_label[, cluster])``), sorted by key.
    A key split at its last "/" (system names may hold one: ``mockllm/alpha``)."""
    errors = errors or {}
    out = []
    for key in sorted(set(aggregates) | set(errors)):
        system, _, score = key.rpartition("/")
        se, method, label, cluster = (*tuple(errors.get(key) or ()), None, None, None, None)[:4]
        if method is not None and method not in SE_METHODS:
            raise ValueError(f"{key}: unknown standard-error method {method!r}")
        out.append(
            ToolValue(
                system=system,
                score=score,
                value=_finite(aggregates.get(key)),
                se=_finite(se),
                se_method=method if _finite(se) is not None else None,
                se_label=None if label is None else str(label),
                cluster=None if cluster is None else str(cluster),
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class RepeatComponents:
    """The variance components of one score of one system (repeats nested in items)."""

    system: str
    score: str
    components: VarianceComponents

    def to_dict(self) -> dict[str, Any]:
        return {"system": self.system, "score": self.score, **self.components.to_dict()}


@dataclass(frozen=True)
class SourceInfo:
    """The file a verb read through an adapter (``--from FORMAT``)."""

    tool: str
    version: str | None
    format: str
    path: str
    items: int
    documents: int
    cluster: str
    independent: bool
    excluded: int = 0
    notes: tuple[str, ...] = ()
    repeats: tuple[RepeatComponents, ...] = ()
    #: What ``items`` counts, in words ("items"; "queries" for qrels and runs).
    noun: str = "items"
    #: The tool's own aggregates and standard errors, every system × score in the file.
    tool_values: tuple[ToolValue, ...] = ()
    #: The analysed system(s) × score beside ragstat's estimate (set by the verb).
    comparisons: tuple[ToolComparison, ...] = ()

    def tool_value(self, system: str, score: str) -> ToolValue | None:
        """The tool's number for ``system`` × ``score``; with one system in the file for
        that score, its number whatever the name (a second file compared as B)."""
        found = [v for v in self.tool_values if v.score == score]
        exact = [v for v in found if v.system == system]
        if exact:
            return exact[0]
        return found[0] if len(found) == 1 else None

    def sentence(self) -> str:
        """One line: what was read and what the unit is."""
        tool = self.tool if self.version is None else f"{self.tool} {self.version}"
        unit = (
            "each item is its own unit (items treated as independent)"
            if self.independent
            else f"grouped into {self.cluster}"
        )
        dropped = f"; {self.excluded} excluded without a cluster" if self.excluded else ""
        return f"Read {self.items} {self.noun} from {tool} ({self.path}); {unit}{dropped}."

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "version": self.version,
            "format": self.format,
            "path": self.path,
            "items": self.items,
            "documents": self.documents,
            "cluster": self.cluster,
            "independent": self.independent,
            "excluded": self.excluded,
            "notes": list(self.notes),
            "repeats": [r.to_dict() for r in self.repeats],
            "tool_values": [v.to_dict() for v in self.tool_values],
            "tool_comparison": [c.to_dict() for c in self.comparisons],
        }
