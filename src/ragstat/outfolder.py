"""Output folders as transactions: stage beside ``--out``, publish in one atomic step.

A verb writes every file of a run into a staging folder next to the target,
``.OUT.ragstat-incomplete-PID-TOKEN``; only a complete run is published:

- no target yet (or an empty one): ``rename(staging, OUT)``;
- a previous result: ``renameat2(RENAME_EXCHANGE)`` swaps the two folders in one
  step (Linux); where the file system cannot exchange, ``OUT`` is first renamed
  aside as ``.OUT.ragstat-replaced-TOKEN`` and a later run puts it back if the
  second rename never happened.

Entries of the previous folder that were not outputs of its run (a study's
``index/`` cache, a user's notes) are hard-linked into the staged one before the
swap, so they survive whatever moment the process is killed at. A run that
fails or is interrupted leaves the previous result untouched and its staging
folder removed; one killed outright (SIGKILL, power loss) leaves a staging
folder whose name says it is incomplete, removed by the next run to the same
target once its process is gone.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import shutil
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ragstat.errors import InputError, RagstatError

__all__ = [
    "OutputFolder",
    "check_complete",
    "folder_kind",
    "link_entries",
    "open_output",
    "recover",
    "rewritten",
    "staging_folders",
    "target",
]

_INCOMPLETE = ".ragstat-incomplete-"
_REPLACED = ".ragstat-replaced-"
MANIFEST = "manifest.json"
#: Verbs that write the same kind of folder.
_KINDS = {"demo": "study"}
#: What a study wrote before runs had manifests (their own outputs, never carried over).
_LEGACY_STUDY = {"summary.json", "records.parquet", "candidates.parquet", "documents.parquet"}
#: Names a ragstat run may write: a file of the user's by one of these names is refused.
_RESERVED = {MANIFEST, "result.json", "report.json", "report.md", "report.html", *_LEGACY_STUDY}


def target(out: str | Path) -> Path:
    """``--out`` as the folder it names: absolute, ``..`` and symlinks resolved."""
    return Path(os.path.realpath(os.path.abspath(out)))


def _kind(command: str) -> str:
    return _KINDS.get(command, command)


def _read_manifest(folder: Path) -> dict | None:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def folder_kind(folder: Path) -> str | None:
    """``"empty"``, the kind of ragstat run a folder holds (``study``, ``interval``, …),
    or None for a folder ragstat did not write."""
    folder = Path(folder)
    entries = [p.name for p in folder.iterdir()]
    if not entries:
        return "empty"
    manifest = _read_manifest(folder)
    if manifest is not None and isinstance(manifest.get("command"), str):
        return _kind(manifest["command"])
    if set(entries) <= {"index"} and (folder / "index" / MANIFEST).is_file():
        return "study"  # a study killed before its first publish: only the index cache
    if {"summary.json", "records.parquet"} <= set(entries):
        return "study"  # written by a ragstat that kept no manifest
    return None


def _own_outputs(folder: Path, final: Path) -> set[str]:
    """Top-level names the run in ``folder`` wrote (its manifest lists them under ``final``)."""
    manifest = _read_manifest(folder)
    if manifest is None:
        return {MANIFEST, *_RESERVED} if folder_kind(folder) == "study" else {MANIFEST}
    names = {MANIFEST}
    for path in manifest.get("outputs") or []:
        if isinstance(path, str) and path:
            try:
                names.add(Path(path).relative_to(final).parts[0])
            except (ValueError, IndexError):
                names.add(Path(path).name)
    return names


def staging_folders(out: Path) -> list[Path]:
    """Incomplete staging folders of ``out`` left beside it."""
    out = target(out)
    prefix = f".{out.name}{_INCOMPLETE}"
    if not out.parent.is_dir():
        return []
    return sorted(p for p in out.parent.iterdir() if p.name.startswith(prefix))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _staging_pid(path: Path, out: Path) -> int | None:
    rest = path.name.removeprefix(f".{out.name}{_INCOMPLETE}")
    head = rest.split("-", 1)[0]
    return int(head) if head.isdigit() else None


def recover(out: Path) -> None:
    """Finish what an interrupted publish left behind and remove dead runs' staging folders.

    A live run writing to the same target is an error (two runs would race)."""
    out = Path(out).absolute()
    if not out.parent.is_dir():
        return
    for old in sorted(out.parent.glob(f".{_glob(out.name)}{_REPLACED}*")):
        if out.exists():  # published; only the removal of the previous result was cut short
            _remove(old)
        else:  # the previous result was renamed aside and the new one never arrived
            os.rename(old, out)
    for stale in staging_folders(out):
        pid = _staging_pid(stale, out)
        if pid is not None and pid != os.getpid() and _pid_alive(pid):
            raise InputError(
                f"--out {out}: another ragstat run (process {pid}) is writing this folder; "
                f"wait for it, choose another --out, or delete {stale.name} if that run is gone"
            )
        _remove(stale)


def _glob(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in name)


def _check_target(out: Path, kind: str, force: bool) -> None:
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: exists and is not a folder")
    cwd = target(Path.cwd())
    if out == cwd or out in cwd.parents:
        raise InputError(f"--out {out}: is the working folder or above it; name a sub-folder")
    if not out.is_dir():
        return
    try:
        found = folder_kind(out)
        _check_entries(out)
    except OSError as exc:
        raise InputError(f"--out {out}: cannot read the folder ({exc.strerror})") from None
    if found is None:
        raise InputError(
            f"--out {out}: the folder holds files ragstat did not write; "
            "choose a new or empty folder"
        )
    if found not in ("empty", kind) and not force:
        raise InputError(
            f"--out {out}: the folder holds the output of `ragstat {found}`; choose another "
            "folder, or add --force to replace it (files of your own in it are kept)"
        )


def _check_entries(out: Path) -> None:
    """Refuse what a swap would harm: a mount point, or a file of the user's with the name of
    an output."""
    if os.path.ismount(out):
        raise InputError(f"--out {out}: is a mount point; name a folder inside it")
    own = _own_outputs(out, out)
    for entry in out.iterdir():
        if os.path.ismount(entry):
            raise InputError(f"--out {out}: {entry.name} inside it is a mount point; unmount it")
        if entry.name in _RESERVED and entry.name not in own:
            raise InputError(
                f"--out {out}: {entry.name} is not an output of the run recorded there and "
                "would be replaced; move it away first"
            )


def _remove(path: Path) -> None:
    """Remove a previous result or a staging folder; one with a mount point inside is left
    alone (never delete across a mount)."""
    for root, dirs, _files in os.walk(path):
        if any(os.path.ismount(os.path.join(root, d)) for d in dirs):
            return
    shutil.rmtree(path, ignore_errors=True)


@dataclass
class OutputFolder:
    """A run's output folder: files go to ``staging``; :meth:`publish` makes them ``final``."""

    final: Path
    staging: Path
    kind: str = ""
    published: bool = False

    def publish(self) -> None:
        """Make the staged run the folder's content in one atomic step."""
        old = None
        with _signals_held():
            if not self.final.exists() or _is_empty_dir(self.final):
                os.replace(self.staging, self.final)
            else:
                _carry_over(self.final, self.staging, self.kind)
                if _exchange(self.staging, self.final):
                    old = self.staging
                else:
                    old = self.final.parent / f".{self.final.name}{_REPLACED}{secrets.token_hex(4)}"
                    os.rename(self.final, old)
                    os.rename(self.staging, self.final)
            self.published = True
        if old is not None:  # a kill here leaves it for the next run to remove
            _remove(old)

    def discard(self) -> None:
        """Remove the staging folder (a failed or interrupted run)."""
        _remove(self.staging)

    def final_path(self, path: str | Path) -> str:
        """Where a file written into the staging folder lives once published."""
        path = Path(path)
        with contextlib.suppress(ValueError):
            return str(self.final / path.relative_to(self.staging))
        return str(path)


