"""What ``ragstat.evaluate`` returns: per run × metric the mean with its clustered
intervals, the query slices, and for two runs the paired comparison with its verdicts.

``EvaluationReport.to_dict()`` is the object ``ragstat evaluate --json`` prints;
``to_frame()`` has one row per run × metric × estimand × method (the paired differences
too, as run ``"A − B"``); the ``repr`` leads with one plain sentence per estimand (with
two runs the paired verdicts; otherwise each run × metric's headline interval, read by
:mod:`ragstat.inference.headline` like every other output), then the recommended micro
interval of every run × metric.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ragstat.errors import InputError
from ragstat.inference.headline import describe, headlines
from ragstat.inference.paired import ComparisonReport
from ragstat.inference.provenance import SourceInfo
from ragstat.inference.results import IntervalReport
from ragstat.inference.verdict import Verdict, cluster_noun
from ragstat.metrics import Clustering, QueryCounts
from ragstat.records.docstats import DocStats
from ragstat.tidy import Tidy

if TYPE_CHECKING:
    from ragstat.report.evaluation import EvaluationPart
    from ragstat.report.model import Report

__all__ = [
    "EvaluationReport",
    "MetricEvaluation",
    "PairedEvaluation",
    "PairedMetric",
    "PairedQueries",
    "RunEvaluation",
    "draw_seed",
    "json_ready",
]


def _default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    isoformat = getattr(value, "isoformat", None)  # pandas / datetime timestamps
    if callable(isoformat):
        return isoformat()
    raise TypeError(type(value).__name__)


def json_ready(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` exactly as its JSON reads back: numpy scalars as Python ones, keys as text."""
    loaded: dict[str, Any] = json.loads(json.dumps(obj, ensure_ascii=False, default=_default))
    return loaded


def draw_seed(seed: int | None) -> int:
    """``seed``, checked; a fresh one when None (a result keeps the seed it used)."""
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a whole number ≥ 0, got {seed!r}")
    return int(seed)


@dataclass(frozen=True, repr=False)
class MetricEvaluation(Tidy):
    """One metric of one run: the mean over the queries with a value and its intervals
    (``report`` None, with ``note`` saying why, when no interval could be computed)."""

    run: str
    metric: str
    mean: float | None
    queries: int
    report: IntervalReport | None = None
    note: str | None = None
    #: The per-cluster sums the intervals came from (what a report's diagnostics read).
    stats: DocStats | None = field(default=None, compare=False)

    @property
    def clusters(self) -> int | None:
        return None if self.report is None else self.report.K

    def to_dict(self) -> dict[str, Any]:
        if self.report is None:
            return {"mean": self.mean, "queries": self.queries, "intervals": [], "note": self.note}
        d = self.report.to_dict()
        micro = d["estimands"]["micro"]
        return {
            "mean": micro["estimate"],
            "queries": self.queries,
            "clusters": self.report.K,
            "recommended": micro["recommended"],
            "intervals": micro["intervals"],
            "macro": d["estimands"]["macro"],
            "warnings": d["warnings"],
            "bounds": d.get("bounds"),
        }

    def rows(self) -> list[dict[str, Any]]:
        if self.report is None:
            return []
        head = {"run": self.run, "metric": self.metric}
        return [head | {k: v for k, v in r.items() if k != "score"} for r in self.report.rows()]

    def headline_rows(self) -> list[dict[str, Any]]:
        """The recommended micro interval (the mean alone when there is none)."""
        shown = [r for r in self.rows() if r["estimand"] == "micro" and r["recommended"]]
        if shown:
            return shown
        return [{"run": self.run, "metric": self.metric, "estimand": "micro",
                 "method": None, "estimate": self.mean}]  # fmt: skip

    def title(self) -> str:
        return f"{self.run} {self.metric}: mean over {self.queries} queries"

    def sentences(self, noun: str = "clusters") -> list[str]:
        """One sentence per estimand: the headline interval (or why there is none); K
        counted as ``noun``."""
        if self.report is None:
            mean = "undefined" if self.mean is None else f"{self.mean:.4g}"
            return [f"{self.metric} of {self.run} is {mean}, but no interval is shown: {self.note}"]
        found = headlines(self.report).values()
        return [describe(h, self.metric, self.run, noun=noun) for h in found]

    headline_columns = ("run", "metric", "estimand", "method", "estimate", "lower", "upper")


