"""Terminal summary of a study: honest intervals beside the naive ones."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from ragstat.cli.terminal import console as default_console
from ragstat.cli.terminal import literal, markup


def _ci(intervals: list[dict], method: str) -> str:
    for iv in intervals:
        if iv["method"] == method:
            if iv["lower"] is None:
                return "unavailable"
            return f"[{iv['lower']:.3f}, {iv['upper']:.3f}]"
    return "—"


_LABEL = {"cr2_bm": "CR2", "cr1": "CR1"}


def _micro_method(summary: dict) -> str:
    """The recommended micro method (cr2_bm; cr1 for a sampled study's weighted records)."""
    for r in summary["retrievers"].values():
        rec = r["hit1"]["estimands"]["micro"].get("recommended")
        if rec:
            return rec
    return "cr2_bm"


def print_study(summary: dict, out: Path, console: Console | None = None) -> None:
    c = console or default_console()
    n = summary["counts"]
    c.print(
        f"[bold]{markup(summary['source'])}[/]: {n['documents']} documents "
        f"({n['eligible_documents']} issue queries; "
        f"excluded {markup(n['excluded'] or 'none')}), "
        f"{n['chunks']} chunks, {n['queries']} queries per retriever",
        emoji=False,
    )
    t = Table(
        title="hit@1 — the top result comes from the query's own document", title_justify="left"
    )
    method = _micro_method(summary)
    for col in (
        "retriever",
        "micro",
        f"95% {_LABEL.get(method, method)} (documents)",
        "naive iid",
        "macro",
        "95% t (documents)",
        "MRR@10",
    ):
        t.add_column(col, justify="left" if col == "retriever" else "right")
    for name, r in summary["retrievers"].items():
        est = r["hit1"]["estimands"]
        mi, ma = est["micro"], est["macro"]
        t.add_row(
            literal(name),
            f"{mi['estimate']:.3f}",
            _ci(mi["intervals"], method),
            _ci(mi["intervals"], "wald_iid"),
            f"{ma['estimate']:.3f}",
            _ci(ma["intervals"], "t_rates"),
            f"{r['mrr_at_10_micro']:.3f}",
        )
    c.print(t, emoji=False)
    if "paired" in summary:
        p = summary["paired"]
        a, b = p["systems"]
        mi = p["estimands"]["micro"]
        c.print(
            literal(
                f"{a} − {b}: micro {mi['estimate']:+.4f} {_ci(mi['intervals'], mi.get('recommended') or method)}, "
                f"documents tied {p['paired']['ties_share']:.0%}, sign-flip p (micro) "
                f"{p['paired']['permutation_p']['micro']:.3g}"
            )
        )
    c.print(
        literal(
            f"K documents are the sample size, not the {n['queries']} queries. "
            f"Outputs in {out}/: records.parquet, candidates.parquet, documents.parquet, "
            "summary.json"
        )
    )
