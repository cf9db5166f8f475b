"""Where a table came from when another tool wrote it: the tool, its version, how its
items were grouped into documents and, with repeats, the variance components."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragstat.inference.components import VarianceComponents

__all__ = ["RepeatComponents", "SourceInfo"]


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
        }
