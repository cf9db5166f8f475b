"""Tables of a `Report` as plain-text cells, shared by the Markdown and HTML renderers.

Cells are unescaped text; each renderer escapes them for its own format.
"""

from __future__ import annotations

from ragstat.inference.headline import FEW_BOOTSTRAP_DOCUMENTS, flag_words
from ragstat.inference.results import Interval
from ragstat.report.coverage_tables import (
    DESIGN_METHODS,
    basis_text,
    coverage_table,
    reference_method,
    simulation_summary,
    simulations_table,
)
from ragstat.report.fmt import ci, clustering, df, method_label, num, pct, signed, whole
from ragstat.report.model import EstimandBlock, PairedInfo, Report
from ragstat.report.parts import NAIVE_CONTRAST
from ragstat.report.table import Table, level_text

__all__ = [
    "DESIGN_METHODS",
    "Table",
    "basis_text",
    "reference_method",
    "shown_method",
    "summary_table",
    "tables",
]


def summary_table(report: Report) -> Table:
    """The headline interval beside the naive one, per subject and estimand."""
    if report.kind == "simulation":
        return simulation_summary(report)
    rows = []
    for b in report.results:
        h, n = b.honest, b.naive_interval
        ratio = b.width_ratio
        rows.append(
            (
                b.subject,
                b.estimand,
                num(b.estimate),
                shown_method(b),
                ci(h) if h is not None else "none",
                df(h.df if h else None),
                _naive_cell(b, n),
                "n/a" if ratio is None else f"×{ratio:.2f}",
                "; ".join(b.lead().flags) or "none",
            )
        )
    header = (
        "subject",
        "estimand",
        "estimate",
        "method shown",
        f"{level_text(report)} interval",
        "df",
        "naive iid interval",
        "width honest / naive",
        "flags",
    )
    note = (
        "The naive interval treats every query as independent; it is shown for contrast only. "
        "The sample size is the number of documents K."
    )
    if report.design == "two-stage":
        note = note.replace("the number of documents K", "the number of sampled types t")
    return Table("summary", "Summary", header, tuple(rows), note)


def shown_method(b: EstimandBlock) -> str:
    """The label of the headline interval's method, or why there is none (the headline rule
    of :mod:`ragstat.inference.headline`: never another method in its place)."""
    h = b.honest
    if h is None:
        return f"none: {b.lead().reason or 'no method can be recommended'}"
    return method_label(h.method)


def _naive_cell(b: EstimandBlock, n: Interval | None) -> str:
    if n is None:
        return "not computed"
    text = ci(n)
    if n.reason and n.reason.startswith(NAIVE_CONTRAST):
        text += f" around {num(n.estimate)} (unweighted; added for contrast)"
    return text


def _intervals(report: Report) -> Table:
    rows = tuple(
        (
            b.subject,
            b.estimand,
            iv.method
            + (" (naive)" if iv.naive else "")
            + (" ★" if iv.method == b.recommended else ""),
            num(iv.estimate),
            ci(iv),
            num(iv.width),
            df(iv.df),
            num(iv.se),
            _interval_note(b, iv),
        )
        for b in report.results
        for iv in b.intervals
    )
    header = (
        "subject",
        "estimand",
        "method",
        "estimate",
        f"{level_text(report)} interval",
        "width",
        "df",
        "se",
        "note",
    )
    note = "★ the recommended interval (chosen by coverage on similar data, or the design-based estimator)."
    return Table("intervals", "All intervals", header, rows, note)


def _interval_note(b: EstimandBlock, iv: Interval) -> str:
    """Replicates, the method's remark and every flag of the interval, in words."""
    parts = []
    if iv.replicates:
        parts.append(f"{iv.replicates:,} replicates")
    if iv.reason and iv.available:
        parts.append(iv.reason)
    K = FEW_BOOTSTRAP_DOCUMENTS if b.K is None else b.K  # K unrecorded: no "few documents"
    words = flag_words(iv.to_dict(), K, b.bounds)
    return "; ".join(parts + [w for w in words if not w.startswith("unavailable")])


