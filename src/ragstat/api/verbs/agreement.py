"""``ragstat.agreement``: how far the judge agrees with human labels, clustered by document.

Input: one row per item with the judge's label, the human label where one exists (an
empty cell: not labelled) and the document (the cluster); optionally a slice field.
Statistics on the items labelled by both: accuracy, Cohen's κ (and linear/quadratic
weighted κ on an ordinal or interval scale), Krippendorff's α at the scale's level,
Gwet's AC1, the judge's precision/recall for a positive label, the confusion matrix and
the judge's mean bias (judge − human, numeric labels). Kernels and formulas:
:mod:`ragstat.metrics.judging.agreement`.

Intervals: items of one document share its text, so the document is the resampling unit.
Each agreement statistic gets the percentile interval (quantiles ``(1 − level)/2`` and
``(1 + level)/2``) of a document-cluster bootstrap: every replicate redraws the K
documents with replacement (multinomial weights) and recomputes the statistic from the
weighted sum of the per-document confusion tables. The mean bias gets the CR2
(Bell–McCaffrey df) interval on the per-item differences clustered by document. The seed
is recorded in the result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragstat.api.evaluation import draw_seed, json_ready
from ragstat.api.items import Records, read_records
from ragstat.api.sentences import statistic_sentences
from ragstat.errors import InputError
from ragstat.inference import analyze
from ragstat.inference.other_coverage import agreement_note, tells
from ragstat.metrics.judging import agreement as k
from ragstat.metrics.judging.scale import LabelScale, is_missing, make_scale
from ragstat.records import aggregate_arrays
from ragstat.tidy import Tidy

__all__ = ["AgreementGroup", "AgreementResult", "AgreementStatistic", "agreement"]

BOOTSTRAP = "doc_bootstrap_percentile"
BIAS_METHOD = "cr2_bm"
INTERVAL_NOTE = (
    "agreement statistics: percentile interval of a document-cluster bootstrap "
    "(documents redrawn with replacement); mean bias: CR2 interval clustered by document"
)
_ONE_DOC = (
    "only one document has labelled items: the document-cluster interval needs labelled "
    "items in at least two documents, because the document is the sampling unit"
)


@dataclass(frozen=True)
class AgreementStatistic:
    """One statistic: its estimate and interval (None with ``reason`` when none)."""

    statistic: str
    estimate: float | None
    lower: float | None
    upper: float | None
    method: str
    discarded: int = 0
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "statistic": self.statistic,
            "estimate": self.estimate,
            "lower": self.lower,
            "upper": self.upper,
            "method": self.method,
        }
        if self.discarded:
            out["discarded"] = self.discarded
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class AgreementGroup:
    """The statistics of all labelled items (``slice`` None) or of one slice."""

    slice: str | None
    labelled: int
    documents: int
    statistics: tuple[AgreementStatistic, ...]
    confusion: tuple[tuple[int, ...], ...]

    def to_dict(self, labels: Sequence[Any]) -> dict[str, Any]:
        out: dict[str, Any] = {} if self.slice is None else {"slice": self.slice}
        out |= {
            "labelled": self.labelled,
            "documents": self.documents,
            "statistics": [s.to_dict() for s in self.statistics],
            "confusion": {
                "labels": list(labels),
                "rows": "judge",
                "columns": "human",
                "counts": [list(r) for r in self.confusion],
            },
        }
        return out


@dataclass(frozen=True, repr=False)
class AgreementResult(Tidy):
    """Judge–human agreement: one row per statistic (per slice when asked) with its
    estimate and interval; the confusion matrix in ``to_dict()`` (what ``--json`` prints)."""

    source: str
    judge: str
    human: str
    cluster: str
    scale: str
    labels: tuple[Any, ...]
    positive: Any
    level: float
    seed: int
    bootstrap_reps: int
    items: int
    overall: AgreementGroup
    slice_by: str | None = None
    slices: tuple[AgreementGroup, ...] = ()
    notes: tuple[str, ...] = ()

    headline_columns = ("slice", "statistic", "estimate", "lower", "upper", "method")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "judge": self.judge, "human": self.human, "cluster": self.cluster,
            "scale": self.scale, "labels": list(self.labels), "positive": self.positive,
            "level": self.level, "seed": self.seed, "bootstrap_reps": self.bootstrap_reps,
            "interval": INTERVAL_NOTE, "items": self.items,
        }  # fmt: skip
        out |= self.overall.to_dict(self.labels)
        out["slice_by"] = self.slice_by
        out["slices"] = [g.to_dict(self.labels) for g in self.slices]
        out["notes"] = list(self.notes)
        return json_ready(out)

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for g in (self.overall, *self.slices):
            for s in g.statistics:
                row = {"statistic": s.statistic, "estimate": s.estimate, "lower": s.lower,
                       "upper": s.upper, "method": s.method, "labelled": g.labelled,
                       "documents": g.documents}  # fmt: skip
                out.append(row if self.slice_by is None else {"slice": g.slice or "all", **row})
        return out

    def sentences(self) -> list[str]:
        """One plain sentence per statistic of all labelled items (headline rules)."""
        g = self.overall
        ask = f"{self.judge} against {self.human}"
        return statistic_sentences(g.statistics, g.documents, self.level, ask)

    def title(self) -> str:
        return (
            f"judge agreement: {self.source}, {self.judge} vs {self.human}, "
            f"{self.overall.labelled} labelled items in {self.overall.documents} documents, "
            f"{self.level:.0%} intervals clustered by {self.cluster!r}"
        )


def _file_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a CSV/TSV/Parquet file as records (empty cells left out)."""
    from ragstat.records import duck

    con = duck.connect()
    try:
        duck.attach(con, path, "items")
        cur = duck.run(con, str(path), "SELECT * FROM items")
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
    finally:
        con.close()
    if not rows:
        raise InputError(f"{path}: no rows")
    return [{n: v for n, v in zip(names, r, strict=True) if not is_missing(v)} for r in rows]


