"""What the item-level metric verbs share on the command line (``ragstat.api.items``): their
options, the recorded run (registry entry and ``--out`` folder) and the terminal output —
one plain sentence per score first, then the table of means and headline intervals, then
every flag the intervals' JSON carries, in words."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ragstat.cli import options as o

if TYPE_CHECKING:  # the library is imported when a verb runs: a lean start for the others
    from ragstat.api.items import ItemScores, Scores
    from ragstat.cli.runlog import RunLog
    from ragstat.tidy import Tidy

__all__ = [
    "ClusterBy",
    "ItemOptions",
    "describe_items",
    "emit",
    "item_results",
    "markdown_summary",
    "render",
    "run_recorded",
    "score_intervals",
]

R = TypeVar("R")
ClusterBy = Annotated[str | None, typer.Option(help="Field with the cluster")]


@dataclass(frozen=True, kw_only=True)
class ItemOptions(o.OutputOptions):
    """The options every item verb takes: the cluster field and the interval settings."""

    cluster_by: ClusterBy = None
    level: o.Level = 0.95
    bootstrap_reps: o.Reps = 1999
    seed: o.Seed = None


def score_intervals(
    scores: Scores,
    rows: list[dict[str, Any]],
    cluster_by: str | None,
    *,
    level: float = 0.95,
    seed: int = 0,
    reps: int = 1999,
) -> dict[str, Any]:
    """{"scores": {score: {mean, n, …, intervals}}, "clustering": note} — the JSON form of
    :func:`ragstat.api.items.score_intervals` (kept for callers of the former helper)."""
    from ragstat.api.items import score_intervals as compute

    found, note = compute(scores, rows, cluster_by, level=level, seed=seed, reps=reps)
    return {"scores": {k: v.to_dict() for k, v in found.items()}, "clustering": note}


def _shown(iv: Mapping[str, Any] | None) -> str:
    """An interval the table may show: computed and within the score's range."""
    if iv is None or iv.get("lower") is None or iv.get("outside_range"):
        return "—"
    return f"[{iv['lower']:.3f}, {iv['upper']:.3f}]"


def _table_rows(result: ItemScores) -> list[tuple[str, ...]]:
    from ragstat.api.item_verdicts import score_headline
    from ragstat.inference.headline import MIN_HEADLINE_DOCUMENTS

    rows: list[tuple[str, ...]] = []
    for name, s in result.scores.items():
        e = s.to_dict()
        ivs = {iv["method"]: iv for iv in e["intervals"]}
        h = score_headline(s)
        head = "—"
        if h is not None and h.available:
            head = f"[{h.lower:.3f}, {h.upper:.3f}] {h.method}"
        few = (s.clusters or 0) < MIN_HEADLINE_DOCUMENTS  # no interval at all, naive neither
        rows.append(
            (
                name, "—" if s.mean is None else f"{s.mean:.4f}", str(s.n), str(s.not_scored),
                "—" if s.clusters is None else str(s.clusters), head, "—" if few else _shown(ivs.get("wald_iid")),
            )
        )  # fmt: skip
    return rows


def render(result: ItemScores, title: str, prefix: str = "") -> None:
    """The verdict sentences (each after ``prefix``), the scores as a table, every flag, the
    clustering and notes."""
    from rich.table import Table

    from ragstat.cli.terminal import console as make_console
    from ragstat.cli.terminal import literal

    console = make_console()
    for sentence in result.sentences():
        console.print(literal(prefix + sentence))
    t = Table(title=literal(title), title_justify="left")
    level = f"{result.level * 100:g}% interval"
    for col in ("score", "mean", "n", "not scored", "clusters", level, "naive iid"):
        t.add_column(col, justify="left" if col == "score" else "right")
    for row in _table_rows(result):
        t.add_row(*(literal(c) for c in row))
    console.print(t)
    for line in result.flags():
        console.print(literal(f"flag: {line}"))
    console.print(literal(result.clustering))
    for extra in result.notes:
        console.print(literal(f"note: {extra}"))


