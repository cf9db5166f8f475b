"""How a recorded run is named on screen: its start time and a short data fingerprint
(shared by ``ragstat runs`` and ``ragstat ui``)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragstat.registry.manifest import Manifest

__all__ = ["data_fingerprint", "started_utc"]


def started_utc(started_at: str) -> str:
    """``started_at`` as ``YYYY-MM-DD HH:MM:SS`` UTC (as given when it does not parse)."""
    try:
        t = datetime.fromisoformat(started_at)
    except ValueError:
        return started_at
    if t.tzinfo is not None:
        t = t.astimezone(timezone.utc)
    return f"{t:%Y-%m-%d %H:%M:%S}"


def data_fingerprint(m: Manifest) -> str:
    """12 hex digits naming the data: the corpus fingerprint, else the input hash(es)."""
    if m.corpus_fingerprint:
        return m.corpus_fingerprint[:12]
    hashes = sorted(m.inputs.values())
    if not hashes:
        return "—"
    if len(hashes) == 1:
        return hashes[0][:12]
    return hashlib.sha256("\n".join(hashes).encode()).hexdigest()[:12]