def _read(data: Records) -> tuple[list[dict[str, Any]], str]:
    if isinstance(data, (str, Path)) and Path(data).suffix.lower() in (".csv", ".tsv", ".parquet"):
        return _file_rows(Path(data)), str(data)
    return read_records(data, "table")


def _column(rows: list[dict[str, Any]], name: str, label: str) -> list[Any]:
    if not any(name in r for r in rows):
        found = sorted({c for r in rows for c in r})
        raise InputError(f"{label}: no column {name!r}; found {found}")
    return [r.get(name) for r in rows]


@dataclass(frozen=True)
class _Items:
    """The labelled items: codes on the scale, their documents and slices."""

    judge: np.ndarray
    human: np.ndarray
    docs: np.ndarray
    slices: np.ndarray | None


def _labelled(
    rows: list[dict[str, Any]], cols: tuple[str, str, str, str | None], label: str,
    scale: str, labels: Sequence[Any] | None, positive: Any,
) -> tuple[_Items, LabelScale, list[str]]:  # fmt: skip
    judge_col, human_col, cluster, slice_by = cols
    jv, hv = _column(rows, judge_col, label), _column(rows, human_col, label)
    sc = make_scale(jv, hv, scale=scale, labels=labels, positive=positive, names=cols[:2])
    if sc.declared:  # every label the judge gives must lie on its declared scale
        given = [i for i, v in enumerate(jv) if not is_missing(v)]
        sc.code([jv[i] for i in given], f"judge ({judge_col!r})", [i + 1 for i in given])
    both = [i for i in range(len(rows)) if not is_missing(jv[i]) and not is_missing(hv[i])]
    if not both:
        raise InputError(
            f"{label}: no human labels in {human_col!r} on items the judge labelled: agreement "
            "needs items labelled by both the judge and people"
        )
    notes = []
    unjudged = sum(1 for i in range(len(rows)) if is_missing(jv[i]) and not is_missing(hv[i]))
    if unjudged:
        notes.append(f"{unjudged} human-labelled item(s) have no judge label and are left out")
    docs = [rows[i].get(cluster) for i in both]
    if any(is_missing(d) for d in docs):
        first = both[next(n for n, d in enumerate(docs) if is_missing(d))] + 1
        raise InputError(f"{label}: row {first} has no {cluster!r} (its document, the cluster)")
    sl = None
    if slice_by is not None:
        _column(rows, slice_by, label)
        sl = np.asarray([str(rows[i].get(slice_by, "(missing)")) for i in both], dtype=object)
    items = _Items(
        judge=sc.code([jv[i] for i in both], f"judge ({judge_col!r})", [i + 1 for i in both]),
        human=sc.code([hv[i] for i in both], f"human ({human_col!r})", [i + 1 for i in both]),
        docs=np.asarray([str(d) for d in docs], dtype=object),
        slices=sl,
    )
    return items, sc, notes


