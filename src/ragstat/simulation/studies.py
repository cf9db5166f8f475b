"""Censuses from self-retrieval study folders (chunk-size sensitivity, seed 001)."""

from __future__ import annotations

import json
from pathlib import Path

from ragstat.errors import InputError
from ragstat.records import aggregate_file
from ragstat.simulation.census import Census

__all__ = ["study_census"]


def study_census(folder: str | Path, *, score: str = "hit1", system: str | None = None):
    """(Census of one retriever's per-document hits, facts about the study)."""
    folder = Path(folder)
    summary_path, records = folder / "summary.json", folder / "records.parquet"
    if not summary_path.is_file() or not records.is_file():
        raise InputError(f"{folder}: not a study folder (needs summary.json and records.parquet)")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    retriever = system or summary["config"]["retrievers"][0]
    stats = aggregate_file(records, score=score, system=retriever, position="position")
    info = {
        "folder": str(folder),
        "retriever": retriever,
        "chunk_words": summary["config"]["chunk_words"],
        "eligible_documents": stats.K,
        "documents": summary["counts"]["documents"],
    }
    return Census.from_docstats(stats), info
