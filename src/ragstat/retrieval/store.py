"""Fitted retrievers saved as files and opened again, memory-mapped, by any process.

One folder per retriever, written into a temporary sibling and renamed into
place, so a reader sees a complete folder or none:

=========  =====================================================================
``bm25``   bm25s's own ``save`` format, loaded with ``bm25s.BM25.load(mmap=True)``
           (:meth:`ragstat.retrieval.BM25Retriever.save`)
``tfidf``  the normalised chunk matrix as CSR ``.npy`` arrays, the vocabulary as
           JSON and ``idf.npy`` — no pickle (:meth:`ragstat.retrieval.TfidfRetriever.save`)
``dense``  ``embeddings.npy`` (chunks × dim, float64, memory-mapped) and the model
           identity; queries are embedded by the model on load
=========  =====================================================================

A loaded retriever searches exactly like the fitted one (bit-identical scores
for bm25 and tfidf; for dense, the chunk vectors are the same bits and the
query vectors come from the same model).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from ragstat.errors import InputError
from ragstat.retrieval.base import Retriever
from ragstat.retrieval.bm25 import BM25Retriever
from ragstat.retrieval.text import Analyzer
from ragstat.retrieval.tfidf import TfidfRetriever

__all__ = ["SAVABLE", "load_retriever", "save_retriever"]

#: Retrievers that can be saved (rrf is a fusion of saved members, not an index).
SAVABLE = ("bm25", "tfidf", "dense")


def _save_dense(retriever, folder: Path) -> None:
    if retriever.embeddings is None:
        raise InputError("DenseRetriever.save called before fit(texts)")
    np.save(folder / "embeddings.npy", np.asarray(retriever.embeddings), allow_pickle=False)
    model_dir = None if retriever.model_dir is None else str(retriever.model_dir.resolve())
    info = {"name": "dense", "model_id": retriever.model_id, "model_dir": model_dir}
    (folder / "ragstat-dense.json").write_text(json.dumps(info), encoding="utf-8")


def _load_dense(folder: Path, mmap: bool, options: dict) -> Retriever:
    from ragstat.retrieval.dense import DenseRetriever

    info_path = folder / "ragstat-dense.json"
    if not info_path.is_file():
        raise InputError(f"{folder} holds no saved dense index ({info_path.name} is missing)")
    info = json.loads(info_path.read_text(encoding="utf-8"))
    retriever = DenseRetriever(model_dir=info["model_dir"], **options)
    if retriever.model_id != info["model_id"]:
        raise InputError(
            f"{folder} was embedded with {info['model_id']!r}, not {retriever.model_id!r}"
        )
    retriever.embeddings = np.load(folder / "embeddings.npy", mmap_mode="r" if mmap else None)
    return retriever


def save_retriever(retriever: Retriever, folder: str | Path) -> Path:
    """Save a fitted bm25, tfidf or dense retriever as ``folder`` (replaced if present)."""
    name = getattr(retriever, "name", None)
    if name not in SAVABLE:
        raise InputError(f"cannot save a {name!r} retriever; savable: {', '.join(SAVABLE)}")
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent))
    try:
        if name == "dense":
            _save_dense(retriever, tmp)
        else:
            retriever.save(tmp)  # type: ignore[attr-defined]
        old = None
        if folder.exists():
            old = folder.with_name(f".{folder.name}.{os.getpid()}.old")
            os.replace(folder, old)
        os.replace(tmp, folder)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return folder


def load_retriever(
    name: str,
    folder: str | Path,
    analyzer: Analyzer | None = None,
    *,
    mmap: bool = True,
    **options: object,
) -> Retriever:
    """A fitted retriever from :func:`save_retriever`'s folder; ``options`` go to its class
    (``block_elements``, ``n_jobs``; dense also ``batch_size``, ``cache_dir`` …)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"no saved {name} index at {folder}")
    if name == "dense":
        return _load_dense(folder, mmap, options)
    if name not in SAVABLE:
        raise InputError(f"cannot load a {name!r} retriever; savable: {', '.join(SAVABLE)}")
    if analyzer is None:
        raise InputError(f"loading the {name} index needs the analyzer it was built with")
    cls = BM25Retriever if name == "bm25" else TfidfRetriever
    return cls.load(folder, analyzer, mmap=mmap, **options)  # type: ignore[arg-type]
