"""The saved index of a study: one folder every worker opens instead of receiving it.

Layout of ``index_dir`` (default ``<out>/index/``; ``--index-dir`` for a path all
workers can read)::

    manifest.json    what the index is (below) and which retrievers it holds
    chunk_doc.npy    document code of every indexed chunk (int64, memory-mapped)
    bm25/ tfidf/ dense/   one saved retriever each (:mod:`ragstat.retrieval.store`)

The manifest's identity — corpus fingerprint, chunk size, whether single-chunk
documents are indexed, analyzer (stopwords, stemmer), BM25 k1 and b, the number
of indexed chunks and a SHA-256 of their ids in index order — hashes to the
index ``key``. A study reuses a folder whose key matches (fitting only the
retrievers it lacks); another key is an error unless the caller asks to replace
it. Workers receive the key with each task and refuse an index whose manifest
differs, so a worker can never search the wrong index. The manifest is rewritten
(atomically) after each retriever folder is complete and lists only complete
ones, so an interrupted build resumes where it stopped. Two studies must not
build into the same folder at the same time; reading it concurrently is fine.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragstat.atomic import atomic_write, atomic_write_text
from ragstat.errors import InputError
from ragstat.retrieval.base import Retriever
from ragstat.retrieval.store import load_retriever, save_retriever
from ragstat.selfretrieval.bm25build import build_bm25
from ragstat.selfretrieval.config import StudyConfig
from ragstat.selfretrieval.search import analyzer_for, fit_retriever

__all__ = [
    "MANIFEST",
    "OpenIndex",
    "build_index",
    "ensure_index",
    "forget_index",
    "open_index",
    "read_manifest",
]

MANIFEST = "manifest.json"
FORMAT = "ragstat-study-index"
VERSION = 1


def _identity(config: StudyConfig, fingerprint: str, chunk_ids: np.ndarray) -> dict:
    digest = hashlib.sha256("\n".join(map(str, chunk_ids)).encode("utf-8")).hexdigest()
    return {
        "format": FORMAT,
        "version": VERSION,
        "corpus_fingerprint": fingerprint,
        "chunk_words": config.chunk_words,
        "index_single_chunk_docs": config.index_single_chunk_docs,
        "analyzer": {"stopwords": config.stopwords, "stemmer": config.stemmer},
        "bm25": {"k1": config.bm25_k1, "b": config.bm25_b},
        "n_chunks": len(chunk_ids),
        "chunks_sha256": digest,
    }


def _key(identity: dict) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:24]


def read_manifest(index_dir: str | Path) -> dict | None:
    """The manifest of ``index_dir``, or None when the folder holds no index."""
    path = Path(index_dir) / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: unreadable index manifest ({exc}); delete the folder") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError(f"{path} is not a ragstat study index manifest")
    return manifest


def _differences(old: dict, new: dict) -> str:
    keys = [k for k in new if old.get(k) != new[k]]
    return "; ".join(f"{k}: index {old.get(k)!r}, this study {new[k]!r}" for k in keys[:4])


def _write_manifest(index_dir: Path, identity: dict, key: str, retrievers: list[str]) -> None:
    manifest = {**identity, "key": key, "retrievers": retrievers}
    atomic_write_text(index_dir / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False))


def _clear(index_dir: Path, manifest: dict) -> None:
    """Remove an index's own files (the manifest first), nothing else in the folder."""
    (index_dir / MANIFEST).unlink(missing_ok=True)
    (index_dir / "chunk_doc.npy").unlink(missing_ok=True)
    for name in manifest.get("retrievers", []):
        shutil.rmtree(index_dir / name, ignore_errors=True)


def _check_folder(index_dir: Path, manifest: dict | None, key: str, identity: dict, replace: bool):
    if manifest is not None and manifest.get("key") != key:
        if not replace:
            raise InputError(
                f"--index-dir {index_dir} holds an index built for another corpus or "
                f"configuration ({_differences(manifest, identity)}); pass another "
                "--index-dir or delete that folder"
            )
        _clear(index_dir, manifest)
        return None
    if manifest is None and index_dir.is_dir():
        other = [p.name for p in index_dir.iterdir() if p.name != "parts"]
        if other:
            raise InputError(
                f"--index-dir {index_dir} is not empty and holds no ragstat index "
                f"({', '.join(sorted(other)[:3])} …); choose a new or empty folder"
            )
    return manifest


