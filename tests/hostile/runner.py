"""Run cases: ragstat.cli is imported once here; each case runs in a forked child with an
address-space limit and a wall-clock alarm, its stdout/stderr in files; the parent reaps it
with ``os.wait4`` (exit status and peak RSS) and classifies the run."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import shutil
import signal
import sqlite3
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import bombs
from .cases import Case

GB = 1 << 30
HELP_OPTION = re.compile(r"^\s{2}(--[a-z0-9-]+)(?: <([^>]+)>)?", re.M)
PREIMPORT = ("numpy", "pandas", "pyarrow", "pyarrow.parquet", "scipy.stats", "duckdb", "pydantic")


@dataclass
class Limits:
    """A hang is a run past ``cpu_s`` of CPU (RLIMIT_CPU: a loop), one whose CPU time stands
    still for ``idle_s`` (blocked: a FIFO, a lock) or one past ``wall_s`` of wall time. CPU
    time, not wall time, because the machine may be shared: a slow run is not a hang."""

    cpu_s: int = 20
    idle_s: float = 10.0
    wall_s: float = 180.0
    address_space: int = 3 * GB  # RLIMIT_AS above what the child inherits: a runaway fails


def _vm_bytes(field: str) -> int:
    """``VmSize`` or ``VmRSS`` of this process (0 where /proc is absent)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


@dataclass
class Outcome:
    """What one case did, and what was wrong with it (empty: nothing)."""

    id: str
    verb: str
    reader: str | None
    group: str
    exit: int | None
    signal: int | None
    wall_s: float
    cpu_s: float
    peak_mb: float
    stderr_first: str
    stderr: str = ""  # the first 1,500 characters, kept for failed runs only
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def verb_options(argv: tuple[str, ...]) -> dict[str, str]:
    """Option → type (``int``, ``float``, ``str``, ``path``…, ``flag``) from ``--help``."""
    from ragstat.cli import main

    words = list(argv[:2]) if argv[0] == "runs" else [argv[0]]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main([*words, "--help"])
    return {m.group(1): m.group(2) or "flag" for m in HELP_OPTION.finditer(buf.getvalue())}


def preimport() -> None:
    """Load ragstat's command line and its heavy libraries once, before forking."""
    import importlib
    import pkgutil

    import ragstat

    names = [m.name for m in pkgutil.walk_packages(ragstat.__path__, "ragstat.")]
    for name in (*PREIMPORT, *names):
        if ".ui" not in name and not name.endswith("__main__"):
            with contextlib.suppress(ImportError):
                importlib.import_module(name)


# -- in the child -------------------------------------------------------------------------


def _apply(op: tuple[Any, ...], root: Path) -> None:
    kind, rel = op[0], op[1]
    path = root / rel
    if kind == "write":
        path.write_bytes(op[2])
    elif kind in ("fifo", "symlink", "mkdir", "remove"):
        path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "symlink":
            path.symlink_to(op[2])
        elif kind == "mkdir":
            path.mkdir()
    elif kind == "sql":
        with contextlib.closing(sqlite3.connect(path)) as db:
            db.execute(op[2])
            db.commit()
    elif kind == "bomb":
        _bomb(path, op[2])


def _bomb(path: Path, which: str) -> None:
    data = path.read_bytes()
    if which == "gzip-zeros":
        path.write_bytes(bombs.gzip_zeros())
    elif which == "gzip-lines":
        first = next((ln for ln in data.splitlines() if ln.strip()), b"x")
        path.unlink()
        Path(f"{path}.gz").write_bytes(bombs.gzip_lines(first))
    elif which == "eval-bomb":
        path.write_bytes(bombs.eval_with_bomb(data))
    elif which == "eval-crc":
        path.write_bytes(bombs.eval_bad_crc(data))
    elif which == "long-line":
        path.write_bytes(data + b"x" * (16 << 20))
    elif which == "deep":
        depth = 200_000
        path.write_bytes(b"[" * depth + b"]" * depth + b"\n" + data)


