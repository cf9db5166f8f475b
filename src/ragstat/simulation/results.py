"""Result types of the coverage simulator.

:class:`CoverageReport` is one census's simulation; :class:`StudiesCoverage` is the
``--from-study`` form, one :class:`StudyCoverage` per study folder (e.g. one per chunk
size). Both are :class:`ragstat.tidy.Tidy`: ``to_frame()`` gives one row per K × estimand ×
method, the short ``repr`` the recommended method's coverage per K and estimand, and
``to_dict()`` the object ``ragstat simulate --json`` prints.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ragstat.tidy import Tidy

if TYPE_CHECKING:
    from ragstat.simulation.census import Census

__all__ = ["CensusSummary", "CoverageReport", "MethodCoverage", "StudiesCoverage", "StudyCoverage"]

#: What the short ``repr`` and the HTML table show: the recommended method per K and estimand.
_HEADLINE = ("k", "estimand", "method", "coverage", "coverage_se", "mean_width", "verdict")


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class CensusSummary:
    """The population the samples are drawn from, and its true values."""

    K: int
    N: int
    micro: float
    macro: float
    type_mean: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: _clean(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class MethodCoverage:
    """How one interval method did over R samples of k documents.

    ``coverage`` counts an unavailable interval as a miss; ``coverage_available``
    is the coverage among available intervals only.
    """

    k: int
    estimand: str
    method: str
    reps: int
    coverage: float
    coverage_se: float
    coverage_available: float | None
    mean_width: float | None
    median_width: float | None
    bias: float
    rmse: float
    unavailable: float

    def to_dict(self) -> dict[str, Any]:
        return {k: _clean(v) for k, v in asdict(self).items()}


@dataclass(frozen=True, repr=False)
class CoverageReport(Tidy):
    """Coverage, width, bias and RMSE of every interval method, per K, on one census.

    ``population`` is the census the samples were drawn from and ``score`` the score column
    it was built from (when known); neither is part of :meth:`to_dict` or of equality.
    """

    census: CensusSummary
    design: str
    level: float
    seed: int
    reps: int
    bootstrap_reps: int
    results: tuple[MethodCoverage, ...]
    recommendation: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    population: Census | None = field(default=None, compare=False)
    score: str | None = field(default=None, compare=False)

    headline_columns = _HEADLINE

    def to_dict(self) -> dict[str, Any]:
        """The object ``ragstat simulate --json`` prints for a census."""
        return {
            "census": self.census.to_dict(),
            "design": self.design,
            "level": self.level,
            "seed": self.seed,
            "reps": self.reps,
            "bootstrap_reps": self.bootstrap_reps,
            "results": [r.to_dict() for r in self.results],
            "recommendation": self.recommendation,
            "notes": list(self.notes),
        }

    def picks(self) -> dict[tuple[int, str], dict[str, Any]]:
        """The recommendation per (K, estimand): methods, verdict, basis, …"""
        by_key = self.recommendation.get("by_k_estimand", {})
        out = {}
        for r in self.results:
            choice = by_key.get(f"k={r.k} {r.estimand}")
            if choice is not None:
                out[(r.k, r.estimand)] = choice
        return out

    def rows(self) -> list[dict[str, Any]]:
        """One row per K × estimand × method: coverage, its Monte-Carlo SE, widths, bias,
        RMSE, the share unavailable, and whether the method is the recommended one."""
        picks = self.picks()
        out = []
        for r in self.results:
            choice = picks.get((r.k, r.estimand))
            chosen = choice is not None and r.method in choice.get("methods", ())
            verdict = choice.get("verdict") if chosen and choice is not None else None
            out.append({**r.to_dict(), "recommended": chosen, "verdict": verdict})
        return out

    def headline_rows(self) -> list[dict[str, Any]]:
        """The recommended method's row per K and estimand (every row if none was picked)."""
        rows = self.rows()
        return [r for r in rows if r["recommended"]] or rows

    def title(self) -> str:
        c = self.census
        return (
            f"Coverage simulation ({_settings(self)}): census of {c.K:,} documents, "
            f"{c.N:,} queries; recommended method per K and estimand"
        )


def _settings(report: CoverageReport) -> str:
    """The run's design, samples, level and seed, in words."""
    return (
        f"{report.design} design, {report.reps:,} samples per K, "
        f"nominal {report.level * 100:g} %, seed {report.seed}"
    )


@dataclass(frozen=True, repr=False)
class StudyCoverage(Tidy):
    """The simulation on one study folder's census (one retriever's per-document hits)."""

    folder: str
    retriever: str
    chunk_words: Any
    eligible_documents: int
    documents: Any
    expected_chunks_per_sample: dict[str, float]
    report: CoverageReport

    headline_columns = _HEADLINE

    def to_dict(self) -> dict[str, Any]:
        """The study's facts followed by its coverage report (one entry of ``studies``)."""
        return {
            "folder": self.folder,
            "retriever": self.retriever,
            "chunk_words": self.chunk_words,
            "eligible_documents": self.eligible_documents,
            "documents": self.documents,
            "expected_chunks_per_sample": dict(self.expected_chunks_per_sample),
            **self.report.to_dict(),
        }

    def _labelled(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        facts = {
            "folder": self.folder,
            "retriever": self.retriever,
            "chunk_words": self.chunk_words,
        }
        return [{**facts, **r} for r in rows]

    def rows(self) -> list[dict[str, Any]]:
        """The report's rows, each led by the study's folder, retriever and chunk size."""
        return self._labelled(self.report.rows())

    def headline_rows(self) -> list[dict[str, Any]]:
        return self._labelled(self.report.headline_rows())

    def title(self) -> str:
        return (
            f"{self.folder}: {self.retriever}, {self.chunk_words}-word chunks, "
            f"{self.eligible_documents:,} eligible documents — {self.report.title()}"
        )


@dataclass(frozen=True, repr=False)
class StudiesCoverage(Tidy):
    """The simulation on several study folders (e.g. the same corpus at several chunk sizes)."""

    studies: tuple[StudyCoverage, ...]

    headline_columns = ("chunk_words", *_HEADLINE)

    @property
    def score(self) -> str | None:
        """The score column every study's census was built from."""
        return self.studies[0].report.score if self.studies else None

    def to_dict(self) -> dict[str, Any]:
        """The object ``ragstat simulate --from-study … --json`` prints."""
        return {"studies": [s.to_dict() for s in self.studies]}

    def rows(self) -> list[dict[str, Any]]:
        return [r for s in self.studies for r in s.rows()]

    def headline_rows(self) -> list[dict[str, Any]]:
        return [r for s in self.studies for r in s.headline_rows()]

    def title(self) -> str:
        what = f" ({_settings(self.studies[0].report)})" if self.studies else ""
        return (
            f"Coverage simulation on {len(self.studies)} study folder(s){what}; "
            "recommended method per study, K and estimand"
        )
