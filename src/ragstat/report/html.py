"""Self-contained HTML page of a `Report`: one file, inline CSS and SVG, no scripts, no network.

The jinja2 environment autoescapes everything, after showing control and bidi
characters of every value as visible escapes (``\\x1b``); only the SVG that
:mod:`ragstat.report.figures` generated is inserted unescaped (matplotlib escapes
the text inside it; control characters in it are made visible here). A Content-Security-Policy meta tag forbids any
script or external load even if something slipped through.
"""

from __future__ import annotations

import re
from functools import cache

from ragstat.report.fmt import ESTIMAND_LABELS
from ragstat.report.markdown import header_facts
from ragstat.report.matrix import MATRIX_KIND
from ragstat.report.model import DECISION_KINDS, Report
from ragstat.report.views import summary_table, tables
from ragstat.tidy import visible

__all__ = ["render_html"]


#: Control characters an SVG (XML 1.0) may not hold raw; tab, newline and CR stay.
_SVG_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _shown(value: object) -> object:
    """Every value a template prints: text with its controls visible, Markup as it is."""
    from markupsafe import Markup

    return value if isinstance(value, Markup) or not isinstance(value, str) else visible(value)


def _svg(svg: str) -> str:
    return _SVG_CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", svg)


@cache
def _environment():
    import jinja2

    return jinja2.Environment(
        finalize=_shown,
        loader=jinja2.PackageLoader("ragstat.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_html(report: Report) -> str:
    """The report page; the same `Report` always gives the same bytes."""
    from markupsafe import Markup

    from ragstat.report.figures import svg_figures

    figures = [
        {"spec": spec, "svg": None if svg is None else Markup(_svg(svg))}  # our own matplotlib SVG
        for spec, svg in svg_figures(report)
    ]
    decision = None
    if report.kind in DECISION_KINDS:
        from ragstat.report.gates import decision_table

        decision = decision_table(report)
    if report.kind == MATRIX_KIND:  # the matrix takes the decision table's place
        from ragstat.report.coverage_matrix import matrix_table

        decision = matrix_table(report)
    template = _environment().get_template("report.html.j2")
    return template.render(
        report=report,
        decision=decision,
        facts=header_facts(report),
        estimands=[ESTIMAND_LABELS.get(e, e) for e in report.estimands],
        summary=summary_table(report),
        figures=figures,
        tables=[] if decision else tables(report),
    )
