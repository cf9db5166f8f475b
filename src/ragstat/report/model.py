"""The `Report`: everything a study, interval, comparison or simulation report shows.

A `Report` holds data, never markup: the renderers (Markdown, HTML, figures)
draw it. It is assembled by the builders in :mod:`ragstat.report.build` and
:mod:`ragstat.report.study`, serialised with a ``schema_version`` and round-trips
exactly through JSON (``Report.from_dict(report.to_dict()) == report``).

Every interval in a report is the inference layer's own
:class:`~ragstat.inference.results.Interval` (one type from estimate to page). A
``report.json`` written before that kept interval rows without ``reference``; it is
still read, with ``reference`` set to :data:`UNRECORDED`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ragstat.errors import InputError
from ragstat.inference.headline import MIN_HEADLINE_DOCUMENTS, Headline, headline
from ragstat.inference.results import Interval
from ragstat.report.codec import OMIT_EMPTY, from_dict, to_dict
from ragstat.report.matrix import MATRIX_KIND, MatrixCell

__all__ = [
    "DECISION_KINDS",
    "KINDS",
    "SCHEMA_VERSION",
    "UNRECORDED",
    "Autocorrelation",
    "ChecklistItem",
    "CoverageRow",
    "DocSummary",
    "EstimandBlock",
    "ExcludedDoc",
    "GateRow",
    "MatrixCell",
    "PairedInfo",
    "RateHistogram",
    "Recommendation",
    "Report",
    "SimulationInfo",
    "StratumRow",
    "TwoStage",
    "TypeRates",
]

#: Version of the report JSON layout; bumped on any incompatible change.
SCHEMA_VERSION = 1
KINDS = ("study", "interval", "comparison", "simulation", "gate", "filter-rule", MATRIX_KIND)
#: Kinds that report decisions (gates, the filter rule): a verdict, a decision table, G1.
DECISION_KINDS = ("gate", "filter-rule")
#: The naive interval shown beside the honest one.
NAIVE_METHOD = "wald_iid"
#: ``Interval.reference`` of an interval read from a report.json that did not record it.
UNRECORDED = "not recorded"


@dataclass(frozen=True)
class EstimandBlock:
    """Every interval for one estimand of one subject (a retriever, a score, a difference)."""

    subject: str
    estimand: str
    estimate: float
    recommended: str | None
    intervals: tuple[Interval, ...]
    #: Documents K, the range the estimand lies in and why no method is recommended, as the
    #: result said (absent from a report.json written before): the headline rule reads them.
    K: int | None = field(default=None, metadata=OMIT_EMPTY)
    bounds: tuple[float, ...] | None = field(default=None, metadata=OMIT_EMPTY)
    note: str | None = field(default=None, metadata=OMIT_EMPTY)

    def get(self, method: str | None) -> Interval | None:
        return next((iv for iv in self.intervals if iv.method == method), None)

    def lead(self) -> Headline:
        """The headline of this estimand (:func:`ragstat.inference.headline.headline`); with
        K unrecorded (an older report.json) the K rule cannot be applied."""
        level = next((iv.level for iv in self.intervals), 0.95)
        est: dict[str, object] = {"estimate": self.estimate, "recommended": self.recommended}
        est |= {
            "recommendation_note": self.note,
            "intervals": [iv.to_dict() for iv in self.intervals],
        }
        K = MIN_HEADLINE_DOCUMENTS if self.K is None else self.K
        data = {"K": K, "bounds": self.bounds, "level": level, "estimands": {self.estimand: est}}
        return headline(data, self.estimand)

    @property
    def honest(self) -> Interval | None:
        """The headline interval: the recommended one, unless the headline rule refuses it
        (K ≤ 3, unavailable, outside the range); never another method instead."""
        return self.get(self.recommended) if self.lead().available else None

    @property
    def naive_interval(self) -> Interval | None:
        return self.get(NAIVE_METHOD)

    @property
    def width_ratio(self) -> float | None:
        """Width of the honest interval over the naive one's."""
        h, n = self.honest, self.naive_interval
        if h is None or n is None or h.width is None or not n.width:
            return None
        return h.width / n.width


