"""The self-retrieval study (seed 001): chunks → queries → rankings → per-query records.

Every chunk of an eligible document (two or more chunks) issues one query: its
first ``query_words`` words, searched against the index of all chunks with the
query's own chunk excluded. Every retriever answers the same queries. Outputs
keep the audit trail: the top-k candidates of every query and the reason any
document issued no query.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragstat.corpus.analysis import Analyzer
from ragstat.corpus.chunking import chunk_corpus, query_text
from ragstat.corpus.document import Corpus
from ragstat.errors import InputError
from ragstat.retrieval import make_retriever
from ragstat.retrieval.base import SearchResult
from ragstat.retrieval.fusion import rrf
from ragstat.study.config import StudyConfig
from ragstat.study.outcomes import outcomes

__all__ = ["Study", "run_study"]

Progress = Callable[[str], None]


@dataclass(frozen=True, eq=False)
class Study:
    """In-memory result of a study: the tables written to its output folder."""

    config: StudyConfig
    fingerprint: str
    source: str
    records: pd.DataFrame
    candidates: pd.DataFrame
    documents: pd.DataFrame
    n_chunks: int
    n_indexed: int


def _scalar(value: object) -> object:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _one_type(column: pd.Series) -> pd.Series:
    """A metadata column with one type: mixed types (2020 and "2021") become text."""
    kinds = {type(v) for v in column.dropna()}
    if len(kinds) <= 1 or kinds <= {int, float}:
        return column
    return column.map(lambda v: None if v is None or v != v else str(v))


def _documents_table(corpus: Corpus, chunks_per_doc: dict[str, int]) -> pd.DataFrame:
    rows = []
    for doc in corpus.documents:
        c = chunks_per_doc.get(doc.doc_id, 0)
        reason = "empty text" if c == 0 else ("single chunk" if c == 1 else None)
        meta = {f"meta_{k}": _scalar(v) for k, v in doc.metadata.items()}
        rows.append(
            {
                "doc_id": doc.doc_id,
                "source": None,
                "chunks": c,
                "eligible": c >= 2,
                "reason": reason,
                **meta,
            }
        )
    for ex in corpus.excluded:
        rows.append(
            {
                "doc_id": None,
                "source": ex.source,
                "chunks": 0,
                "eligible": False,
                "reason": ex.reason,
            }
        )
    frame = pd.DataFrame(rows)
    for col in frame.columns:
        if col.startswith("meta_"):
            frame[col] = _one_type(frame[col])
    return frame


@dataclass(frozen=True, eq=False)
class _Plan:
    """Which chunks are indexed, which issue queries, and each query's own chunk in the index."""

    index_pos: np.ndarray
    query_pos: np.ndarray
    exclude: np.ndarray
    chunk_doc: np.ndarray


def _plan(table, config: StudyConfig) -> tuple[_Plan, dict[str, int]]:
    doc_codes, chunk_doc = np.unique(np.asarray(table.doc_id, dtype=str), return_inverse=True)
    counts = np.bincount(chunk_doc, minlength=doc_codes.size)
    eligible = counts[chunk_doc] >= 2
    if int(np.sum(counts >= 2)) < 2:
        raise InputError(
            "fewer than two documents have two or more chunks: the study needs at least two "
            "documents that issue queries (try a smaller --chunk-words)"
        )
    index_pos = np.flatnonzero(
        np.ones_like(eligible) if config.index_single_chunk_docs else eligible
    )
    query_pos = np.flatnonzero(eligible)
    where = np.full(eligible.size, -1)
    where[index_pos] = np.arange(index_pos.size)
    per_doc = dict(zip(doc_codes.tolist(), counts.tolist(), strict=True))
    return _Plan(index_pos, query_pos, where[query_pos], chunk_doc), per_doc


