"""Reports: the `Report` model, its JSON, and the Markdown and self-contained HTML renderers."""

from ragstat.report.build import report_from_comparison, report_from_interval
from ragstat.report.gates import report_from_filter_rule, report_from_gates
from ragstat.report.html import render_html
from ragstat.report.markdown import render_markdown
from ragstat.report.model import SCHEMA_VERSION, Report
from ragstat.report.simulation import report_from_simulation
from ragstat.report.study import report_from_study
from ragstat.report.write import load_report, render_folder, write_report

__all__ = [
    "SCHEMA_VERSION",
    "Report",
    "load_report",
    "render_folder",
    "render_html",
    "render_markdown",
    "report_from_comparison",
    "report_from_filter_rule",
    "report_from_gates",
    "report_from_interval",
    "report_from_simulation",
    "report_from_study",
    "write_report",
]