@dataclass(frozen=True)
class DocSummary:
    """Per-document facts and diagnostics of one subject (what the document-level reporting
    checklist asks for; the interval guide).

    With queries sampled within documents, n_* and N count the eligible queries the
    sample stands for and ``scored`` the queries actually scored.
    """

    subject: str
    K: int
    N: int
    n_min: float
    n_median: float
    n_mean: float
    n_max: float
    n_cv: float
    top10_share: float
    share0: float
    share1: float
    icc: float | None = None
    deff: float | None = None
    n_eff: float | None = None
    lag1: float | None = None
    binary: bool = True
    scored: int | None = None
    #: Share of documents whose rate is −1 (set for a paired difference y_A − y_B only).
    share_neg1: float | None = None


@dataclass(frozen=True)
class RateHistogram:
    """T1: distribution of per-document rates (``rates`` kept for a strip when K is small).

    ``micro`` and ``macro`` are the lines drawn; ``weighted`` says they are the design's
    estimates (stratified: combined ratio and stratified mean, w = M_h / K_h) rather than
    the sample's unweighted values.
    """

    subject: str
    K: int
    N: int
    micro: float
    macro: float
    edges: tuple[float, ...]
    counts: tuple[int, ...]
    rates: tuple[float, ...] = ()
    sizes: tuple[int, ...] = ()
    weighted: bool = False


@dataclass(frozen=True)
class StratumRow:
    """T2: one stratum/type of one subject; the macro interval is t on its document rates."""

    subject: str
    stratum: str
    K: int
    N: int
    micro: float
    macro: float
    macro_lower: float | None = None
    macro_upper: float | None = None


@dataclass(frozen=True)
class TypeRates:
    stratum: str
    mean: float
    rates: tuple[float, ...]


@dataclass(frozen=True)
class TwoStage:
    """T4: types then documents: each type's mean rate with its documents' rates."""

    subject: str
    target: float | None
    types: tuple[TypeRates, ...] = ()
    micro: float | None = None
    macro: float | None = None
    interval: Interval | None = None


@dataclass(frozen=True)
class Autocorrelation:
    """T6: within-document residual autocorrelation of neighbouring queries, by lag."""

    subject: str
    lags: tuple[int, ...]
    values: tuple[float | None, ...]
    pairs: tuple[int, ...]
    source: str


@dataclass(frozen=True)
class CoverageRow:
    """T3/T5 for simulations: one method's coverage and width at one K."""

    group: str
    k: int
    estimand: str
    method: str
    reps: int
    coverage: float
    coverage_se: float
    mean_width: float | None
    bias: float | None
    rmse: float | None
    unavailable: float
    naive: bool = False


@dataclass(frozen=True)
class Recommendation:
    group: str
    key: str
    methods: tuple[str, ...]
    basis: str


@dataclass(frozen=True)
class SimulationInfo:
    """One simulated census (several with ``--from-study`` at several chunk sizes)."""

    group: str
    design: str
    K: int
    N: int
    micro: float
    macro: float
    type_mean: float | None
    ks: tuple[int, ...]
    reps: int
    bootstrap_reps: int
    seed: int | None
    chunk_words: int | None = None
    retriever: str | None = None
    documents: int | None = None
    #: Two-stage: types drawn per sample (each sample: ``types`` types × up to k documents).
    types: int | None = None
    #: The estimands simulated for this census.
    estimands: tuple[str, ...] = ()


@dataclass(frozen=True)
class PairedInfo:
    """The paired comparison: systems, ties, sign-flip p and how queries were matched."""

    systems: tuple[str, ...]
    ties_share: float
    identical_share: float
    permutation_p: dict[str, float]
    permutation_method: str
    permutation_reps: int | None = None
    matched: int | None = None
    only_a: int | None = None
    only_b: int | None = None
    on_missing: str | None = None


