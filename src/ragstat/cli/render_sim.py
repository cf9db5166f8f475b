"""Terminal tables for coverage simulations."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ragstat.cli.terminal import console as default_console
from ragstat.cli.terminal import literal, markup, plain_text


def _fixed(x: float | None, spec: str = ".4f") -> str:
    """A number with ``spec``, or — when the simulation could not compute it."""
    return "—" if x is None else format(x, spec)


def _table(report: dict, console: Console) -> None:
    c = report["census"]
    seed = "" if report.get("seed") is None else f", seed {report['seed']}"
    console.print(
        literal(
            f"census: {plain_text(c['K'])} documents, {plain_text(c['N'])} queries, micro "
            f"{c['micro']:.4f}, macro {c['macro']:.4f}; design {report['design']}, "
            f"{plain_text(report['reps'])} samples per K{seed}"
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
        t.add_row(
            str(r["k"]),
            literal(r["estimand"]),
            literal(r["method"]),
            f"{r['coverage']:.1%}",
            f"{r['coverage_se']:.1%}",
            _fixed(r.get("mean_width")),
            _fixed(r.get("bias"), "+.4f"),
            _fixed(r.get("rmse")),
            f"{r['unavailable']:.1%}",
        )
    console.print(t, emoji=False)
    for key, pick in report["recommendation"].get("by_k_estimand", {}).items():
        console.print(
            literal(
                f"recommended for {key}: {plain_text(pick['methods']) or 'none'} ({pick['basis']})"
            )
        )
    console.print(literal(report["recommendation"].get("caveat", "")))


def print_coverage(out: dict, console: Console | None = None) -> None:
    console = console or default_console()
    if "studies" not in out:
        _table(out, console)
        for note in out.get("notes") or ():
            console.print(f"note: {markup(str(note))}", emoji=False)
        return
    for study in out["studies"]:
        console.print(
            f"[bold]{markup(study['folder'])}[/]: {plain_text(study['chunk_words'])}-word "
            f"chunks, {plain_text(study['eligible_documents'])} eligible documents",
            emoji=False,
        )
        _table(study, console)
