"""Censuses from self-retrieval study folders (the chunk-size sensitivity of a study).

Only the facts a census needs are read from summary.json (:class:`StudyFacts`): the
simulation layer sits below the report layer, where the whole summary's type
(``ragstat.report.summary.StudySummary``) lives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragstat.errors import InputError
from ragstat.records import aggregate_file
from ragstat.records.textio import read_json_file
from ragstat.simulation.census import Census

__all__ = ["StudyFacts", "study_census"]


@dataclass(frozen=True)
class StudyFacts:
    """What a census of a study folder needs from its summary.json."""

    retrievers: tuple[str, ...]
    chunk_words: int | None
    documents: int

    @classmethod
    def read(cls, path: Path) -> StudyFacts:
        """The facts of ``path``; InputError naming it if its layout is not the one
        `ragstat study` writes (``config.retrievers``, ``config.chunk_words``,
        ``counts.documents``)."""
        data = read_json_file(path, "study summary")
        try:
            config, counts = _object(data)["config"], _object(data)["counts"]
            names = _object(config)["retrievers"]
            if not isinstance(names, list):
                raise TypeError(f"config.retrievers: expected a list, got {names!r}")
            facts = cls(
                retrievers=tuple(names),
                chunk_words=_object(config).get("chunk_words"),
                documents=int(_object(counts)["documents"]),
            )
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise InputError(
                f"{path}: not the summary.json of a ragstat study ({type(exc).__name__}: {exc})"
            ) from None
        if not facts.retrievers or not all(isinstance(r, str) and r for r in facts.retrievers):
            raise InputError(f"{path}: config.retrievers must list retriever names")
        return facts


def _object(value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return value


def study_census(
    folder: str | Path,
    *,
    score: str = "hit1",
    system: str | None = None,
    non_numeric: str = "error",
) -> tuple[Census, dict[str, Any]]:
    """(Census of one retriever's per-document hits, facts about the study); ``system``
    defaults to the study's first retriever; ``non_numeric`` as in
    :func:`ragstat.records.aggregate_file`."""
    folder = Path(folder)
    summary_path, records = folder / "summary.json", folder / "records.parquet"
    if not summary_path.is_file() or not records.is_file():
        raise InputError(f"{folder}: not a study folder (needs summary.json and records.parquet)")
    facts = StudyFacts.read(summary_path)
    retriever = system or facts.retrievers[0]
    stats = aggregate_file(records, score=score, system=retriever, position="position",
                           non_numeric=non_numeric)  # fmt: skip
    info = {
        "folder": str(folder),
        "retriever": retriever,
        "chunk_words": facts.chunk_words,
        "eligible_documents": stats.K,
        "documents": facts.documents,
    }
    return Census.from_docstats(stats), info
