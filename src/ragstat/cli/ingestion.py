"""`ragstat ingestion DOCS.jsonl` and `ragstat latency TRACE.jsonl` (seed 004, ingestion and serving).

Ingestion records: ``id`` plus any of ``reference`` + ``extracted`` (CER, WER and the
extracted-length ratio per ``class``) and ``text`` (Unicode drift: NFC ≠ NFKC, invisible
code points). Latency: JSONL spans with ``trace_id``, ``stage`` and ``duration_ms``
(or ``start_ms``/``end_ms``); percentiles per stage, and the mean time per trace with
clustered intervals when ``--cluster-by`` names a span field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from ragstat.cli import items
from ragstat.cli import options as o
from ragstat.errors import InputError


def _series(rates: np.ndarray, ids: tuple[str, ...]) -> tuple[list[str], np.ndarray]:
    return list(ids), np.asarray(rates, dtype=float)


def ingestion(
    file: Annotated[Path, typer.Argument(help="JSONL: id, reference + extracted, and/or text")],
    cluster_by: Annotated[str | None, typer.Option(help="Field with the cluster")] = None,
    level: o.Level = 0.95,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap")] = 0,
    as_json: o.Json = False,
) -> None:
    """CER and WER per document, extracted-length ratio per class, Unicode drift."""
    from ragstat.metrics.ingestion import cer, length_ratio, unicode_drift, wer

    rows = items.read_jsonl(file)
    items.require_ids(rows, file)
    pairs = [r for r in rows if "reference" in r and "extracted" in r]
    texts = [r for r in rows if "text" in r]
    if not pairs and not texts:
        raise InputError(f"{file}: records need reference + extracted, or text")
    scores, notes = {}, []
    if pairs:
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
    if texts:
        d = unicode_drift({str(r["id"]): r["text"] for r in texts})
        scores["nfc_nfkc_differs"] = _series(d.nfkc_differs, d.item_ids)
        scores["has_invisible"] = _series(d.invisible_count > 0, d.item_ids)
        notes.append("nfc_nfkc_differs: share of documents whose NFC and NFKC forms differ")
        found = sorted({c for per in d.invisible for c in per})
        if found:
            notes.append(f"invisible code points found: {', '.join(found[:10])}")
    result = items.score_intervals(scores, rows, cluster_by, level=level, seed=seed)
    result["notes"] = notes
    items.emit(result, as_json, f"ingestion metrics: {file}")


def _traces(spans: list[dict], cluster_by: str | None) -> dict[str, dict]:
    """One record per trace; its cluster is the value its spans agree on (conflicts: error)."""
    out: dict[str, dict] = {}
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


def latency(
    file: Annotated[Path, typer.Argument(help="JSONL spans: trace_id, stage, duration_ms")],
    cluster_by: Annotated[str | None, typer.Option(help="Span field with the cluster")] = None,
    level: o.Level = 0.95,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap")] = 0,
    as_json: o.Json = False,
) -> None:
    """p50/p95/p99 per pipeline stage; per-trace stage times with clustered intervals."""
    from ragstat.metrics.system import latency_percentiles, read_spans

    spans = read_spans(file)
    table = latency_percentiles(spans)
    trace_rows = _traces(spans, cluster_by)
    rows = list(trace_rows.values())
    scores = {}
    for stage in table.stages:
        rec = table.records(stage)
        ids = [i for i in trace_rows if i in rec]
        scores[f"{stage} ms"] = (ids, np.array([rec[i] for i in ids], float))
    result = items.score_intervals(scores, rows, cluster_by, level=level, seed=seed)
    result["percentiles"] = table.table()
    result["notes"] = [
        ", ".join(
            f"{r['stage']}: " + " ".join(f"{k} {v:.1f}" for k, v in r.items() if k.startswith("p"))
            for r in table.table()
        )
    ]
    items.emit(result, as_json, f"latency per trace and stage (ms): {file}")
