"""`ragstat ingestion DOCS.jsonl` and `ragstat latency TRACE.jsonl`: extraction fidelity and
serving time (the work is in :mod:`ragstat.api.verbs.ingestion`).

Ingestion records: ``id`` plus any of ``reference`` + ``extracted`` (CER, WER and the
extracted-length ratio per ``class``) and ``text`` (Unicode drift: NFC ≠ NFKC, invisible
code points). Latency: JSONL spans with ``trace_id``, ``stage`` and ``duration_ms``
(or ``start_ms``/``end_ms``); percentiles per stage, and the mean time per trace with
clustered intervals when ``--cluster-by`` names a span field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import items
from ragstat.cli.verb import options_command

Docs = Annotated[Path, typer.Argument(help="JSONL: id, reference + extracted, and/or text")]
Spans = Annotated[Path, typer.Argument(help="JSONL spans: trace_id, stage, duration_ms")]
SpanCluster = Annotated[str | None, typer.Option(help="Span field with the cluster")]


@dataclass(frozen=True, kw_only=True)
class IngestionOptions(items.ItemOptions):
    file: Docs


@dataclass(frozen=True, kw_only=True)
class LatencyOptions(items.ItemOptions):
    file: Spans
    cluster_by: SpanCluster = None


@options_command(IngestionOptions)
def ingestion(a: IngestionOptions) -> None:
    """CER and WER per document, extracted-length ratio per class, Unicode drift.

    JSONL: id, reference + extracted and/or text. Fields, examples, output:
    docs/formats/ingestion.md.
    """
    from ragstat.api.verbs.ingestion import ingestion as score_documents

    result = items.run_recorded(
        "ingestion", a, {"file": a.file},
        lambda: score_documents(
            a.file, cluster_by=a.cluster_by, level=a.level, bootstrap_reps=a.bootstrap_reps,
            seed=a.seed,
        ),
        items.describe_items,
    )  # fmt: skip
    items.emit(result, a.as_json, a.file)


@options_command(LatencyOptions)
def latency(a: LatencyOptions) -> None:
    """p50/p95/p99 per pipeline stage; per-trace stage times with clustered intervals.

    JSONL spans: trace_id, stage, duration_ms. Fields, examples, output: docs/formats/latency.md.
    """
    from ragstat.api.verbs.ingestion import latency as score_traces

    result = items.run_recorded(
        "latency", a, {"file": a.file},
        lambda: score_traces(
            a.file, cluster_by=a.cluster_by, level=a.level, bootstrap_reps=a.bootstrap_reps,
            seed=a.seed,
        ),
        items.describe_items,
    )  # fmt: skip
    items.emit(result, a.as_json, a.file)
