"""Terminal tables for `ragstat evaluate`: the plain sentences first (the paired verdicts with
two runs, each metric's headline interval otherwise), then one table per run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from ragstat.cli.terminal import console as default_console
from ragstat.cli.terminal import literal, markup, plain_text
from ragstat.inference.headline import headline
from ragstat.inference.verdict import Verdict, format_amount

if TYPE_CHECKING:
    from ragstat.api.evaluation import EvaluationReport, MetricEvaluation, RunEvaluation


def _naive(intervals: list[dict]) -> str:
    for iv in intervals:
        if iv["method"] == "wald_iid":
            return (
                "unavailable" if iv["lower"] is None else f"[{iv['lower']:.4f}, {iv['upper']:.4f}]"
            )
    return "—"


def _shown(m: MetricEvaluation) -> str:
    """The metric's headline micro interval and its method, or why there is none."""
    if m.report is None:
        return f"none: {m.note}"
    h = headline(m.report, "micro")
    if not h.available:
        return f"none: {h.reason}"
    flags = "".join(f"; {f}" for f in h.flags)
    return f"[{h.lower:.4f}, {h.upper:.4f}] {h.method}{flags}"


def _run_table(run: RunEvaluation, res: dict, console: Console, head: str) -> None:
    q = res["queries"]
    t = Table(
        title=literal(
            f"{run.name}: {plain_text(q['total'])} queries ({plain_text(q['missing_run'])} with "
            f"no run, {plain_text(q['no_relevant'])} without relevant documents — a separate "
            "slice)"
        ),
        title_justify="left",
    )
    for col in ("metric", "mean", "clusters", head, "naive iid"):
        t.add_column(col, justify="left" if col == "metric" else "right")
    for metric, m in res["metrics"].items():
        mean = "—" if m["mean"] is None else f"{m['mean']:.4f}"
        t.add_row(
            literal(metric),
            mean,
            plain_text(m.get("clusters")),
            literal(_shown(run.metrics[metric])),
            _naive(m["intervals"]),
        )
    console.print(t, emoji=False)


def _paired_lines(paired: dict, found: dict[str, tuple[Verdict, ...]], console: Console) -> None:
    """Each metric's difference A − B per estimand, labelled a difference, with the interval
    the verdict used (the headline's) and the sign-flip p."""
    a, b = (markup(s) for s in paired["systems"])
    for note in paired.get("notes", []):
        console.print(f"[yellow]note:[/] {markup(note)}", emoji=False)
    for metric, p in paired["metrics"].items():
        for v in found[metric]:
            scale = 100.0 if v.unit == "points" else 1.0
            unit = " points" if scale == 100.0 else ""
            shown = "—" if v.difference is None else format_amount(v.difference, scale, True)
            span = "no interval"
            if v.lower is not None and v.upper is not None:
                lo, hi = (format_amount(x, scale, True) for x in (v.lower, v.upper))
                span = f"{v.level * 100:g} % interval {lo} to {hi}, {v.method}"
            console.print(
                f"{markup(metric)} {v.estimand} — difference {a} − {b} for {v.question}: "
                f"{shown}{unit} ({span}), "
                f"sign-flip p {p['paired']['permutation_p'][v.estimand]:.3g}",
                emoji=False,
            )


def print_evaluation(result: EvaluationReport, console: Console | None = None) -> None:
    """The sentences (``result.sentences()``), the clustering, a table per run, the pairs."""
    console = console or default_console()
    out = result.to_dict()
    for line in result.sentences():
        console.print(literal(line, "bold"), soft_wrap=True, emoji=False)
    console.print(literal(out["clustering"]["note"]))
    runs = out.get("runs") or {out["run"]: out}
    unit = "queries as clusters" if out["clustering"]["by"] == "query" else "clustered"
    head = f"{out['level'] * 100:g}% headline ({unit})"
    for name, res in runs.items():
        _run_table(result.runs[name], res, console, head)
        for w in res.get("warnings", []):
            console.print(f"[yellow]warning:[/] {markup(w)}", emoji=False)
    if result.paired is not None and "paired" in out:
        found = {m: p.verdicts for m, p in result.paired.metrics.items()}
        _paired_lines(out["paired"], found, console)
