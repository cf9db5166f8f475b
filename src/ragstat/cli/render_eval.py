"""Terminal tables for `ragstat evaluate`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ragstat.cli.terminal import console as default_console
from ragstat.cli.terminal import literal, markup


def _ci(intervals: list[dict], method: str) -> str:
    for iv in intervals:
        if iv["method"] == method:
            return (
                "unavailable" if iv["lower"] is None else f"[{iv['lower']:.4f}, {iv['upper']:.4f}]"
            )
    return "—"


def _run_table(name: str, res: dict, console: Console, head: str) -> None:
    q = res["queries"]
    t = Table(
        title=literal(
            f"{name}: {q['total']} queries ({q['missing_run']} with no run, "
            f"{q['no_relevant']} without relevant documents — a separate slice)"
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
            str(m.get("clusters", "—")),
            _ci(m["intervals"], "cr2_bm"),
            _ci(m["intervals"], "wald_iid"),
        )
    console.print(t, emoji=False)


def print_evaluation(out: dict, console: Console | None = None) -> None:
    console = console or default_console()
    console.print(literal(out["clustering"]["note"]))
    runs = out.get("runs") or {out["run"]: out}
    unit = "queries as clusters" if out["clustering"]["by"] == "query" else "clustered"
    head = f"{out['level'] * 100:g}% CR2 ({unit})"
    for name, res in runs.items():
        _run_table(name, res, console, head)
        for w in res.get("warnings", []):
            console.print(f"[yellow]warning:[/] {markup(w)}", emoji=False)
    if "paired" in out:
        a, b = (markup(s) for s in out["paired"]["systems"])
        for note in out["paired"].get("notes", []):
            console.print(f"[yellow]note:[/] {markup(note)}", emoji=False)
        for metric, p in out["paired"]["metrics"].items():
            mi = p["estimands"]["micro"]
            console.print(
                f"{a} − {b} {markup(metric)}: {mi['estimate']:+.4f} "
                f"{markup(_ci(mi['intervals'], 'cr2_bm'))}, "
                f"sign-flip p {p['paired']['permutation_p']['micro']:.3g}",
                emoji=False,
            )
