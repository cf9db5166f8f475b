"""Terminal tables for coverage simulations."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table


def _table(report: dict, console: Console) -> None:
    c = report["census"]
    console.print(
        f"census: {c['K']} documents, {c['N']} queries, micro {c['micro']:.4f}, macro "
        f"{c['macro']:.4f}; design {report['design']}, {report['reps']} samples per K, seed {report['seed']}"
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
            r["estimand"],
            r["method"],
            f"{r['coverage']:.1%}",
            f"{r['coverage_se']:.1%}",
            width,
            f"{r['bias']:+.4f}",
            f"{r['rmse']:.4f}",
            f"{r['unavailable']:.1%}",
        )
    console.print(t)
    for key, pick in report["recommendation"].get("by_k_estimand", {}).items():
        console.print(f"recommended for {key}: {', '.join(pick['methods'])} ({pick['basis']})")
    console.print(report["recommendation"].get("caveat", ""))


def print_coverage(out: dict, console: Console | None = None) -> None:
    console = console or Console()
    if "studies" not in out:
        _table(out, console)
        return
    for study in out["studies"]:
        console.print(
            f"[bold]{study['folder']}[/]: {study['chunk_words']}-word chunks, "
            f"{study['eligible_documents']} eligible documents"
        )
        _table(study, console)