def _num(x: float) -> float | None:
    return None if not math.isfinite(x) else float(x)


def _bootstrapped(
    per_doc: np.ndarray, sc: LabelScale, level: float, reps: int, rng: np.random.Generator
) -> list[AgreementStatistic]:
    kernels = k.statistic_kernels(sc.scale, sc.values, sc.positive)
    if per_doc.shape[0] < 2:
        pooled = per_doc.sum(axis=0)
        return [
            AgreementStatistic(name, _num(float(f(pooled))), None, None, BOOTSTRAP, reason=_ONE_DOC)
            for name, f in kernels.items()
        ]
    out = []
    for name, (est, lo, hi, dropped) in k.bootstrap_intervals(
        per_doc, kernels, level, reps, rng
    ).items():
        why = None if math.isfinite(lo) else "undefined in every bootstrap replicate"
        out.append(AgreementStatistic(name, _num(est), _num(lo), _num(hi), BOOTSTRAP, dropped, why))
    return out


def _bias(
    items: _Items, keep: np.ndarray, sc: LabelScale, level: float, reps: int, seed: int
) -> AgreementStatistic | None:
    """The judge's mean bias (judge − human) with its CR2 interval clustered by document."""
    if sc.values is None:
        return None
    d = sc.values[items.judge[keep]] - sc.values[items.human[keep]]
    stats = aggregate_arrays(items.docs[keep], d, score="mean_bias")
    est = float(d.mean())
    if stats.K < 2:
        return AgreementStatistic("mean_bias", est, None, None, BIAS_METHOD, reason=_ONE_DOC)
    rep = analyze(
        stats, level=level, methods=("cr2_bm", "cr1", "wald_iid"), estimands=("micro",),
        bootstrap_reps=reps, seed=seed, recommended={"micro": BIAS_METHOD},
    )  # fmt: skip
    iv = rep.estimands["micro"].get(BIAS_METHOD)
    return AgreementStatistic("mean_bias", est, iv.lower, iv.upper, BIAS_METHOD, reason=iv.reason)


def _group(
    items: _Items, keep: np.ndarray, sc: LabelScale, name: str | None,
    level: float, reps: int, seed: int, rng: np.random.Generator,
) -> AgreementGroup:  # fmt: skip
    docs, codes = np.unique(items.docs[keep].astype(str), return_inverse=True)
    per_doc = k.confusion_tables(items.judge[keep], items.human[keep], codes, sc.q, docs.size)
    stats = _bootstrapped(per_doc, sc, level, reps, rng)
    bias = _bias(items, keep, sc, level, reps, seed)
    if bias is not None:
        stats.append(bias)
    pooled = per_doc.sum(axis=0).astype(int)
    confusion = tuple(tuple(int(c) for c in row) for row in pooled)
    return AgreementGroup(name, int(keep.sum()), int(docs.size), tuple(stats), confusion)


def _check(level: float, reps: int) -> None:
    if not 0 < level < 1:
        raise InputError(f"level must be between 0 and 1 (e.g. 0.95), got {level}")
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or not 1 <= reps <= 10**6:
        raise InputError(
            f"bootstrap replicates must be a whole number in [1, 1000000], got {reps!r}"
        )


