"""The cleaning part of ``ragstat.ingestion``: PII removal, boilerplate removal and language
identification, with intervals clustered by document.

Record fields (each pair optional; one side without the other: the record is not scored
for that pair and is counted in ``inputs``):

* ``pii_ref`` + ``pii_detected`` (spans ``{start, end, type}`` over ``text``): recall first
  (the share of labelled PII caught), then precision, overall and per type, with overlap
  matching (``pii_recall``, ``pii_precision``; the default), strict matching
  (``pii_*_strict``) and at character level (``pii_*_char``);
* ``boilerplate_ref`` + ``boilerplate_removed`` (spans over ``text``): precision and recall
  at character (``boilerplate_*_char``) and token level (``boilerplate_*_token``), pooled,
  and per document in ``boilerplate_by_document``;
* ``lang_ref`` + ``lang_pred`` (language codes): ``lang_accuracy`` and per language
  ``lang_precision:<code>``, ``lang_recall:<code>``.

Precision and recall are means over units (spans, characters, tokens or records), one 0/1
row per unit clustered by its record's document (``cluster_by``; without it, by the record),
so the mean is the pooled ratio. F1 is not a mean: ``f1`` gives each measure's corpus F1
(and the macro F1 of languages) with a percentile interval from resampling documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragstat.api.evaluation import json_ready
from ragstat.api.item_verdicts import f1_marks, f1_sentence
from ragstat.api.items import (
    METHODS,
    ItemScore,
    ItemScores,
    Scores,
    clusters_for,
    score_intervals,
)
from ragstat.inference import analyze
from ragstat.metrics.ingestion.spans import ALL, UnitCounts
from ragstat.records import aggregate_arrays

__all__ = [
    "INPUTS",
    "Cleaning",
    "IngestionScores",
    "RunSettings",
    "cleaning_inputs",
    "cleaning_scores",
    "unit_score",
]

Rows = list[dict[str, Any]]
#: Input → its (labelled, found) fields.
INPUTS = {
    "pii": ("pii_ref", "pii_detected"),
    "boilerplate": ("boilerplate_ref", "boilerplate_removed"),
    "language": ("lang_ref", "lang_pred"),
}
F1_METHOD = "doc_bootstrap_percentile"


@dataclass(frozen=True, repr=False)
class IngestionScores(ItemScores):
    """Item scores plus, when records have cleaning fields: F1 per measure (corpus value and
    document-bootstrap percentile interval), per input the records scored and those lacking
    the partner field, and boilerplate precision and recall per document."""

    f1: dict[str, dict[str, Any]] = field(default_factory=dict)
    inputs: dict[str, dict[str, int]] = field(default_factory=dict)
    boilerplate_by_document: tuple[dict[str, Any], ...] = ()

    def sentences(self) -> list[str]:
        """One sentence per score, then one per overall F1 (not per type or language)."""
        f1 = [f1_sentence(k, v, self.level, self.noun) for k, v in self.f1.items() if ":" not in k]
        return super().sentences() + f1

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.inputs:
            out["inputs"] = {k: dict(v) for k, v in self.inputs.items()}
            out["f1"] = {k: dict(v) for k, v in self.f1.items()}
        if self.boilerplate_by_document:
            out["boilerplate_by_document"] = [dict(r) for r in self.boilerplate_by_document]
        return json_ready(out)


@dataclass(frozen=True)
class Cleaning:
    """What the cleaning sections computed, for :func:`ragstat.ingestion` to merge."""

    clustering: str = ""
    scores: dict[str, ItemScore] = field(default_factory=dict)
    f1: dict[str, dict[str, Any]] = field(default_factory=dict)
    inputs: dict[str, dict[str, int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    by_document: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class RunSettings:
    """The fixed inputs of one computation: clusters of the records and interval settings."""

    rows: Rows
    cluster_by: str | None
    clusters: dict[str, str]
    level: float
    seed: int
    reps: int


def cleaning_inputs(rows: Rows) -> dict[str, dict[str, int]]:
    """Per input present: records with both fields (``scored``) and with one side only
    (``lacking_partner``: not scored)."""
    out = {}
    for name, (ref, found) in INPUTS.items():
        both = sum(1 for r in rows if ref in r and found in r)
        one = sum(1 for r in rows if (ref in r) != (found in r))
        if both or one:
            out[name] = {"scored": both, "lacking_partner": one}
    return out


def unit_score(
    name: str, counts: UnitCounts, which: str, clusters: Mapping[str, str], run: RunSettings
) -> ItemScore:
    """``counts``' precision or recall as the mean of its units expanded to 0/1 rows, each
    clustered as its record: the mean is the pooled ratio, the intervals are clustered."""
    matched, total = (
        (counts.pred_matched, counts.pred_total)
        if which == "precision"
        else (counts.ref_matched, counts.ref_total)
    )
    n = int(total.sum())
    if n == 0:
        return ItemScore(name, None, 0, 0)
    owner = np.repeat(np.array([clusters[i] for i in counts.item_ids], dtype=object), total)
    rank = np.arange(n) - np.repeat(np.cumsum(total) - total, total)
    values = (rank < np.repeat(matched, total)).astype(float)
    mean = float(values.mean())
    unit = "a random " + ("removed or detected unit" if which == "precision" else "labelled unit")
    stats = aggregate_arrays(owner, values, score=name)
    if stats.K < 2:
        return ItemScore(name, mean, n, 0, clusters=stats.K, question=unit, bounds=(0.0, 1.0))
    rep = analyze(stats, level=run.level, methods=METHODS, seed=run.seed, bootstrap_reps=run.reps)
    return ItemScore(
        name, mean, n, 0, clusters=stats.K, report=rep, question=unit, bounds=(0.0, 1.0)
    )


def totals_by_cluster(counts: UnitCounts, clusters: Mapping[str, str]) -> dict[str, np.ndarray]:
    """Per cluster (sorted) its totals: matched predicted, predicted, matched reference,
    reference units."""
    table = np.column_stack(
        [counts.pred_matched, counts.pred_total, counts.ref_matched, counts.ref_total]
    ).astype(float)
    out: dict[str, np.ndarray] = {}
    for item, row in zip(counts.item_ids, table, strict=True):
        name = clusters[item]
        out[name] = out.get(name, np.zeros(4)) + row
    return dict(sorted(out.items()))


def cluster_totals(counts: UnitCounts, clusters: Mapping[str, str]) -> np.ndarray:
    """K × 4 totals of the clusters holding a unit of ``counts`` (see above)."""
    held = [v for v in totals_by_cluster(counts, clusters).values() if v[1] + v[3] > 0]
    return np.array(held).reshape(len(held), 4)


def f1_entry(counts: UnitCounts, run: RunSettings) -> dict[str, Any]:
    """Corpus F1 of ``counts`` and its document-bootstrap percentile interval."""
    from ragstat.metrics.ingestion.spans import f1_bootstrap_counts

    totals = cluster_totals(counts, run.clusters)
    lo = hi = None
    if totals.shape[0] >= 2:
        lo, hi = f1_bootstrap_counts(totals, level=run.level, reps=run.reps, seed=run.seed)
    return f1_marks({
        "estimate": counts.f1, "lower": lo, "upper": hi, "clusters": int(totals.shape[0]),
        "method": F1_METHOD, "reps": run.reps,
    })  # fmt: skip


def _measure(
    c: Cleaning, run: RunSettings, stem: str, suffix: str, counts: UnitCounts, first: str = "recall"
) -> None:
    """Recall and precision (``first`` shown first), overall and per type, and F1 of one
    unit kind."""
    order = ("recall", "precision") if first == "recall" else ("precision", "recall")
    for kind in (ALL, *counts.kinds):
        sub, tag = counts.of_type(kind), "" if kind == ALL else f":{kind}"
        for which in order:
            name = f"{stem}_{which}{suffix}{tag}"
            score = unit_score(name, sub, which, run.clusters, run)
            if score.n or kind == ALL:  # a type with no unit on this side: no score
                c.scores[name] = score
        c.f1[f"{stem}_f1{suffix}{tag}"] = f1_entry(sub, run)


def _side(rows: Rows, name: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(texts, labelled, found) of the records that have both fields of input ``name``."""
    ref, found = INPUTS[name]
    have = [r for r in rows if ref in r and found in r]
    return (
        {str(r["id"]): r.get("text") for r in have},
        {str(r["id"]): r[ref] for r in have},
        {str(r["id"]): r[found] for r in have},
    )


