"""Which rankings a study makes and how deep: shared by the in-process and the batched runs.

Outcome columns need ranks up to 10, so lists are at least ``max(k, 10)`` deep;
the members of RRF are searched ``max(depth, rrf_depth)`` deep and fused per
query, so a batch of queries is fused exactly as the whole study would be.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ragstat.corpus.analysis import Analyzer
from ragstat.retrieval import make_retriever
from ragstat.retrieval.base import Retriever, SearchResult
from ragstat.retrieval.fusion import rrf
from ragstat.study.config import StudyConfig

__all__ = [
    "analyzer_for",
    "fit_retriever",
    "fuse",
    "search_all",
    "search_depth",
    "searched",
    "study_depth",
]


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
    options = {
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
