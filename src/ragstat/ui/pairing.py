"""The paired comparison of two per-query runs, for the compare page.

Two runs pair when each recorded the table it read (an absolute ``file`` in its config and
the file's sha256 among its inputs), the table is still there unchanged, both scored the
same column clustered the same way, and the tables share query ids. The only files read
are those two recorded paths; nothing is written or cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragstat.errors import RagstatError
from ragstat.registry import Manifest
from ragstat.registry.manifest import file_sha256

__all__ = ["Paired", "paired_comparison"]


@dataclass(frozen=True)
class Paired:
    """The verdict sentences and counts of a paired comparison, or why there is none."""

    sentences: tuple[str, ...] = ()
    queries: int = 0
    only_a: int = 0
    only_b: int = 0
    documents: int = 0
    documents_lost: int = 0
    problem: str | None = None  # None: the runs were paired


@dataclass(frozen=True)
class _Table:
    path: Path
    score: str | None
    cluster: str


def _table(m: Manifest, side: str) -> _Table | str:
    """The per-query table run ``m`` read, or why it cannot be paired (one sentence)."""
    c = m.config
    file, recorded = c.get("file"), m.inputs.get("file")
    run = f"Run {side} ({m.command})"
    if not isinstance(file, str) or not isinstance(recorded, str) or "score" not in c:
        return f"{run} is not a per-query analysis that recorded its table, so it has no pairs."
    if c.get("system") is not None:
        return f"{run} read only system {c['system']} of its table, so it is not paired whole."
    path = Path(file)
    if not path.is_absolute():
        return f"{run} recorded its table as the relative path {file}, which the view cannot place."
    if not path.exists():
        return f"The table run {side} read, {file}, is not there any more."
    try:
        changed = file_sha256(path) != recorded
    except OSError:
        return f"The table run {side} read, {file}, cannot be read."
    if changed:
        return f"The table run {side} read, {file}, has changed since the run (its sha256 differs)."
    score = c["score"] if isinstance(c["score"], str) else None
    cluster = c.get("cluster") if isinstance(c.get("cluster"), str) else "doc_id"
    return _Table(path, score, str(cluster))


def _positive_int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None
    return value


def _options(a: Manifest) -> tuple[int, int, float]:
    """Run A's seed (else 0), bootstrap replicates and level (else the defaults)."""
    from ragstat.inference.analyze import DEFAULT_REPS

    seed = a.seed if a.seed is not None else 0
    reps = _positive_int(a.config.get("bootstrap_reps")) or DEFAULT_REPS
    level = a.config.get("level")
    if isinstance(level, float) and 0.0 < level < 1.0:
        return seed, reps, level
    return seed, reps, 0.95


def paired_comparison(a: Manifest, b: Manifest) -> Paired:
    """Runs ``a`` and ``b`` compared query by query on their recorded tables (A − B)."""
    ta, tb = _table(a, "A"), _table(b, "B")
    if isinstance(ta, str):
        return Paired(problem=ta)
    if isinstance(tb, str):
        return Paired(problem=tb)
    if ta.score != tb.score:
        return Paired(
            problem=f"Run A scored {ta.score or 'its only score column'} and run B "
            f"{tb.score or 'its only score column'}: different measures are not paired."
        )
    if ta.cluster != tb.cluster:
        return Paired(
            problem=f"Run A clustered by {ta.cluster} and run B by {tb.cluster}, "
            "so their documents do not pair."
        )
    from ragstat.api.verbs.compare import compare

    seed, reps, level = _options(a)
    try:
        result = compare(
            ta.path,
            tb.path,
            cluster=ta.cluster,
            score=ta.score,
            on_missing="drop",
            seed=seed,
            bootstrap_reps=reps,
            level=level,
        )
        data = result.to_dict()
    except (RagstatError, OSError) as exc:
        return Paired(problem=f"The runs' tables cannot be paired: {exc}")
    pairing = getattr(result, "pairing", None)
    sentences = tuple(str(v["sentence"]) for v in data.get("verdicts", []) if isinstance(v, dict))
    return Paired(
        sentences=sentences,
        queries=int(getattr(pairing, "matched", 0)),
        only_a=int(getattr(pairing, "only_a", 0)),
        only_b=int(getattr(pairing, "only_b", 0)),
        documents=int(data.get("K", 0) or 0),
        documents_lost=int(getattr(pairing, "documents_lost", 0)),
    )
