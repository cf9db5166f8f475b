"""Per-item scores → clustered intervals: what the item-level metric verbs share
(``generation``, ``ontology``, ``ingestion``, ``latency``).

An item is one record (an answer, a labelled item, a document, a trace) with an ``id``;
each score is one value per item (NaN: not scored, counted). The cluster of an item is
the field named by ``cluster_by`` (e.g. its source document); without one the items are
treated as independent, which the result says plainly. Each score gets its mean and the
clustered intervals, the recommended one chosen among the bounded methods so a score in
[0, 1] never shows an impossible interval.

Records come from a JSONL file (a path), a list of mappings, a pandas DataFrame or a
pyarrow Table. A frame cannot tell a missing field from a null one: its missing (NaN or
None) cells are left out of the record, as if the field were absent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ragstat.api.evaluation import json_ready
from ragstat.errors import InputError
from ragstat.inference import analyze
from ragstat.inference.results import IntervalReport
from ragstat.records import aggregate_arrays
from ragstat.tidy import Tidy

__all__ = [
    "METHODS",
    "ItemScore",
    "ItemScores",
    "Records",
    "Scores",
    "check_reps",
    "clusters_for",
    "read_records",
    "require_ids",
    "score_intervals",
]

#: The clustered methods, the bounded ones (a score in [0, 1] never gets an impossible
#: interval: the recommended one is chosen among these) and the naive contrast.
METHODS = (
    "cr2_bm", "cr1", "t_rates", "doc_bootstrap_t", "doc_bootstrap_percentile",
    "logit", "korn_graubard", "logit_cr2_bm", "wald_iid",
)  # fmt: skip
#: Records: a JSONL path, a list of mappings, a DataFrame or a pyarrow Table.
Records = Any
#: Score name → (item ids, one value per item; NaN = not scored).
Scores = dict[str, tuple[list[str], np.ndarray]]


@dataclass(frozen=True)
class ItemScore:
    """One score over the items: its mean over the scored ones and their clustered
    intervals (``report`` None when fewer than two clusters have a value)."""

    name: str
    mean: float | None
    n: int
    not_scored: int
    clusters: int | None = None
    report: IntervalReport | None = None
    #: The question the mean answers ("a random item", "a random predicted mention"…).
    question: str = "a random item"
    #: The range the values lie in: (0, 1) when every scored value does, else None.
    bounds: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        micro = None if self.report is None else self.report.to_dict()["estimands"]["micro"]
        out: dict[str, Any] = {
            "mean": self.mean,
            "n": self.n,
            "not_scored": self.not_scored,
            "intervals": [] if micro is None else micro["intervals"],
        }
        if self.clusters is not None:
            out["clusters"] = self.clusters
        if micro is not None:
            out["recommended"] = micro["recommended"]
        return out


@dataclass(frozen=True, repr=False)
class ItemScores(Tidy):
    """What an item-level metric verb computes: per score the mean with its intervals, the
    clustering rule and notes (``percentiles``: latency's per-stage table).

    ``to_dict()`` is the object the verb's ``--json`` prints; ``to_frame()`` one row per
    score × estimand × method; the ``repr`` the recommended interval of every score.
    """

    verb: str
    source: str
    scores: dict[str, ItemScore]
    clustering: str
    notes: tuple[str, ...] = ()
    level: float = 0.95
    seed: int | None = None
    percentiles: tuple[dict[str, Any], ...] | None = None

    headline_columns = ("score", "estimand", "method", "estimate", "lower", "upper")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "scores": {name: s.to_dict() for name, s in self.scores.items()},
            "clustering": self.clustering,
            "seed": self.seed,
        }
        if self.percentiles is not None:
            out["percentiles"] = [dict(r) for r in self.percentiles]
        out["notes"] = list(self.notes)
        return json_ready(out)

    def rows(self) -> list[dict[str, Any]]:
        return [r for s in self.scores.values() if s.report is not None for r in s.report.rows()]

    def headline_rows(self) -> list[dict[str, Any]]:
        """The headline micro interval of every score (the mean alone when there is none:
        fewer than four clusters, or no interval within the score's range)."""
        from ragstat.api.item_verdicts import score_headline

        out = []
        for s in self.scores.values():
            h = score_headline(s)
            shown = []
            if s.report is not None and h is not None and h.available:
                shown = [
                    r
                    for r in s.report.rows()
                    if r["estimand"] == "micro" and r["method"] == h.method
                ]
            out += shown or [{"score": s.name, "estimand": "micro", "estimate": s.mean}]
        return out

    @property
    def noun(self) -> str:
        """What the clusters are: "documents", "clusters" or "items" (independent)."""
        from ragstat.api.item_verdicts import cluster_noun

        return cluster_noun(self.clustering)

    def sentences(self) -> list[str]:
        """One plain sentence per overall score (not per type, class or slice, ``name:part``,
        which the table shows): its mean and headline interval, or why there is none."""
        from ragstat.api.item_verdicts import score_sentence

        return [score_sentence(s, self.noun) for name, s in self.scores.items() if ":" not in name]

    def flags(self) -> list[str]:
        """Every flag the scores' intervals carry in JSON, in words (one line per score)."""
        from ragstat.api.item_verdicts import flag_lines

        return flag_lines(self.scores.values())

    @property
    def heading(self) -> str:
        """What the scores are: "generation metrics", "latency per trace and stage (ms)"…"""
        if self.verb == "latency":
            return "latency per trace and stage (ms)"
        return f"{self.verb} metrics"

    def title(self) -> str:
        return f"{self.heading}: {self.source}, {self.level:.0%} intervals ({self.clustering})"


def check_reps(reps: object) -> int:
    """``reps`` when a whole number in [1, MAX_REPS] (10⁶): the cap on bootstrap replicates
    of every item verb, checked before any work; else a one-line `InputError` naming it."""
    from ragstat.inference.analyze import MAX_REPS

    if (
        isinstance(reps, bool)
        or not isinstance(reps, (int, np.integer))
        or not 1 <= reps <= MAX_REPS
    ):
        raise InputError(
            f"--bootstrap-reps (bootstrap_reps) must be a whole number from 1 to {MAX_REPS:,} "
            f"(the cap on bootstrap replicates), got {reps!r}"
        )
    return int(reps)


def _plain_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """A frame row as a record: missing cells (None, NaN) left out."""
    return {
        str(k): v
        for k, v in row.items()
        if v is not None and not (isinstance(v, float) and math.isnan(v))
    }


def read_records(data: Records, what: str = "JSONL file") -> tuple[list[dict[str, Any]], str]:
    """The records of ``data`` and how to name it in messages (its path, or ``<DataFrame>``)."""
    if isinstance(data, (str, Path)):
        from ragstat.records.textio import jsonl_objects

        rows = [row for _, row in jsonl_objects(data, what)]
        label = str(data)
    elif hasattr(data, "to_dict") and hasattr(data, "columns"):  # a pandas DataFrame
        rows = [_plain_record(r) for r in data.to_dict(orient="records")]
        label = f"<{type(data).__name__}>"
    elif hasattr(data, "to_pylist") and hasattr(data, "num_rows"):  # a pyarrow Table
        rows = [_plain_record(r) for r in data.to_pylist()]
        label = f"<{type(data).__name__}>"
    elif isinstance(data, Sequence) and all(isinstance(r, Mapping) for r in data):
        rows, label = [dict(r) for r in data], "<records>"
    else:
        raise InputError(
            f"{what}: expected a path, a list of mappings, a DataFrame or a pyarrow Table; "
            f"got {type(data).__name__}"
        )
    if not rows:
        raise InputError(f"{label}: no records")
    return rows, label


def require_ids(rows: list[dict[str, Any]], label: str) -> list[str]:
    """Every record's ``id`` as text, each one unique (a duplicate would silently replace)."""
    missing = [i for i, r in enumerate(rows, 1) if "id" not in r]
    if missing:
        raise InputError(f"{label}: record {missing[0]} has no 'id'")
    ids = [str(r["id"]) for r in rows]
    seen: set[str] = set()
    for i, item in enumerate(ids, 1):
        if item in seen:
            raise InputError(f"{label}: duplicate id {item!r} (record {i})")
        seen.add(item)
    return ids


def clusters_for(
    rows: list[dict[str, Any]], ids: list[str], cluster_by: str | None
) -> tuple[list[str], str]:
    """The cluster of each item: a field of its record, or the item itself (independent)."""
    if cluster_by is None:
        return list(ids), "no --cluster-by: items are treated as independent"
    by_id = {str(r.get("id", i)): r for i, r in enumerate(rows)}
    out = []
    for item in ids:
        value = by_id.get(item, {}).get(cluster_by)
        if value is None:
            raise InputError(f"item {item!r} has no {cluster_by!r} field to cluster by")
        out.append(str(value))
    return out, f"clustered by {cluster_by!r}"


def _one(
    name: str, ids: list[str], values: np.ndarray, clusters: list[str],
    level: float, seed: int, reps: int, question: str,
) -> ItemScore:  # fmt: skip
    values = np.asarray(values, dtype=float)
    ok = np.isfinite(values)
    mean = float(values[ok].mean()) if ok.any() else None
    n, missing = int(ok.sum()), int((~ok).sum())
    if not ok.any():
        return ItemScore(name, mean, n, missing, question=question)
    unit = bool(((values[ok] >= 0) & (values[ok] <= 1)).all())
    base = ItemScore(name, mean, n, missing, question=question, bounds=(0.0, 1.0) if unit else None)
    stats = aggregate_arrays(np.asarray(clusters, dtype=object)[ok], values[ok], score=name)
    if stats.K < 2:
        return replace(base, clusters=stats.K)
    rep = analyze(stats, level=level, methods=METHODS, seed=seed, bootstrap_reps=reps)
    return replace(base, clusters=stats.K, report=rep)


def score_intervals(
    scores: Scores,
    rows: list[dict[str, Any]],
    cluster_by: str | None,
    *,
    level: float = 0.95,
    seed: int = 0,
    reps: int = 1999,
    questions: Mapping[str, str] | None = None,
) -> tuple[dict[str, ItemScore], str]:
    """Each score's mean and clustered intervals, and the clustering note; ``questions``:
    score → what its mean answers (default "a random item")."""
    check_reps(reps)
    out, note = {}, ""
    for name, (ids, values) in scores.items():
        clusters, note = clusters_for(rows, ids, cluster_by)
        question = (questions or {}).get(name, "a random item")
        out[name] = _one(name, ids, values, clusters, level, seed, reps, question)
    return out, note
