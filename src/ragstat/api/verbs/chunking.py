"""``ragstat.chunking``: structural and lexical checks of one or more chunkers, clustered by
document (the document is the sampling unit: K = documents, never chunks).

Records are chunks: ``doc_id``, ``chunk_id`` (its order within the document: ids are sorted
naturally, so ``"2"`` comes before ``"10"``), ``text`` and optionally ``chunker`` (the
chunker that made it; several chunkers are checked side by side). Per chunk
(:mod:`ragstat.metrics.chunking`): ``cut_in_sentence``, ``cut_in_table``, ``cut_in_list``,
``orphan_heading``, ``boundary_problem`` (any of the four), ``words``, ``characters``,
``under_min_words`` (words < ``min_words``), ``over_max_words`` (words > ``max_words``),
``coherence`` and ``boundary_similarity`` (TF-IDF fitted on that chunker's chunks). Each
score's mean gets intervals clustered by ``doc_id``.

Two chunkers A and B (``systems="A,B"``; by default the two in sorted order when there are
exactly two) are compared per document: y_d = the share of d's chunks with a boundary
problem under A minus that share under B, over the documents both chunked (the others are
dropped and counted). The intervals are those of :func:`ragstat.compare` on this
per-document table (one row per document and chunker, the document its own cluster), with
the ``macro`` estimand: the difference for a typical document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragstat.api.evaluation import draw_seed, json_ready
from ragstat.api.items import (
    ItemScores,
    Records,
    Scores,
    check_reps,
    read_records,
    score_intervals,
)
from ragstat.api.verbs.compare import parse_systems
from ragstat.errors import InputError
from ragstat.inference.paired import ComparisonReport
from ragstat.tidy import Tidy

__all__ = ["ChunkingReport", "chunking"]

#: The chunker name of records without a ``chunker`` field.
SINGLE = "all"
_DIGITS = re.compile(r"(\d+)")
Documents = dict[str, list[tuple[str, str]]]


@dataclass(frozen=True, repr=False)
class ChunkingReport(Tidy):
    """Per chunker its item scores (``chunkers``) and size summary (``sizes``); with two
    chunkers the per-document comparison of boundary problems (``comparison``, and its
    plain ``sentence``). ``to_dict()`` is what ``ragstat chunking --json`` prints."""

    source: str
    chunkers: dict[str, ItemScores]
    sizes: dict[str, dict[str, Any]]
    comparison: ComparisonReport | None = None
    sentence: str | None = None
    dropped_documents: int = 0
    notes: tuple[str, ...] = ()
    level: float = 0.95
    seed: int | None = None

    headline_columns = ("chunker", "score", "estimand", "method", "estimate", "lower", "upper")

    def to_dict(self) -> dict[str, Any]:
        comparison = None
        if self.comparison is not None:
            comparison = {
                "systems": list(self.comparison.systems),
                "score": "boundary_problems",
                "dropped_documents": self.dropped_documents,
                "sentence": self.sentence,
                "result": self.comparison.to_dict(),
            }
        return json_ready(
            {
                "chunkers": {
                    name: {"sizes": self.sizes[name], "scores": s.to_dict()["scores"]}
                    for name, s in self.chunkers.items()
                },
                "clustering": "clustered by 'doc_id'",
                "comparison": comparison,
                "seed": self.seed,
                "notes": list(self.notes),
            }
        )

    def _comparison_rows(self, recommended: bool) -> list[dict[str, Any]]:
        if self.comparison is None:
            return []
        a, b = self.comparison.systems
        rows = self.comparison.headline_rows() if recommended else self.comparison.rows()
        return [{**r, "chunker": f"{a} − {b}", "score": "boundary_problems"} for r in rows]

    def rows(self) -> list[dict[str, Any]]:
        out = [{"chunker": n, **r} for n, s in self.chunkers.items() for r in s.rows()]
        return out + self._comparison_rows(False)

    def headline_rows(self) -> list[dict[str, Any]]:
        out = [{"chunker": n, **r} for n, s in self.chunkers.items() for r in s.headline_rows()]
        return out + self._comparison_rows(True)

    def sentences(self) -> list[str]:
        """The comparison's sentence first, then every chunker's sentence per score."""
        first = [] if self.sentence is None else [self.sentence]
        return first + [f"{n}: {v}" for n, s in self.chunkers.items() for v in s.sentences()]

    def comparison_flags(self) -> list[str]:
        """Every flag of the comparison's intervals, in words (empty without one)."""
        from ragstat.api.item_verdicts import report_flags

        if self.comparison is None:
            return []
        said = report_flags(self.comparison.report.to_dict(), "macro")
        a, b = self.comparison.systems
        return [] if said is None else [f"{a} − {b} boundary problems: {said}"]

    def comparison_headline(self) -> dict[str, Any] | None:
        """The comparison's headline (estimate, method, bounds; None bounds when none)."""
        from ragstat.inference.headline import headline

        if self.comparison is None:
            return None
        h = headline(self.comparison.report, "macro")
        return {"estimate": h.estimate, "method": h.method if h.available else None,
                "lower": h.lower, "upper": h.upper}  # fmt: skip

    def title(self) -> str:
        return f"chunking checks: {self.source}, {self.level:.0%} intervals clustered by document"


