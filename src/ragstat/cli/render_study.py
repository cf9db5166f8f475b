"""Terminal summary of a study: the verdicts first, then the headline intervals beside the
naive ones, strata if asked for."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from ragstat.cli.terminal import console as default_console
from ragstat.cli.terminal import literal, markup, plain_text

if TYPE_CHECKING:
    from ragstat.inference.headline import Headline
    from ragstat.inference.results import EstimandResult
    from ragstat.report.model import StratumRow
    from ragstat.report.summary import StudySummary

__all__ = ["print_study"]

#: Short words for a method in the table (the report names each in full).
_LABEL = {
    "cr2_bm": "CR2 (Bell–McCaffrey df)",
    "cr2_ik": "CR2 (Imbens–Kolesár df)",
    "cr1": "CR1",
    "t_rates": "t on document rates",
    "doc_bootstrap_t": "document bootstrap-t",
    "doc_bootstrap_percentile": "document bootstrap percentile",
    "logit": "logit",
    "korn_graubard": "Korn–Graubard",
    "logit_cr2_bm": "logit around CR2",
    "cr3_bm": "CR3 (jackknife)",
    "wcr": "wild bootstrap-t",
    "doc_bootstrap_bca": "document bootstrap BCa",
    "beta_binomial": "Bayesian beta-binomial",
    "doc_bootstrap_calibrated": "calibrated document bootstrap",
}
#: What a study folder holds after `ragstat study` (report.json and report.md beside the HTML).
OUTPUTS = (
    "records.parquet",
    "candidates.parquet",
    "documents.parquet",
    "summary.json",
    "report.html",
    "report.md",
    "report.json",
    "manifest.json",
)


def _ci(res: EstimandResult, method: str) -> str:
    for iv in res.intervals:
        if iv.method == method:
            if iv.lower is None or iv.upper is None:
                return "unavailable"
            return f"[{iv.lower:.3f}, {iv.upper:.3f}]"
    return "—"


def _bounds(lower: float | None, upper: float | None) -> str:
    return "—" if lower is None or upper is None else f"[{lower:.3f}, {upper:.3f}]"


def _shown(h: Headline) -> tuple[str, str]:
    """The headline interval and its method in words ("—" where the rule shows none)."""
    if not h.available:
        return "none", "—"
    return _bounds(h.lower, h.upper), _LABEL.get(h.method or "", h.method or "—")


def _headline(summary: StudySummary) -> str:
    n = summary.counts
    excluded = dict(n.excluded)
    if n.unreadable_files:
        excluded["unreadable files"] = n.unreadable_files
    return (
        f"[bold]{markup(summary.source)}[/]: {n.documents:,} documents "
        f"({n.eligible_documents:,} issue queries; excluded {markup(plain_text(excluded) or 'none')}), "
        f"{n.chunks:,} chunks, {n.queries:,} queries per retriever"
    )


def _table(summary: StudySummary) -> Table:
    t = Table(
        title="hit@1 — the top result comes from the query's own document", title_justify="left"
    )
    level = f"{summary.level:.0%}"
    for col in (
        "retriever",
        "micro",
        f"{level} interval (documents)",
        "method",
        "naive iid",
        "macro",
        f"{level} interval (documents)",
        "method",
        "MRR@10",
    ):
        t.add_column(col, justify="left" if col in ("retriever", "method") else "right")
    for name, r in summary.retrievers.items():
        mi, ma = r.hit1.estimands["micro"], r.hit1.estimands["macro"]
        heads = summary.headlines(name)
        t.add_row(
            literal(name),
            f"{mi.estimate:.3f}",
            *_shown(heads["micro"]),
            _ci(mi, "wald_iid"),
            f"{ma.estimate:.3f}",
            *_shown(heads["macro"]),
            f"{r.mrr_at_10_micro:.3f}",
        )
    return t


def _remarks(summary: StudySummary) -> list[str]:
    """Why a headline is missing and every flag of a headline interval, in words."""
    out = []
    for name in summary.retrievers:
        for est, h in summary.headlines(name).items():
            if h.reason is not None:
                out.append(f"{name} {est}: no interval shown: {h.reason}")
            out += [f"{name} {est}: {flag}" for flag in h.flags]
    return out


def _strata_table(summary: StudySummary, rows: Sequence[StratumRow]) -> Table | None:
    """hit@1 per stratum and retriever: K, N, micro, macro with its interval on the
    stratum's document rates (Korn–Graubard for rates; — when K < 2)."""
    if summary.by_stratum is None:
        return None
    shown = {(r.subject, r.stratum): r for r in rows}
    t = Table(title=f"hit@1 by {summary.by_stratum.field}", title_justify="left")
    level = f"{summary.level:.0%}"
    for col in ("retriever", "stratum", "K", "N", "micro", "macro", f"macro {level} (documents)"):
        t.add_column(col, justify="left" if col in ("retriever", "stratum") else "right")
    for name, by in summary.by_stratum.hit1.items():
        for stratum, v in by.items():
            row = shown.get((name, stratum))
            bounds = "—" if row is None else _bounds(row.macro_lower, row.macro_upper)
            t.add_row(
                literal(name),
                literal(stratum),
                f"{v.K:,}",
                f"{v.N:,}",
                f"{v.micro:.3f}",
                f"{v.macro:.3f}",
                bounds,
            )
    return t


def _paired_line(summary: StudySummary) -> str | None:
    """Ties and the sign-flip test of the paired comparison (its verdicts are said first)."""
    p = summary.paired
    if p is None:
        return None
    a, b = p.systems
    s = p.paired
    return (
        f"{a} − {b}, paired by query: documents tied {s.ties_share:.0%}, "
        f"sign-flip p (micro) {s.permutation_p['micro']:.3g}"
    )


def print_study(
    summary: StudySummary,
    out: Path,
    console: Console | None = None,
    *,
    strata: Sequence[StratumRow] = (),
) -> None:
    """The study on the terminal: the verdicts first (hit@1 of every retriever with its
    headline interval, then who wins the paired comparison, by how much, and whether it is
    real), the counts, hit@1 per retriever (the headline interval and its method beside the
    naive one), flags in words, the paired test, strata (``strata``: the report's rows, with
    intervals), and the files written."""
    c = console or default_console()
    for sentence in summary.verdicts():
        c.print(literal(sentence), emoji=False)
    c.print()
    c.print(_headline(summary), emoji=False)
    c.print(_table(summary), emoji=False)
    for line in [*_remarks(summary), _paired_line(summary)]:
        if line is not None:
            c.print(literal(line), emoji=False)
    table = _strata_table(summary, strata)
    if table is not None:
        c.print(table, emoji=False)
    c.print(
        literal(
            f"K documents are the sample size, not the {summary.counts.queries:,} queries "
            "(the document-level reporting checklist is in report.html). "
            f"Outputs in {out}/: {', '.join(OUTPUTS)}"
        )
    )
