"""IR metrics per query: evaluate runs against qrels, with trec_eval's conventions.

``evaluate(qrels, runs, ["ndcg@10", "recall@10", "mrr"])`` returns an
`EvaluationTable` whose ``records`` has one row per query × metric × system
(``query_id, system, metric, value, missing_run, no_relevant``): the per-query
table that flows into ragstat's intervals. Formulas: `ragstat.metrics.ir.kernels`;
metric names: `ragstat.metrics.ir.names`.

Query accounting (the RAG reference, part 4), per system:

* every query in the qrels is a row (``total``);
* a qrels query absent from the run is scored as an empty ranking (0 for every
  metric) and flagged ``missing_run`` (trec_eval skips it unless ``-c``;
  pytrec_eval skips it always);
* a qrels query with no relevant document (every grade ≤ 0) is flagged
  ``no_relevant`` and its value is NaN: a separate slice with its own count,
  never averaged in as 0 (trec_eval scores it 0);
* run queries absent from the qrels are ignored, as trec_eval does, and counted
  (``unjudged_queries``).

Apart from those two documented choices (NaN instead of 0, empty ranking for a
missing query) every value equals trec_eval's as computed by pytrec_eval /
ir_measures (``tests/reference/ir``, to 1e-9).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pandas as pd

from ragstat.errors import InputError
from ragstat.metrics.ir import kernels as K
from ragstat.metrics.ir.names import Metric, parse_metric, parse_metrics
from ragstat.records.qrels import Qrels, Run

__all__ = ["EvaluationTable", "QueryCounts", "evaluate"]


# --------------------------------------------------------------------------- joining


@dataclass(frozen=True)
class _QrelsIndex:
    """Qrels facts shared by every run: ideal gains, sorted (query, doc) keys and grades."""

    ideal: K.Ideal
    keys: np.ndarray  # sorted query_index * n_docs + doc_code
    grades: np.ndarray  # grade of each key
    n_docs: int


def _index_qrels(qrels: Qrels) -> _QrelsIndex:
    c = qrels.columns
    rows = c.row_query()
    n_docs = max(len(c.doc_vocab), 1)
    keys = rows * n_docs + c.doc_codes
    order = np.argsort(keys, kind="stable")
    ideal = K.ideal_ranking(rows, c.values, len(c.query_ids))
    return _QrelsIndex(ideal, keys[order], c.values[order], n_docs)


def _hits(qrels: Qrels, index: _QrelsIndex, run: Run) -> tuple[K.Hits, np.ndarray, int]:
    """Relevant retrieved rows of ``run``; which qrels queries it lacks; its unjudged query count."""
    qc, rc = qrels.columns, run.columns
    qmap = pd.Index(qc.query_ids).get_indexer(rc.query_ids)
    judged = qmap >= 0
    present = np.zeros(len(qc.query_ids), dtype=bool)
    present[qmap[judged]] = True
    if len(rc.doc_vocab) and len(qc.doc_vocab):
        dlut = pd.Index(qc.doc_vocab).get_indexer(rc.doc_vocab)
    else:
        dlut = np.full(len(rc.doc_vocab), -1, dtype=np.int64)
    row_q = np.repeat(qmap, rc.lengths)
    row_d = dlut[rc.doc_codes]
    cand = np.flatnonzero((row_q >= 0) & (row_d >= 0))
    keys = row_q[cand] * index.n_docs + row_d[cand]
    at = np.minimum(np.searchsorted(index.keys, keys), max(len(index.keys) - 1, 0))
    found = index.keys[at] == keys
    grade = index.grades[at[found]]
    rows = cand[found][grade > 0]
    grade = grade[grade > 0]
    run_q = np.searchsorted(rc.offsets, rows, side="right") - 1
    query, rank0 = qmap[run_q], rows - rc.offsets[run_q]
    order = np.argsort(query, kind="stable")  # rows of one query are contiguous, rank ascending
    hits = K.Hits(query[order], rank0[order], grade[order].astype(np.float64))
    return hits, ~present, int((~judged).sum())


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class QueryCounts:
    """Query accounting of one system (see the module docstring)."""

    total: int
    missing_run: int
    no_relevant: int
    unjudged_queries: int

    @property
    def scored(self) -> int:
        """Queries with a value: total − no_relevant (missing runs included, scored as empty)."""
        return self.total - self.no_relevant

    def to_dict(self) -> dict[str, int]:
        return {
            "total": self.total,
            "missing_run": self.missing_run,
            "no_relevant": self.no_relevant,
            "unjudged_queries": self.unjudged_queries,
            "scored": self.scored,
        }


@dataclass(frozen=True)
class EvaluationTable:
    """Per-query metric values of one or more systems, with their query accounting."""

    records: pd.DataFrame
    metrics: tuple[Metric, ...]
    systems: tuple[str, ...]
    counts: Mapping[str, QueryCounts]

    def summary(self) -> pd.DataFrame:
        """One row per system: total, missing_run, no_relevant, unjudged_queries, scored."""
        return pd.DataFrame([{"system": s, **self.counts[s].to_dict()} for s in self.systems])

    def means(self) -> pd.DataFrame:
        """``system, metric, mean, n``: means over queries with a relevant document."""
        scored = self.records[~self.records["no_relevant"]]
        out = scored.groupby(["system", "metric"], sort=False)["value"].agg(["mean", "size"])
        return out.rename(columns={"size": "n"}).reset_index()

    def values(self, metric: str | Metric, system: str | None = None) -> pd.Series:
        """Per-query values of one metric and system, indexed by query_id (NaN: no relevant)."""
        name = parse_metric(metric).name
        if name not in {m.name for m in self.metrics}:
            raise InputError(
                f"metric {name!r} was not evaluated; evaluated: {[m.name for m in self.metrics]}"
            )
        system = self._system(system)
        r = self.records
        sel = r[(r["metric"] == name) & (r["system"] == system)]
        return pd.Series(
            sel["value"].to_numpy(), index=pd.Index(sel["query_id"], name="query_id"), name=name
        )

    def mean(self, metric: str | Metric, system: str | None = None) -> float:
        """Mean over the queries with a relevant document (missing runs count as 0)."""
        return float(np.nanmean(self.values(metric, system).to_numpy()))

    def _system(self, system: str | None) -> str:
        if system is None:
            if len(self.systems) > 1:
                raise InputError(
                    f"several systems evaluated {list(self.systems)}: name one with system="
                )
            return self.systems[0]
        if system not in self.systems:
            raise InputError(f"unknown system {system!r}; evaluated: {list(self.systems)}")
        return system

    def to_dict(self) -> dict:
        """Means and query counts per system (JSON-ready)."""
        means = self.means()
        out: dict = {}
        for s in self.systems:
            m = means[means["system"] == s]
            out[s] = {
                "metrics": {
                    row.metric: {"mean": float(row.mean), "n": int(row.n)} for row in m.itertuples()
                },
                "queries": self.counts[s].to_dict(),
            }
        return out


def _systems(
    runs: Run | Sequence[Run], system_names: Sequence[str] | None
) -> tuple[list[Run], list[str]]:
    run_list = [runs] if isinstance(runs, Run) else list(runs)
    if not run_list:
        raise InputError("no run given: pass a Run or a list of runs")
    bad = [type(r).__name__ for r in run_list if not isinstance(r, Run)]
    if bad:
        raise InputError(f"runs must be Run objects (read_run / run_from_dict), got {bad}")
    names = [r.name for r in run_list] if system_names is None else [str(s) for s in system_names]
    if len(names) != len(run_list):
        raise InputError(f"system_names has {len(names)} names for {len(run_list)} runs")
    if len(set(names)) != len(names):
        raise InputError(f"system names must be distinct, got {names}: pass system_names=[…]")
    return run_list, names


def evaluate(
    qrels: Qrels,
    runs: Run | Sequence[Run],
    metrics: str | Metric | Iterable[str | Metric],
    *,
    system_names: Sequence[str] | None = None,
) -> EvaluationTable:
    """Score each run on every qrels query for every metric (rows: system × metric × query)."""
    if not isinstance(qrels, Qrels):
        raise InputError(
            f"qrels must be a Qrels (read_qrels / qrels_from_dict), got {type(qrels).__name__}"
        )
    run_list, names = _systems(runs, system_names)
    mets = parse_metrics(metrics)
    index = _index_qrels(qrels)
    qids = qrels.columns.query_ids
    nq, nm = len(qids), len(mets)
    no_rel = index.ideal.n_rel == 0
    values: list[np.ndarray] = []
    missing: list[np.ndarray] = []
    counts: dict[str, QueryCounts] = {}
    for run, name in zip(run_list, names, strict=True):
        hits, lacks, unjudged = _hits(qrels, index, run)
        values.extend(m.compute(hits, index.ideal) for m in mets)
        missing.append(np.tile(lacks, nm))
        counts[name] = QueryCounts(nq, int(lacks.sum()), int(no_rel.sum()), unjudged)
    ns = len(names)
    records = pd.DataFrame(
        {
            "query_id": np.tile(qids, ns * nm),
            "system": np.repeat(np.array(names, dtype=object), nq * nm),
            "metric": np.tile(np.repeat(np.array([m.name for m in mets], dtype=object), nq), ns),
            "value": np.concatenate(values),
            "missing_run": np.concatenate(missing),
            "no_relevant": np.tile(no_rel, ns * nm),
        }
    )
    return EvaluationTable(records, mets, tuple(names), MappingProxyType(counts))
