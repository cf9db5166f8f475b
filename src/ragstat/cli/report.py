"""`ragstat report RUN_DIR`: re-render report.md and report.html of a run's output folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli.terminal import safe


def report(
    run_dir: Annotated[
        Path, typer.Argument(help="Output folder of a run (with report.json or a study's files)")
    ],
    title: Annotated[str | None, typer.Option(help="Replace the report's title")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="Print nothing")] = False,
) -> None:
    """Re-render the report (Markdown and self-contained HTML) of a run folder."""
    from ragstat.outfolder import rewritten
    from ragstat.report import render_folder

    with rewritten(run_dir) as staging:  # an interrupted re-render leaves the folder as it was
        names = [p.name for p in render_folder(staging, title=title).values()]
    if not quiet:
        for name in names:
            typer.echo(safe(str(run_dir / name)))
