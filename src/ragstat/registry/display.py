"""How a recorded run is named on screen: its start time, a short data fingerprint and what
it came to (shared by ``ragstat runs`` and ``ragstat ui``)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragstat.registry.manifest import Manifest

__all__ = ["OUTCOME_SQL", "data_fingerprint", "outcome_of", "outcome_slug", "started_utc"]

#: The outcome of a row in SQL, as :func:`outcome_of` gives it (``{outcome}`` is the column,
#: or NULL in a registry that predates it).
OUTCOME_SQL = "COALESCE({outcome}, CASE status WHEN 'ok' THEN 'ran' ELSE status END)"


def outcome_of(m: Manifest) -> str:
    """What the run came to: its recorded outcome (passed, failed gate, ran, failed,
    interrupted); for a run recorded before outcomes were, "ran" when it finished (its
    status "ok": a gate's pass or fail was not recorded then), else its status."""
    if m.outcome:
        return m.outcome
    return "ran" if m.status == "ok" else m.status


def outcome_slug(outcome: str) -> str:
    """The outcome as a CSS class suffix: "failed gate" → "failed-gate"."""
    return "-".join(outcome.split()) or "unknown"


def started_utc(started_at: str) -> str:
    """``started_at`` as ``YYYY-MM-DD HH:MM:SS`` UTC (as given when it does not parse)."""
    try:
        t = datetime.fromisoformat(started_at)
    except ValueError:
        return started_at
    if t.tzinfo is not None:
        t = t.astimezone(UTC)
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
