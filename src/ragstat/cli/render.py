"""Readable terminal tables for an `IntervalReport`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ragstat.cli.terminal import console as default_console
from ragstat.cli.terminal import literal, markup, plain_text
from ragstat.inference.headline import describe, flag_words, headlines, unit_scale
from ragstat.inference.paired import ComparisonReport
from ragstat.inference.results import Diagnostics, EstimandResult, Interval, IntervalReport
from ragstat.inference.verdict import QUESTIONS, Verdict, format_amount, verdicts
from ragstat.inference.verdict import two_sample_sentence as two_sample_sentence

_DESCRIBE = {
    "micro": "micro — rate of a random query (Σs / Σn)",
    "macro": "macro — rate in a typical document (mean of r_d)",
    "type_mean": "mean over types of the mean document rate",
}


def _num(value: float | None, digits: int = 4) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _title(est: EstimandResult, names: tuple[str, str] | None, scale: float) -> str:
    """The table's title: a rate for one system, a difference A − B for a comparison."""
    if names is None:
        return f"{_DESCRIBE[est.estimand]}: {est.estimate:.4f}"
    amount = format_amount(est.estimate, scale, signed=True)
    unit = " points" if scale == 100.0 else ""
    question = QUESTIONS.get(est.estimand, est.estimand)
    a, b = (markup(n) for n in names)
    return f"{est.estimand} — difference {a} − {b} for {question}: {amount}{unit}"


def headline_sentences(report: IntervalReport, subject: str | None = None) -> list[str]:
    """One plain sentence per estimand: its headline interval (or why there is none)."""
    return [describe(h, report.score, subject) for h in headlines(report).values()]


def _note(iv: Interval, K: int, bounds: tuple[float, float] | None) -> str:
    """Every flag of one interval in words (the naive methods named as such)."""
    words = flag_words(iv.to_dict(), K, bounds)
    if iv.naive:
        words.insert(0, "naive (queries iid)")
    return "; ".join(words)


def diagnostics_line(d: Diagnostics) -> str:
    """The clustering diagnostics; an ICC or DEFF estimate ≤ 0 said in words, not printed."""
    if (d.icc is not None and d.icc <= 0) or (d.deff is not None and d.deff <= 0):
        clustering = "no clustering detected (estimate ≤ 0)"
    else:
        clustering = f"ICC {_num(d.icc, 3)}  DEFF {_num(d.deff, 1)}  N/DEFF {_num(d.n_eff, 0)}"
    return (
        f"{clustering}  lag-1 autocorrelation {_num(d.lag1_autocorrelation, 3)}  "
        f"docs at rate 0: {d.share_rate0:.1%}, at 1: {d.share_rate1:.1%}  "
        f"chunks/doc median {d.chunks_median:g}, top 10 % hold {d.chunks_top10_share:.0%}"
    )


def print_report(
    report: IntervalReport,
    source: str,
    console: Console | None = None,
    *,
    names: tuple[str, str] | None = None,
    subject: str | None = None,
) -> None:
    """The report's tables; ``names`` (A, B) mark it as the difference A − B of a comparison
    (whose verdicts the caller prints first); otherwise one sentence per estimand leads."""
    console = console or default_console()
    if names is None:
        for line in headline_sentences(report, subject):
            console.print(literal(line, "bold"), soft_wrap=True, emoji=False)
    scale = unit_scale(report.bounds)
    seed = "" if report.seed is None else f", seed {report.seed}"
    console.print(
        f"[bold]{markup(source)}[/]  score [bold]{markup(report.score)}[/]  "
        f"K = {plain_text(report.K)} documents, N = {plain_text(report.N, 6)} queries, "
        f"level {report.level * 100:g}%{seed}",
        emoji=False,
    )
    for est in report.estimands.values():
        table = Table(title=_title(est, names, scale), title_justify="left")
        for col in ("method", "lower", "upper", "width", "se", "df", "note"):
            table.add_column(col, justify="left" if col in ("method", "note") else "right")
        for iv in est.intervals:
            name = iv.method + (" ★" if iv.method == est.recommended else "")
            note = _note(iv, report.K, report.bounds)
            table.add_row(
                literal(name, "dim" if iv.naive else ""),
                _num(iv.lower),
                _num(iv.upper),
                _num(iv.width),
                _num(iv.se),
                _num(iv.df, 2),
                literal(note),
            )
        console.print(table, emoji=False)
        if est.recommendation_note:
            console.print(literal(f"★ {est.recommended}: {est.recommendation_note}"), emoji=False)
    console.print(literal(diagnostics_line(report.diagnostics)), emoji=False)
    console.print("★ recommended: the note under each table says on what basis")
    for w in report.warnings:
        console.print(f"[yellow]warning:[/] {markup(w)}", emoji=False)


def print_verdicts(found: tuple[Verdict, ...], console: Console) -> None:
    """One plain sentence per estimand, in bold, never wrapped mid-sentence."""
    for v in found:
        console.print(literal(v.sentence, "bold"), soft_wrap=True, emoji=False)


def print_comparison(result: ComparisonReport, source: str, console: Console | None = None) -> None:
    console = console or default_console()
    p, pairing = result.paired, result.pairing
    names = ("A", "B") if pairing is None else (str(pairing.systems[0]), str(pairing.systems[1]))
    print_verdicts(verdicts(result, *names, score=result.report.score), console)
    if pairing is not None:
        a, b = (markup(s) for s in pairing.systems)
        console.print(
            f"[bold]{a} − {b}[/]: {pairing.matched} paired queries"
            + (
                f"; dropped {pairing.only_a} only in {a}, {pairing.only_b} only in {b}"
                if pairing.only_a or pairing.only_b
                else ""
            ),
            emoji=False,
        )
    print_report(result.report, source=source, console=console, names=names)
    pvals = ", ".join(f"{k} {v:.4g}" for k, v in p.permutation_p.items())
    how = "exact" if p.permutation_method == "exact" else f"Monte Carlo, {p.permutation_reps} flips"
    console.print(
        f"documents with equal rates (ties): {p.ties_share:.1%}; identical on every query: "
        f"{p.identical_share:.1%}; sign-flip permutation p ({how}): {pvals}"
    )