@dataclass(frozen=True)
class RunEvaluation:
    """Every metric of one run and its query slices (``queries``: total, missing_run,
    no_relevant, unjudged_queries, scored)."""

    name: str
    metrics: dict[str, MetricEvaluation]
    queries: QueryCounts
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "metrics": {m: r.to_dict() for m, r in self.metrics.items()},
            "queries": self.queries.to_dict(),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class PairedQueries:
    """Qrels queries of two runs: how many each run misses (scored as empty rankings)."""

    total: int
    missing_in_a_only: int
    missing_in_b_only: int
    missing_in_both: int

    def to_dict(self) -> dict[str, int]:
        return {
            "total": self.total,
            "missing_in_a_only": self.missing_in_a_only,
            "missing_in_b_only": self.missing_in_b_only,
            "missing_in_both": self.missing_in_both,
        }


@dataclass(frozen=True)
class PairedMetric:
    """One metric's paired comparison A − B (clustered like the runs) and its verdicts."""

    metric: str
    comparison: ComparisonReport
    verdicts: tuple[Verdict, ...]
    #: The per-cluster sums of the differences y_A − y_B.
    stats: DocStats | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        out = self.comparison.to_dict()
        out["verdicts"] = [v.to_dict() for v in self.verdicts]
        return out


@dataclass(frozen=True)
class PairedEvaluation:
    """The paired comparison of two runs, metric by metric."""

    systems: tuple[str, str]
    queries: PairedQueries
    metrics: dict[str, PairedMetric]
    notes: tuple[str, ...] = ()

    @property
    def subject(self) -> str:
        return f"{self.systems[0]} − {self.systems[1]}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "systems": list(self.systems),
            "queries": self.queries.to_dict(),
            "metrics": {m: p.to_dict() for m, p in self.metrics.items()},
            "notes": list(self.notes),
        }

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for metric, p in self.metrics.items():
            for r in p.comparison.rows():
                rest = {k: v for k, v in r.items() if k not in ("a", "b", "score")}
                out.append({"run": self.subject, "metric": metric, **rest})
        return out


