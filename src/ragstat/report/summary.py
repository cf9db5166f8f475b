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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ragstat.errors import InputError
from ragstat.inference.paired import PairedSummary
from ragstat.inference.results import (
    DesignInfo,
    Diagnostics,
    EstimandResult,
    Interval,
    IntervalReport,
)
from ragstat.inference.verdict import Verdict
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
]

SCHEMA_VERSION = 1
T = TypeVar("T")


def json_ready(value: Any) -> Any:
    """``value`` with tuples as lists and numpy scalars as Python ones (what JSON reads back)."""
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return plain(value)


def _object(data: object, path: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise InputError(f"{path}: expected an object, got {type(data).__name__}")
    return data


def _make(cls: type[T], data: object, path: str, **given: Any) -> T:
    """``cls`` from the keys of ``data`` that are its fields (``given`` overrides); a missing
    field without a default is an InputError naming it."""
    obj = _object(data, path)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    kwargs = {f.name: obj[f.name] for f in fields if f.name in obj}
    kwargs.update(given)
    for f in fields:
        no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if f.name not in kwargs and no_default:
            raise InputError(f"{path}: missing field {f.name!r}")
    return cls(**kwargs)


def _estimand(name: str, data: object, path: str) -> EstimandResult:
    obj = _object(data, path)
    rows = obj.get("intervals")
    if not isinstance(rows, list):
        raise InputError(f"{path}.intervals: expected a list")
    intervals = tuple(
        _make(Interval, {"estimand": name, **_object(iv, f"{path}.intervals[{i}]")}, path)
        for i, iv in enumerate(rows)
    )
    return _make(EstimandResult, obj, path, estimand=name, intervals=intervals)


def interval_report_from_dict(data: object, path: str = "hit1") -> IntervalReport:
    """An ``IntervalReport`` from its ``to_dict()`` (``width`` is derived, so dropped)."""
    obj = _object(data, path)
    estimands = {
        str(k): _estimand(str(k), v, f"{path}.estimands.{k}")
        for k, v in _object(obj.get("estimands"), f"{path}.estimands").items()
    }
    diag = _object(obj.get("diagnostics", {}), f"{path}.diagnostics")
    names = [f.name for f in dataclasses.fields(Diagnostics)]
    values: dict[str, Any] = {n: diag.get(n) for n in names}  # absent in an older file: None
    diagnostics = Diagnostics(**values)
    design = obj.get("design")
    info = DesignInfo("srs")
    if isinstance(design, Mapping):
        groups = list(design.get("groups") or [])
        info = DesignInfo(
            name=str(design.get("name", "srs")),
            groups=tuple(str(g["name"]) for g in groups),
            sampled=tuple(int(g["sampled"]) for g in groups),
            population=tuple(int(g["population"]) for g in groups),
            df_rule=str(design.get("df_rule", "per method")),
        )
    return _make(
        IntervalReport,
        obj,
        path,
        estimands=estimands,
        diagnostics=diagnostics,
        warnings=tuple(obj.get("warnings") or ()),
        design=info,
    )


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
        obj = _object(data, "counts")
        excluded = {str(k): int(v) for k, v in _object(obj.get("excluded", {}), "excluded").items()}
        return _make(cls, obj, "counts", excluded=excluded)


@dataclass(frozen=True)
class RetrieverSummary:
    """One retriever: hit@1 with document-clustered intervals; MRR@10 = mean of 1/rank."""

    hit1: IntervalReport
    mrr_at_10_micro: float

    def to_dict(self) -> dict[str, Any]:
        return {"hit1": self.hit1.to_dict(), "mrr_at_10_micro": self.mrr_at_10_micro}

    @classmethod
    def from_dict(cls, data: object, path: str) -> RetrieverSummary:
        obj = _object(data, path)
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
        obj = _object(data, "paired")
        systems = tuple(str(s) for s in obj.get("systems") or ("A", "B"))
        if len(systems) != 2:
            raise InputError(f"paired.systems: expected two names, got {list(systems)}")
        verdicts = tuple(_make(Verdict, v, "paired.verdicts") for v in obj.get("verdicts") or ())
        return cls(
            systems=(systems[0], systems[1]),
            report=interval_report_from_dict(obj, "paired"),
            paired=_make(PairedSummary, obj.get("paired"), "paired.paired"),
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
        return _make(cls, data, "sampling")


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
        obj = _object(data, "by_stratum")
        hit1 = {
            str(name): {
                str(s): _make(StratumHit, v, f"by_stratum.hit1.{name}.{s}")
                for s, v in _object(rows, f"by_stratum.hit1.{name}").items()
            }
            for name, rows in _object(obj.get("hit1", {}), "by_stratum.hit1").items()
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


def _shown(res: EstimandResult) -> Interval | None:
    """The recommended interval, else the first available one that is not naive."""
    ivs = [iv for iv in res.intervals if iv.available and not iv.naive]
    rec = [iv for iv in ivs if iv.method == res.recommended]
    return (rec or ivs)[0] if ivs else None


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
            "retrievers": {n: r.to_dict() for n, r in self.retrievers.items()},
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
        obj = _object(data, "summary")
        retrievers = {
            str(n): RetrieverSummary.from_dict(r, f"retrievers.{n}")
            for n, r in _object(obj.get("retrievers"), "retrievers").items()
        }
        if not retrievers:
            raise InputError("retrievers: the summary lists no retriever")
        config = dict(_object(obj.get("config"), "config"))
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
            versions={str(k): str(v) for k, v in _object(obj.get("versions", {}), "v").items()},
            files={str(k): str(v) for k, v in _object(obj.get("files", {}), "files").items()},
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

    def headline_rows(self) -> list[dict[str, Any]]:
        """The recommended micro hit@1 interval per retriever and of the paired difference."""
        out = []
        for subject, report in self._subjects():
            res = report.estimands.get("micro") or next(iter(report.estimands.values()))
            iv = _shown(res)
            if iv is not None:
                out.append(_interval_row(subject, iv, res.recommended))
        return out

    def title(self) -> str:
        c = self.counts
        return (
            f"Self-retrieval study of {self.source}: hit@1 over {c.eligible_documents} "
            f"documents ({c.queries} queries per retriever), {self.level:.0%} intervals"
        )
