"""Write a report folder (report.json, report.md, report.html) and re-render one."""

from __future__ import annotations

from pathlib import Path

from ragstat.atomic import atomic_write_text
from ragstat.errors import InputError
from ragstat.records.textio import read_json_file
from ragstat.report.model import Report
from ragstat.tidy import json_text

__all__ = ["FILES", "load_report", "render_folder", "write_report"]

FILES = {"json": "report.json", "markdown": "report.md", "html": "report.html"}


def _render(report: Report, out: Path, keys: tuple[str, ...]) -> dict[str, Path]:
    from ragstat.report.html import render_html
    from ragstat.report.markdown import render_markdown

    # render everything before writing anything: a failure leaves the folder as it was
    texts = {}
    if "json" in keys:
        texts["json"] = json_text(report.to_dict(), indent=2) + "\n"
    texts["markdown"] = render_markdown(report)
    texts["html"] = render_html(report)
    return {key: atomic_write_text(out / FILES[key], text) for key, text in texts.items()}


def write_report(report: Report, out: Path) -> dict[str, Path]:
    """Write report.json, report.md and report.html into ``out`` (atomically, each)."""
    if not isinstance(report, Report):
        raise InputError(f"write_report needs a Report, got {type(report).__name__}")
    return _render(report, Path(out), ("json", "markdown", "html"))


def load_report(path: Path) -> Report:
    """Read a report.json (or the folder holding one)."""
    path = Path(path)
    if path.is_dir():
        path = path / FILES["json"]
    if not path.is_file():
        raise InputError(f"{path}: no such report file")
    try:
        data = read_json_file(path, "report")  # every failure (deep nesting too) is named
    except InputError as exc:
        raise InputError(f"unreadable or corrupt report JSON: {exc}") from None
    try:
        return Report.from_dict(data)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"{path}: corrupt report JSON ({exc})") from None


def render_folder(run_dir: Path, *, title: str | None = None) -> dict[str, Path]:
    """Re-render report.md and report.html of ``run_dir`` (what `ragstat report` does).

    From report.json when there is one; otherwise a study folder (summary.json +
    records.parquet, e.g. written by an older ragstat) is turned into a report
    and report.json is written too.
    """
    run_dir = Path(run_dir)
    if not run_dir.exists():
        raise InputError(f"{run_dir}: no such folder")
    if not run_dir.is_dir():
        raise InputError(f"{run_dir}: not a folder (give the run's output folder)")
    report_json = run_dir / FILES["json"]
    if report_json.is_file():
        report = load_report(report_json)
        if title is not None:
            from dataclasses import replace

            report = replace(report, title=title)
            return _render(report, run_dir, ("json", "markdown", "html"))
        return {"json": report_json, **_render(report, run_dir, ())}
    if (run_dir / "summary.json").is_file():
        from ragstat.report.study import report_from_study

        return write_report(report_from_study(run_dir, title=title), run_dir)
    raise InputError(
        f"{run_dir}: nothing to render — no report.json and no summary.json "
        "(give the --out folder of a ragstat run)"
    )
