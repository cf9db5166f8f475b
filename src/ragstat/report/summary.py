"""The typed summary of a self-retrieval study: exactly what ``summary.json`` holds.

``StudySummary.to_dict()`` is the summary.json object (schema version 1) and
``StudySummary.from_dict()`` reads one back — also one written by an older ragstat
(fields added since, such as ``recommendation_note``, ``outside_range``, the paired
``verdicts`` or ``counts.unreadable_files``, take their defaults).

Parts: :class:`StudyCounts` (documents, chunks, queries), one :class:`RetrieverSummary`
per retriever (hit@1 as an ``IntervalReport``: micro Σ s_d / Σ n_d and macro
mean_d r_d with document-clustered intervals; MRR@10 micro), :class:`PairedStudy`
(the first two retrievers, y_A − y_B per query, clustered by document, with the
sign-flip test), :class:`QuerySampling` (the two-stage design of sampled queries) and
:class:`StudyStrata` (hit@1 per metadata stratum).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ragstat.errors import InputError
from ragstat.inference.headline import Headline, describe, headline, unit_scale
from ragstat.inference.paired import PairedSummary
from ragstat.inference.results import Interval, IntervalReport
from ragstat.inference.verdict import Verdict, verdicts
from ragstat.report.summary_io import (
    expect_object,
    interval_report_from_dict,
    json_ready,
    make_fields,
)
from ragstat.tidy import Tidy, plain

__all__ = [
    "SCHEMA_VERSION",
    "PairedStudy",
    "QuerySampling",
    "RetrieverSummary",
    "StratumHit",
    "StudyCounts",
    "StudyStrata",
    "StudySummary",
    "interval_report_from_dict",
    "json_ready",
    "study_verdicts",
]

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class StudyCounts:
    """Documents loaded, eligible (two or more chunks: they issue queries), excluded by
    reason; unreadable files apart; chunks, chunks indexed, queries per retriever."""

    documents: int
    eligible_documents: int
    excluded: dict[str, int]
    unreadable_files: int = 0
    chunks: int = 0
    indexed_chunks: int = 0
    queries: int = 0

    def to_dict(self) -> dict[str, Any]:
        return json_ready(dataclasses.asdict(self))

    @classmethod
    def from_dict(cls, data: object) -> StudyCounts:
        obj = expect_object(data, "counts")
        excluded = {
            str(k): int(v) for k, v in expect_object(obj.get("excluded", {}), "excluded").items()
        }
        return make_fields(cls, obj, "counts", excluded=excluded)


@dataclass(frozen=True)
class RetrieverSummary:
    """One retriever: hit@1 with document-clustered intervals; MRR@10 = mean of 1/rank."""

    hit1: IntervalReport
    mrr_at_10_micro: float

    def to_dict(self) -> dict[str, Any]:
        return {"hit1": self.hit1.to_dict(), "mrr_at_10_micro": self.mrr_at_10_micro}

    @classmethod
    def from_dict(cls, data: object, path: str) -> RetrieverSummary:
        obj = expect_object(data, path)
        hit1 = interval_report_from_dict(obj.get("hit1"), f"{path}.hit1")
        mrr = obj["mrr_at_10_micro"] if "mrr_at_10_micro" in obj else obj["mrr_micro"]  # ≤ 0.1
        return cls(hit1=hit1, mrr_at_10_micro=float(mrr))


@dataclass(frozen=True)
class PairedStudy:
    """The paired comparison of the first two retrievers: intervals on y_A − y_B (``report``),
    ties and the sign-flip test (``paired``), one plain verdict per estimand."""

    systems: tuple[str, str]
    report: IntervalReport
    paired: PairedSummary
    verdicts: tuple[Verdict, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "systems": list(self.systems),
            **self.report.to_dict(),
            "paired": self.paired.to_dict(),
            "verdicts": [v.to_dict() for v in self.verdicts],
        }

    @classmethod
    def from_dict(cls, data: object) -> PairedStudy:
        obj = expect_object(data, "paired")
        systems = tuple(str(s) for s in obj.get("systems") or ("A", "B"))
        if len(systems) != 2:
            raise InputError(f"paired.systems: expected two names, got {list(systems)}")
        verdicts = tuple(
            make_fields(Verdict, v, "paired.verdicts") for v in obj.get("verdicts") or ()
        )
        return cls(
            systems=(systems[0], systems[1]),
            report=interval_report_from_dict(obj, "paired"),
            paired=make_fields(PairedSummary, obj.get("paired"), "paired.paired"),
            verdicts=verdicts,
        )


@dataclass(frozen=True)
class QuerySampling:
    """The two-stage design of sampled queries (:mod:`ragstat.selfretrieval.sampling`): every
    eligible document, then m_d of its n_d chunks; weights n_d / m_d (fields in JSON order)."""

    design: str
    stage1: str | None = None
    stage2: str | None = None
    n: int | None = None
    fraction: float = 1.0
    seed: int = 0
    rng: str | None = None
    queries_eligible: int = 0
    queries_sampled: int = 0
    documents: int | None = None
    per_document: str | None = None
    weights: str | None = None
    variance: str | None = None
    methods: str | None = None
    diagnostics: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return json_ready(dataclasses.asdict(self))

    @classmethod
    def from_dict(cls, data: object) -> QuerySampling:
        return make_fields(cls, data, "sampling")


@dataclass(frozen=True)
class StratumHit:
    """hit@1 of one stratum: K documents, N queries, micro Σ s / Σ n, macro mean of rates."""

    K: int
    N: int
    micro: float
    macro: float


@dataclass(frozen=True)
class StudyStrata:
    """hit@1 per stratum of the metadata ``field``, per retriever."""

    field: str
    hit1: dict[str, dict[str, StratumHit]]

    def to_dict(self) -> dict[str, Any]:
        hit1 = {
            name: {s: json_ready(dataclasses.asdict(v)) for s, v in rows.items()}
            for name, rows in self.hit1.items()
        }
        return {"field": self.field, "hit1": hit1}

    @classmethod
    def from_dict(cls, data: object) -> StudyStrata:
        obj = expect_object(data, "by_stratum")
        hit1 = {
            str(name): {
                str(s): make_fields(StratumHit, v, f"by_stratum.hit1.{name}.{s}")
                for s, v in expect_object(rows, f"by_stratum.hit1.{name}").items()
            }
            for name, rows in expect_object(obj.get("hit1", {}), "by_stratum.hit1").items()
        }
        return cls(field=str(obj["field"]), hit1=hit1)


def _interval_row(subject: str, iv: Interval, recommended: str | None) -> dict[str, Any]:
    return {
        "retriever": subject,
        "estimand": iv.estimand,
        "method": iv.method,
        "estimate": plain(iv.estimate),
        "lower": plain(iv.lower),
        "upper": plain(iv.upper),
        "se": plain(iv.se),
        "df": plain(iv.df),
        "recommended": iv.method == recommended,
        "naive": iv.naive,
        "available": iv.available,
    }


def study_verdicts(
    systems: tuple[str, str], report: IntervalReport, rates: IntervalReport | None = None
) -> tuple[Verdict, ...]:
    """The paired comparison's verdicts, A − B named by the retrievers, on hit1: points when
    the difference's report knows its range, or when the retrievers' rates lie in [0, 1]
    (``rates``: one retriever's hit@1 report)."""
    scale = None
    if report.bounds is None and rates is not None and rates.bounds is not None:
        scale = 100.0 if unit_scale(rates.bounds) == 100.0 else None
    return verdicts(report, systems[0], systems[1], score="hit1", unit_scale=scale)


def _headline_row(subject: str, h: Headline) -> dict[str, Any]:
    return {
        "retriever": subject,
        "estimand": h.estimand,
        "method": h.method if h.available else None,
        "estimate": h.estimate,
        "lower": h.lower,
        "upper": h.upper,
        "recommended": h.available,
        "reason": h.reason,
    }


@dataclass(frozen=True, repr=False)
class StudySummary(Tidy):
    """Everything summary.json says about a study (see the module docstring)."""

    source: str
    corpus_fingerprint: str
    config: dict[str, Any]
    seed: int | None
    counts: StudyCounts
    versions: dict[str, str]
    files: dict[str, str]
    retrievers: dict[str, RetrieverSummary]
    paired: PairedStudy | None = None
    sampling: QuerySampling | None = None
    by_stratum: StudyStrata | None = None
    schema_version: int = SCHEMA_VERSION

    headline_columns = ("retriever", "estimand", "method", "estimate", "lower", "upper")

    @property
    def level(self) -> float:
        """The confidence level of every interval (that of the first retriever's)."""
        return float(next(iter(self.retrievers.values())).hit1.level)

    def to_dict(self) -> dict[str, Any]:
        """The summary.json object (keys in the order ragstat writes them)."""
        out: dict[str, Any] = {
            "schema_version": self.schema_version,
            "source": self.source,
            "corpus_fingerprint": self.corpus_fingerprint,
            "config": json_ready(self.config),
            "seed": self.seed,
            "counts": self.counts.to_dict(),
            "versions": dict(self.versions),
            "files": dict(self.files),
            "verdicts": self.verdicts(),
            "retrievers": {
                n: {**r.to_dict(), "headline": self._headline_dicts(n)}
                for n, r in self.retrievers.items()
            },
        }
        if self.paired is not None:
            out["paired"] = self.paired.to_dict()
        if self.sampling is not None:
            out["sampling"] = self.sampling.to_dict()
        if self.by_stratum is not None:
            out["by_stratum"] = self.by_stratum.to_dict()
        return json_ready(out)

    @classmethod
    def from_dict(cls, data: object) -> StudySummary:
        """Read a summary.json object back (InputError naming the field that is wrong)."""
        obj = expect_object(data, "summary")
        retrievers = {
            str(n): RetrieverSummary.from_dict(r, f"retrievers.{n}")
            for n, r in expect_object(obj.get("retrievers"), "retrievers").items()
        }
        if not retrievers:
            raise InputError("retrievers: the summary lists no retriever")
        config = dict(expect_object(obj.get("config"), "config"))
        order = config.setdefault("retrievers", list(retrievers))
        if not isinstance(order, list) or set(map(str, order)) - set(retrievers):
            raise InputError(f"config.retrievers: {order!r} does not match the retrievers listed")
        has = {k: bool(obj.get(k)) for k in ("paired", "sampling", "by_stratum")}
        return cls(
            source=str(obj.get("source", "")),
            corpus_fingerprint=str(obj.get("corpus_fingerprint", "")),
            config=config,
            seed=obj.get("seed"),
            counts=StudyCounts.from_dict(obj.get("counts", {})),
            versions={
                str(k): str(v) for k, v in expect_object(obj.get("versions", {}), "v").items()
            },
            files={str(k): str(v) for k, v in expect_object(obj.get("files", {}), "files").items()},
            retrievers=retrievers,
            paired=PairedStudy.from_dict(obj["paired"]) if has["paired"] else None,
            sampling=QuerySampling.from_dict(obj["sampling"]) if has["sampling"] else None,
            by_stratum=StudyStrata.from_dict(obj["by_stratum"]) if has["by_stratum"] else None,
            schema_version=int(obj.get("schema_version", SCHEMA_VERSION)),
        )

    def _subjects(self) -> list[tuple[str, IntervalReport]]:
        out = [(n, r.hit1) for n, r in self.retrievers.items()]
        if self.paired is not None:
            out.append((" − ".join(self.paired.systems), self.paired.report))
        return out

    def rows(self) -> list[dict[str, Any]]:
        """One row per retriever (or paired difference) × estimand × method."""
        return [
            _interval_row(subject, iv, res.recommended)
            for subject, report in self._subjects()
            for res in report.estimands.values()
            for iv in res.intervals
        ]

    def headlines(self, name: str) -> dict[str, Headline]:
        """The headline of each estimand of retriever ``name``'s hit@1
        (:func:`ragstat.inference.headline.headline`: what every output shows first)."""
        report = self.retrievers[name].hit1
        return {est: headline(report, est) for est in report.estimands}

    def _headline_dicts(self, name: str) -> dict[str, dict[str, Any]]:
        return {
            est: {**h.to_dict(), "sentence": describe(h, "hit1", name)}
            for est, h in self.headlines(name).items()
        }

    def paired_verdicts(self) -> tuple[Verdict, ...]:
        """The paired comparison's verdicts (none without one), named by the retrievers."""
        p = self.paired
        if p is None:
            return ()
        return study_verdicts(p.systems, p.report, self.retrievers[p.systems[0]].hit1)

    def verdicts(self) -> list[str]:
        """The study's answer first: one sentence per retriever and estimand (hit@1 and its
        headline interval), then the paired comparison's verdicts."""
        out = [
            describe(h, "hit1", name)
            for name in self.retrievers
            for h in self.headlines(name).values()
        ]
        return out + [v.sentence for v in self.paired_verdicts()]

    def headline_rows(self) -> list[dict[str, Any]]:
        """The headline micro hit@1 interval per retriever and of the paired difference
        (no method and no bounds where the headline rule shows none, with the reason)."""
        out = []
        for subject, report in self._subjects():
            est = "micro" if "micro" in report.estimands else next(iter(report.estimands))
            out.append(_headline_row(subject, headline(report, est)))
        return out

    def title(self) -> str:
        c = self.counts
        return (
            f"Self-retrieval study of {self.source}: hit@1 over {c.eligible_documents} "
            f"documents ({c.queries} queries per retriever), {self.level:.0%} intervals"
        )
