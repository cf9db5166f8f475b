"""Metric names as users type them: ``ndcg@10``, ``P@5``, ``mrr``, ``map@100`` → `Metric`.

One parser for every IR verb (`evaluate`, `rerank_delta`): aliases are
case-insensitive (``precision`` = ``p``, ``rr`` = ``mrr``, ``ap`` = ``map``,
``success`` = ``hit``); ``@K`` is a positive integer cutoff, required for
recall, precision and hit, refused by rprec. `Metric.compute` dispatches to the
kernels of :mod:`ragstat.metrics.ir.kernels`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ragstat.errors import InputError
from ragstat.metrics.ir import kernels as K

__all__ = ["METRIC_NAMES", "Metric", "parse_metric", "parse_metrics"]

METRIC_NAMES = (
    "ndcg@K, ndcg (full depth), recall@K, p@K (precision@K), mrr (full depth), "
    "mrr@K (rr@K), map (ap), map@K (ap@K), hit@K (success@K), rprec"
)
_ALIASES = {
    "ndcg": "ndcg",
    "recall": "recall",
    "p": "p",
    "precision": "p",
    "mrr": "mrr",
    "rr": "mrr",
    "map": "map",
    "ap": "map",
    "hit": "hit",
    "success": "hit",
    "rprec": "rprec",
}
_NEEDS_K = {"recall", "p", "hit"}
_NAME = re.compile(r"^([a-z]+)(?:@(.*))?$")


@dataclass(frozen=True)
class Metric:
    """One metric: ``kind`` in ndcg, recall, p, mrr, map, hit, rprec; cutoff ``k`` (None = full depth)."""

    kind: str
    k: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in set(_ALIASES.values()):
            raise InputError(f"unknown metric kind {self.kind!r}; valid metrics: {METRIC_NAMES}")
        if self.k is not None and (not isinstance(self.k, int) or isinstance(self.k, bool)):
            raise InputError(f"metric cutoff must be an integer, got {self.k!r}")
        if self.k is not None and self.k <= 0:
            raise InputError(
                f"metric cutoff k must be positive, got {self.name}: use e.g. {self.kind}@10"
            )
        if self.kind in _NEEDS_K and self.k is None:
            raise InputError(f"{self.kind} needs a cutoff: write {self.kind}@10 (or another k > 0)")
        if self.kind == "rprec" and self.k is not None:
            raise InputError(
                "rprec takes no cutoff (its cutoff is R, the number of relevant documents)"
            )

    @property
    def name(self) -> str:
        """Canonical spelling: ``ndcg@10``, ``p@5``, ``mrr``, ``map@100``, ``rprec`` …"""
        return self.kind if self.k is None else f"{self.kind}@{self.k}"

    def __str__(self) -> str:
        return self.name

    def compute(self, hits: K.Hits, ideal: K.Ideal) -> np.ndarray:
        """Per-query values (NaN where the query has no relevant document)."""
        if self.kind == "ndcg":
            return K.ndcg(hits, ideal, self.k)
        if self.kind == "recall":
            return K.recall(hits, ideal, self.k)  # type: ignore[arg-type]
        if self.kind == "p":
            return K.precision(hits, ideal, self.k)  # type: ignore[arg-type]
        if self.kind == "mrr":
            return K.rr(hits, ideal, self.k)
        if self.kind == "map":
            return K.ap(hits, ideal, self.k)
        if self.kind == "hit":
            return K.hit(hits, ideal, self.k)  # type: ignore[arg-type]
        return K.rprec(hits, ideal)


def parse_metric(name: str | Metric) -> Metric:
    """``"nDCG@10"`` → ``Metric("ndcg", 10)``; case-insensitive; aliases in `METRIC_NAMES`."""
    if isinstance(name, Metric):
        return name
    if not isinstance(name, str):
        raise InputError(
            f"metric name must be a string, got {name!r}; valid metrics: {METRIC_NAMES}"
        )
    match = _NAME.match(name.strip().lower())
    kind = _ALIASES.get(match.group(1)) if match else None
    if kind is None:
        raise InputError(
            f"unknown metric {name!r}; valid metrics: {METRIC_NAMES} (K > 0, e.g. ndcg@10)"
        )
    text = match.group(2)  # type: ignore[union-attr]
    if text is None:
        return Metric(kind)
    try:
        k = int(text)
    except ValueError:
        raise InputError(
            f"metric {name!r}: cutoff {text!r} is not an integer (e.g. {kind}@10)"
        ) from None
    if k <= 0:
        raise InputError(f"metric {name!r}: cutoff k must be positive, got {k}")
    return Metric(kind, k)


def parse_metrics(metrics: str | Metric | Iterable[str | Metric]) -> tuple[Metric, ...]:
    """Comma-separated names or an iterable of names → distinct `Metric`s, in order."""
    if isinstance(metrics, str):
        metrics = [m for m in metrics.split(",") if m.strip()]
    elif isinstance(metrics, Metric):
        metrics = [metrics]
    parsed = tuple(dict.fromkeys(parse_metric(m) for m in metrics))
    if not parsed:
        raise InputError(f"no metric given; valid metrics: {METRIC_NAMES}")
    return parsed
