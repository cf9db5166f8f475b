"""Terminal tables for coverage simulations."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ragstat.cli.terminal import console as default_console
from ragstat.cli.terminal import literal, markup


def _table(report: dict, console: Console) -> None:
    c = report["census"]
    console.print(
        literal(
            f"census: {c['K']} documents, {c['N']} queries, micro {c['micro']:.4f}, macro "
            f"{c['macro']:.4f}; design {report['design']}, {report['reps']} samples per K, "
            f"seed {report['seed']}"
        )
    )
    t = Table(title=f"coverage at nominal {report['level'] * 100:g}%", title_justify="left")
    for col in (
        "K",
        "estimand",
        "method",
        "coverage",
        "± MC SE",
        "mean width",
        "bias",
        "RMSE",
        "unavailable",
    ):
        t.add_column(col, justify="left" if col in ("estimand", "method") else "right")
    for r in report["results"]:
        width = "—" if r["mean_width"] is None else f"{r['mean_width']:.4f}"
        t.add_row(
            str(r["k"]),
            literal(r["estimand"]),
            literal(r["method"]),
            f"{r['coverage']:.1%}",
            f"{r['coverage_se']:.1%}",
            width,
            f"{r['bias']:+.4f}",
            f"{r['rmse']:.4f}",
            f"{r['unavailable']:.1%}",
        )
    console.print(t, emoji=False)
    for key, pick in report["recommendation"].get("by_k_estimand", {}).items():
        console.print(
            literal(f"recommended for {key}: {', '.join(pick['methods'])} ({pick['basis']})")
        )
    console.print(literal(report["recommendation"].get("caveat", "")))


def print_coverage(out: dict, console: Console | None = None) -> None:
    console = console or default_console()
    if "studies" not in out:
        _table(out, console)
        return
    for study in out["studies"]:
        console.print(
            f"[bold]{markup(study['folder'])}[/]: {study['chunk_words']}-word chunks, "
            f"{study['eligible_documents']} eligible documents",
            emoji=False,
        )
        _table(study, console)
