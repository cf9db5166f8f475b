"""The registry's table and how a manifest becomes a row and back.

Schema 1: one ``runs`` row per run, plain columns plus JSON text columns, marked as a
ragstat registry by ``PRAGMA application_id``. Columns added after its first release
(``error``, ``outcome``, ``output_sha256``: the sha256 of each output file) are nullable, so
an older registry still reads (as None) and gains them on the next record; older ragstat
ignores them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from ragstat.registry.manifest import Manifest

__all__ = [
    "ADDED_COLUMNS",
    "APPLICATION_ID",
    "COLUMNS",
    "CREATE",
    "HEADER",
    "JSON_COLUMNS",
    "PLAIN_COLUMNS",
    "SCHEMA_VERSION",
    "UPSERT",
    "manifest_data",
    "manifest_row",
    "start_instant",
]

SCHEMA_VERSION = 1
APPLICATION_ID = 0x52475354  # "RGST": marks the file as a ragstat registry
HEADER = b"SQLite format 3\x00"
JSON_COLUMNS = ("argv", "config", "inputs", "outputs", "results", "versions", "output_sha256")
PLAIN_COLUMNS = (
    "run_id",
    "command",
    "started_at",
    "wall_s",
    "status",
    "seed",
    "corpus_fingerprint",
    "error",
    "outcome",
)
COLUMNS = PLAIN_COLUMNS + JSON_COLUMNS
#: Columns added to schema 1 after its first release, with their SQL type.
ADDED_COLUMNS = {"error": "TEXT", "outcome": "TEXT", "output_sha256": "TEXT"}
#: JSON columns that may be NULL (added later): the manifest's default applies.
_NULLABLE_JSON = ("output_sha256",)
CREATE = (
    """CREATE TABLE runs (
        run_id TEXT PRIMARY KEY, command TEXT NOT NULL, started_at TEXT NOT NULL,
        wall_s REAL NOT NULL, status TEXT NOT NULL, seed TEXT, corpus_fingerprint TEXT,
        argv TEXT NOT NULL, config TEXT NOT NULL, inputs TEXT NOT NULL, outputs TEXT NOT NULL,
        results TEXT NOT NULL, versions TEXT NOT NULL, error TEXT, outcome TEXT,
        output_sha256 TEXT
    )""",
    "CREATE INDEX runs_by_time ON runs (started_at)",
    f"PRAGMA application_id = {APPLICATION_ID}",
    f"PRAGMA user_version = {SCHEMA_VERSION}",
)
UPSERT = (
    f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)}) "
    f"ON CONFLICT (run_id) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:])
)
_INT64 = 2**63


def start_instant(started_at: object) -> tuple[int, float, str]:
    """Sort key of a start time: the UTC instant; a time that does not parse sorts oldest."""
    text = str(started_at)
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return (0, 0.0, text)
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return (1, t.timestamp(), "")


def _text(value: object) -> object:
    """A string SQLite can store as UTF-8: a lone surrogate (not text) becomes its escape."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def _json_text(value: object) -> str:
    """JSON as readable UTF-8; with ``\\u`` escapes when a string holds a lone surrogate
    (it reads back the same, where the readable form could not be stored at all)."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)
    return text


def manifest_row(m: Manifest, seed_type: str) -> tuple[object, ...]:
    """The row's parameters. The seed (any integer ≥ 0, so possibly past 2**63) goes in as
    decimal text; into a registry whose seed column is still INTEGER (older ragstat) as an
    integer when it fits, else as a BLOB of its digits (INTEGER affinity would round text
    past 2**63 to a REAL). JSON columns escape what is not UTF-8 text."""
    data = m.to_dict()
    plain = {c: _text(data[c]) for c in PLAIN_COLUMNS}
    seed = m.seed
    if seed is not None:
        fits = -_INT64 <= seed < _INT64
        text = str(seed)
        plain["seed"] = (seed if fits else text.encode("ascii")) if "INT" in seed_type else text
    return (*(plain[c] for c in PLAIN_COLUMNS), *(_json_text(data[c]) for c in JSON_COLUMNS))


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


def manifest_data(row: Any) -> dict[str, object]:
    """A row (``sqlite3.Row`` or mapping) as the dict :meth:`Manifest.from_dict` takes;
    raises ValueError or TypeError for a JSON column that does not parse."""
    data: dict[str, object] = {c: row[c] for c in PLAIN_COLUMNS}
    data["seed"] = _seed_value(data["seed"])
    data.update(
        {
            c: json.loads(row[c])
            for c in JSON_COLUMNS
            if row[c] is not None or c not in _NULLABLE_JSON
        }
    )
    return data
