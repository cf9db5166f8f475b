"""Which report the view may show for a run: only the file the run itself wrote.

A run's report.html is shown when all of these hold, else the page says which one failed:

- the run recorded a report, and the sha256 of its bytes (recorded by ragstat since the
  registry kept output hashes; an older row is not shown: nothing proves the file is the
  run's);
- the report lies inside the run's recorded output folder (the folder of its manifest.json);
- that folder's manifest.json is this run's (its ``run_id``; another id: a later run wrote
  the same folder and replaced the report) and lists the report with the same sha256;
- the report and the manifest are regular files reached through no symbolic link at any
  component of their paths (:func:`ragstat.registry.outputs.read_regular`), and the bytes
  read hash to the recorded sha256 — the bytes served are those bytes.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from ragstat.registry import Manifest
from ragstat.registry.manifest import output_folder
from ragstat.registry.outputs import UnsafeFile, read_regular, read_run_manifest

__all__ = ["MAX_REPORT", "ReportFile", "check_report", "recorded_output"]

#: The largest report the view serves.
MAX_REPORT = 256 << 20
_RERUN = "Rerun the command below to write it again."


@dataclass(frozen=True)
class ReportFile:
    """The run's own report (``path`` and the ``body`` read), or why it cannot be shown
    (``problem``; ``replaced_by``: the run whose report now stands in its place)."""

    path: Path | None
    problem: str | None
    body: bytes | None = None
    replaced_by: str | None = None


def recorded_output(m: Manifest, name: str) -> Path | None:
    """The recorded output file called ``name`` (the only way a file reaches the view)."""
    for out in m.outputs:
        p = Path(out)
        if p.name == name and p.is_absolute():
            return p
    return None


def _refused(path: Path, why: str) -> ReportFile:
    why = why.rstrip(".")
    return ReportFile(None, f"The report recorded for this run, {path}, is not shown: {why}.")


def _inside(path: Path, folder: Path) -> bool:
    text = os.fspath(path)
    return os.path.normpath(text) == text and folder in path.parents


def _replaced(folder: Path, other: object) -> ReportFile:
    later = str(other) if isinstance(other, str) and other else None
    who = f"a later run, {later}," if later else "another run"
    return ReportFile(
        None,
        f"This run's report was replaced: {who} wrote the same output folder {folder} after "
        f"it. {_RERUN}",
        replaced_by=later,
    )


def _listed(m: Manifest, path: Path, folder: Path, digest: str) -> ReportFile | None:
    """None when ``folder``'s manifest is this run's and lists the report with ``digest``."""
    try:
        published = read_run_manifest(folder)
    except UnsafeFile as exc:
        return _refused(path, f"its folder's manifest cannot be trusted ({exc.reason})")
    if published.get("run_id") != m.run_id:
        return _replaced(folder, published.get("run_id"))
    hashes = published.get("output_sha256")
    if not isinstance(hashes, dict) or hashes.get(str(path)) != digest:
        return _refused(
            path, "the manifest in its folder does not list it with the sha256 this run recorded"
        )
    return None


def check_report(m: Manifest) -> ReportFile:
    """The run's report.html with its bytes, or why it cannot be shown."""
    path = recorded_output(m, "report.html")
    if path is None:
        return ReportFile(None, "This run recorded no HTML report.")
    if not os.path.lexists(path):
        return ReportFile(
            None,
            f"The report recorded for this run, {path}, is not there any more: it was moved "
            f"or deleted after the run. {_RERUN}",
        )
    digest = m.output_sha256.get(str(path))
    if digest is None:
        return _refused(
            path,
            "this run was recorded by an older ragstat that kept no sha256 of its report, so "
            f"nothing shows that the file is the one it wrote. {_RERUN}",
        )
    folder = output_folder(m)
    if folder is None or not _inside(path, folder):
        return _refused(path, "it is outside the run's recorded output folder")
    problem = _listed(m, path, folder, digest)
    if problem is not None:
        return problem
    try:
        body = read_regular(path, MAX_REPORT)
    except UnsafeFile as exc:
        return _refused(path, exc.reason)
    if hashlib.sha256(body).hexdigest() != digest:
        return _refused(path, "it has changed since the run wrote it (its sha256 differs)")
    return ReportFile(path, None, body)
