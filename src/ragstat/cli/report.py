"""`ragstat report RUN_DIR`: re-render report.md and report.html of a run's output folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli.terminal import safe

#: The files of a run folder that `report` opens (a FIFO among them would block the read).
_READ = ("manifest.json", "report.json", "summary.json")


def _regular_files_only(run_dir: Path) -> None:
    """Refuse, in one line and without opening it, a FIFO, socket or device (or a symlink
    to one) standing where the run folder's manifest or report belongs."""
    import os

    from ragstat.resources.inputs import regular_file

    for name in _READ:
        if os.path.lexists(run_dir / name):
            regular_file(run_dir / name, f"the run folder's {name}")


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

    _regular_files_only(run_dir)
    with rewritten(run_dir) as staging:  # an interrupted re-render leaves the folder as it was
        names = [p.name for p in render_folder(staging, title=title).values()]
    if not quiet:
        for name in names:
            typer.echo(safe(str(run_dir / name)))