def _pii(c: Cleaning, run: RunSettings) -> None:
    from ragstat.metrics.ingestion.spans import pii_removal

    pii = pii_removal(*_side(run.rows, "pii"))
    _measure(c, run, "pii", "", pii.overlap)
    _measure(c, run, "pii", "_strict", pii.strict)
    _measure(c, run, "pii", "_char", pii.characters)
    c.notes.append(
        "pii: recall first (share of labelled PII caught); pii_recall / pii_precision match "
        "spans that overlap with the same type (the default), pii_*_strict need the same "
        "start, end and type, pii_*_char count characters covered by any detected span"
    )


def _by_document(chars: UnitCounts, tokens: UnitCounts, run: RunSettings) -> list[dict[str, Any]]:
    """Boilerplate precision and recall per document (cluster), characters and tokens."""
    cols = ("removed_labelled", "removed", "labelled_removed", "labelled")
    per = {u: totals_by_cluster(x, run.clusters) for u, x in (("char", chars), ("token", tokens))}
    out = []
    for doc in per["char"]:
        row: dict[str, Any] = {"document": doc}
        for unit, table in per.items():
            v = table[doc]
            row |= {f"{col}_{unit}": int(x) for col, x in zip(cols, v, strict=True)}
            row[f"precision_{unit}"] = float(v[0] / v[1]) if v[1] else None
            row[f"recall_{unit}"] = float(v[2] / v[3]) if v[3] else None
        out.append(row)
    return out


