"""``ragstat.ingestion`` and ``ragstat.latency``: extraction fidelity and serving time.

Ingestion records: ``id`` plus any of ``reference`` + ``extracted`` (CER, WER and the
extracted-length ratio per ``class``), ``text`` (Unicode drift: NFC ≠ NFKC, invisible
code points) and the cleaning pairs ``pii_ref`` + ``pii_detected``, ``boilerplate_ref`` +
``boilerplate_removed``, ``lang_ref`` + ``lang_pred`` (:mod:`.ingestion_spans`). Latency: spans with ``trace_id``, ``stage`` and ``duration_ms`` (or
``start_ms``/``end_ms``); percentiles per stage, and the time per trace and stage with
intervals clustered by ``cluster_by`` when it names a span field.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragstat.api.evaluation import draw_seed
from ragstat.api.items import ItemScores, Records, Scores, check_reps, read_records, require_ids
from ragstat.api.items import score_intervals as intervals
from ragstat.api.verbs.ingestion_spans import IngestionScores, cleaning_inputs, cleaning_scores
from ragstat.errors import InputError

__all__ = ["ingestion", "latency"]

Rows = list[dict[str, Any]]


def _series(rates: np.ndarray, ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
    return list(ids), np.asarray(rates, dtype=float)


def _fidelity(pairs: Rows, scores: Scores, notes: list[str]) -> None:
    """CER, WER and the extracted-length ratio per class."""
    from ragstat.metrics.ingestion import cer, length_ratio, wer

    ref = {str(r["id"]): r["reference"] for r in pairs}
    hyp = {str(r["id"]): r["extracted"] for r in pairs}
    c, w = cer(ref, hyp), wer(ref, hyp)
    scores["cer"] = _series(c.rate, c.item_ids)
    scores["wer"] = _series(w.rate, w.item_ids)
    notes.append(f"corpus CER {c.corpus_rate:.4f}, WER {w.corpus_rate:.4f} (edits / length)")
    classes = {str(r["id"]): str(r.get("class", "all")) for r in pairs}
    lr = length_ratio(hyp, ref, classes)
    scores["length_ratio"] = _series(lr.ratio, lr.item_ids)
    notes.append(
        "length ratio by class: "
        + ", ".join(f"{k} mean {v['mean']:.3f} (n {v['n']})" for k, v in lr.by_class().items())
    )


def _drift(texts: Rows, scores: Scores, notes: list[str]) -> None:
    """Unicode drift: NFC ≠ NFKC, invisible code points."""
    from ragstat.metrics.ingestion import unicode_drift

    d = unicode_drift({str(r["id"]): r["text"] for r in texts})
    scores["nfc_nfkc_differs"] = _series(d.nfkc_differs, d.item_ids)
    scores["has_invisible"] = _series(d.invisible_count > 0, d.item_ids)
    notes.append("nfc_nfkc_differs: share of documents whose NFC and NFKC forms differ")
    found = sorted({c for per in d.invisible for c in per})
    if found:
        notes.append(f"invisible code points found: {', '.join(found[:10])}")


def ingestion(
    data: Records,
    *,
    cluster_by: str | None = None,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> IngestionScores:
    """CER and WER per document, the extracted-length ratio per class, Unicode drift, and
    PII removal, boilerplate removal and language identification, each with intervals
    clustered by ``cluster_by`` (see the module docstring). ``seed=None`` draws a seed,
    kept in ``result.seed``."""
    check_reps(bootstrap_reps)
    rows, label = read_records(data)
    require_ids(rows, label)
    pairs = [r for r in rows if "reference" in r and "extracted" in r]
    texts = [r for r in rows if "text" in r]
    if not pairs and not texts and not cleaning_inputs(rows):
        raise InputError(
            f"{label}: records need reference + extracted, text, or a cleaning pair "
            "(pii_ref + pii_detected, boilerplate_ref + boilerplate_removed, lang_ref + lang_pred)"
        )
    seed = draw_seed(seed)
    scores: Scores = {}
    notes: list[str] = []
    if pairs:
        _fidelity(pairs, scores, notes)
    if texts:
        _drift(texts, scores, notes)
    found, note = intervals(scores, rows, cluster_by, level=level, seed=seed, reps=bootstrap_reps)
    c = cleaning_scores(rows, cluster_by, level=level, seed=seed, reps=bootstrap_reps)
    return IngestionScores(
        "ingestion", label, found | c.scores, note or c.clustering, tuple(notes + c.notes),
        level, seed, f1=c.f1, inputs=c.inputs, boilerplate_by_document=tuple(c.by_document),
    )  # fmt: skip


def _traces(spans: Rows, cluster_by: str | None) -> dict[str, dict[str, Any]]:
    """One record per trace; its cluster is the value its spans agree on (conflicts: error)."""
    out: dict[str, dict[str, Any]] = {}
    for s in spans:
        tid = str(s.get("trace_id"))
        row = out.setdefault(tid, {"id": tid})
        if cluster_by is not None and s.get(cluster_by) is not None:
            value = s[cluster_by]
            if row.get(cluster_by, value) != value:
                raise InputError(
                    f"trace {tid!r}: spans disagree on {cluster_by!r} "
                    f"({row[cluster_by]!r} vs {value!r})"
                )
            row[cluster_by] = value
    return out


def _spans(data: Records) -> tuple[Rows, str]:
    """Spans of a trace file (read as spans: blank lines skipped) or of records in memory."""
    from ragstat.metrics.system import read_spans

    if isinstance(data, (str, Path)):
        return read_spans(data), str(data)
    return read_records(data, "spans")


def latency(
    data: Records,
    *,
    cluster_by: str | None = None,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> ItemScores:
    """p50/p95/p99 per pipeline stage (``result.percentiles``), and the time per trace and
    stage with intervals clustered by the span field ``cluster_by`` (see the module
    docstring). ``seed=None`` draws a seed, kept in ``result.seed``."""
    check_reps(bootstrap_reps)
    from ragstat.metrics.system import latency_percentiles

    spans, label = _spans(data)
    table = latency_percentiles(spans)
    trace_rows = _traces(spans, cluster_by)
    seed = draw_seed(seed)
    scores: Scores = {}
    for stage in table.stages:
        rec = table.records(stage)
        ids = [i for i in trace_rows if i in rec]
        scores[f"{stage} ms"] = (ids, np.array([rec[i] for i in ids], float))
    rows = list(trace_rows.values())
    found, note = intervals(scores, rows, cluster_by, level=level, seed=seed, reps=bootstrap_reps)
    percentiles = tuple(table.table())
    notes = (
        ", ".join(
            f"{r['stage']}: " + " ".join(f"{k} {v:.1f}" for k, v in r.items() if k.startswith("p"))
            for r in percentiles
        ),
    )
    return ItemScores("latency", label, found, note, notes, level, seed, percentiles)