def _child(case: Case, work: Path, limits: Limits) -> None:
    """Never returns: set limits, build the folder, run the verb, ``_exit`` with its code."""
    code = 98
    try:
        os.setpgid(0, 0)
        shutil.copytree(case.folder, work, symlinks=True)
        for op in case.ops:
            _apply(op, work)
        os.chdir(work)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            os.dup2(
                os.open(
                    work.parent / f"{work.name}.{name}",
                    os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                    0o600,
                ),
                fd,
            )
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        # new streams on fds 1 and 2 (as a fresh process has them; pytest replaced the old)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        os.environ.update(RAGSTAT_REGISTRY=str(work / "registry.sqlite"), COLUMNS="100")
        os.environ.pop("RAGSTAT_DEBUG", None)
        sys.argv = ["ragstat", *case.argv]
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 5))
        # the child inherits the parent's mappings (pytest's can be gigabytes): limit growth
        cap = _vm_bytes("VmSize") + limits.address_space
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        from ragstat.cli import main

        try:
            code = main(list(case.argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        with contextlib.suppress(BaseException):
            sys.stderr.write("HOSTILE-RUNNER: escaped main\n" + traceback.format_exc())
        code = 99
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(int(code) & 0xFF if isinstance(code, int) else 97)


# -- in the parent ------------------------------------------------------------------------


def run_cases(
    cases: list[Case], work: Path, limits: Limits, jobs: int = 2, progress: Any = None
) -> list[Outcome]:
    """Run every case, at most ``jobs`` at a time; outcomes in the cases' order."""
    bombs.zeros_deflate()  # cached before the children need it
    work.mkdir(parents=True, exist_ok=True)
    pending = list(enumerate(cases))[::-1]
    running: dict[int, tuple[int, Case, float, int]] = {}
    watch: dict[int, tuple[float, float]] = {}  # pid → (CPU seconds, when they last moved)
    killed: dict[int, str] = {}
    results: dict[int, Outcome] = {}
    while pending or running:
        while pending and len(running) < jobs:
            i, case = pending.pop()
            sys.stdout.flush()
            sys.stderr.flush()
            inherited = _vm_bytes("VmRSS")  # counted in the child's peak RSS: left out
            pid = os.fork()
            if pid == 0:
                _child(case, work / f"c{i}", limits)
            running[pid] = (i, case, time.monotonic(), inherited)
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        if pid == 0:
            _kill_hung(running, watch, killed, limits)
            time.sleep(0.02)
            continue
        i, case, start, inherited = running.pop(pid)
        watch.pop(pid, None)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)  # anything the case left behind in its group
        results[i] = classify(
            case,
            work / f"c{i}",
            status,
            usage,
            time.monotonic() - start,
            limits,
            killed.pop(pid, None),
            inherited,
        )
        if progress is not None:
            progress(len(results), len(cases), results[i])
    return [results[i] for i in range(len(cases))]


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return -1.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _kill_hung(
    running: dict[int, tuple[int, Case, float, int]],
    watch: dict[int, tuple[float, float]],
    killed: dict[int, str],
    limits: Limits,
) -> None:
    """SIGKILL (the whole group) a child past the wall limit or blocked for ``idle_s``."""
    now = time.monotonic()
    for pid, (_i, _case, start, _inherited) in running.items():
        cpu = _cpu_seconds(pid)
        last_cpu, moved = watch.get(pid, (-2.0, now))
        if cpu != last_cpu:
            watch[pid] = (cpu, now)
        reason = None
        if now - start > limits.wall_s:
            reason = f"hang: over {limits.wall_s:.0f} s of wall time"
        elif cpu >= 0 and now - moved > limits.idle_s:
            reason = f"hang: blocked (no CPU for {limits.idle_s:.0f} s)"
        if reason and pid not in killed:
            killed[pid] = reason
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


def classify(
    case: Case,
    folder: Path,
    status: int,
    usage: Any,
    wall: float,
    limits: Limits,
    killed: str | None = None,
    inherited: int = 0,
) -> Outcome:
    from .checks import problems_of

    out = _read(folder.parent / f"{folder.name}.stdout")
    err = _read(folder.parent / f"{folder.name}.stderr")
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    peak = max(0, usage.ru_maxrss * 1024 - inherited)  # the case's own growth
    first = next((ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()), "")
    cpu = usage.ru_utime + usage.ru_stime
    outcome = Outcome(
        case.id,
        case.verb,
        case.reader,
        case.group,
        code,
        sig,
        round(wall, 3),
        round(cpu, 3),
        round(peak / 2**20, 1),
        first[:300],
    )
    outcome.problems, outcome.notes = problems_of(
        case, folder, code, sig, out, err, peak, killed, cpu
    )
    if outcome.problems:
        outcome.stderr = err[:1500].decode("utf-8", "replace")
    for p in (folder.parent / f"{folder.name}.stdout", folder.parent / f"{folder.name}.stderr"):
        p.unlink(missing_ok=True)
    shutil.rmtree(folder, ignore_errors=True)
    return outcome


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def strict_json(text: bytes) -> Any:
    """``json.loads`` refusing NaN, Infinity and invalid UTF-8."""

    def refuse(name: str) -> Any:
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text.decode("utf-8"), parse_constant=refuse)
