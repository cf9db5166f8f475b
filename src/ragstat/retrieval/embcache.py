"""On-disk cache of text embeddings: one ``.npy`` file per (model, texts) pair.

Key = sha256 over a format tag, the model identity and every text (each
length-prefixed, in order), so a different model, text, order or count gives a
different file. Files are written atomically (temporary file in the same folder,
then ``os.replace``), so a reader never sees a half-written array.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

__all__ = ["cache_key", "default_cache_dir", "load_cached", "save_cached"]

_FORMAT = b"ragstat-embeddings-v1"


def default_cache_dir() -> Path:
    """``$RAGSTAT_CACHE_DIR`` or ``$XDG_CACHE_HOME/ragstat/embeddings`` (``~/.cache`` by default)."""
    env = os.environ.get("RAGSTAT_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ragstat" / "embeddings"


def _update(h: hashlib._Hash, data: bytes) -> None:
    h.update(len(data).to_bytes(8, "little"))
    h.update(data)


def cache_key(model_id: str, texts: Sequence[str]) -> str:
    """sha256 hex digest of (format tag, model identity, texts in order)."""
    h = hashlib.sha256()
    _update(h, _FORMAT)
    _update(h, model_id.encode("utf-8"))
    h.update(len(texts).to_bytes(8, "little"))
    for text in texts:
        _update(h, text.encode("utf-8"))
    return h.hexdigest()


def load_cached(path: Path, n_rows: int) -> np.ndarray | None:
    """The cached float32 array when it exists and has ``n_rows`` rows; else None."""
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if arr.ndim != 2 or arr.shape[0] != n_rows or not np.isfinite(arr).all():
        return None
    return arr.astype(np.float32, copy=False)


def save_cached(path: Path, arr: np.ndarray) -> None:
    """Write ``arr`` to ``path`` atomically (temp file in the same folder + ``os.replace``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, arr, allow_pickle=False)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
