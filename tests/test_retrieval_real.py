"""Retrievers on the real Portuguese corpus ../shared/data/planalto-leis.jsonl (skipped if absent)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from conftest import SHARED
from ragstat.retrieval import BM25Retriever, RRFRetriever, TfidfRetriever
from test_retrieval_lexical import lucene_bm25

pytestmark = pytest.mark.slow  # real corpora


def tok(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


@pytest.fixture(scope="module")
def planalto():
    path = SHARED / "data" / "planalto-leis.jsonl"
    if not path.is_file():
        pytest.skip("../shared/data/planalto-leis.jsonl is absent")
    chunks, doc_of = [], []
    with path.open(encoding="utf-8") as fh:
        for d, line in enumerate(fh):
            words = json.loads(line)["text"].split()
            for lo in range(0, len(words), 100):
                chunks.append(" ".join(words[lo : lo + 100]))
                doc_of.append(d)
    queries = [" ".join(c.split()[:20]) for c in chunks]
    return chunks, queries, np.array(doc_of)


def test_bm25_equals_from_scratch_on_real_text(planalto):
    chunks, queries, _ = planalto
    sub = chunks[:300]
    got = BM25Retriever(tok).fit(sub).scores(queries[:25])
    want = np.array([lucene_bm25(sub, q) for q in queries[:25]])
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=0)


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_own_chunk_never_returned_full_corpus(planalto, cls):
    chunks, queries, doc_of = planalto
    own = np.arange(len(chunks))
    res = cls(tok).fit(chunks).search(queries, 10, own)
    assert res.indices.shape == (len(chunks), 10)
    assert not (res.indices == own[:, None]).any()
    valid = res.indices >= 0
    assert (np.diff(np.where(valid, res.scores, -1e300), axis=1) <= 0).all()
    # a 20-word prefix finds its own document at rank 1 for most chunks
    hit1 = doc_of[res.indices[:, 0]] == doc_of
    assert hit1.mean() > 0.3


def test_rrf_own_chunk_never_returned(planalto):
    chunks, queries, _ = planalto
    sub, qs = chunks[:1500], queries[:1500]
    own = np.arange(len(sub))
    r = RRFRetriever([BM25Retriever(tok), TfidfRetriever(tok)], depth=50).fit(sub)
    res = r.search(qs, 10, own)
    assert not (res.indices == own[:, None]).any()
