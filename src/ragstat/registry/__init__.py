"""Run manifests and the run registry (embedded SQLite, WAL).

Each ragstat run writes a :class:`Manifest` (command, config and seed, corpus
fingerprint, input hashes, outputs, headline results, versions, wall time) beside
its outputs and records it in the registry: ``$RAGSTAT_REGISTRY``, else the nearest
``.ragstat/`` folder at or above the working folder, else the per-user data folder
(:func:`locate_registry`). :func:`diff_runs` says what changed between two runs.

The names below load on first use, so the command line starts without SQLite.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ragstat.registry.errors import RegistryError

if TYPE_CHECKING:
    from ragstat.registry.diff import Change, RunDiff, diff_runs
    from ragstat.registry.location import (
        RegistryLocation,
        default_registry_path,
        locate_registry,
    )
    from ragstat.registry.manifest import (
        Manifest,
        corpus_fingerprint,
        file_sha256,
        new_run_id,
        package_versions,
        read_manifest,
        utc_now,
        write_manifest,
    )
    from ragstat.registry.store import Registry, record_run

__all__ = [
    "Change",
    "Manifest",
    "Registry",
    "RegistryError",
    "RegistryLocation",
    "RunDiff",
    "corpus_fingerprint",
    "default_registry_path",
    "diff_runs",
    "file_sha256",
    "locate_registry",
    "new_run_id",
    "package_versions",
    "read_manifest",
    "record_run",
    "utc_now",
    "write_manifest",
]

_LAZY = {
    "Change": "diff",
    "RunDiff": "diff",
    "diff_runs": "diff",
    "RegistryLocation": "location",
    "default_registry_path": "location",
    "locate_registry": "location",
    "Manifest": "manifest",
    "corpus_fingerprint": "manifest",
    "file_sha256": "manifest",
    "new_run_id": "manifest",
    "package_versions": "manifest",
    "read_manifest": "manifest",
    "utc_now": "manifest",
    "write_manifest": "manifest",
    "Registry": "store",
    "record_run": "store",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
