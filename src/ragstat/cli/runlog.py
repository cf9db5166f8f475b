"""What every verb leaves behind: a manifest (output folder and registry) and its report.

A verb wraps its work in :func:`recorded`; on success the manifest — command,
config (with the seed actually used), input hashes, corpus fingerprint, output
paths, headline results, versions, wall time — is written as ``manifest.json``
into the output folder and recorded in the run registry. A registry that cannot
be written (locked, unreadable) never costs the run its outputs: the verb's
files are already in place and a one-line warning says what was not recorded.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ragstat.errors import InputError

__all__ = ["RunLog", "absolute", "headline", "out_dir", "recorded", "write_json"]


@dataclass
class RunLog:
    """A run being recorded: the verb fills in ``config``, ``results`` and ``outputs``."""

    command: str
    config: dict
    inputs: Mapping[str, Path] = field(default_factory=dict)
    out: Path | None = None
    corpus_fingerprint: str | None = None
    results: dict = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    run_id: str = ""
    started_at: str = ""
    t0: float = field(default_factory=time.perf_counter)

    def wrote(self, *paths: Path | str) -> None:
        self.outputs.extend(str(p) for p in paths)

    def write_report(self, report) -> None:
        """Render the report (JSON, Markdown, HTML) into the output folder, if there is one."""
        if self.out is None:
            return
        from ragstat.report import write_report

        self.wrote(*write_report(report, self.out).values())


def out_dir(out: Path) -> Path:
    """Create the output folder up front, so a bad --out fails before any work."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {out}: cannot create the folder ({exc.strerror})") from None
    if not os.access(out, os.W_OK):
        raise InputError(f"--out {out}: the folder is not writable")
    return out


def headline(report: dict) -> dict:
    """The numbers a registry diff compares: per estimand, the estimate and the interval shown
    first — the recommended method's, or the first computed clustered one if it was not run."""
    out = {}
    for name, est in report.get("estimands", {}).items():
        usable = [i for i in est.get("intervals", []) if i.get("available")]
        best = [i for i in usable if i.get("method") == est.get("recommended")]
        shown = (best or [i for i in usable if not i.get("naive")] or [{}])[0]
        out[name] = {
            "estimate": est.get("estimate"),
            "method": shown.get("method"),
            "lower": shown.get("lower"),
            "upper": shown.get("upper"),
        }
    return out


def write_json(path: Path, obj: dict) -> Path:
    """``obj`` as indented JSON, written atomically."""
    import json

    from ragstat.atomic import atomic_write_text

    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False, default=str))
    return path


def _input_hashes(inputs: Mapping[str, Path]) -> dict[str, str]:
    """sha256 of every input that exists, keyed by its role (file, corpus, a, b, …), so the
    same data typed as a relative or an absolute path is the same data."""
    from ragstat.registry import file_sha256

    return {role: file_sha256(p) for role, p in inputs.items() if p and Path(p).exists()}


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
) -> Iterator[RunLog]:
    """Time the run; write ``manifest.json`` (if ``out``) and record it — a failed run too,
    with status "failed" and the error, before the error goes on to the user."""
    from ragstat.registry import new_run_id, utc_now

    run_id = new_run_id()
    started = utc_now()
    log = RunLog(command, dict(config), dict(inputs or {}), out, run_id=run_id, started_at=started)
    try:
        yield log
    except BaseException as exc:
        if not isinstance(exc, (KeyboardInterrupt, SystemExit)):
            try:
                _finish(log, error=f"{type(exc).__name__}: {exc}")
            except Exception as also:  # the run's own error is the one to report
                print(f"ragstat: warning: failed run not recorded: {also}", file=sys.stderr)
        raise
    _finish(log)


def _finish(log: RunLog, error: str | None = None) -> None:
    from ragstat.registry import (
        Manifest,
        RegistryError,
        package_versions,
        record_run,
        write_manifest,
    )

    outputs = list(log.outputs)
    if log.out is not None:
        outputs.append(str(log.out / "manifest.json"))
    manifest = Manifest(
        run_id=log.run_id,
        command=log.command,
        argv=tuple(sys.argv[1:]),
        config=log.config,
        seed=log.config.get("seed"),
        corpus_fingerprint=log.corpus_fingerprint,
        inputs=_input_hashes(log.inputs),
        outputs=tuple(outputs),
        results=log.results,
        versions=package_versions(),
        started_at=log.started_at,
        wall_s=round(time.perf_counter() - log.t0, 3),
        status="failed" if error else "ok",
        error=error,
    )
    try:
        if log.out is not None:
            write_manifest(manifest, log.out)
        record_run(manifest)
    except (RegistryError, OSError) as exc:
        reason = str(exc).removesuffix("; not recorded")
        print(f"ragstat: warning: run {log.run_id} not recorded: {reason}", file=sys.stderr)
