"""Markdown rendering of a `Report` (figures are drawn in the HTML page; here they are listed)."""

from __future__ import annotations

import html
import re

from ragstat.report.fmt import ESTIMAND_LABELS
from ragstat.report.matrix import MATRIX_KIND
from ragstat.report.model import DECISION_KINDS, Report
from ragstat.report.views import Table, summary_table, tables
from ragstat.tidy import visible

__all__ = ["escape", "header_facts", "render_markdown"]


#: Markdown punctuation backslash-escaped everywhere (CommonMark allows escaping any ASCII
#: punctuation): emphasis, code, links and images, headings, tables, math, strikethrough.
_PUNCT = re.compile(r"([\\`*_\[\](){}#!|$~])")
#: A list marker or setext underline at the start of the text (e.g. a list item's text).
_LEAD = re.compile(r"^(\s*)(-+|\++|=+|\d{1,9}(?=[.)]))([.)]?)(?=\s|$)")


def _lead(m: re.Match) -> str:
    """``- x`` → ``\\- x``; ``12. x`` → ``12\\. x`` (a backslash escapes punctuation only)."""
    space, mark, dot = m.groups()
    if dot:
        return f"{space}{mark}\\{dot}"
    return f"{space}\\{mark}"


def escape(text: object) -> str:
    """Text safe in a Markdown paragraph, list item or table cell: Markdown punctuation
    backslash-escaped (no links, images, emphasis, code or math from user text), ``&``,
    ``<`` and ``>`` as entities (no raw HTML), one line (no column or block breaks), and
    control or bidi characters as visible escapes (``\\x1b``: a terminal showing the file
    does not obey them)."""
    s = visible(" ".join(str(text).splitlines()))
    s = _PUNCT.sub(r"\\\1", s)
    s = _LEAD.sub(_lead, s)
    return html.escape(s, quote=False)


def header_facts(report: Report) -> list[tuple[str, str]]:
    """(label, value) lines under the title, shared with the HTML page."""
    facts = [
        ("kind", report.kind),
        ("source", report.source),
        ("created", report.created),
        ("score", report.score),
        ("design", report.design),
        ("level", f"{100 * report.level:g} %"),
    ]
    if report.population is not None:
        facts.append(("population M", f"{report.population:,} documents"))
    if report.seed is not None:
        facts.append(("seed", str(report.seed)))
    if report.bootstrap_reps:
        facts.append(("bootstrap replicates", f"{report.bootstrap_reps:,}"))
    facts.append(("generator", f"{report.generator} (report schema {report.schema_version})"))
    return facts


def _top(report: Report) -> list[str]:
    """The title, the verdict (the answer, said first), then the facts of the run."""
    lines = [f"# {escape(report.title)}", ""]
    if report.verdicts:
        lines += ["## Verdict", ""] + [f"- **{escape(v)}**" for v in report.verdicts] + [""]
    lines += [f"- **{k}**: {escape(v)}" for k, v in header_facts(report)]
    return [*lines, ""]


def _table(t: Table) -> list[str]:
    lines = [f"## {escape(t.title)}", ""]
    if t.rows:
        lines.append("| " + " | ".join(escape(h) for h in t.header) + " |")
        lines.append("|" + "---|" * len(t.header))
        lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in t.rows]
        lines.append("")
    if t.note:
        lines += [f"_{escape(t.note)}_", ""]
    return lines


def _figures(report: Report) -> list[str]:
    from ragstat.report.figures import figure_specs

    lines = ["## Figures (drawn in report.html)", ""]
    for spec in figure_specs(report):
        text = spec.caption if spec.available else f"not available — {spec.note}"
        lines.append(f"- **{spec.key} {escape(spec.title)}**: {escape(text)}")
    return [*lines, ""]


def _notes(report: Report) -> list[str]:
    lines: list[str] = []
    for title, items in (("Warnings", report.warnings), ("Notes", report.notes)):
        if items:
            lines += [f"## {title}", ""] + [f"- {escape(w)}" for w in items] + [""]
    return lines


def _decision_markdown(report: Report) -> str:
    """A decision report (gates, filter rule): verdict, decision table, G1, notes."""
    from ragstat.report.gates import decision_table

    lines = _top(report)
    lines += _table(decision_table(report))
    lines += _figures(report) + _notes(report)
    return "\n".join(lines).rstrip() + "\n"


def _matrix_markdown(report: Report) -> str:
    """A coverage-matrix report: summary lines, the matrix table, M1, notes."""
    from ragstat.report.coverage_matrix import matrix_table

    lines = _top(report)
    lines += _table(matrix_table(report))
    lines += _figures(report) + _notes(report)
    return "\n".join(lines).rstrip() + "\n"


def render_markdown(report: Report) -> str:
    """The whole report as GitHub-flavoured Markdown."""
    if report.kind in DECISION_KINDS:
        return _decision_markdown(report)
    if report.kind == MATRIX_KIND:
        return _matrix_markdown(report)
    lines = _top(report)
    lines += ["Declared estimand(s):", ""]
    lines += [f"- {escape(ESTIMAND_LABELS.get(e, e))}" for e in report.estimands]
    lines.append("")
    lines += _table(summary_table(report))
    lines += ["## What to report (document-level reporting checklist)", ""]
    for i, item in enumerate(report.checklist, 1):
        lines.append(f"{i}. **{escape(item.label)}**: {escape(item.text)}")
    lines += ["", *_figures(report)]
    for t in tables(report):
        lines += _table(t)
    lines += _notes(report)
    return "\n".join(lines).rstrip() + "\n"
