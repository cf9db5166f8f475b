"""The report of `ragstat evaluate`: runs scored against qrels, metric by metric.

A minimal, honest report: for every run × metric (and, with two runs, every paired
difference) the recommended clustered interval beside the naive one, the verdicts of the
paired comparison first, and the document-level reporting checklist with its unit named
for what the clusters are (queries, source documents or the clusters of a mapping).

The builder sees only inference and records types: the caller (``ragstat.api``) hands it
one :class:`EvaluationPart` per subject.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ragstat.errors import InputError
from ragstat.inference.headline import describe
from ragstat.inference.results import IntervalReport
from ragstat.records.docstats import DocStats
from ragstat.report import checklist as cl
from ragstat.report import parts
from ragstat.report.build import generator, now
from ragstat.report.model import ChecklistItem, DocSummary, EstimandBlock, RateHistogram, Report

__all__ = ["FIGURE_MAX", "EvaluationPart", "report_from_evaluation"]

#: Subjects drawn in T1 (every subject is in the tables).
FIGURE_MAX = 4


@dataclass(frozen=True)
class EvaluationPart:
    """One subject of the report: a run's metric (``run ndcg@10``) or a paired difference
    (``ndcg@10: A − B``), its intervals and the per-cluster sums they came from."""

    subject: str
    report: IntervalReport
    stats: DocStats
    difference: bool = False


@dataclass(frozen=True)
class Clusters:
    """What the clusters are: ``by`` (query, qrels-doc, a file…), the note, and the words
    for one cluster as the unit of resampling."""

    by: str
    note: str

    @property
    def unit(self) -> str:
        if self.by == "query":
            return "the query (no clustering was given: queries are treated as independent)"
        if self.by == "qrels-doc":
            return "the source document of each query's gold passages"
        return "the cluster each query is mapped to"

    @property
    def noun(self) -> str:
        return {"query": "queries as clusters", "qrels-doc": "documents"}.get(self.by, "clusters")


def _docs(items: Sequence[EvaluationPart]) -> list[DocSummary]:
    return [
        parts.doc_summary(p.subject, p.stats, p.report.diagnostics, difference=p.difference)
        for p in items
    ]


def _k_n(docs: Sequence[DocSummary], clusters: Clusters) -> ChecklistItem:
    """K clusters and N queries per subject, the clusters named for what they are."""
    texts = {f"K = {d.K:,} {clusters.noun}, N = {d.N:,} queries" for d in docs}
    if len(texts) == 1:
        body = texts.pop()
    else:
        body = "; ".join(f"{d.subject}: K = {d.K:,} {clusters.noun}, N = {d.N:,}" for d in docs)
    return cl.item("k_n", f"{body} — the sample size is K, not N")


def _checklist(
    items: Sequence[EvaluationPart],
    blocks: Sequence[EstimandBlock],
    clusters: Clusters,
    design: str,
    left_out: Sequence[str],
    reps: int | None,
    seed: int | None,
) -> tuple[ChecklistItem, ...]:
    docs = _docs(items)
    found = cl.interval_checklist(
        design=design,
        estimands=tuple(items[0].report.estimands),
        blocks=blocks,
        doc=docs,
        reps=reps,
        seed=seed,
        leftout=cl.left_out({}, left_out, known=False),
    )
    unit = f"Resampling and clustering unit: {clusters.unit}"
    out = []
    for entry in found:
        if entry.key == "k_n":
            entry = _k_n(docs, clusters)
        elif entry.key == "method":
            entry = replace(entry, text=entry.text.replace(cl.unit_text(None), unit))
        out.append(entry)
    return tuple(out)


def _histogram(p: EvaluationPart) -> RateHistogram:
    """T1 data: the per-cluster means of one subject (a difference over its own span)."""
    if not p.difference:
        return parts.histogram(p.subject, p.stats)
    bound = float(np.max(np.abs(p.stats.r))) if p.stats.K else 1.0
    return parts.histogram(p.subject, p.stats, (-1.0, 1.0) if bound <= 1 else (-bound, bound))


def _sentence(b: EstimandBlock, noun: str) -> str:
    """The block's headline sentence, worded as `ragstat evaluate` says it ("mrr of run_a");
    a subject is ``"<run> <metric>"``."""
    run, _, metric = b.subject.rpartition(" ")
    return describe(b.lead(), metric, run or None, noun=noun)


def _bootstrap_reps(items: Sequence[EvaluationPart]) -> int | None:
    for p in items:
        if any(iv.replicates for r in p.report.estimands.values() for iv in r.intervals):
            return p.report.bootstrap_reps
    return None


def report_from_evaluation(
    items: Sequence[EvaluationPart],
    *,
    source: str,
    metrics: Sequence[str],
    clustering: tuple[str, str],
    verdicts: Sequence[str] = (),
    p_values: Mapping[str, float] | None = None,
    left_out: Sequence[str] = (),
    warnings: Sequence[str] = (),
    notes: Sequence[str] = (),
    seed: int | None = None,
    title: str | None = None,
    created: str | None = None,
) -> Report:
    """The report of `ragstat evaluate` from its subjects (see the module docstring).

    ``clustering`` is (by, note) of the query clustering; ``verdicts`` the sentences said
    first (the paired comparison's; without them each block's headline sentence); ``p_values`` the sign-flip p of each difference and estimand;
    ``left_out`` what the evaluation set aside (queries with no ranking, no relevant
    document, not in the qrels).
    """
    if not items:
        raise InputError("no run × metric has an interval: nothing to report")
    clusters = Clusters(*clustering)
    blocks = tuple(b for p in items for b in parts.blocks_from_report(p.subject, p.report))
    reps = _bootstrap_reps(items)
    design = (
        f"queries of the qrels, scored per run on {', '.join(metrics)}; the intervals treat "
        f"the clusters as a simple random sample (SRS) from the population they stand for: "
        f"{clusters.note}; no finite-population correction"
    )
    first = items[0].report
    if not verdicts:  # one run: each run × metric's headline sentence opens the report
        verdicts = [_sentence(b, clusters.noun) for b in blocks]
    return Report(
        kind="comparison" if any(p.difference for p in items) else "interval",
        title=title or (f"Evaluation — {source}" if source else "Evaluation against qrels"),
        source=source,
        created=created or now(),
        level=float(first.level),
        score=", ".join(metrics),
        design="srs",
        estimands=tuple(first.estimands),
        checklist=_checklist(items, blocks, clusters, design, left_out, reps, seed),
        results=blocks,
        docs=tuple(_docs(items)),
        histograms=tuple(_histogram(p) for p in items[:FIGURE_MAX]),
        metrics=dict(p_values or {}),
        seed=seed,
        bootstrap_reps=reps,
        warnings=tuple(dict.fromkeys(warnings)),
        notes=(clusters.note, *notes),
        verdicts=tuple(verdicts),
        generator=generator(),
    )