def open_output(out: str | Path, command: str, *, force: bool = False) -> OutputFolder:
    """Check ``--out`` (a folder of another kind is refused unless ``force``), clean up
    after earlier interrupted runs, and create the staging folder."""
    out = target(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {out}: cannot create the folder ({exc.strerror})") from None
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise InputError(f"--out {out}: the folder above it is not writable")
    recover(out)  # first: a previous result renamed aside by a crash is put back
    _check_target(out, _kind(command), force)
    if out.is_dir() and not os.access(out, os.W_OK | os.X_OK):
        raise InputError(f"--out {out}: the folder is not writable")
    return OutputFolder(final=out, staging=_new_staging(out), kind=_kind(command))


def _new_staging(out: Path) -> Path:
    staging = out.parent / f".{out.name}{_INCOMPLETE}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        staging.mkdir()
    except OSError as exc:
        raise InputError(f"{out}: cannot create a staging folder ({exc.strerror})") from None
    return staging


@contextlib.contextmanager
def rewritten(folder: str | Path) -> Iterator[Path]:
    """Change files of a complete run folder as one transaction: yields a staging copy
    (hard links: files must be replaced, never written in place), swapped in at the end."""
    folder = target(folder)
    check_complete(folder)
    cwd = target(Path.cwd())
    if not folder.is_dir() or folder == cwd or folder in cwd.parents or os.path.ismount(folder):
        yield folder  # nothing to stage (the caller reports a missing folder), cwd, a mount
        return
    recover(folder)
    out = OutputFolder(final=folder, staging=_new_staging(folder), kind=folder_kind(folder) or "")
    try:
        shutil.copytree(
            folder, out.staging, symlinks=True, copy_function=_link_or_copy, dirs_exist_ok=True
        )
        yield out.staging
        out.publish()
    except RagstatError as exc:  # name the user's folder, not the staging copy
        out.discard()
        raise type(exc)(str(exc).replace(str(out.staging), str(folder))) from None
    except BaseException:
        if not out.published:
            out.discard()
        raise


def check_complete(folder: str | Path) -> None:
    """Refuse a run folder that is not a complete result: a staging folder left by a killed
    run, or a folder whose manifest says the run did not finish."""
    folder = Path(folder)
    if _INCOMPLETE in folder.name or _REPLACED in folder.name:
        raise InputError(
            f"{folder}: an unfinished run's staging folder, not a result; "
            "rerun the command (ragstat removes it on the next run)"
        )
    manifest = (_read_manifest(folder) if folder.is_dir() else None) or {}
    if {"run_id", "command"} <= manifest.keys() and manifest.get("status", "ok") != "ok":
        raise InputError(f"{folder}: its run did not finish (status {manifest['status']!r})")


def _is_empty_dir(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())


def _carry_over(old: Path, new: Path, kind: str) -> None:
    """Link the entries of the previous folder that were not its run's outputs (a study's
    index cache, a user's notes) into the staged one. Hard links, so the previous folder
    stays whole until the swap; a copy where the file system has no links."""
    own = _own_outputs(old, old)
    if kind != "study":
        own.add("index")  # a study's index cache means nothing to another kind of run
    for entry in list(old.iterdir()):
        dest = new / entry.name
        if entry.name in own or dest.exists() or dest.is_symlink():
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry), dest)
        elif entry.is_dir():
            shutil.copytree(entry, dest, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(entry, dest)


def link_entries(src: Path, dst: Path, names: list[str]) -> None:
    """Hard-link the entries ``names`` of ``src`` (files or folders) into ``dst``."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in names:
        entry = src / name
        if entry.is_symlink() or not entry.exists():
            continue
        if entry.is_dir():
            shutil.copytree(entry, dst / name, copy_function=_link_or_copy, dirs_exist_ok=True)
        else:
            _link_or_copy(entry, dst / name)


def _link_or_copy(src: str | Path, dst: str | Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2``); False where that is not supported."""
    import ctypes  # here, not at the top: the command line starts without it

    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), str(b))


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM for the few system calls of a publish (delivered right after)."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # not the main thread / not POSIX
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
