"""Which cluster (sampling unit) each query belongs to, for clustered intervals.

- ``qrels-doc``: the source document of the query's gold passages, for chunk-level
  qrels whose document ids are ``doc#position`` (the part before ``#``); a query whose
  gold passages come from several documents joins them into one cluster (connected
  components), so clusters stay independent;
- a mapping file (CSV/TSV/JSONL/Parquet) with ``query_id`` and a cluster column
  (``cluster`` by default), e.g. a topic;
- none: every query is its own cluster — queries are treated as independent,
  which the output says plainly.
"""

from __future__ import annotations

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
    joined: int = 0  # queries whose gold spans several source documents

    def to_dict(self) -> dict:
        real = {c for c in self.clusters.values() if not c.startswith("(no gold)")}
        return {
            "by": self.by,
            "clusters": len(real),
            "note": self.note,
            "queries_joining_documents": self.joined,
        }


def _from_qrels(qrels: Mapping[str, Mapping[str, int]], queries: Iterable[str]) -> Clustering:
    """Connected components of queries that share a source document (union–find)."""
    gold = {q: [d for d, rel in qrels.get(q, {}).items() if rel > 0] for q in queries}
    if not any("#" in d for docs in gold.values() for d in docs):
        raise InputError(
            "--cluster-by qrels-doc needs passage ids of the form doc#position in the qrels; "
            "use a mapping file (query_id → document or topic) instead"
        )
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for docs in gold.values():
        sources = sorted({d.split("#", 1)[0] for d in docs})
        for s in sources[1:]:
            parent[find(s)] = find(sources[0])
    out, joined = {}, 0
    for q, docs in gold.items():
        if not docs:
            out[q] = f"(no gold) {q}"
            continue
        roots = {d.split("#", 1)[0] for d in docs}
        joined += len(roots) > 1
        out[q] = find(min(roots))
    note = (
        "clustered by the source documents of each query's gold passages (doc#position ids); "
        "queries whose gold spans several documents join those documents into one cluster"
    )
    return Clustering("qrels-doc", out, note, joined)


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
