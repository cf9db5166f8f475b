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


def _scalar(value: object) -> object:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


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
    return pd.DataFrame(rows)


def run_study(
    corpus: Corpus, config: StudyConfig | None = None, *, progress: Progress | None = None
) -> Study:
    """Run every configured retriever on the same self-retrieval queries."""
    config = config or StudyConfig()
    say = progress or (lambda _msg: None)
    if len(corpus) == 0:
        raise InputError(f"{corpus.source or 'corpus'}: no documents to study")
    table = chunk_corpus(corpus, config.chunk_words)
    chunk_doc_ids = np.asarray(table.doc_id, dtype=object)
    doc_codes, chunk_doc = np.unique(chunk_doc_ids.astype(str), return_inverse=True)
    counts = np.bincount(chunk_doc, minlength=doc_codes.size)
    per_doc = dict(zip(doc_codes.tolist(), counts.tolist(), strict=True))
    documents = _documents_table(corpus, per_doc)
    eligible_chunk = counts[chunk_doc] >= 2
    if not eligible_chunk.any():
        raise InputError("no document has two or more chunks: the study has no queries")
    index_mask = (
        eligible_chunk if not config.index_single_chunk_docs else np.ones_like(eligible_chunk)
    )
    index_pos = np.flatnonzero(index_mask)
    query_pos = np.flatnonzero(eligible_chunk)
    texts = list(table.text)
    queries = [query_text(texts[i], config.query_words) for i in query_pos]
    # own chunk, as a position in the index
    where_in_index = np.full(len(texts), -1)
    where_in_index[index_pos] = np.arange(index_pos.size)
    exclude = where_in_index[query_pos]
    analyzer = Analyzer(stopwords=config.stopwords, stemmer=config.stemmer)
    say(f"{len(corpus)} documents, {len(texts)} chunks, {len(queries)} queries")
    results = _search_all(config, analyzer, [texts[i] for i in index_pos], queries, exclude, say)
    frames, cands = [], []
    meta = documents.set_index("doc_id").filter(like="meta_")
    for name, res in results.items():
        res = SearchResult(
            indices=np.where(res.indices >= 0, index_pos[np.maximum(res.indices, 0)], -1),
            scores=res.scores,
        )
        frames.append(_records(name, res, table, query_pos, chunk_doc, meta))
        cands.append(_candidates(name, res, table, query_pos))
    return Study(
        config=config,
        fingerprint=corpus.fingerprint,
        source=corpus.source,
        records=pd.concat(frames, ignore_index=True),
        candidates=pd.concat(cands, ignore_index=True),
        documents=documents,
        n_chunks=len(texts),
    )


def _search_all(config, analyzer, index_texts, queries, exclude, say) -> dict[str, SearchResult]:
    options = {
        "bm25": {"k1": config.bm25_k1, "b": config.bm25_b},
        "rrf": {"k": config.rrf_k},
    }
    out = {}
    for name in config.retrievers:
        say(f"{name}: indexing {len(index_texts)} chunks and searching {len(queries)} queries")
        retriever = make_retriever(name, analyzer, **options.get(name, {}))
        retriever.fit(index_texts)
        out[name] = retriever.search(queries, config.k, exclude)
    return out


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


def _candidates(name, res, table, query_pos) -> pd.DataFrame:
    keep = res.indices >= 0
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
