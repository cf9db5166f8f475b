"""How a verb shows the other tool's file it read (``--from``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["label", "print_source"]


def label(path: Path, data: Any) -> str:
    """The report's source line: the path, and the tool and its version when read via --from."""
    info = getattr(data, "info", None)
    if info is None:
        return str(path)
    tool = info.tool if info.version is None else f"{info.tool} {info.version}"
    return f"{path} ({tool}; {info.cluster})"


def print_source(
    data: Any, *, systems: Sequence[str] | None = None, score: str | None = None
) -> None:
    """The sentence, the tool's own numbers beside ragstat's (when the verb set them), the
    reader's notes and, with repeats, each score's variance split (``data``: a ``Source``,
    its ``SourceInfo`` or a result's ``source``; anything else prints nothing). With
    ``systems``/``score`` only what concerns the analysed systems and score is shown."""
    info = getattr(data, "info", data)
    if not hasattr(info, "sentence"):
        return
    from ragstat.cli.terminal import console, markup

    others = {r.system for r in info.repeats} - set(systems or ())
    scores = {r.score for r in info.repeats} - {score}

    def wanted(text: str) -> bool:
        if systems and any(text.startswith(f"{s}:") for s in others):
            return False
        return not (score and any(f" for {s} " in text for s in scores))

    c = console()
    c.print(markup(info.sentence()), emoji=False)
    for comparison in getattr(info, "comparisons", ()):
        c.print(f"  {markup(comparison.sentence)}", emoji=False)
    for note in filter(wanted, info.notes):
        c.print(f"  [dim]{markup(note)}[/]", emoji=False)
    for r in info.repeats:
        if (not systems or r.system in systems) and (score is None or r.score == score):
            c.print(f"  {markup(r.system)} · {markup(r.score)}: {markup(r.components.summary())}")
    c.print()