@dataclass(frozen=True)
class ExcludedDoc:
    doc_id: str | None
    source: str | None
    reason: str
    chunks: int | None = None


@dataclass(frozen=True)
class ChecklistItem:
    """One line of the document-level reporting checklist (the interval guide's "what to report"),
    filled in (or saying why it cannot be)."""

    key: str
    label: str
    text: str
    available: bool = True


@dataclass(frozen=True)
class GateRow:
    """One decision of a gate (or one condition of the filter rule): the interval at the
    level that decided it and the bound it was compared with.

    ``bound`` is the threshold (``at_least``, ``at_most``), −margin (non-inferiority),
    min_delta (superiority) or −margin of ±margin (``equivalent``, with ``bound_upper`` =
    +margin). ``lower``/``upper`` are None when there was no evidence (``reason`` says why).
    ``outcome`` is pass, fail or inconclusive; ``condition`` the gate as a short formula.
    """

    name: str
    kind: str
    metric: str
    estimand: str
    outcome: str
    condition: str
    level: float
    estimate: float | None = None
    lower: float | None = None
    upper: float | None = None
    bound: float | None = None
    bound_upper: float | None = None
    blocking: bool = True
    reason: str | None = None
    evidence: str = ""
    method: str | None = None


@dataclass(frozen=True)
class Report:
    """A report of one run; see the module docstring."""

    kind: str
    title: str
    source: str
    created: str
    level: float
    score: str
    design: str
    estimands: tuple[str, ...]
    checklist: tuple[ChecklistItem, ...]
    results: tuple[EstimandBlock, ...] = ()
    docs: tuple[DocSummary, ...] = ()
    histograms: tuple[RateHistogram, ...] = ()
    strata_field: str | None = None
    strata: tuple[StratumRow, ...] = ()
    two_stage: TwoStage | None = None
    autocorrelation: tuple[Autocorrelation, ...] = ()
    paired: PairedInfo | None = None
    simulations: tuple[SimulationInfo, ...] = ()
    coverage: tuple[CoverageRow, ...] = ()
    recommendations: tuple[Recommendation, ...] = ()
    excluded: tuple[ExcludedDoc, ...] = ()
    excluded_counts: dict[str, int] = field(default_factory=dict)
    excluded_total: int = 0
    metrics: dict[str, float] = field(default_factory=dict)
    population: int | None = None
    seed: int | None = None
    bootstrap_reps: int | None = None
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: Plain sentences that answer the question first (a comparison: who is better, by how
    #: much, is it real), one per estimand.
    verdicts: tuple[str, ...] = ()
    #: Gate decisions (kind ``gate``) or filter-rule conditions (kind ``filter-rule``).
    gates: tuple[GateRow, ...] = ()
    #: The coverage matrix (kind ``coverage-matrix``): its dimensions, one row per cell and
    #: the target half-width of its documents-needed column (left out of the JSON if unused).
    dims: tuple[str, ...] = field(default=(), metadata=OMIT_EMPTY)
    matrix: tuple[MatrixCell, ...] = field(default=(), metadata=OMIT_EMPTY)
    target_half_width: float | None = field(default=None, metadata=OMIT_EMPTY)
    generator: str = "ragstat"
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(f"report kind must be one of {', '.join(KINDS)}, got {self.kind!r}")

    def to_dict(self) -> dict:
        return to_dict(self)

    @classmethod
    def from_dict(cls, data: object) -> Report:
        """Rebuild a report from its JSON; refuses a newer schema than this version reads."""
        if not isinstance(data, dict):
            raise InputError("report JSON must be an object")
        version = data.get("schema_version")
        if isinstance(version, bool) or not isinstance(version, int):
            raise InputError(f"report JSON has no valid schema_version (got {version!r})")
        if version > SCHEMA_VERSION:
            raise InputError(
                f"report schema_version {version} is newer than this ragstat reads "
                f"({SCHEMA_VERSION}): upgrade ragstat to render it"
            )
        from ragstat.report.legacy import with_references

        return from_dict(cls, with_references(data))
