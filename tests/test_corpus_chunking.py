"""Chunking (SPEC.md §1): fixed word windows, stable ids, queries, real corpora."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from ragstat.corpus import (
    Chunk,
    Corpus,
    Document,
    check_sizes,
    chunk_corpus,
    chunk_document,
    load_jsonl,
    query_text,
    split_words,
)
from ragstat.errors import InputError


def words(n: int, prefix: str = "w") -> str:
    return " ".join(f"{prefix}{i}" for i in range(n))


def test_split_words_any_whitespace():
    assert split_words(" um\tdois\n\ntrês\u00a0quatro  ") == ["um", "dois", "três", "quatro"]
    assert split_words("") == [] and split_words(" \n ") == []


def test_chunk_document_windows_and_remainder():
    doc = Document("lei/1", "  a b\nc   d e\tf g  ")
    chunks = chunk_document(doc, chunk_words=3)
    assert chunks == [
        Chunk("lei/1#0", "lei/1", 0, "a b c"),
        Chunk("lei/1#1", "lei/1", 1, "d e f"),
        Chunk("lei/1#2", "lei/1", 2, "g"),
    ]
    assert [c.chunk_id for c in chunk_document(doc, 7)] == ["lei/1#0"]
    assert chunk_document(Document("e", " \n "), 3) == []


def test_chunk_document_default_is_100_words():
    chunks = chunk_document(Document("d", words(250)))
    assert [len(c.text.split()) for c in chunks] == [100, 100, 50]
    assert chunks[1].text.split()[0] == "w100"


def test_query_text_first_words():
    assert query_text(words(100)) == words(20)
    assert query_text("a b c", query_words=5) == "a b c"
    assert query_text("a  b\nc d", query_words=3) == "a b c"


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True, None])
def test_bad_sizes(bad):
    with pytest.raises(InputError, match="chunk_words must be a positive integer"):
        chunk_document(Document("d", "a b"), bad)
    with pytest.raises(InputError, match="chunk_words must be a positive integer"):
        chunk_corpus(Corpus((Document("d", "a b"),)), bad)
    with pytest.raises(InputError, match="query_words must be a positive integer"):
        query_text("a b", bad)
    with pytest.raises(InputError, match="query_words must be a positive integer"):
        check_sizes(100, bad)


def test_query_longer_than_chunk_is_an_error():
    assert check_sizes(100, 20) == (100, 20)
    assert check_sizes(np.int64(50), 50) == (50, 50)
    with pytest.raises(InputError, match=r"query_words \(30\) is larger than chunk_words \(20\)"):
        check_sizes(20, 30)
    table = chunk_corpus(Corpus((Document("d", words(40)),)), 20)
    with pytest.raises(InputError, match="larger than chunk_words"):
        table.query_texts(21)


def test_chunk_table_columns():
    corpus = Corpus((Document("a", words(5)), Document("empty", "  "), Document("b", words(2))))
    table = chunk_corpus(corpus, chunk_words=2)
    assert table.chunk_id == ("a#0", "a#1", "a#2", "b#0")
    assert table.doc_id == ("a", "a", "a", "b")
    assert table.doc_index.tolist() == [0, 0, 0, 2]
    assert table.position.tolist() == [0, 1, 2, 0]
    assert table.n_words.tolist() == [2, 2, 1, 2]
    assert table.chunks_per_doc.tolist() == [3, 0, 1]
    assert table.doc_ids == ("a", "empty", "b")
    assert table.text[2] == "w4" and len(table) == 4 and table.chunk_words == 2
    assert table.chunk(1) == Chunk("a#1", "a", 1, "w2 w3")
    assert list(table.chunks()) == [c for d in corpus.documents for c in chunk_document(d, 2)]
    assert table.query_texts(1) == ["w0", "w2", "w4", "w0"]
    with pytest.raises(ValueError):
        table.position[0] = 5  # read-only columns


@pytest.mark.parametrize("name", ["aneel-ren1000.jsonl", "planalto-leis.jsonl"])
def test_real_corpora(shared, name):
    corpus = load_jsonl(shared / "data" / name)
    counts = [len(split_words(d.text)) for d in corpus.documents]
    start = time.perf_counter()
    table = chunk_corpus(corpus, chunk_words=100)
    elapsed = time.perf_counter() - start
    assert len(table) == sum(math.ceil(n / 100) for n in counts)
    assert table.chunks_per_doc.tolist() == [math.ceil(n / 100) for n in counts]
    assert len(set(table.chunk_id)) == len(table)
    # the last chunk of each document holds the remainder; all others are full
    last = np.r_[table.doc_index[1:] != table.doc_index[:-1], True]
    expected_last = [n - 100 * (math.ceil(n / 100) - 1) for n in counts if n]
    assert table.n_words[last].tolist() == expected_last
    assert np.all(table.n_words[~last] == 100)
    assert [len(t.split()) for t in table.text] == table.n_words.tolist()
    # chunk texts rebuild each document's words exactly
    rebuilt: dict[str, list[str]] = {}
    for doc_id, text in zip(table.doc_id, table.text, strict=True):
        rebuilt.setdefault(doc_id, []).extend(text.split())
    assert all(rebuilt.get(d.doc_id, []) == split_words(d.text) for d in corpus.documents)
    queries = table.query_texts(20)
    assert all(t.startswith(q) for q, t in zip(queries, table.text, strict=True))
    assert elapsed < 1.0
    if name == "planalto-leis.jsonl":
        assert len(corpus) == 687 and 6000 < len(table) < 7000