def _docs(report: Report) -> Table:
    neg = any(d.share_neg1 is not None for d in report.docs)
    rows = tuple(
        (
            d.subject,
            whole(d.K),
            whole(d.N),
            f"{whole(d.n_min)} / {d.n_median:g} / {d.n_mean:.1f} / {whole(d.n_max)}",
            clustering(d.icc, 3),
            clustering(d.deff, 2),
            "n/a" if d.deff is not None and d.deff <= 0 else whole(d.n_eff),
            num(d.lag1, 3),
            *((pct(d.share_neg1),) if neg else ()),
            pct(d.share0),
            pct(d.share1),
        )
        for d in report.docs
    )
    header = (
        "subject",
        "K",
        "N",
        "queries per doc min / median / mean / max",
        "ICC",
        "DEFF",
        "N/DEFF",
        "lag-1 autocorrelation",
        *(("docs at −1",) if neg else ()),
        "docs at 0",
        "docs at 1",
    )
    return Table(
        "documents",
        "Documents and diagnostics",
        header,
        rows,
        "Diagnostics explain the clustering; they never replace the clustered interval.",
    )


def _strata(report: Report) -> Table:
    rows = tuple(
        (
            r.subject,
            r.stratum,
            whole(r.K),
            whole(r.N),
            num(r.micro),
            num(r.macro),
            "n/a (a single document)"
            if r.macro_lower is None
            else f"[{num(r.macro_lower)}, {num(r.macro_upper)}]",
        )
        for r in report.strata
    )
    header = (
        "subject",
        report.strata_field or "stratum",
        "K",
        "N",
        "micro",
        "macro",
        f"macro {level_text(report)} t interval",
    )
    return Table("strata", f"By {report.strata_field or 'stratum'}", header, rows)


def _paired(report: Report, p: PairedInfo) -> Table:
    rows = [
        ("systems", " − ".join(p.systems)),
        ("documents tied (difference 0)", pct(p.ties_share)),
        ("documents with identical scores on every query", pct(p.identical_share)),
    ]
    rows += [
        (f"sign-flip p ({est}, {p.permutation_method})", f"{v:.4g}")
        for est, v in p.permutation_p.items()
    ]
    if p.matched is not None:
        rows.append(("queries paired", whole(p.matched)))
        rows.append(
            (
                "unmatched queries",
                f"{p.only_a or 0:,} / {p.only_b or 0:,} (on_missing = {p.on_missing})",
            )
        )
    diff = [b for b in report.results if b.subject == " − ".join(p.systems[:2])]
    rows += [
        (
            f"difference {b.estimand}",
            f"{signed(b.estimate)} {ci(b.honest)} ({method_label(b.honest.method)})"
            if b.honest is not None
            else f"{signed(b.estimate)}, no interval shown: {b.lead().reason}",
        )
        for b in diff
    ]
    return Table("paired", "Paired comparison", ("", "value"), tuple(rows))


def _excluded(report: Report) -> Table:
    rows = tuple(
        (e.doc_id or "—", e.source or "—", "—" if e.chunks is None else str(e.chunks), e.reason)
        for e in report.excluded
    )
    counts = "; ".join(f"{k}: {v:,}" for k, v in sorted(report.excluded_counts.items()))
    note = f"{report.excluded_total:,} excluded in all" + (f" ({counts})" if counts else "")
    if report.excluded_total > len(rows) and rows:
        note += f"; the first {len(rows):,} are listed (all are in documents.parquet)"
    if not rows and report.kind != "study":
        note += "; only the scored queries were given, so documents dropped upstream are unknown"
    return Table(
        "excluded", "Excluded documents", ("document", "source", "chunks", "reason"), rows, note
    )


def _metrics(report: Report) -> Table:
    rows = tuple((k, num(v)) for k, v in report.metrics.items())
    return Table("metrics", "Other metrics", ("metric", "value"), rows)


def tables(report: Report) -> list[Table]:
    """The detail tables, in page order (empty ones left out, except excluded documents)."""
    out = []
    if report.results:
        out.append(_intervals(report))
    if report.paired is not None:
        out.append(_paired(report, report.paired))
    if report.docs:
        out.append(_docs(report))
    if report.strata:
        out.append(_strata(report))
    if report.simulations:
        out.append(simulations_table(report))
    if report.coverage:
        out.append(coverage_table(report))
    if report.metrics:
        out.append(_metrics(report))
    out.append(_excluded(report))
    return out