def _order(chunk_id: str) -> tuple[Any, ...]:
    """Natural order of chunk ids: digit runs compare as numbers ("2" < "10")."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in _DIGITS.split(chunk_id))


def _group(rows: list[dict[str, Any]], label: str) -> dict[str, Documents]:
    """chunker → doc id → [(item id, text)] in chunk order; bad records → InputError."""
    with_chunker = sum("chunker" in r for r in rows)
    if 0 < with_chunker < len(rows):
        first = next(i for i, r in enumerate(rows, 1) if "chunker" not in r)
        raise InputError(f"{label}: record {first} has no 'chunker' while others have one")
    found: dict[str, dict[str, dict[str, str]]] = {}
    for i, r in enumerate(rows, 1):
        for key in ("doc_id", "chunk_id", "text"):
            if r.get(key) is None:
                raise InputError(f"{label}: record {i} has no {key!r}")
        if not isinstance(r["text"], str):
            raise InputError(f"{label}: record {i}: 'text' must be a string")
        chunker, doc, cid = str(r.get("chunker", SINGLE)), str(r["doc_id"]), str(r["chunk_id"])
        per_doc = found.setdefault(chunker, {}).setdefault(doc, {})
        if cid in per_doc:
            raise InputError(f"{label}: record {i}: chunk {cid!r} of {doc!r} appears twice")
        per_doc[cid] = r["text"]
    return {
        chunker: {
            doc: [(f"{doc}#{c}", chunks[c]) for c in sorted(chunks, key=_order)]
            for doc, chunks in docs.items()
        }
        for chunker, docs in found.items()
    }


def _sizes(words: np.ndarray, chars: np.ndarray, min_words: int, max_words: int) -> dict:
    def dist(x: np.ndarray) -> dict[str, float]:
        p5, p50, p95 = np.percentile(x, [5, 50, 95])
        return {"mean": float(x.mean()), "p5": float(p5), "p50": float(p50), "p95": float(p95)}

    return {
        "chunks": int(words.size),
        "words": dist(words),
        "characters": dist(chars),
        "share_under_min_words": float((words < min_words).mean()),
        "share_over_max_words": float((words > max_words).mean()),
        "min_words": min_words,
        "max_words": max_words,
    }


def _scores(docs: Documents, min_words: int, max_words: int) -> tuple[Scores, dict, list]:
    """The per-chunk scores of one chunker, its size summary and the rows to cluster."""
    from ragstat.metrics.chunking import boundary_checks, lexical_coherence

    b = boundary_checks(docs)
    c = lexical_coherence(docs)
    ids = list(b.item_ids)
    scores: Scores = {
        name: (ids, np.asarray(getattr(b, name), float))
        for name in ("cut_in_sentence", "cut_in_table", "cut_in_list", "orphan_heading")
    }
    scores["boundary_problem"] = (ids, b.problem.astype(float))
    scores["words"] = (ids, b.words.astype(float))
    scores["characters"] = (ids, b.characters.astype(float))
    scores["under_min_words"] = (ids, (b.words < min_words).astype(float))
    scores["over_max_words"] = (ids, (b.words > max_words).astype(float))
    scores["coherence"] = (ids, np.asarray(c.coherence, float))
    scores["boundary_similarity"] = (ids, np.asarray(c.boundary_similarity, float))
    sizes = _sizes(b.words, b.characters, min_words, max_words)
    sizes["documents"] = len(docs)
    sizes["boundaries"] = b.boundaries
    rows = [{"id": i, "doc_id": d} for i, d in zip(b.item_ids, b.doc_ids, strict=True)]
    return scores, sizes, rows


def _problem_shares(scores: Scores, rows: list) -> dict[str, float]:
    """doc id → the share of its chunks with a boundary problem."""
    ids, values = scores["boundary_problem"]
    doc_of = {r["id"]: r["doc_id"] for r in rows}
    total: dict[str, list[float]] = {}
    for item, v in zip(ids, values, strict=True):
        total.setdefault(doc_of[item], []).append(float(v))
    return {d: float(np.mean(v)) for d, v in total.items()}


def _sentence(comparison: ComparisonReport, a: str, b: str) -> str:
    """One plain sentence on A − B in boundary problems per document (lower is better)."""
    from ragstat.inference.verdict import format_amount, verdicts

    v = verdicts(comparison, a, b, "boundary problems", unit_scale=100)[0]
    if v.difference is None or v.lower is None or v.upper is None:
        return v.sentence
    amount = format_amount(v.difference, 100, True)
    span = f"{format_amount(v.lower, 100, True)} to {format_amount(v.upper, 100, True)}"
    if v.upper < 0:
        verdict = f"{a} cuts badly less often than {b}"
    elif v.lower > 0:
        verdict = f"{b} cuts badly less often than {a}"
    else:
        verdict = f"{a} and {b} cannot be told apart"
    return (
        f"Share of a typical document's chunks with a boundary problem, {a} − {b}: "
        f"{amount} points ({v.level * 100:g} % interval {span}, {v.documents:,} documents): "
        f"{verdict}"
    )


def _compare(
    shares: dict[str, dict[str, float]], pair: tuple[str, str], level: float, reps: int, seed: int
) -> tuple[ComparisonReport | None, str | None, int, str | None]:
    """The paired per-document comparison of A and B (None with a note when impossible)."""
    import pandas as pd

    from ragstat.api.verbs.compare import compare

    a, b = pair
    for name in pair:
        if name not in shares:
            raise InputError(f"--systems: no chunker {name!r} (found {', '.join(sorted(shares))})")
    both = sorted(set(shares[a]) & set(shares[b]))
    dropped = len(set(shares[a]) ^ set(shares[b]))
    if len(both) < 2:
        return None, None, dropped, f"{a} vs {b}: fewer than two documents chunked by both"
    frame = pd.DataFrame(
        [
            {"system": s, "query_id": d, "doc_id": d, "boundary_problems": shares[s][d]}
            for s in pair
            for d in both
        ]
    )
    result = compare(
        frame, systems=pair, score="boundary_problems", estimands=("macro",),
        level=level, bootstrap_reps=reps, seed=seed,
    )  # fmt: skip
    if not isinstance(result, ComparisonReport):  # pragma: no cover - srs design only
        raise InputError("chunking: the comparison did not return a paired report")
    return result, _sentence(result, a, b), dropped, None


def chunking(
    data: Records,
    *,
    systems: str | Sequence[str] | None = None,
    min_words: int = 25,
    max_words: int = 400,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> ChunkingReport:
    """Chunk checks per chunker, clustered by document, and the paired comparison of two
    chunkers (see the module docstring). ``seed=None`` draws a seed (``result.seed``)."""
    check_reps(bootstrap_reps)
    if not 0 <= min_words <= max_words:
        raise InputError(f"need 0 ≤ min_words ≤ max_words, got {min_words} and {max_words}")
    rows, label = read_records(data, "chunk records")
    groups = _group(rows, label)
    seed = draw_seed(seed)
    found: dict[str, ItemScores] = {}
    sizes: dict[str, dict[str, Any]] = {}
    shares: dict[str, dict[str, float]] = {}
    for name in sorted(groups):
        scores, sizes[name], items = _scores(groups[name], min_words, max_words)
        result, note = score_intervals(
            scores, items, "doc_id", level=level, seed=seed, reps=bootstrap_reps,
            questions=dict.fromkeys(scores, "a random chunk"),
        )  # fmt: skip
        found[name] = ItemScores("chunking", label, result, note, (), level, seed)
        shares[name] = _problem_shares(scores, items)
    pair = parse_systems(systems)
    if pair is None and len(groups) == 2:
        pair = (sorted(groups)[0], sorted(groups)[1])
    notes: list[str] = []
    comparison, sentence, dropped = None, None, 0
    if pair is not None:
        comparison, sentence, dropped, why = _compare(shares, pair, level, bootstrap_reps, seed)
        notes += [why] if why else []
        if dropped:
            notes.append(f"{dropped} document(s) chunked by only one of {pair[0]}, {pair[1]}")
    return ChunkingReport(
        label, found, sizes, comparison, sentence, dropped, tuple(notes), level, seed
    )
