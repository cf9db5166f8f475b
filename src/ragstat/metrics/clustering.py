"""Which cluster (sampling unit) each query belongs to, for clustered intervals.

- ``qrels-doc``: the source document of the query's gold passages, for chunk-level
  qrels whose document ids are ``doc#position`` (the part before ``#``); a query whose
  gold passages come from several documents takes the one holding most of them
  (ties: the smallest id) and is counted;
- a mapping file (CSV/TSV/JSONL/Parquet) with ``query_id`` and a cluster column
  (``cluster`` by default), e.g. a topic;
- none: every query is its own cluster — queries are treated as independent,
  which the output says plainly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ragstat.errors import InputError

__all__ = ["Clustering", "cluster_queries"]


@dataclass(frozen=True)
class Clustering:
    """A cluster id per query and how it was obtained."""

    by: str
    clusters: Mapping[str, str]
    note: str
    ambiguous: int = 0

    def to_dict(self) -> dict:
        return {
            "by": self.by,
            "clusters": len(set(self.clusters.values())),
            "note": self.note,
            "ambiguous_queries": self.ambiguous,
        }


def _from_qrels(qrels: Mapping[str, Mapping[str, int]], queries: Iterable[str]) -> Clustering:
    out, ambiguous = {}, 0
    for q in queries:
        gold = [d for d, rel in qrels.get(q, {}).items() if rel > 0]
        if not gold:
            out[q] = f"(no gold) {q}"
            continue
        sources = Counter(d.split("#", 1)[0] for d in gold)
        top = max(sources.values())
        ambiguous += len(sources) > 1
        out[q] = min(s for s, c in sources.items() if c == top)
    note = "clustered by the source document of each query's gold passages (doc#position ids)"
    return Clustering("qrels-doc", out, note, ambiguous)


def _from_file(path: Path, column: str, queries: Iterable[str]) -> Clustering:
    from ragstat.records import duck

    con = duck.connect()
    try:
        duck.attach(con, path, "m")
        cols = duck.columns_of(con, "m")
        if "query_id" not in cols or column not in cols:
            raise InputError(
                f"{path}: a cluster mapping needs columns 'query_id' and {column!r}; found {cols}"
            )
        rows = duck.run(
            con,
            str(path),
            f"SELECT CAST(query_id AS VARCHAR), CAST({duck.ident(column)} AS VARCHAR) FROM m",
        ).fetchall()
    finally:
        con.close()
    mapping: dict[str, str] = {}
    for q, c in rows:
        if q is None or c is None:
            raise InputError(f"{path}: a row has no query_id or no {column!r}")
        if q in mapping and mapping[q] != c:
            raise InputError(
                f"{path}: query {q!r} is mapped to two clusters ({mapping[q]!r}, {c!r})"
            )
        mapping[q] = c
    missing = [q for q in queries if q not in mapping]
    if missing:
        raise InputError(
            f"{path}: {len(missing)} evaluated queries have no cluster (first: {missing[:5]})"
        )
    return Clustering(f"file:{path.name}", mapping, f"clustered by {column!r} from {path}")


def cluster_queries(
    by: str | None,
    queries: Iterable[str],
    qrels: Mapping[str, Mapping[str, int]],
    column: str = "cluster",
) -> Clustering:
    """Cluster ids for ``queries`` (see module docstring)."""
    queries = list(queries)
    if by is None or by == "query":
        note = (
            "no clustering given: queries are treated as independent; if several queries "
            "come from one document or topic, pass --cluster-by"
        )
        return Clustering("query", {q: q for q in queries}, note)
    if by == "qrels-doc":
        return _from_qrels(qrels, queries)
    path = Path(by)
    if not path.is_file():
        raise InputError(f"--cluster-by {by!r}: use 'qrels-doc', 'query' or a mapping file")
    return _from_file(path, column, queries)