#: Fewer documents than this: the percentile bootstrap is known to run narrow.
FEW_DOCUMENTS = 20


def coverage_note(K: int, sc: LabelScale, level: float) -> str | None:
    """How far the intervals fell short of 95 % in simulation at K documents (None when
    they reach it); the generic few-documents caution where the table does not tell."""
    family = "binary" if sc.q == 2 else "three-category"
    if tells("agreement", family, "cohen_kappa", K, level):
        names = list(k.statistic_kernels(sc.scale, sc.values, sc.positive))
        return agreement_note(K, sc.q, sc.scale, names, level)
    if K < FEW_DOCUMENTS:
        return (
            f"only {K} documents: percentile bootstrap intervals tend to be too narrow with "
            f"fewer than {FEW_DOCUMENTS}; read them as rough"
        )
    return None


def _notes(items: _Items, sc: LabelScale, positive: Any, level: float) -> list[str]:
    K = np.unique(items.docs.astype(str)).size
    note = coverage_note(K, sc, level)
    notes = [] if note is None else [note]
    if sc.positive is None:
        notes.append("precision/recall need a positive label (positive=…, --positive)")
    elif positive is None:
        notes.append(f"precision/recall for the positive label {sc.categories[sc.positive]!r}")
    if sc.values is None:
        notes.append("mean bias needs numeric labels; these are text")
    if sc.scale != "nominal":
        notes.append("weighted κ uses the categories' ranks on the scale (as scikit-learn)")
    return notes


def agreement(
    data: Records,
    *,
    judge: str,
    human: str,
    cluster: str = "doc_id",
    scale: str = "nominal",
    positive: Any = None,
    labels: Sequence[Any] | None = None,
    slice_by: str | None = None,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> AgreementResult:
    """Agreement of the ``judge`` column with the ``human`` column (see the module
    docstring), each statistic with a document-cluster interval.

    ``data``: a path (.jsonl, .csv, .tsv, .parquet), a DataFrame, a pyarrow Table or a list
    of mappings. ``scale``: nominal, ordinal or interval (the level of Krippendorff's α; the
    ordinal and interval scales add weighted κ). ``labels``: the judge's scale in order
    (every label must be on it; an ordinal scale of text needs it). ``positive``: the label
    whose precision/recall is reported (default: 1 or true on a 0/1 or true/false scale).
    ``seed=None`` draws a seed, kept in ``result.seed``.
    """
    _check(level, bootstrap_reps)
    seed = draw_seed(seed)
    rows, label = _read(data)
    cols = (judge, human, cluster, slice_by)
    items, sc, notes = _labelled(rows, cols, label, scale, labels, positive)
    k.check_size(label, sc.q, np.unique(items.docs.astype(str)).size, bootstrap_reps)
    if np.unique(items.docs.astype(str)).size < 2:
        raise InputError(
            f"{label}: all {items.judge.size} labelled items are in one document; {_ONE_DOC}"
        )
    groups = sorted(set(items.slices)) if items.slices is not None else []
    streams = [
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(1 + len(groups))
    ]
    everything = np.ones(items.judge.size, dtype=bool)
    overall = _group(items, everything, sc, None, level, bootstrap_reps, seed, streams[0])
    slices = tuple(
        _group(items, items.slices == g, sc, str(g), level, bootstrap_reps, seed, rng)
        for g, rng in zip(groups, streams[1:], strict=True)
    )
    return AgreementResult(
        source=label, judge=judge, human=human, cluster=cluster, scale=scale,
        labels=sc.categories, positive=None if sc.positive is None else sc.categories[sc.positive],
        level=level, seed=seed, bootstrap_reps=bootstrap_reps, items=len(rows), overall=overall,
        slice_by=slice_by, slices=slices, notes=tuple(notes + _notes(items, sc, positive, level)),
    )  # fmt: skip
