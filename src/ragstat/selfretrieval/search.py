"""Which rankings a study makes and how deep: shared by the in-process and the batched runs.

Outcome columns need ranks up to 10, so lists are at least ``max(k, 10)`` deep;
the members of RRF are searched ``max(depth, rrf_depth)`` deep and fused per
query, so a batch of queries is fused exactly as the whole study would be.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ragstat.corpus.analysis import Analyzer
from ragstat.errors import InputError
from ragstat.resources import check_memory, fmt_bytes
from ragstat.retrieval import make_retriever
from ragstat.retrieval.base import Retriever, SearchResult
from ragstat.retrieval.fusion import rrf
from ragstat.selfretrieval.config import StudyConfig

__all__ = [
    "LIST_BYTES",
    "TABLE_BYTES",
    "analyzer_for",
    "check_size",
    "fit_retriever",
    "fuse",
    "search_all",
    "search_depth",
    "searched",
    "study_depth",
    "study_memory",
]

#: Bytes per slot of a ranked list: an int64 chunk index and a float64 score.
LIST_BYTES = 16
#: Bytes per kept candidate in the numeric columns, the labelled table and its concatenation
#: (tracemalloc on the demo corpus, k = 10 vs 400: ~70 in `run_study`; Parquet copies more).
TABLE_BYTES = 160
#: Depth always accepted, whatever the corpus: the outcome columns need ranks up to 10.
MIN_DEPTH = 10


def analyzer_for(config: StudyConfig) -> Analyzer:
    return Analyzer(stopwords=config.stopwords, stemmer=config.stemmer)


def study_depth(config: StudyConfig) -> int:
    """Depth of every final list (the records and candidates)."""
    return max(config.k, 10)


def searched(config: StudyConfig) -> list[str]:
    """Retrievers that search (not rrf): the requested ones, then RRF members not requested."""
    own = [n for n in config.retrievers if n != "rrf"]
    extra = [m for m in config.rrf_members() if m not in own] if "rrf" in config.retrievers else []
    return own + extra


def search_depth(config: StudyConfig, name: str) -> int:
    depth = study_depth(config)
    if "rrf" in config.retrievers and name in config.rrf_members():
        return max(depth, config.rrf_depth)
    return depth


def fit_retriever(
    config: StudyConfig, name: str, texts: Sequence[str], show_progress: bool = False
) -> Retriever:
    options: dict[str, dict[str, object]] = {
        "bm25": {"k1": config.bm25_k1, "b": config.bm25_b},
        "dense": {"show_progress": show_progress},
    }
    retriever = make_retriever(name, analyzer_for(config), **options.get(name, {}))
    return retriever.fit(texts)


def search_all(
    config: StudyConfig,
    retrievers: Mapping[str, Retriever],
    queries: Sequence[str],
    exclude: np.ndarray,
) -> dict[str, SearchResult]:
    """Every searched retriever on ``queries`` (already fitted or loaded), then :func:`fuse`."""
    lists = {
        name: retrievers[name].search(queries, search_depth(config, name), exclude)
        for name in searched(config)
    }
    return fuse(config, lists)


def fuse(
    config: StudyConfig,
    lists: Mapping[str, SearchResult],
    say: Callable[[str], None] | None = None,
) -> dict[str, SearchResult]:
    """The final lists per configured retriever: RRF of its members, every list cut to depth."""
    depth = study_depth(config)
    out = {}
    for name in config.retrievers:
        if name == "rrf":
            members = config.rrf_members()
            if say is not None:
                say(
                    f"rrf: fusing {', '.join(members)} "
                    f"(k = {config.rrf_k}, depth {config.rrf_depth})"
                )
            fused = rrf([lists[m] for m in members], k=config.rrf_k, depth=config.rrf_depth)
            out[name] = _cut(fused, depth)
        else:
            out[name] = _cut(lists[name], depth)
    return out


def _cut(res: SearchResult, depth: int) -> SearchResult:
    return SearchResult(indices=res.indices[:, :depth], scores=res.scores[:, :depth])


def study_memory(config: StudyConfig, n_queries: int, n_indexed: int) -> float:
    """Estimated peak bytes of a study's lists and tables.

    Ranked lists: Q × depth × :data:`LIST_BYTES` per searched retriever (padded to the
    depth, so a depth beyond the index costs as much as a real one); tables: Q × the
    candidates that exist (≤ n_indexed − 1 per query) × :data:`TABLE_BYTES` per retriever.
    """
    lists = sum(search_depth(config, name) for name in searched(config)) * LIST_BYTES
    kept = min(config.k, max(n_indexed - 1, 0)) * len(config.retrievers) * TABLE_BYTES
    return float(n_queries) * (lists + kept)


def check_size(config: StudyConfig, n_queries: int, n_indexed: int) -> None:
    """Fail before any search when k cannot mean anything or the study cannot fit in memory.

    A query never returns its own chunk, so at most n_indexed − 1 candidates exist: a
    larger ``k`` only pads every list. Depths up to :data:`MIN_DEPTH` are always
    accepted (every list is that deep anyway).
    """
    most = max(n_indexed - 1, MIN_DEPTH)
    if config.k > most:
        need = fmt_bytes(study_memory(config, n_queries, n_indexed))
        per = f"{LIST_BYTES} bytes per candidate × {len(searched(config))} retriever(s)"
        raise InputError(
            f"--k {config.k:,} exceeds what {n_indexed:,} indexed chunks can return: a query "
            f"never returns its own chunk, so at most {n_indexed - 1:,} candidates exist; "
            f"use --k {most:,} or less (--k {config.k:,} would need ≈ {need}: "
            f"{n_queries:,} queries × k × {per})"
        )
    check_memory(
        study_memory(config, n_queries, n_indexed),
        f"the study ({n_queries:,} queries × --k {config.k:,} candidates × "
        f"{len(config.retrievers)} retriever(s))",
        "use a smaller --k or --sample-queries",
    )