def run_study(
    corpus: Corpus, config: StudyConfig | None = None, *, progress: Progress | None = None
) -> Study:
    """Run every configured retriever on the same self-retrieval queries."""
    config = config or StudyConfig()
    say = progress or (lambda _msg: None)
    if len(corpus) == 0:
        raise InputError(f"{corpus.source or 'corpus'}: no documents to study")
    table = chunk_corpus(corpus, config.chunk_words)
    plan, per_doc = _plan(table, config)
    documents = _documents_table(corpus, per_doc)
    texts = list(table.text)
    queries = [query_text(texts[i], config.query_words) for i in plan.query_pos]
    say(
        f"{len(corpus)} documents, {len(texts)} chunks ({plan.index_pos.size} indexed), "
        f"{len(queries)} queries"
    )
    results = _search_all(
        config,
        [texts[i] for i in plan.index_pos],
        queries,
        plan.exclude,
        say,
        show_progress=progress is not None,
    )
    frames, cands = [], []
    meta = documents.dropna(subset=["doc_id"]).set_index("doc_id").filter(like="meta_")
    for name, res in results.items():
        res = SearchResult(
            indices=np.where(res.indices >= 0, plan.index_pos[np.maximum(res.indices, 0)], -1),
            scores=res.scores,
        )
        frames.append(_records(name, res, table, plan.query_pos, plan.chunk_doc, meta))
        cands.append(_candidates(name, res, table, plan.query_pos, config.k))
    return Study(
        config=config,
        fingerprint=corpus.fingerprint,
        source=corpus.source,
        records=pd.concat(frames, ignore_index=True),
        candidates=pd.concat(cands, ignore_index=True),
        documents=documents,
        n_chunks=len(texts),
        n_indexed=int(plan.index_pos.size),
    )


def _search_all(
    config, texts, queries, exclude, say, show_progress=False
) -> dict[str, SearchResult]:
    """Each retriever once; RRF fuses the other requested retrievers' deeper lists.

    Outcome columns need ranks up to 10, so lists are at least 10 deep whatever ``k`` is.
    """
    analyzer = Analyzer(stopwords=config.stopwords, stemmer=config.stemmer)
    depth = max(config.k, 10)
    members = config.rrf_members()
    deep = max(depth, config.rrf_depth) if "rrf" in config.retrievers else depth
    options = {
        "bm25": {"k1": config.bm25_k1, "b": config.bm25_b},
        "dense": {"show_progress": show_progress},
    }
    lists = {}
    for name in [n for n in config.retrievers if n != "rrf"] + [
        m for m in members if m not in config.retrievers
    ]:
        say(f"{name}: indexing {len(texts)} chunks and searching {len(queries)} queries")
        retriever = make_retriever(name, analyzer, **options.get(name, {}))
        retriever.fit(texts)
        lists[name] = retriever.search(queries, deep if name in members else depth, exclude)
    out = {}
    for name in config.retrievers:
        if name == "rrf":
            say(f"rrf: fusing {', '.join(members)} (k = {config.rrf_k}, depth {config.rrf_depth})")
            fused = rrf([lists[m] for m in members], k=config.rrf_k, depth=config.rrf_depth)
            out[name] = _cut(fused, depth)
        else:
            out[name] = _cut(lists[name], depth)
    return out


def _cut(res: SearchResult, depth: int) -> SearchResult:
    return SearchResult(indices=res.indices[:, :depth], scores=res.scores[:, :depth])


def _records(name, res, table, query_pos, chunk_doc, meta) -> pd.DataFrame:
    o = outcomes(res, chunk_doc[query_pos], chunk_doc)
    chunk_id = np.asarray(table.chunk_id, dtype=object)
    doc_id = np.asarray(table.doc_id, dtype=object)
    top = o.top1_index
    frame = pd.DataFrame(
        {
            "query_id": chunk_id[query_pos],
            "doc_id": doc_id[query_pos],
            "position": np.asarray(table.position)[query_pos],
            "retriever": name,
            "hit1": o.hit[1],
            "first_rank": pd.Series(o.first_rank).astype("Int64"),  # null when not in the top k
            "rr": o.rr,
            **{f"hit{j}": v for j, v in o.hit.items() if j > 1},
            "top1_chunk": np.where(top >= 0, chunk_id[np.maximum(top, 0)], None),
            "top1_doc": np.where(top >= 0, doc_id[np.maximum(top, 0)], None),
            "top1_score": o.top1_score,
            "top1_tied": o.top1_tied,
        }
    )
    if len(meta.columns):
        frame = frame.join(meta, on="doc_id")
    return frame


def _candidates(name, res, table, query_pos, k: int) -> pd.DataFrame:
    keep = res.indices >= 0
    keep[:, k:] = False
    rows, ranks = np.nonzero(keep)
    idx = res.indices[keep]
    chunk_id = np.asarray(table.chunk_id, dtype=object)
    doc_id = np.asarray(table.doc_id, dtype=object)
    return pd.DataFrame(
        {
            "query_id": chunk_id[query_pos][rows],
            "retriever": name,
            "rank": ranks + 1,
            "chunk_id": chunk_id[idx],
            "doc_id": doc_id[idx],
            "score": res.scores[keep],
        }
    )
