"""Terminal tables for `ragstat evaluate`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ragstat.cli.terminal import console as default_console
from ragstat.cli.terminal import literal, markup, plain_text
from ragstat.inference.verdict import (
    Verdict,
    cluster_noun,
    format_amount,
    unit_scale_for,
    verdicts,
)


def _ci(intervals: list[dict], method: str, named: bool = False) -> str:
    for iv in intervals:
        if iv["method"] == method:
            if iv["lower"] is None:
                return "unavailable"
            return f"[{iv['lower']:.4f}, {iv['upper']:.4f}]" + (f" {method}" if named else "")
    return "—"


def _run_table(name: str, res: dict, console: Console, head: str) -> None:
    q = res["queries"]
    t = Table(
        title=literal(
            f"{name}: {plain_text(q['total'])} queries ({plain_text(q['missing_run'])} with "
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
            _ci(m["intervals"], m.get("recommended") or "cr2_bm", named=True),
            _ci(m["intervals"], "wald_iid"),
        )
    console.print(t, emoji=False)


def _verdicts(out: dict) -> dict[str, tuple[Verdict, ...]]:
    """Each paired metric's verdicts (A − B), K named as the clustering counts it."""
    paired = out["paired"]
    a, b = (str(s) for s in paired["systems"])
    noun = cluster_noun(out.get("clustering", {}).get("by"))
    return {
        metric: verdicts(p, a, b, score=metric, unit_scale=unit_scale_for(metric), clusters=noun)
        for metric, p in paired["metrics"].items()
    }


def _paired_lines(paired: dict, found: dict[str, tuple[Verdict, ...]], console: Console) -> None:
    """Each metric's difference A − B per estimand, labelled a difference, with the interval
    the verdict used (the recommended method's) and the sign-flip p."""
    a, b = (markup(s) for s in paired["systems"])
    for note in paired.get("notes", []):
        console.print(f"[yellow]note:[/] {markup(note)}", emoji=False)
    for metric, p in paired["metrics"].items():
        scale = unit_scale_for(metric)
        unit = " points" if scale == 100.0 else ""
        for v in found[metric]:
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


def print_evaluation(out: dict, console: Console | None = None) -> None:
    console = console or default_console()
    found = _verdicts(out) if "paired" in out else {}
    for v in (v for group in found.values() for v in group):
        console.print(literal(v.sentence, "bold"), soft_wrap=True, emoji=False)
    console.print(literal(out["clustering"]["note"]))
    runs = out.get("runs") or {out["run"]: out}
    unit = "queries as clusters" if out["clustering"]["by"] == "query" else "clustered"
    head = f"{out['level'] * 100:g}% recommended ({unit})"
    for name, res in runs.items():
        _run_table(name, res, console, head)
        for w in res.get("warnings", []):
            console.print(f"[yellow]warning:[/] {markup(w)}", emoji=False)
    if "paired" in out:
        _paired_lines(out["paired"], found, console)
