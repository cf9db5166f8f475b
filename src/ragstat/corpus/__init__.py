"""Corpus: documents, loaders, chunking and the text analysis of the lexical retrievers."""

from ragstat.corpus.analysis import LANGUAGES, Analyzer, fold_accents, stopword_set
from ragstat.corpus.chunking import (
    DEFAULT_CHUNK_WORDS,
    DEFAULT_QUERY_WORDS,
    ChunkTable,
    check_sizes,
    chunk_corpus,
    chunk_document,
    query_text,
    split_words,
)
from ragstat.corpus.document import Chunk, Corpus, Document, Excluded, fingerprint
from ragstat.corpus.loaders import load_corpus, load_demo, load_folder, load_jsonl

__all__ = [
    "DEFAULT_CHUNK_WORDS",
    "DEFAULT_QUERY_WORDS",
    "LANGUAGES",
    "Analyzer",
    "Chunk",
    "ChunkTable",
    "Corpus",
    "Document",
    "Excluded",
    "check_sizes",
    "chunk_corpus",
    "chunk_document",
    "fingerprint",
    "fold_accents",
    "load_corpus",
    "load_demo",
    "load_folder",
    "load_jsonl",
    "query_text",
    "split_words",
    "stopword_set",
]
