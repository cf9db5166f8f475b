"""The run registry: one row per run in an embedded SQLite database (WAL journal).

Every operation opens its own connection and holds a write lock only for one short
``BEGIN IMMEDIATE … COMMIT`` transaction, so concurrent runs queue (up to ``timeout``
seconds) instead of corrupting the file, and a registry deleted between or during
runs is recreated on the next record. Every SQLite failure becomes a
:class:`RegistryError` naming the file; a file that is not a registry is never
overwritten. Where the file is: :mod:`ragstat.registry.location`; its table:
:mod:`ragstat.registry.schema`.
"""

from __future__ import annotations

import builtins
import math
import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path

from ragstat.errors import InputError, RagstatError
from ragstat.registry.errors import RegistryError
from ragstat.registry.location import (
    DEFAULT_TIMEOUT,
    REGISTRY_ENV,
    TIMEOUT_ENV,
    default_registry_path,
    default_registry_timeout,
    locate_registry,
)
from ragstat.registry.manifest import Manifest
from ragstat.registry.outputs import with_published_hashes
from ragstat.registry.schema import (
    ADDED_COLUMNS,
    APPLICATION_ID,
    COLUMNS,
    CREATE,
    HEADER,
    SCHEMA_VERSION,
    UPSERT,
    manifest_data,
    manifest_row,
    start_instant,
)

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_TIMEOUT",
    "REGISTRY_ENV",
    "SCHEMA_VERSION",
    "TIMEOUT_ENV",
    "Registry",
    "RegistryError",
    "default_registry_path",
    "default_registry_timeout",
    "record_run",
]

_NOT_RECORDED = "; the run's outputs are intact; not recorded"
_FIX = f"move it away or point --registry / {REGISTRY_ENV} to another file"
_HEADER_SQL = (
    "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)"
)
#: Rows fetched per query by `Registry.list` (under SQLite's bound-parameter limit).
_BATCH = 500


def _file_in_the_way(folder: Path) -> Path | None:
    """The nearest existing ancestor of ``folder`` (itself included) that is not a folder."""
    for p in (folder, *folder.parents):
        if p.exists() or p.is_symlink():
            return None if p.is_dir() else p
    return None


def record_run(
    manifest: Manifest, path: str | Path | None = None, timeout: float | None = None
) -> Path | None:
    """Record ``manifest`` in the registry at ``path`` (default: the one
    :func:`~ragstat.registry.location.locate_registry` finds).

    ``timeout`` defaults to :func:`default_registry_timeout`. Returns the registry
    path written, or None when recording is off (``path`` or ``$RAGSTAT_REGISTRY`` is
    ``off``).
    """
    where = locate_registry(path).path
    if where is None:
        return None
    if timeout is None:
        timeout = default_registry_timeout()
    registry = Registry(where, timeout=timeout)
    registry.record(manifest)
    return registry.path


