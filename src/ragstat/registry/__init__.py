"""Run manifests and the run registry (embedded SQLite, WAL).

Each ragstat run writes a :class:`Manifest` (command, config and seed, corpus
fingerprint, input hashes, outputs, headline results, versions, wall time) beside
its outputs and records it in the registry: ``$RAGSTAT_REGISTRY``, else the nearest
``.ragstat/`` folder at or above the working folder, else the per-user data folder
(:func:`locate_registry`). :func:`diff_runs` says what changed between two runs.
"""

from ragstat.registry.diff import Change, RunDiff, diff_runs
from ragstat.registry.errors import RegistryError
from ragstat.registry.location import RegistryLocation, default_registry_path, locate_registry
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
