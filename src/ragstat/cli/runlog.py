"""What every verb leaves behind: a manifest (output folder and registry) and its report.

A verb wraps its work in :func:`recorded`; on success the manifest — command, config
(with the seed actually used), input hashes, corpus fingerprint, output paths, headline
results, versions, wall time and the outcome (``passed`` / ``failed gate`` when the verb
reports a decision with :meth:`RunLog.decided`, else ``ran``) — is written as
``manifest.json`` into the output folder and recorded in the run registry. A registry that cannot
be written (locked, unreadable) never costs the run its outputs: the verb's
files are already in place and a one-line warning says what was not recorded.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragstat.cli.terminal import error_line, safe
from ragstat.signals import signal_name

if TYPE_CHECKING:
    from ragstat.outfolder import OutputFolder

__all__ = ["RunLog", "absolute", "headline", "recorded", "set_argv", "write_json"]

#: The command line of this process's run as given to ``ragstat.cli.main`` (None: sys.argv).
ARGV: list[str] | None = None


def set_argv(argv: list[str] | None) -> None:
    """Record what ``main(argv)`` was called with, so an embedded or tested run's manifest
    shows its own command line rather than the host program's."""
    global ARGV
    ARGV = None if argv is None else list(argv)


@dataclass
class RunLog:
    """A run being recorded: the verb fills in ``config``, ``results`` and ``outputs``, and
    writes its files into ``out`` — the staging folder, published when the run succeeds."""

    command: str
    config: dict
    inputs: Mapping[str, Path | None] = field(default_factory=dict)
    out: Path | None = None
    corpus_fingerprint: str | None = None
    results: dict = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    run_id: str = ""
    started_at: str = ""
    t0: float = field(default_factory=time.perf_counter)
    folder: OutputFolder | None = None
    outcome: str | None = None

    def decided(self, passed: bool) -> None:
        """Record what a verb that decides (gate) concluded: the run's outcome is then
        "passed" or "failed gate" rather than "ran"."""
        self.outcome = "passed" if passed else "failed gate"

    def wrote(self, *paths: Path | str) -> None:
        self.outputs.extend(str(p) for p in paths)

    def write_report(self, report) -> None:
        """Render the report (JSON, Markdown, HTML) into the output folder, if there is one."""
        if self.out is None:
            return
        from ragstat.report import write_report

        self.wrote(*write_report(report, self.out).values())


def headline(report: Any) -> dict:
    """The numbers a registry diff compares and the web view shows: per estimand, the headline
    of :func:`ragstat.inference.headline.headline` as plain data (estimate; the recommended
    method and its bounds, or the reason there is no headline interval; the flags in words;
    the level, K and unit). ``report``: an `IntervalReport`, a comparison, or their dicts."""
    from ragstat.inference.headline import headlines

    return {name: {**h.to_dict(), "unit": h.unit} for name, h in headlines(report).items()}


def write_json(path: Path, obj: dict) -> Path:
    """``obj`` as indented strict JSON (an undefined number is null with a reason, see
    :func:`ragstat.tidy.json_text`), written atomically."""
    from ragstat.atomic import atomic_write_text
    from ragstat.tidy import json_text

    atomic_write_text(path, json_text(obj, indent=2, default=str))
    return path


def _input_hashes(inputs: Mapping[str, Path | None]) -> dict[str, str]:
    """sha256 of every input file or folder that exists, keyed by its role (file, corpus, a,
    b, …), so the same data typed as a relative or an absolute path is the same data."""
    from ragstat.registry import file_sha256

    # regular files and folders only: a FIFO or a device is never opened (it could block)
    return {
        role: file_sha256(p)
        for role, p in inputs.items()
        if p and (Path(p).is_file() or Path(p).is_dir())
    }


def absolute(path: Path | str | None) -> str | None:
    """A path as recorded in a run's config: absolute, so runs from other folders compare."""
    return None if path is None else str(Path(path).resolve())


@contextmanager
def recorded(
    command: str,
    config: dict,
    *,
    inputs: Mapping[str, Path | None] | None = None,
    out: Path | None = None,
    force: bool = False,
) -> Iterator[RunLog]:
    """Time the run; stage its files (``log.out``) and publish them to ``out`` with
    ``manifest.json`` only when it succeeds; record it in the registry — a failed or
    interrupted run too, with its status and error, and with ``out`` left as it was."""
    from ragstat.outfolder import open_output
    from ragstat.registry import new_run_id, utc_now

    folder = open_output(out, command, force=force) if out is not None else None
    log = RunLog(
        command,
        dict(config),
        dict(inputs or {}),
        folder.staging if folder else None,
        run_id=new_run_id(),
        started_at=utc_now(),
    )
    log.folder = folder
    try:
        yield log
        manifest = _manifest(log)
        if folder is not None:
            from ragstat.registry import write_manifest

            write_manifest(manifest, folder.staging)
            folder.publish()
    except BaseException as exc:
        if folder is not None and folder.published:  # a signal right after the publish
            _record(manifest)
            exc.published = True  # type: ignore[attr-defined]
            raise
        if folder is not None:
            folder.discard()
        _record_end(log, exc)
        raise
    _record(manifest)


def _record_end(log: RunLog, exc: BaseException) -> None:
    """Record a run that did not finish: failed, or interrupted by a signal."""
    if isinstance(exc, SystemExit) and not exc.code:
        return
    interrupted = isinstance(exc, KeyboardInterrupt)
    error = f"interrupted by {signal_name(exc)}" if interrupted else f"{type(exc).__name__}: {exc}"
    try:
        _record(_manifest(log, error=error, status="interrupted" if interrupted else "failed"))
    except Exception as also:  # the run's own error is the one to report
        print(f"ragstat: warning: unfinished run not recorded: {error_line(also)}", file=sys.stderr)


def _manifest(log: RunLog, error: str | None = None, status: str = "ok"):
    from ragstat.registry import Manifest, package_versions

    folder = log.folder
    outputs = [folder.final_path(p) if folder else p for p in log.outputs]
    if folder is not None and status == "ok":
        outputs.append(str(folder.final / "manifest.json"))
    return Manifest(
        run_id=log.run_id,
        command=log.command,
        argv=tuple(ARGV if ARGV is not None else sys.argv[1:]),
        config=log.config,
        seed=log.config.get("seed"),
        corpus_fingerprint=log.corpus_fingerprint,
        inputs=_input_hashes(log.inputs),
        outputs=tuple(outputs) if status == "ok" else (),
        results=log.results if status == "ok" else {},
        versions=package_versions(),
        started_at=log.started_at,
        wall_s=round(time.perf_counter() - log.t0, 3),
        status=status,
        error=error,
        outcome=(log.outcome or "ran") if status == "ok" else status,
    )


def _record(manifest) -> None:
    from ragstat.registry import RegistryError, record_run

    try:
        record_run(manifest)
    except (RegistryError, OSError) as exc:
        reason = str(exc).removesuffix("; not recorded")
        print(
            f"ragstat: warning: run {manifest.run_id} not recorded: {safe(reason)}", file=sys.stderr
        )