@dataclass(frozen=True, repr=False)
class EvaluationReport(Tidy):
    """Runs evaluated against qrels; see the module docstring."""

    clustering: Clustering
    level: float
    seed: int
    bootstrap_reps: int
    metrics: tuple[str, ...]
    runs: dict[str, RunEvaluation]
    paired: PairedEvaluation | None = None
    #: The other tool's file the qrels and runs were read from (``--from``), else None.
    source: SourceInfo | None = None

    headline_columns = MetricEvaluation.headline_columns

    def to_dict(self) -> dict[str, Any]:
        """The object ``ragstat evaluate --json`` prints (one run: its metrics at the top)."""
        out: dict[str, Any] = {
            "clustering": self.clustering.to_dict(),
            "level": self.level,
            "seed": self.seed,
        }
        if len(self.runs) == 1:
            name, run = next(iter(self.runs.items()))
            out |= {**run.to_dict(), "run": name}
        else:
            out["runs"] = {name: run.to_dict() for name, run in self.runs.items()}
            if self.paired is not None:
                out["paired"] = self.paired.to_dict()
        if self.source is not None:
            out["source"] = self.source.to_dict()
        return json_ready(out)

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        """The plain verdicts of the paired comparison (metric × estimand), if any."""
        if self.paired is None:
            return ()
        return tuple(v for p in self.paired.metrics.values() for v in p.verdicts)

    def rows(self) -> list[dict[str, Any]]:
        out = [r for run in self.runs.values() for m in run.metrics.values() for r in m.rows()]
        return out + ([] if self.paired is None else self.paired.rows())

    def headline_rows(self) -> list[dict[str, Any]]:
        return [r for run in self.runs.values() for m in run.metrics.values()
                for r in m.headline_rows()]  # fmt: skip

    def sentences(self) -> list[str]:
        """With two runs the paired verdicts (metric × estimand); otherwise one sentence per
        run × metric × estimand: its headline interval, or why there is none."""
        if self.verdicts:
            return [v.sentence for v in self.verdicts]
        noun = cluster_noun(self.clustering.by)
        return [s for run in self.runs.values() for m in run.metrics.values()
                for s in m.sentences(noun)]  # fmt: skip

    def title(self) -> str:
        return (
            f"{', '.join(self.runs)} on {', '.join(self.metrics)}: {self.level:.0%} intervals, "
            f"clustered by {self.clustering.by} ({self.clustering.to_dict()['clusters']} clusters)"
        )

    def report(
        self, *, source: str = "", title: str | None = None, created: str | None = None
    ) -> Report:
        """The evaluation's report (the model report.json/md/html are rendered from): each
        run × metric's recommended interval beside the naive one, the paired verdicts."""
        from ragstat.report.evaluation import report_from_evaluation

        return report_from_evaluation(
            self._parts(),
            source=source,
            metrics=self.metrics,
            clustering=(self.clustering.by, self.clustering.note),
            verdicts=[v.sentence for v in self.verdicts],
            p_values=self._p_values(),
            left_out=self._left_out(),
            warnings=self._warnings(),
            notes=self._notes(),
            seed=self.seed,
            title=title,
            created=created,
        )

    def _parts(self) -> list[EvaluationPart]:
        from ragstat.report.evaluation import EvaluationPart

        out = [
            EvaluationPart(f"{m.run} {m.metric}", m.report, m.stats)
            for run in self.runs.values()
            for m in run.metrics.values()
            if m.report is not None and m.stats is not None
        ]
        if self.paired is not None:
            out += [
                EvaluationPart(f"{p.metric}: {self.paired.subject}", p.comparison.report,
                               p.stats, difference=True)
                for p in self.paired.metrics.values()
                if p.stats is not None
            ]  # fmt: skip
        return out

    def _p_values(self) -> dict[str, float]:
        """Each difference's sign-flip p per estimand, labelled for the report's table."""
        if self.paired is None:
            return {}
        out = {}
        for metric, p in self.paired.metrics.items():
            test = p.comparison.paired
            for est, v in test.permutation_p.items():
                label = f"{metric}: sign-flip p of {self.paired.subject} ({est}, "
                out[label + f"{test.permutation_method})"] = float(v)
        return out

    def _left_out(self) -> list[str]:
        out = []
        for name, run in self.runs.items():
            q = run.queries
            out.append(
                f"{name}: {q.missing_run:,} of {q.total:,} qrels queries with no ranking (scored "
                f"as empty rankings), {q.no_relevant:,} without a relevant document (a separate "
                f"slice, not scored), {q.unjudged_queries:,} ranked queries not in the qrels "
                "(ignored)"
            )
        return out

    def _warnings(self) -> list[str]:
        out = [w for run in self.runs.values() for w in run.warnings]
        for run in self.runs.values():
            for m in run.metrics.values():
                out += [
                    f"{run.name} {m.metric}: {w}" for w in (m.report.warnings if m.report else ())
                ]
        if self.paired is not None:
            for p in self.paired.metrics.values():
                out += [
                    f"{p.metric}: {self.paired.subject}: {w}" for w in p.comparison.report.warnings
                ]
        return out

    def _notes(self) -> list[str]:
        out = [
            f"{run.name} {m.metric}: {m.note} (mean {'n/a' if m.mean is None else f'{m.mean:.4f}'})"
            for run in self.runs.values()
            for m in run.metrics.values()
            if m.report is None
        ]
        return out + ([] if self.paired is None else list(self.paired.notes))