class Registry:
    """Run manifests in the SQLite file ``path``; waits up to ``timeout`` s for a lock."""

    def __init__(self, path: str | Path, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.path = Path(path).expanduser()
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise InputError(f"registry timeout must be a number of seconds, got {timeout!r}")
        if not (math.isfinite(timeout) and timeout >= 0):
            raise InputError(f"registry timeout must be finite and ≥ 0, got {timeout!r}")
        self.timeout = float(timeout)

    def __repr__(self) -> str:
        return f"Registry({str(self.path)!r}, timeout={self.timeout:g})"

    # -- public -----------------------------------------------------------------------------

    def record(self, m: Manifest) -> None:
        """Insert the run (or replace the row of the same ``run_id``) in one short transaction.
        A run that records no sha256 of its outputs gets those its published manifest.json
        lists (when that manifest is this run's)."""
        if not isinstance(m, Manifest):
            raise InputError(f"Registry.record takes a Manifest, got {type(m).__name__}")
        m = with_published_hashes(m)
        self._prepare_folder()
        with self._connect(write=True) as con:
            # read-only first: a foreign database is refused before any PRAGMA that writes
            self._check_schema(con, create=False)
            self._run(con, "PRAGMA journal_mode = WAL", write=True)
            self._run(con, "BEGIN IMMEDIATE", write=True)
            try:
                self._check_schema(con, create=True)
                self._add_columns(con)
                row = manifest_row(m, self._seed_type(con))
                self._run(con, UPSERT, row, write=True)
                self._run(con, "COMMIT", write=True)
            finally:
                if con.in_transaction:
                    with suppress(sqlite3.Error):
                        con.rollback()

    def list(self, limit: int | None = None) -> list[Manifest]:
        """Recorded runs, newest first (at most ``limit``).

        Newest by start time (parsed, so any UTC offset or precision compares as an
        instant), then by insertion order (SQLite rowid): runs that started in the same
        instant come newest-recorded first; runs whose time does not parse come last.
        """
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise InputError(f"limit must be a whole number, got {limit!r}")
        if limit is not None and limit < 0:
            raise InputError(f"limit must be ≥ 0, got {limit}")
        keys = self._read("SELECT rowid, started_at FROM runs", ())
        order = sorted(
            keys, key=lambda r: (start_instant(r["started_at"]), r["rowid"]), reverse=True
        )
        rowids = [r["rowid"] for r in order[:limit]]
        if not rowids:
            return []
        rows: dict[int, sqlite3.Row] = {}
        for start in range(0, len(rowids), _BATCH):
            chunk = rowids[start : start + _BATCH]
            sql = (
                f"SELECT rowid, {{cols}} FROM runs WHERE rowid IN ({', '.join('?' for _ in chunk)})"
            )
            rows.update((r["rowid"], r) for r in self._read(sql, tuple(chunk)))
        return [self._manifest(rows[i]) for i in rowids if i in rows]

    def get(self, id_or_prefix: str) -> Manifest:
        """The run whose id is ``id_or_prefix`` or the only one starting with it."""
        key = str(id_or_prefix).strip()
        if not key:
            raise RegistryError(
                "give a run id (or a unique prefix of one); see `ragstat runs list`"
            )
        rows = self._read("SELECT {cols} FROM runs WHERE run_id = ?", (key,))
        if not rows:
            rows = self._read(
                "SELECT {cols} FROM runs WHERE substr(run_id, 1, ?) = ? ORDER BY run_id",
                (len(key), key),
            )
        if not rows:
            raise RegistryError(
                f"no run {key!r} in registry {self.path}; `ragstat runs list` shows the ids"
            )
        if len(rows) > 1:
            shown = ", ".join(r["run_id"] for r in rows[:10]) + (" …" if len(rows) > 10 else "")
            raise RegistryError(
                f"run id prefix {key!r} is ambiguous: it matches {len(rows)} runs ({shown}); "
                "give more characters"
            )
        return self._manifest(rows[0])

    def ids(self) -> builtins.list[str]:
        """Every recorded run id, oldest first."""
        return [r["run_id"] for r in self._read("SELECT run_id FROM runs ORDER BY run_id", ())]

    # -- plumbing ---------------------------------------------------------------------------

    def _prepare_folder(self) -> None:
        parent = self.path.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            blocker = _file_in_the_way(parent)
            why = (
                f"{blocker} is a file, not a folder"
                if blocker is not None
                else (exc.strerror or str(exc))
            )
            raise RegistryError(
                f"cannot create the folder of registry {self.path}: {why}{_NOT_RECORDED}"
            ) from exc

    def _check_file(self) -> bool:
        """Whether the file exists; a folder or a non-SQLite file is an error (left untouched)."""
        if self.path.is_dir():
            raise RegistryError(
                f"registry {self.path} is a folder; give a file path such as "
                f"{self.path / 'registry.sqlite'}"
            )
        try:
            if not stat.S_ISREG(os.stat(self.path).st_mode):  # never open a FIFO: it blocks
                raise RegistryError(
                    f"registry {self.path} is not a regular file (a FIFO, socket or device); {_FIX}"
                )
            with self.path.open("rb") as fh:
                head = fh.read(len(HEADER))
        except FileNotFoundError:
            return False
        except OSError as exc:
            blocker = _file_in_the_way(self.path.parent)
            why = f"{blocker} is a file, not a folder" if blocker else (exc.strerror or str(exc))
            raise RegistryError(f"cannot read registry {self.path}: {why}") from exc
        if head and head != HEADER:
            raise RegistryError(
                f"{self.path} is not a ragstat registry (not a SQLite database); "
                f"it was left untouched: {_FIX}"
            )
        return True

    @contextmanager
    def _connect(self, write: bool) -> Iterator[sqlite3.Connection]:
        exists = self._check_file()
        mode = "rwc" if write else "rw"
        uri = f"{self.path.absolute().as_uri()}?mode={mode}"
        if not write and not exists:
            raise FileNotFoundError(self.path)
        try:
            con = sqlite3.connect(uri, uri=True, timeout=self.timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise self._error(exc, write) from exc
        with closing(con):
            con.row_factory = sqlite3.Row
            yield con

    def _run(self, con: sqlite3.Connection, sql: str, params: tuple = (), write: bool = False):
        try:
            return con.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc, write) from exc

    def _read(self, sql: str, params: tuple) -> builtins.list[sqlite3.Row]:
        """Rows of ``sql``; ``{cols}`` in it stands for every manifest column (a column this
        registry predates reads as NULL)."""
        try:
            with self._connect(write=False) as con:
                if not self._check_schema(con, create=False):
                    return []
                if "{cols}" in sql:
                    have = self._columns(con)
                    cols = ", ".join(c if c in have else f"NULL AS {c}" for c in COLUMNS)
                    sql = sql.replace("{cols}", cols)
                return self._run(con, sql, params)
        except FileNotFoundError:
            return []

    def _columns(self, con: sqlite3.Connection, write: bool = False) -> set[str]:
        return {r[1] for r in self._run(con, "PRAGMA table_info(runs)", write=write)}

    def _seed_type(self, con: sqlite3.Connection) -> str:
        """The declared type of the seed column: TEXT, or INTEGER in a registry created before
        seeds were stored as text."""
        info = self._run(con, "PRAGMA table_info(runs)", write=True)
        return next((str(r[2]).upper() for r in info if r[1] == "seed"), "TEXT")

    def _add_columns(self, con: sqlite3.Connection) -> None:
        """Add the columns schema 1 gained later (inside the caller's write transaction)."""
        have = self._columns(con, write=True)
        for name, kind in ADDED_COLUMNS.items():
            if name not in have:
                self._run(con, f"ALTER TABLE runs ADD COLUMN {name} {kind}", write=True)

    def _check_schema(self, con: sqlite3.Connection, create: bool) -> bool:
        """Whether the registry's tables exist (created when ``create``); errors for foreign files."""
        # one statement, one snapshot: a registry another process creates between two reads
        # must not look like a foreign database (tables, but no version yet)
        version, tables = self._run(con, _HEADER_SQL, write=create)[0]
        if version > SCHEMA_VERSION:
            raise RegistryError(
                f"registry {self.path} was written by a newer ragstat (schema {version}; this one "
                f"reads up to {SCHEMA_VERSION}): upgrade ragstat, or {_FIX}"
            )
        if version == 0:
            if tables:
                raise RegistryError(
                    f"{self.path} is a SQLite database but not a ragstat registry; "
                    f"it was left untouched: {_FIX}"
                )
            if not create:
                return False
            for sql in CREATE:
                self._run(con, sql, write=True)
            return True
        if self._run(con, "PRAGMA application_id", write=create)[0][0] != APPLICATION_ID:
            raise RegistryError(
                f"{self.path} is a SQLite database but not a ragstat registry; "
                f"it was left untouched: {_FIX}"
            )
        return True

    def _manifest(self, row: sqlite3.Row) -> Manifest:
        try:
            return Manifest.from_dict(manifest_data(row))
        except (ValueError, TypeError, RagstatError) as exc:
            raise RegistryError(
                f"registry {self.path}: run {row['run_id']!r} is unreadable ({exc})"
            ) from exc

    def _error(self, exc: sqlite3.Error, write: bool) -> RegistryError:
        """A one-line error naming the file, for any SQLite failure."""
        code = getattr(exc, "sqlite_errorname", "") or ""
        text = str(exc)
        tail = _NOT_RECORDED if write else ""
        if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
            return RegistryError(
                f"registry {self.path} is locked by another process (waited {self.timeout:g} s)"
                f"{tail}"
            )
        if code.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or "not a database" in text:
            return RegistryError(
                f"registry {self.path} is damaged or not a SQLite database ({text}); "
                f"it was left untouched: {_FIX}"
            )
        if code.startswith("SQLITE_IOERR"):
            return RegistryError(
                f"registry {self.path}: {text} ({code}); was it deleted or moved while another "
                f"process had it open? Retry when that process ends{tail}"
            )
        return RegistryError(
            f"registry {self.path}: {text}; check that the file and its folder are writable{tail}"
        )