def emit(result: ItemScores, as_json: bool, source: object) -> None:
    """One JSON object (``--json``) or the sentences and table titled by the verb's input."""
    o.emit(result, as_json, lambda: render(result, f"{result.heading}: {source}"))


# ------------------------------------------------------------------ the recorded run


def item_results(result: ItemScores) -> dict[str, Any]:
    """What a registry diff compares: per score (and overall F1) the estimate and the
    headline interval (None when there is none)."""
    from ragstat.api.item_verdicts import f1_marks, score_headline

    out: dict[str, Any] = {}
    for name, s in result.scores.items():
        h = score_headline(s)
        out[name] = {"estimate": s.mean, "method": None, "lower": None, "upper": None}
        if h is not None and h.available:
            out[name] |= {"method": h.method, "lower": h.lower, "upper": h.upper}
    f1 = dict(getattr(result, "f1", None) or {})
    if getattr(result, "macro_f1", None) is not None:
        f1["macro_f1"] = result.macro_f1  # type: ignore[attr-defined]
    for name, entry in f1.items():
        e = f1_marks(entry)
        shown = e["reason"] is None
        out[name] = {
            "estimate": e.get("estimate"),
            "method": e.get("method") if shown else None,
            "lower": e.get("lower") if shown else None,
            "upper": e.get("upper") if shown else None,
        }
    return out


def markdown_summary(result: Tidy, more: Mapping[str, Sequence[str]]) -> str:
    """A Markdown page: the result's title, its sentences, its headline table, then each
    titled list of ``more`` (flags, notes…) that is not empty. Control characters of user
    text (system names, metadata) are visible escapes (``\\x1b``), never raw."""
    from ragstat.tidy import text_table, visible

    def escape(text: object) -> str:
        return visible(" ".join(str(text).splitlines()))

    rows = result.headline_rows()
    cols = [c for c in result.headline_columns if any(c in r for r in rows)]
    lines = text_table(rows, cols).split("\n")
    fence = "\n".join(visible(x).replace("```", "`\u200b``") for x in lines)
    table = "```text\n" + fence + "\n```"
    parts = [f"# {escape(result.title())}", *map(escape, result.sentences()), table]
    for title, items in more.items():
        if items:
            parts.append(f"## {escape(title)}\n\n" + "\n".join(f"- {escape(x)}" for x in items))
    return "\n\n".join(parts) + "\n"


def _write(log: RunLog, result: Any, summary: str) -> None:
    from ragstat.atomic import atomic_write_text
    from ragstat.tidy import json_text

    if log.out is None:  # called only for a run with --out
        return
    text = json_text(result.to_dict(), indent=2, default=str)
    log.wrote(atomic_write_text(log.out / "result.json", text))
    path = log.out / "summary.md"
    atomic_write_text(path, summary)
    log.wrote(path)


def run_recorded(
    verb: str,
    a: Any,
    inputs: Mapping[str, Path | None],
    compute: Callable[[], R],
    describe: Callable[[R], tuple[dict[str, Any], str]],
) -> R:
    """Run ``compute`` inside :func:`ragstat.cli.runlog.recorded` (the run registry and the
    ``--out`` transaction): ``describe(result)`` gives the registry's headline results and
    the Markdown summary written, with ``result.json``, into ``--out``."""
    from ragstat.cli.runlog import recorded
    from ragstat.cli.verb import settings_of

    settings = settings_of(a)
    with recorded(verb, settings, inputs=dict(inputs), out=a.out, force=a.force) as log:
        result = compute()
        log.config["seed"] = getattr(result, "seed", None)
        results, summary = describe(result)
        log.results = results
        if log.out is not None:
            _write(log, result, summary)
    return result


def describe_items(result: ItemScores) -> tuple[dict[str, Any], str]:
    """The registry results and the Markdown summary of an item verb's result."""
    more = {"Flags": result.flags(), "Notes": [result.clustering, *result.notes]}
    return item_results(result), markdown_summary(result, more)
