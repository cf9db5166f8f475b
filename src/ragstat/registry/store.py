"""The run registry: one row per run in an embedded SQLite database (WAL journal).

Every operation opens its own connection and holds a write lock only for one short
``BEGIN IMMEDIATE … COMMIT`` transaction, so concurrent runs queue (up to ``timeout``
seconds) instead of corrupting the file, and a registry deleted between or during
runs is recreated on the next record. Every SQLite failure becomes a
:class:`RegistryError` naming the file; a file that is not a registry is never
overwritten.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from datetime import datetime, timezone
from pathlib import Path

from ragstat.errors import InputError, RagstatError
from ragstat.registry.manifest import Manifest

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

REGISTRY_ENV = "RAGSTAT_REGISTRY"
TIMEOUT_ENV = "RAGSTAT_REGISTRY_TIMEOUT"
DEFAULT_TIMEOUT = 5.0
SCHEMA_VERSION = 1
APPLICATION_ID = 0x52475354  # "RGST": marks the file as a ragstat registry
_HEADER = b"SQLite format 3\x00"
_JSON = ("argv", "config", "inputs", "outputs", "results", "versions")
_PLAIN = (
    "run_id",
    "command",
    "started_at",
    "wall_s",
    "status",
    "seed",
    "corpus_fingerprint",
    "error",
)
_COLUMNS = _PLAIN + _JSON
#: Columns added to schema 1 after its first release: nullable, so a registry without them
#: still reads (as None) and gains them on the next record; older ragstat ignores them.
_ADDED = {"error": "TEXT"}
_SCHEMA = (
    """CREATE TABLE runs (
        run_id TEXT PRIMARY KEY, command TEXT NOT NULL, started_at TEXT NOT NULL,
        wall_s REAL NOT NULL, status TEXT NOT NULL, seed TEXT, corpus_fingerprint TEXT,
        argv TEXT NOT NULL, config TEXT NOT NULL, inputs TEXT NOT NULL, outputs TEXT NOT NULL,
        results TEXT NOT NULL, versions TEXT NOT NULL, error TEXT
    )""",
    "CREATE INDEX runs_by_time ON runs (started_at)",
    f"PRAGMA application_id = {APPLICATION_ID}",
    f"PRAGMA user_version = {SCHEMA_VERSION}",
)
_UPSERT = (
    f"INSERT INTO runs ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)}) "
    f"ON CONFLICT (run_id) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS[1:])
)
_NOT_RECORDED = "; the run's outputs are intact; not recorded"
_FIX = f"move it away or point --registry / {REGISTRY_ENV} to another file"


#: Rows fetched per query by `Registry.list` (under SQLite's bound-parameter limit).
_BATCH = 500


def _instant(started_at: object) -> tuple[int, float, str]:
    """Sort key of a start time: the UTC instant; a time that does not parse sorts oldest."""
    text = str(started_at)
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return (0, 0.0, text)
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return (1, t.timestamp(), "")


def _file_in_the_way(folder: Path) -> Path | None:
    """The nearest existing ancestor of ``folder`` (itself included) that is not a folder."""
    for p in (folder, *folder.parents):
        if p.exists() or p.is_symlink():
            return None if p.is_dir() else p
    return None


class RegistryError(RagstatError):
    """The run registry cannot be read or written (the message names the file and the fix)."""


def default_registry_path() -> Path | None:
    """``$RAGSTAT_REGISTRY`` (``off`` disables recording: None), else ``./.ragstat/registry.sqlite``."""
    value = os.environ.get(REGISTRY_ENV, "").strip()
    if value.lower() == "off":
        return None
    if value:
        return Path(value).expanduser()
    return Path.cwd() / ".ragstat" / "registry.sqlite"


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


def record_run(
    manifest: Manifest, path: str | Path | None = None, timeout: float | None = None
) -> Path | None:
    """Record ``manifest`` in the registry at ``path`` (default: :func:`default_registry_path`).

    ``timeout`` defaults to :func:`default_registry_timeout`. Returns the registry
    path written, or None when recording is off (``path`` or ``$RAGSTAT_REGISTRY`` is
    ``off``).
    """
    if path is None:
        path = default_registry_path()
    elif str(path).strip().lower() == "off":
        path = None
    if path is None:
        return None
    if timeout is None:
        timeout = default_registry_timeout()
    registry = Registry(Path(path), timeout=timeout)
    registry.record(manifest)
    return registry.path


_INT64 = 2**63


def _text(value: object) -> object:
    """A string SQLite can store as UTF-8: a lone surrogate (not text) becomes its escape."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def _manifest_row(m: Manifest, seed_type: str) -> tuple:
    """The row's parameters. The seed (any integer ≥ 0, so possibly past 2**63) goes in as
    decimal text; into a registry whose seed column is still INTEGER (older ragstat) as an
    integer when it fits, else as a BLOB of its digits (INTEGER affinity would round text
    past 2**63 to a REAL). JSON columns escape what is not UTF-8 text."""
    data = m.to_dict()
    plain = {c: _text(data[c]) for c in _PLAIN}
    seed = m.seed
    if seed is not None:
        fits = -_INT64 <= seed < _INT64
        text = str(seed)
        plain["seed"] = (seed if fits else text.encode("ascii")) if "INT" in seed_type else text
    return (*(plain[c] for c in _PLAIN), *(_json_text(data[c]) for c in _JSON))


