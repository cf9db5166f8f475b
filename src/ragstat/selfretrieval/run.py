"""The self-retrieval study: chunks → queries → rankings → per-query records.

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
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ragstat.corpus.chunking import chunk_corpus, query_text
from ragstat.corpus.document import Corpus
from ragstat.errors import InputError
from ragstat.retrieval.base import SearchResult
from ragstat.selfretrieval.config import StudyConfig
from ragstat.selfretrieval.sampling import QuerySample, sample
from ragstat.selfretrieval.search import check_size, fit_retriever, fuse, search_depth, searched
from ragstat.selfretrieval.tables import (
    Labels,
    candidate_columns,
    candidates_frame,
    outcome_columns,
    records_frame,
)

if TYPE_CHECKING:
    from ragstat.engine import Executor

__all__ = ["BATCH_SIZE", "Prepared", "Study", "prepare", "run_study"]

#: Queries per batch task of a batched study (fewer only when the study has fewer).
BATCH_SIZE = 10_000

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
    sampling: dict | None = None  # the query sample's design (summary.json "sampling")


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
    doc_codes: np.ndarray


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
    plan = _Plan(index_pos, query_pos, where[query_pos], chunk_doc, doc_codes)
    return plan, per_doc


@dataclass(frozen=True, eq=False)
class Prepared:
    """A study before any search: chunks, the index, the queries (index coordinates).

    ``query`` is each query's own chunk as an index position (its exclusion);
    ``chunk_doc`` the document code of every indexed chunk; ``weight`` n_d / m_d per
    query when the queries are sampled.
    """

    texts: list[str]  # indexed chunk texts, index order
    queries: list[str]
    query: np.ndarray
    chunk_doc: np.ndarray
    labels: Labels
    documents: pd.DataFrame
    meta: pd.DataFrame
    weight: np.ndarray | None
    sampling: QuerySample | None
    n_chunks: int


def prepare(corpus: Corpus, config: StudyConfig) -> Prepared:
    """Chunk the corpus, plan index and queries, draw the query sample if configured."""
    if len(corpus) == 0:
        raise InputError(f"{corpus.source or 'corpus'}: no documents to study")
    table = chunk_corpus(corpus, config.chunk_words)
    plan, per_doc = _plan(table, config)
    documents = _documents_table(corpus, per_doc)
    query_pos, query, weight, smp = plan.query_pos, plan.exclude, None, None
    if config.sample_queries is not None:
        smp = sample(plan.chunk_doc[query_pos], config.sample_queries, config.sample_seed)
        query_pos, query = query_pos[smp.keep], query[smp.keep]
        weight = smp.weights(plan.chunk_doc[query_pos])
        documents = _with_sampling(documents, plan.doc_codes, smp)
    check_size(config, int(query_pos.size), int(plan.index_pos.size))
    texts = list(table.text)
    idx = plan.index_pos
    labels = Labels(
        chunk_id=np.asarray(table.chunk_id, dtype=object)[idx],
        doc_id=np.asarray(table.doc_id, dtype=object)[idx],
        position=np.asarray(table.position)[idx],
    )
    return Prepared(
        texts=[texts[i] for i in idx],
        queries=[query_text(texts[i], config.query_words) for i in query_pos],
        query=query,
        chunk_doc=plan.chunk_doc[idx],
        labels=labels,
        documents=documents,
        meta=documents.dropna(subset=["doc_id"]).set_index("doc_id").filter(like="meta_"),
        weight=weight,
        sampling=smp,
        n_chunks=len(texts),
    )


def _with_sampling(documents: pd.DataFrame, doc_codes: np.ndarray, smp: QuerySample):
    """documents.parquet gains n_d (queries_eligible) and m_d (queries_sampled)."""
    code = {d: i for i, d in enumerate(doc_codes.tolist())}
    at = np.array([code.get(d, -1) if d is not None else -1 for d in documents["doc_id"]])
    n = np.concatenate([smp.n, np.zeros(max(0, doc_codes.size - smp.n.size), np.int64)])
    m = np.concatenate([smp.m, np.zeros(max(0, doc_codes.size - smp.m.size), np.int64)])
    out = documents.copy()
    pos = out.columns.get_loc("reason") + 1
    out.insert(pos, "queries_eligible", np.where(at >= 0, n[np.maximum(at, 0)], 0))
    out.insert(pos + 1, "queries_sampled", np.where(at >= 0, m[np.maximum(at, 0)], 0))
    return out


def run_study(
    corpus: Corpus,
    config: StudyConfig | None = None,
    *,
    progress: Progress | None = None,
    executor: Executor | None = None,
    index_dir: str | Path | None = None,
    parts_dir: str | Path | None = None,
    batch_size: int = BATCH_SIZE,
    replace_index: bool = False,
) -> Study:
    """Run every configured retriever on the same self-retrieval queries.

    With ``executor`` and ``index_dir`` both None (the default) everything runs in
    this process. Otherwise the study is batched (:mod:`ragstat.selfretrieval.batches`):
    the index is saved to ``index_dir`` (default: a temporary folder, removed
    after) and reused when it matches; batches of ≥ ``batch_size`` queries run on
    ``executor`` (default: serial), each opening the saved index; Parquet parts
    go to ``parts_dir`` (default ``index_dir/parts``, removed after assembly). A
    saved index built for another corpus or configuration is an error unless
    ``replace_index``. The tables are identical to the in-process run's.
    """
    config = config or StudyConfig()
    say = progress or (lambda _msg: None)
    prep = prepare(corpus, config)
    say(
        f"{len(corpus)} documents, {prep.n_chunks} chunks ({len(prep.texts)} indexed), "
        f"{len(prep.queries)} queries"
    )
    if executor is None and index_dir is None:
        lists = _search_all(config, prep, say, show_progress=progress is not None)
        columns = {
            name: (
                outcome_columns(res, prep.query, prep.chunk_doc),
                candidate_columns(res, prep.query, config.k),
            )
            for name, res in lists.items()
        }
    else:
        from ragstat.selfretrieval.batches import run_batches

        columns = run_batches(
            prep,
            config,
            corpus.fingerprint,
            executor=executor,
            index_dir=index_dir,
            parts_dir=parts_dir,
            batch_size=batch_size,
            replace_index=replace_index,
            say=say,
        )
    say(f"records: labelling {len(prep.queries)} queries × {len(columns)} retriever(s)")
    return _assemble(corpus, config, prep, columns)


Columns = dict[str, tuple[dict[str, np.ndarray], dict[str, np.ndarray]]]


def _assemble(corpus: Corpus, config: StudyConfig, prep: Prepared, columns: Columns) -> Study:
    """Label every retriever's outcome and candidate columns (index coordinates) with chunk
    and document ids; records gain the documents' metadata (``meta_*``)."""
    frames, cands = [], []
    for name, (rec, cand) in columns.items():
        frame = records_frame(name, rec, prep.labels, prep.weight)
        frames.append(frame.join(prep.meta, on="doc_id") if len(prep.meta.columns) else frame)
        cands.append(candidates_frame(name, cand, prep.labels))
    return Study(
        config=config,
        fingerprint=corpus.fingerprint,
        source=corpus.source,
        records=pd.concat(frames, ignore_index=True),
        candidates=pd.concat(cands, ignore_index=True),
        documents=prep.documents,
        n_chunks=prep.n_chunks,
        n_indexed=len(prep.texts),
        sampling=None if prep.sampling is None else prep.sampling.to_dict(),
    )


def _search_all(config, prep: Prepared, say, show_progress=False) -> dict[str, SearchResult]:
    """Each retriever built and searched in turn (one index at a time), then fused.

    BM25 is built in blocks into a temporary folder and searched memory-mapped
    (:mod:`ragstat.selfretrieval.bm25build`: bit-identical to the fitted index, a fraction of
    its memory); the other retrievers are fitted in memory."""
    import shutil
    import tempfile

    from ragstat.retrieval.store import load_retriever
    from ragstat.selfretrieval.index import build_index
    from ragstat.selfretrieval.search import analyzer_for

    lists = {}
    for name in searched(config):
        say(f"{name}: indexing {len(prep.texts)} chunks")
        scratch = None
        if name == "bm25":
            scratch = Path(tempfile.mkdtemp(prefix="ragstat-bm25-"))
            build_index(config, name, prep.texts, scratch / name)
            retriever = load_retriever(name, scratch / name, analyzer_for(config))
        else:
            retriever = fit_retriever(config, name, prep.texts, show_progress)
        say(f"{name}: searching {len(prep.queries)} queries")
        try:
            lists[name] = retriever.search(prep.queries, search_depth(config, name), prep.query)
        finally:
            del retriever
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
    return fuse(config, lists, say)
