"""What a reader of another tool's result file returns.

Score sources (inspect_ai, lm-evaluation-harness, ragas, DeepEval, promptfoo,
RAGChecker, HELM) give a :class:`SourceTable`: one row per system × item × repeat.
Run sources (ranx, BEIR, MTEB) give a :class:`RunSource`: qrels and named runs, the
inputs of ``ragstat evaluate``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ITEM",
    "REFERENCE_IDS",
    "REPEAT",
    "SYSTEM",
    "ReadOptions",
    "RunSource",
    "SourceTable",
]

#: Columns every :class:`SourceTable` frame has.
ITEM = "item_id"  # the item (sample, test case, question) as text
SYSTEM = "system"  # model / provider / task that produced the answer, as text
REPEAT = "repeat"  # epoch or repeat number (int, 0 when the source has none)
#: Optional column: the item's reference document ids (a list of text), for the
#: "first reference document" and "connected component" cluster rules.
REFERENCE_IDS = "reference_ids"


@dataclass(frozen=True)
class SourceTable:
    """Scores read from another tool's file.

    ``frame``: a pandas DataFrame, one row per (``system``, ``item_id``, ``repeat``);
    one float column per score named in ``scores`` (NaN where the tool gave no score);
    the source's metadata flattened as ``meta_<name>`` columns (text or numbers), and
    optionally ``reference_ids``. ``tool``/``version`` name the writer as read from the
    file (``version`` None when the file does not say). ``aggregates``: the tool's own
    reported aggregate per score (and system), when the file carries one, keyed
    ``"<system>/<score>"`` — tests check ragstat's mean against them.
    """

    frame: Any
    scores: tuple[str, ...]
    tool: str
    version: str | None
    source: str
    aggregates: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    #: The tool's own standard error per key of ``aggregates``, when the file has one:
    #: ``(se, method, label, cluster)`` (see ``adapters/reported_errors.py``).
    errors: dict[str, tuple[float, str, str, str | None]] = field(default_factory=dict)


@dataclass(frozen=True)
class RunSource:
    """Qrels and runs read from another tool's files (the inputs of ``evaluate``).

    ``qrels``: ``{query_id: {doc_id: relevance}}``; ``runs``: ``{name: {query_id:
    {doc_id: score}}}``; ``aggregates`` as in :class:`SourceTable` (``"<run>/<metric>"``).
    """

    qrels: dict[str, dict[str, int]]
    runs: dict[str, dict[str, dict[str, float]]]
    tool: str
    version: str | None
    source: str
    aggregates: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReadOptions:
    """What to read from a folder of results (each reader takes those in its ``OPTIONS``).

    ``task``: one task of an lm-eval or HELM folder; ``all_runs``: pool an inspect
    folder's reruns of one task and model as repeats (default: the latest run only);
    ``qrels``/``runs``: the file names of the qrels and runs of a ranx, BEIR or MTEB
    folder (default: found by their names and contents); ``score``: the score the verb
    will analyse, used only to make a message more precise.
    """

    task: str | None = None
    all_runs: bool = False
    qrels: str | None = None
    runs: tuple[str, ...] = ()
    score: str | None = None

    def given(self) -> dict[str, str]:
        """The options set, as ``{name: its command-line option}`` (``score`` excluded)."""
        out = {}
        if self.task is not None:
            out["task"] = "--task"
        if self.all_runs:
            out["all_runs"] = "--all-runs"
        if self.qrels is not None:
            out["qrels"] = "--qrels"
        if self.runs:
            out["runs"] = "--run"
        return out
