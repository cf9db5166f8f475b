"""Smoke check of `ragstat chunking` on a real shared corpus (skipped when absent): ragstat's
100-word chunker against a sentence-aware toy chunker in this test."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragstat.api.verbs.chunking import chunking
from ragstat.corpus.chunking import chunk_document
from ragstat.corpus.document import Document

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "planalto-leis.jsonl"
DOCS = 30


def _sentence_chunks(text: str, words: int = 100) -> list[str]:
    """Whole sentences packed up to ``words`` words (a longer sentence is its own chunk)."""
    out: list[list[str]] = [[]]
    for s in re.split(r"(?<=[.!?;:])\s+", text.strip()):
        if out[-1] and len(" ".join(out[-1]).split()) + len(s.split()) > words:
            out.append([])
        out[-1].append(s)
    return [" ".join(c) for c in out if c]


@pytest.mark.skipif(not CORPUS.is_file(), reason="shared corpus not present")
def test_sentence_aware_chunker_cuts_fewer_sentences():
    rows = []
    with CORPUS.open(encoding="utf-8") as f:
        docs = [json.loads(line) for _, line in zip(range(DOCS), f, strict=False)]
    for d in docs:
        for c in chunk_document(Document(str(d["doc_id"]), d["text"]), 100):
            rows.append({"chunker": "words100", "doc_id": c.doc_id, "chunk_id": c.position,
                         "text": c.text})  # fmt: skip
        for i, t in enumerate(_sentence_chunks(d["text"])):
            rows.append({"chunker": "sentences", "doc_id": d["doc_id"], "chunk_id": i, "text": t})
    r = chunking(rows, systems="words100,sentences", seed=0, bootstrap_reps=199)
    fixed = r.chunkers["words100"].scores["cut_in_sentence"]
    aware = r.chunkers["sentences"].scores["cut_in_sentence"]
    assert fixed.mean is not None and aware.mean is not None
    assert aware.mean < fixed.mean
    assert fixed.clusters is not None and fixed.clusters <= DOCS  # K counts documents
    assert r.sentence is not None
