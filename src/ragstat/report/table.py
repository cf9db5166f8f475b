"""A table of plain-text cells, shared by the Markdown and HTML renderers."""

from __future__ import annotations

from dataclasses import dataclass

from ragstat.report.model import Report

__all__ = ["Table", "level_text"]


@dataclass(frozen=True)
class Table:
    key: str
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str | None = None


def level_text(report: Report) -> str:
    """The confidence level as the page writes it."""
    return f"{100 * report.level:g} %"