def ensure_index(
    index_dir: str | Path,
    config: StudyConfig,
    fingerprint: str,
    texts: Sequence[str],
    chunk_ids: np.ndarray,
    chunk_doc: np.ndarray,
    names: Sequence[str],
    *,
    replace: bool = False,
    say: Callable[[str], None] = lambda _msg: None,
    show_progress: bool = False,
) -> str:
    """Build (or reuse) the index of ``texts`` in ``index_dir`` with ``names``; its key."""
    index_dir = Path(index_dir)
    identity = _identity(config, fingerprint, chunk_ids)
    key = _key(identity)
    manifest = _check_folder(index_dir, read_manifest(index_dir), key, identity, replace)
    have = list(manifest["retrievers"]) if manifest is not None else []
    if manifest is None:
        index_dir.mkdir(parents=True, exist_ok=True)
        codes = np.asarray(chunk_doc, dtype=np.int64)
        atomic_write(index_dir / "chunk_doc.npy", lambda tmp: _save_npy(tmp, codes))
        _write_manifest(index_dir, identity, key, have)  # an interrupted build resumes
    missing = [n for n in names if n not in have]
    if not missing:
        say(f"index {index_dir} reused ({', '.join(have)})")
    for name in missing:
        say(f"{name}: indexing {len(texts)} chunks into {index_dir}")
        build_index(config, name, texts, index_dir / name, show_progress)
        have.append(name)
        _write_manifest(index_dir, identity, key, have)
    return key


def build_index(
    config: StudyConfig, name: str, texts: Sequence[str], folder: Path, show_progress=False
) -> None:
    """Save retriever ``name`` of ``texts`` as ``folder``: BM25 built in blocks straight to
    memory-mapped files (:mod:`ragstat.selfretrieval.bm25build`), others fitted and saved."""
    if name == "bm25":
        analyzer = analyzer_for(config)
        if build_bm25(texts, folder, analyzer, config.bm25_k1, config.bm25_b):
            return
    retriever = fit_retriever(config, name, texts, show_progress)
    save_retriever(retriever, folder)


def _save_npy(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as handle:
        np.save(handle, array, allow_pickle=False)


@dataclass(frozen=True, eq=False)
class OpenIndex:
    """A saved index opened by a worker: its retrievers and chunk document codes (mmap)."""

    path: str
    key: str
    retrievers: dict[str, Retriever]
    chunk_doc: np.ndarray


_LOCK = threading.Lock()
_OPEN: dict[tuple[str, str], OpenIndex] = {}


def open_index(
    index_dir: str | Path, key: str, names: Sequence[str], config: StudyConfig
) -> OpenIndex:
    """The index at ``index_dir`` with retrievers ``names``, checked against ``key``.

    Cached per process (one index at a time, keyed by path and key), so a worker
    opens it once for all the batches it runs.
    """
    path = str(Path(index_dir).resolve())
    with _LOCK:
        hit = _OPEN.get((path, key))
        if hit is not None and all(n in hit.retrievers for n in names):
            return hit
        manifest = read_manifest(path)
        if manifest is None:
            raise InputError(
                f"no study index at {path} (no {MANIFEST}): the index folder must be on a "
                "path every worker can read (--index-dir)"
            )
        if manifest.get("key") != key:
            raise InputError(
                f"the index at {path} is not the one this study built (key "
                f"{manifest.get('key')}, expected {key}); it was replaced while the study "
                "ran — rerun the study"
            )
        lacking = [n for n in names if n not in manifest["retrievers"]]
        if lacking:
            raise InputError(f"the index at {path} has no {', '.join(lacking)} retriever")
        analyzer = analyzer_for(config)
        opened = OpenIndex(
            path=path,
            key=key,
            retrievers={n: load_retriever(n, Path(path) / n, analyzer) for n in names},
            chunk_doc=np.load(Path(path) / "chunk_doc.npy", mmap_mode="r"),
        )
        _OPEN.clear()
        _OPEN[(path, key)] = opened
        return opened


def forget_index(index_dir: str | Path) -> None:
    """Drop this process's cached handle on ``index_dir`` (releases its memory maps)."""
    path = str(Path(index_dir).resolve())
    with _LOCK:
        for cached in [k for k in _OPEN if k[0] == path]:
            del _OPEN[cached]
