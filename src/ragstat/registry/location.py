"""Where the run registry lives, found the way git finds its folder.

In order: ``$RAGSTAT_REGISTRY`` (a file path, or ``off`` to record nothing); else
``registry.sqlite`` in the nearest existing ``.ragstat/`` folder, looked for in the
working folder and then in each folder above it up to the filesystem root; else
``registry.sqlite`` in the per-user data folder (``platformdirs.user_data_dir``:
``~/.local/share/ragstat`` on Linux, ``$XDG_DATA_HOME/ragstat`` when that is set).
``--registry`` on the ``runs`` commands comes before all of them.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ragstat.registry.errors import RegistryError

__all__ = [
    "DEFAULT_TIMEOUT",
    "FILE_NAME",
    "FOLDER_NAME",
    "REGISTRY_ENV",
    "TIMEOUT_ENV",
    "RegistryLocation",
    "default_registry_path",
    "default_registry_timeout",
    "find_project_registry",
    "locate_registry",
    "user_registry_path",
]

REGISTRY_ENV = "RAGSTAT_REGISTRY"
TIMEOUT_ENV = "RAGSTAT_REGISTRY_TIMEOUT"
DEFAULT_TIMEOUT = 5.0
FOLDER_NAME = ".ragstat"
FILE_NAME = "registry.sqlite"

Source = Literal["option", "environment", "project", "user"]

_SOURCES: dict[str, str] = {
    "option": "from --registry",
    "environment": f"from ${REGISTRY_ENV}",
    "project": f"nearest {FOLDER_NAME}/ folder",
    "user": "per-user data folder",
}


@dataclass(frozen=True)
class RegistryLocation:
    """The registry file to use (None: recording is off) and what chose it."""

    path: Path | None
    source: Source

    @property
    def off(self) -> bool:
        return self.path is None

    def describe(self) -> str:
        """``PATH (how it was found)``, or how recording was turned off."""
        if self.path is None:
            return (
                "off (--registry off)" if self.source == "option" else f"off ({REGISTRY_ENV}=off)"
            )
        return f"{self.path} ({_SOURCES[self.source]})"


def _cwd() -> Path | None:
    """The working folder, or None when it no longer exists."""
    try:
        return Path.cwd()
    except OSError:
        return None


def _absolute(path: Path, cwd: Path | None) -> Path:
    path = path.expanduser()
    if path.is_absolute() or cwd is None:
        return path
    return cwd / path


def find_project_registry(start: Path, stop: Path | None = None) -> Path | None:
    """``.ragstat/registry.sqlite`` in the nearest folder at or above ``start`` that has a
    ``.ragstat/`` folder (a ``.ragstat`` file, or one that cannot be read, is passed over);
    the search ends at the filesystem root, or after ``stop`` when it is one of the folders
    walked through."""
    start = _absolute(start, _cwd())
    last = None if stop is None else _absolute(stop, _cwd())
    for folder in (start, *start.parents):
        candidate = folder / FOLDER_NAME
        try:
            if candidate.is_dir():
                return candidate / FILE_NAME
        except OSError:
            pass
        if folder == last:
            break
    return None


def user_registry_path() -> Path:
    """``registry.sqlite`` in the per-user data folder of ragstat."""
    import platformdirs  # here, not at the top: the command line starts without it

    return Path(platformdirs.user_data_dir("ragstat", appauthor=False)) / FILE_NAME


def locate_registry(
    option: str | Path | None = None, cwd: Path | None = None, stop: Path | None = None
) -> RegistryLocation:
    """The registry to use: ``option`` (``--registry``; ``off`` turns recording off), else
    ``$RAGSTAT_REGISTRY``, else the nearest ``.ragstat/`` folder at or above ``cwd``
    (default: the working folder; no higher than ``stop`` when given), else the per-user
    data folder."""
    here = _cwd() if cwd is None else cwd
    given: tuple[Source, str] | None = None
    if option is not None and str(option).strip():
        given = ("option", str(option).strip())
    elif os.environ.get(REGISTRY_ENV, "").strip():
        given = ("environment", os.environ[REGISTRY_ENV].strip())
    if given is not None:
        source, value = given
        if value.lower() == "off":
            return RegistryLocation(None, source)
        return RegistryLocation(_absolute(Path(value), here), source)
    found = find_project_registry(here, stop) if here is not None else None
    if found is not None:
        return RegistryLocation(found, "project")
    return RegistryLocation(user_registry_path(), "user")


def default_registry_path() -> Path | None:
    """The registry file :func:`locate_registry` finds (None when recording is off)."""
    return locate_registry().path


def default_registry_timeout() -> float:
    """Seconds to wait for a locked registry: ``$RAGSTAT_REGISTRY_TIMEOUT``, else 5."""
    value = os.environ.get(TIMEOUT_ENV, "").strip()
    if not value:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds >= 0):
        raise RegistryError(f"{TIMEOUT_ENV} must be a number of seconds ≥ 0, got {value!r}")
    return seconds