def _json_text(value: object) -> str:
    """JSON as readable UTF-8; with ``\\u`` escapes when a string holds a lone surrogate
    (it reads back the same, where the readable form could not be stored at all)."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)
    return text


def _seed_value(value: object) -> object:
    """The seed as stored (TEXT, or INTEGER / BLOB in an older registry) → int (or as is)."""
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value  # Manifest rejects it: the row is reported unreadable
    return value


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
        """Insert the run (or replace the row of the same ``run_id``) in one short transaction."""
        if not isinstance(m, Manifest):
            raise InputError(f"Registry.record takes a Manifest, got {type(m).__name__}")
        self._prepare_folder()
        with self._connect(write=True) as con:
            # read-only first: a foreign database is refused before any PRAGMA that writes
            self._check_schema(con, create=False)
            self._run(con, "PRAGMA journal_mode = WAL", write=True)
            self._run(con, "BEGIN IMMEDIATE", write=True)
            try:
                self._check_schema(con, create=True)
                self._add_columns(con)
                row = _manifest_row(m, self._seed_type(con))
                self._run(con, _UPSERT, row, write=True)
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
        order = sorted(keys, key=lambda r: (_instant(r["started_at"]), r["rowid"]), reverse=True)
        rowids = [r["rowid"] for r in order[:limit]]
        if not rowids:
            return []
        rows = {}
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

    def ids(self) -> list[str]:
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
            with self.path.open("rb") as fh:
                head = fh.read(len(_HEADER))
        except FileNotFoundError:
            return False
        except OSError as exc:
            blocker = _file_in_the_way(self.path.parent)
            why = f"{blocker} is a file, not a folder" if blocker else (exc.strerror or str(exc))
            raise RegistryError(f"cannot read registry {self.path}: {why}") from exc
        if head and head != _HEADER:
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

    def _read(self, sql: str, params: tuple) -> list[sqlite3.Row]:
        """Rows of ``sql``; ``{cols}`` in it stands for every manifest column (a column this
        registry predates reads as NULL)."""
        try:
            with self._connect(write=False) as con:
                if not self._check_schema(con, create=False):
                    return []
                if "{cols}" in sql:
                    have = self._columns(con)
                    cols = ", ".join(c if c in have else f"NULL AS {c}" for c in _COLUMNS)
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
        for name, kind in _ADDED.items():
            if name not in have:
                self._run(con, f"ALTER TABLE runs ADD COLUMN {name} {kind}", write=True)

    def _check_schema(self, con: sqlite3.Connection, create: bool) -> bool:
        """Whether the registry's tables exist (created when ``create``); errors for foreign files."""
        version = self._run(con, "PRAGMA user_version", write=create)[0][0]
        if version > SCHEMA_VERSION:
            raise RegistryError(
                f"registry {self.path} was written by a newer ragstat (schema {version}; this one "
                f"reads up to {SCHEMA_VERSION}): upgrade ragstat, or {_FIX}"
            )
        if version == 0:
            if self._run(con, "SELECT count(*) FROM sqlite_master", write=create)[0][0]:
                raise RegistryError(
                    f"{self.path} is a SQLite database but not a ragstat registry; "
                    f"it was left untouched: {_FIX}"
                )
            if not create:
                return False
            for sql in _SCHEMA:
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
            data = {c: row[c] for c in _PLAIN}
            data["seed"] = _seed_value(data["seed"])
            data.update({c: json.loads(row[c]) for c in _JSON})
            return Manifest.from_dict(data)
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
