"""`ragstat ingestion DOCS.jsonl` and `ragstat latency TRACE.jsonl`: extraction fidelity and
serving time (the work is in :mod:`ragstat.api.verbs.ingestion`).

Ingestion records: ``id`` plus any of ``reference`` + ``extracted`` (CER, WER and the
extracted-length ratio per ``class``) and ``text`` (Unicode drift: NFC ≠ NFKC, invisible
code points). Latency: JSONL spans with ``trace_id``, ``stage`` and ``duration_ms``
(or ``start_ms``/``end_ms``); percentiles per stage, and the mean time per trace with
clustered intervals when ``--cluster-by`` names a span field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli import options as o


def ingestion(
    file: Annotated[Path, typer.Argument(help="JSONL: id, reference + extracted, and/or text")],
    cluster_by: Annotated[str | None, typer.Option(help="Field with the cluster")] = None,
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 1999,
    seed: o.Seed = None,
    as_json: o.Json = False,
) -> None:
    """CER and WER per document, extracted-length ratio per class, Unicode drift.

    JSONL: id, reference + extracted and/or text. Fields, examples, output: docs/formats.md.
    """
    from ragstat.api.verbs.ingestion import ingestion as score_documents

    result = score_documents(
        file, cluster_by=cluster_by, level=level, bootstrap_reps=bootstrap_reps, seed=seed
    )
    items.emit(result, as_json, file)


def latency(
    file: Annotated[Path, typer.Argument(help="JSONL spans: trace_id, stage, duration_ms")],
    cluster_by: Annotated[str | None, typer.Option(help="Span field with the cluster")] = None,
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 1999,
    seed: o.Seed = None,
    as_json: o.Json = False,
) -> None:
    """p50/p95/p99 per pipeline stage; per-trace stage times with clustered intervals.

    JSONL spans: trace_id, stage, duration_ms. Fields, examples, output: docs/formats.md.
    """
    from ragstat.api.verbs.ingestion import latency as score_traces

    result = score_traces(
        file, cluster_by=cluster_by, level=level, bootstrap_reps=bootstrap_reps, seed=seed
    )
    items.emit(result, as_json, file)
