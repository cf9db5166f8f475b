"""Run manifests and the run registry (embedded SQLite, WAL).

Each ragstat run writes a :class:`Manifest` (command, config and seed, corpus
fingerprint, input hashes, outputs, headline results, versions, wall time) beside
its outputs and records it in the registry (``$RAGSTAT_REGISTRY``, default
``.ragstat/registry.sqlite``). :func:`diff_runs` says what changed between two runs.
"""

from ragstat.registry.diff import Change, RunDiff, diff_runs
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
from ragstat.registry.store import Registry, RegistryError, default_registry_path, record_run

__all__ = [
    "Change",
    "Manifest",
    "Registry",
    "RegistryError",
    "RunDiff",
    "corpus_fingerprint",
    "default_registry_path",
    "diff_runs",
    "file_sha256",
    "new_run_id",
    "package_versions",
    "read_manifest",
    "record_run",
    "utc_now",
    "write_manifest",
]
