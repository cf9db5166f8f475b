"""Sampled queries (``--sample-queries N|FRACTION``): the study as a two-stage design.

When scoring every chunk is not worth it, the study samples its queries in two
stages:

1. **documents** — every eligible document (two or more chunks) is kept: a
   census of the corpus's documents, so K (the sample size of every interval)
   and the macro estimand are those of the full study;
2. **chunks within each document** — a simple random sample without
   replacement of ``m_d = min(n_d, max(1, ⌊f·n_d + ½⌋))`` of its ``n_d`` chunks
   (round half up; at least one query per document), with ``f = FRACTION`` for a
   float in (0, 1]; for an integer N ≥ 1, f is the largest fraction whose total
   Σ m_d does not exceed N (bisection on f; every chunk when N ≥ Σ n_d, and one
   query per document when N is below the number of eligible documents).

The sample is one ``numpy.random.default_rng(SeedSequence(sample_seed))``: one
uniform number per eligible chunk in corpus order, and in each document the
``m_d`` chunks with the smallest numbers (an SRS without replacement). It is
drawn once, before any batching, so it does not depend on the engine or the
number of workers.

Because the rounding (and the floor of one query) makes m_d / n_d unequal across
documents, each query carries the weight ``w = n_d / m_d`` (records column
``weight``; ``documents.parquet`` has ``queries_eligible`` = n_d and
``queries_sampled`` = m_d). Estimators:

- micro: ``R̂ = Σ_d n_d ȳ_d / Σ_d n_d`` (ȳ_d the document's sample mean) — the
  per-document totals are expanded, ŝ_d = n_d ȳ_d, and every clustered method
  runs on (n_d, ŝ_d): the ultimate-cluster variance of a ratio estimator (the
  document is the cluster, the within-document sampling is carried by ŝ_d);
- macro: ``mean_d ȳ_d`` — unweighted, unbiased since every document has m_d ≥ 1.

Unsampled chunks stay in the index (they are candidates); they only issue no query.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragstat.errors import InputError

__all__ = ["QuerySample", "check_sample_spec", "parse_sample_queries", "sample"]

DESIGN = "two-stage: documents, then chunks within each document"


def check_sample_spec(value: object) -> int | float | None:
    """``None``, an int N ≥ 1 (queries) or a float f in (0, 1] (fraction); else InputError."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise InputError(
            f"sample_queries must be a count N ≥ 1 or a fraction in (0, 1], got {value}"
        )
    if isinstance(value, (int, np.integer)):
        if value < 1:
            raise InputError(f"--sample-queries N must be at least 1, got {value}")
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not (np.isfinite(value) and 0 < value <= 1):
            raise InputError(
                f"--sample-queries FRACTION must be in (0, 1], got {value}; "
                "write a whole number (e.g. 20000) for a count of queries"
            )
        return float(value)
    raise InputError(f"sample_queries must be a count N ≥ 1 or a fraction in (0, 1], got {value!r}")


def parse_sample_queries(text: str | None) -> int | float | None:
    """The CLI's ``--sample-queries``: digits → a count (``20000``), else a fraction (``0.1``)."""
    if text is None or str(text).strip().lower() in ("", "none", "all"):
        return None
    raw = str(text).strip().replace("_", "")
    try:
        value: int | float = int(raw) if raw.isdigit() else float(raw)
    except ValueError:
        raise InputError(
            f"--sample-queries must be a count (20000) or a fraction (0.1), got {text!r}"
        ) from None
    return check_sample_spec(value)


@dataclass(frozen=True, eq=False)
class QuerySample:
    """Which eligible queries are kept, and the design's per-document numbers.

    ``keep``: one flag per eligible query (in query order); ``n`` and ``m``: per
    document code, eligible chunks n_d and sampled queries m_d (0 for documents
    that issue no query); ``fraction``: f.
    """

    keep: np.ndarray
    n: np.ndarray
    m: np.ndarray
    fraction: float
    spec: int | float
    seed: int

    def weights(self, query_doc: np.ndarray) -> np.ndarray:
        """n_d / m_d for each kept query, given the kept queries' document codes."""
        return self.n[query_doc] / self.m[query_doc]

    def to_dict(self) -> dict:
        count = isinstance(self.spec, int)
        return {
            "design": DESIGN,
            "stage1": "every eligible document (two or more chunks): a census of the documents",
            "stage2": (
                "simple random sample without replacement of m_d = min(n_d, max(1, "
                "floor(f * n_d + 1/2))) of the document's n_d chunks"
            ),
            "n": self.spec if count else None,
            "fraction": self.fraction,
            "seed": self.seed,
            "rng": "numpy default_rng(SeedSequence(seed)): one uniform per eligible chunk in "
            "corpus order; the m_d smallest in each document are sampled",
            "queries_eligible": int(self.n.sum()),
            "queries_sampled": int(self.m.sum()),
            "documents": int(np.count_nonzero(self.m)),
            "per_document": "documents.parquet: queries_eligible (n_d), queries_sampled (m_d)",
            "weights": "records.weight = n_d / m_d; micro = sum(w y) / sum(w)",
            "variance": (
                "ultimate cluster: documents are the clusters; per-document totals expanded "
                "to n_d * mean (micro); macro = mean of the document means"
            ),
        }


def _per_document(n: np.ndarray, f: float) -> np.ndarray:
    """m_d = min(n_d, max(1, ⌊f·n_d + ½⌋)) for documents with n_d > 0, else 0."""
    return np.where(n > 0, np.minimum(n, np.maximum(1, np.floor(f * n + 0.5))), 0).astype(np.int64)


def _fraction_for(n: np.ndarray, target: int) -> float:
    """The largest f whose Σ m_d ≤ ``target`` (Σ m_d is non-decreasing in f)."""
    if target >= n.sum():
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if _per_document(n, mid).sum() <= target:
            lo = mid
        else:
            hi = mid
    return lo


def sample(query_doc: np.ndarray, spec: int | float, seed: int) -> QuerySample:
    """The two-stage sample of the eligible queries whose document codes are ``query_doc``."""
    spec = check_sample_spec(spec)  # type: ignore[assignment]
    codes = np.asarray(query_doc, dtype=np.int64)
    total = codes.size
    n = np.bincount(codes, minlength=int(codes.max()) + 1 if total else 0)
    f = _fraction_for(n, spec) if isinstance(spec, int) else float(spec)
    m = _per_document(n, f)
    u = np.random.default_rng(np.random.SeedSequence(seed)).random(total)
    order = np.lexsort((u, codes))  # by document, then by the uniform number
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    rank = np.arange(total) - start[codes[order]]
    keep = np.zeros(total, dtype=bool)
    keep[order[rank < m[codes[order]]]] = True
    return QuerySample(keep=keep, n=n, m=m, fraction=f, spec=spec, seed=int(seed))