def _boilerplate(c: Cleaning, run: RunSettings) -> None:
    from ragstat.metrics.ingestion.spans import boilerplate_removal

    b = boilerplate_removal(*_side(run.rows, "boilerplate"))
    _measure(c, run, "boilerplate", "_char", b.characters, first="precision")
    _measure(c, run, "boilerplate", "_token", b.tokens, first="precision")
    c.by_document.extend(_by_document(b.characters, b.tokens, run))
    c.notes.append(
        "boilerplate: characters, and whitespace tokens overlapping a span, pooled over "
        "records; per document in boilerplate_by_document"
    )


def _language(c: Cleaning, run: RunSettings) -> None:
    from ragstat.metrics.ingestion.language import language_identification
    from ragstat.metrics.routing.intent import f1_bootstrap

    _, ref, pred = _side(run.rows, "language")
    lid = language_identification(ref, pred)
    scores: Scores = {"lang_accuracy": (list(lid.item_ids), lid.correct)}
    for code in lid.labels:
        for which in ("precision", "recall"):
            ids, values = lid.units(code, which)
            if ids:
                scores[f"lang_{which}:{code}"] = (ids, values)
    found, _ = score_intervals(
        scores, run.rows, run.cluster_by, level=run.level, seed=run.seed, reps=run.reps
    )
    c.scores.update(found)
    counts = lid.counts_by_cluster([run.clusters[i] for i in lid.item_ids])
    ci = None
    if counts[0].shape[0] >= 2:
        ci = f1_bootstrap(*counts, level=run.level, reps=run.reps, seed=run.seed)
    k = int(counts[0].shape[0])
    for j, code in enumerate(lid.labels):
        bounds = (None, None) if ci is None else (float(ci.lower[j]), float(ci.upper[j]))
        c.f1[f"lang_f1:{code}"] = _f1(float(lid.f1[j]), bounds, k, run)
    bounds = (None, None) if ci is None else (ci.macro_lower, ci.macro_upper)
    c.f1["lang_macro_f1"] = _f1(lid.macro_f1, bounds, k, run)
    c.notes.append(
        f"language: accuracy {lid.accuracy:.4f}, macro F1 {lid.macro_f1:.4f} over "
        f"{len(lid.labels)} languages ({', '.join(lid.labels)})"
    )


def _f1(estimate: float, bounds: tuple[Any, Any], k: int, run: RunSettings) -> dict[str, Any]:
    return f1_marks({
        "estimate": estimate, "lower": bounds[0], "upper": bounds[1], "clusters": k,
        "method": F1_METHOD, "reps": run.reps,
    })  # fmt: skip


def cleaning_scores(
    rows: Rows, cluster_by: str | None, *, level: float, seed: int, reps: int
) -> Cleaning:
    """PII, boilerplate and language scores of the records that have the fields (see the
    module docstring); an empty :class:`Cleaning` when none has."""
    inputs = cleaning_inputs(rows)
    scored = [str(r["id"]) for r in rows if any(a in r and b in r for a, b in INPUTS.values())]
    if not scored:
        return Cleaning(
            clusters_for(rows, [], cluster_by)[1], inputs=inputs, notes=_lacking(inputs)
        )
    clusters, note = clusters_for(rows, scored, cluster_by)
    run = RunSettings(rows, cluster_by, dict(zip(scored, clusters, strict=True)), level, seed, reps)
    c = Cleaning(note, inputs=inputs, notes=_lacking(inputs))
    sections = {"pii": _pii, "boilerplate": _boilerplate, "language": _language}
    for name, section in sections.items():
        if inputs.get(name, {}).get("scored"):
            section(c, run)
    c.notes.append(
        "span, character and token units are clustered by their record's document "
        "(or by the record without cluster_by); F1: corpus value, document bootstrap percentile"
    )
    return c


def _lacking(inputs: Mapping[str, Mapping[str, int]]) -> list[str]:
    return [
        f"{name}: {v['lacking_partner']} record(s) with {INPUTS[name][0]} or {INPUTS[name][1]} "
        "but not both: not scored"
        for name, v in inputs.items()
        if v["lacking_partner"]
    ]
