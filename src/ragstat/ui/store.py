"""Read-only queries over the registry file for the web view.

The runs list is filtered, sorted and paginated in SQL (``LIMIT``/``OFFSET`` over the
``started_at`` index), so a registry of 10,000 runs answers as fast as one of ten. The
connection is opened ``mode=ro``: the view never writes, and a file that is not a ragstat
registry is refused without being touched.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from ragstat.errors import RagstatError
from ragstat.registry import Manifest, Registry, RegistryError
from ragstat.registry.display import OUTCOME_SQL
from ragstat.registry.schema import APPLICATION_ID, COLUMNS, manifest_data

__all__ = ["PAGE_SIZE", "HistoryKey", "RunPage", "RunQuery", "RunStore"]

#: Runs per page of the runs list.
PAGE_SIZE = 50
#: The most runs one history figure shows (the newest).
HISTORY_LIMIT = 200


@dataclass(frozen=True)
class RunQuery:
    """One page of the runs list: filters (verb; ``status``: an outcome such as ``failed gate``),
    order (``new`` or ``old`` first) and page number."""

    verb: str = ""
    status: str = ""
    order: str = "new"
    page: int = 1


@dataclass(frozen=True)
class RunPage:
    """The runs of one page, how many runs match in all, and the choices for the filters
    (``statuses``: the outcomes recorded)."""

    runs: tuple[Manifest, ...]
    total: int
    verbs: tuple[str, ...]
    statuses: tuple[str, ...]
    unreadable: int = 0
    number: int = 1  # the page shown (a page past the last shows the last)

    @property
    def last(self) -> int:
        """The number of the last page (1 when there are no runs)."""
        return max((self.total + PAGE_SIZE - 1) // PAGE_SIZE, 1)


@dataclass(frozen=True)
class HistoryKey:
    """What makes runs comparable over time: the same corpus, gates file or input file."""

    kind: str  # "corpus", "gates" or "file"
    value: str

    @property
    def label(self) -> str:
        names = {"corpus": "corpus fingerprint", "gates": "gates file", "file": "input file"}
        return names[self.kind]


class RunStore:
    """Queries over the registry at ``path`` (which may not exist yet: then no runs)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path).expanduser()
        self.registry = Registry(self.path)

    # -- single runs ----------------------------------------------------------------------

    def get(self, run_id: str) -> Manifest | None:
        """The run whose id is exactly ``run_id`` (no prefix match), or None."""
        rows = self._rows("SELECT {cols} FROM runs WHERE run_id = ?", (run_id,))
        return _manifest(rows[0]) if rows else None

    def recorded(self, run_id: str) -> bool:
        """Whether a row of id ``run_id`` exists (readable or not)."""
        return bool(self._rows("SELECT 1 AS found FROM runs WHERE run_id = ?", (run_id,)))

    # -- the runs list --------------------------------------------------------------------

    def page(self, q: RunQuery) -> RunPage:
        """The runs on page ``q.page`` (1-based; a page past the last shows the last) matching
        the filters of ``q``; rows that do not parse are counted in ``unreadable``."""
        where, params = _filters(q)
        direction = "ASC" if q.order == "old" else "DESC"
        counted = self._rows(f"SELECT count(*) AS n FROM runs{where}", params)
        total = int(counted[0]["n"]) if counted else 0
        number = max(min(q.page, (total + PAGE_SIZE - 1) // PAGE_SIZE), 1)
        sql = (
            f"SELECT {{cols}} FROM runs{where} ORDER BY started_at {direction}, "
            f"rowid {direction} LIMIT ? OFFSET ?"
        )
        rows = self._rows(sql, (*params, PAGE_SIZE, (number - 1) * PAGE_SIZE))
        runs = [_manifest(r) for r in rows]
        return RunPage(
            runs=tuple(m for m in runs if m is not None),
            total=total,
            verbs=self._distinct("command"),
            statuses=self._distinct(OUTCOME_SQL),
            unreadable=sum(m is None for m in runs),
            number=number,
        )

    def _distinct(self, expression: str) -> tuple[str, ...]:
        rows = self._rows(f"SELECT DISTINCT {expression} AS v FROM runs ORDER BY v", ())
        return tuple(str(r["v"]) for r in rows)

    # -- history ---------------------------------------------------------------------------

    def history(self, key: HistoryKey) -> tuple[list[Manifest], int]:
        """The newest runs sharing ``key``, oldest first (at most ``HISTORY_LIMIT``), and how
        many rows sharing it could not be read (a config that is not JSON shares nothing)."""
        config = "CASE WHEN json_valid(config) THEN json_extract(config, '$.{}') END"
        where = {
            "corpus": "corpus_fingerprint = ?",
            "gates": f"command = 'gate' AND {config.format('gates_file')} = ?",
            "file": f"{config.format('file')} = ?",
        }[key.kind]
        sql = (
            f"SELECT {{cols}} FROM runs WHERE {where} ORDER BY started_at DESC, rowid DESC LIMIT ?"
        )
        runs = [_manifest(r) for r in self._rows(sql, (key.value, HISTORY_LIMIT))]
        return [m for m in reversed(runs) if m is not None], sum(m is None for m in runs)

    # -- plumbing --------------------------------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection | None]:
        """A read-only connection, or None when there is no registry file yet."""
        if not self.path.is_file():
            if self.path.exists():
                raise RegistryError(f"registry {self.path} is not a file")
            yield None
            return
        uri = f"{self.path.absolute().as_uri()}?mode=ro"
        try:
            con = sqlite3.connect(uri, uri=True, timeout=self.registry.timeout)
        except sqlite3.Error as exc:
            raise RegistryError(f"cannot read registry {self.path}: {exc}") from exc
        with closing(con):
            con.row_factory = sqlite3.Row
            yield con

    def _rows(self, sql: str, params: tuple[object, ...]) -> list[sqlite3.Row]:
        with self._connect() as con:
            if con is None:
                return []
            try:
                if not _is_registry(con, self.path):
                    return []
                have = {r[1] for r in con.execute("PRAGMA table_info(runs)")}
                cols = ", ".join(c if c in have else f"NULL AS {c}" for c in COLUMNS)
                outcome = "outcome" if "outcome" in have else "NULL"
                sql = sql.replace("{cols}", cols).replace("{outcome}", outcome)
                return list(con.execute(sql, params).fetchall())
            except sqlite3.Error as exc:
                raise RegistryError(f"cannot read registry {self.path}: {exc}") from exc


def _filters(q: RunQuery) -> tuple[str, tuple[object, ...]]:
    clauses: list[str] = []
    params: list[object] = []
    if q.verb:
        clauses.append("command = ?")
        params.append(q.verb)
    if q.status:
        clauses.append(f"{OUTCOME_SQL} = ?")
        params.append(q.status)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), tuple(params)


def _is_registry(con: sqlite3.Connection, path: Path) -> bool:
    """Whether ``con`` is a ragstat registry with its table (False: an empty database)."""
    version, tables = con.execute(
        "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)"
    ).fetchone()
    if version == 0 and not tables:
        return False
    if con.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        raise RegistryError(f"{path} is a SQLite database but not a ragstat registry")
    return True


def _manifest(row: sqlite3.Row) -> Manifest | None:
    """The row as a manifest; None for a row that does not parse (counted, not shown)."""
    try:
        return Manifest.from_dict(manifest_data(row))
    except (ValueError, TypeError, KeyError, IndexError, RecursionError, RagstatError):
        return None
