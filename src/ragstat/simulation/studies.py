"""Censuses from self-retrieval study folders (chunk-size sensitivity, seed 001)."""

from __future__ import annotations

from pathlib import Path

from ragstat.errors import InputError
from ragstat.records import aggregate_file
from ragstat.records.textio import read_json_file
from ragstat.simulation.census import Census

__all__ = ["study_census"]


def _summary(path: Path, system: str | None) -> tuple[str, object, object]:
    """(retriever, chunk_words, documents) from a study's summary.json; InputError if its
    layout is not the one `ragstat study` writes."""
    summary = read_json_file(path, "study summary")
    try:
        config = summary["config"]  # type: ignore[index]
        retriever = system or config["retrievers"][0]
        facts = config["chunk_words"], summary["counts"]["documents"]  # type: ignore[index]
    except (KeyError, TypeError, IndexError) as exc:
        raise InputError(
            f"{path}: not the summary.json of a ragstat study ({type(exc).__name__}: {exc})"
        ) from None
    if not isinstance(retriever, str) or not retriever:
        raise InputError(f"{path}: config.retrievers must list retriever names")
    return retriever, *facts


def study_census(folder: str | Path, *, score: str = "hit1", system: str | None = None):
    """(Census of one retriever's per-document hits, facts about the study)."""
    folder = Path(folder)
    summary_path, records = folder / "summary.json", folder / "records.parquet"
    if not summary_path.is_file() or not records.is_file():
        raise InputError(f"{folder}: not a study folder (needs summary.json and records.parquet)")
    retriever, chunk_words, documents = _summary(summary_path, system)
    stats = aggregate_file(records, score=score, system=retriever, position="position")
    info = {
        "folder": str(folder),
        "retriever": retriever,
        "chunk_words": chunk_words,
        "eligible_documents": stats.K,
        "documents": documents,
    }
    return Census.from_docstats(stats), info
