"""`ragstat study CORPUS` and `ragstat demo`: the self-retrieval study of seed 001."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import options as o
from ragstat.corpus.loaders import load_corpus

Retrievers = Annotated[str, typer.Option(help="Comma-separated: bm25, tfidf, dense, rrf")]
ChunkWords = Annotated[int, typer.Option(help="Words per chunk")]
QueryWords = Annotated[int, typer.Option(help="Words of each chunk used as its query")]
Out = Annotated[Path | None, typer.Option(help="Output folder")]
Quiet = Annotated[bool, typer.Option("--quiet", help="No progress messages")]


@contextmanager
def _progress(show: bool) -> Iterator[Callable[[str], None]]:
    """A live status line on a terminal (each step also logged); silent when piped."""
    if not show:
        yield lambda _msg: None
        return
    from rich.console import Console

    console = Console(stderr=True)
    with console.status("ragstat: starting") as status:

        def say(msg: str) -> None:
            console.log(msg)
            status.update(f"ragstat: {msg}")

        yield say


def _none(value: str) -> str | None:
    return None if value == "none" else value


def _run(
    corpus_name: str,
    retrievers: str,
    chunk_words: int,
    query_words: int,
    k: int,
    stopwords: str,
    stemmer: str,
    out: Path,
    seed: int,
    quiet: bool,
    as_json: bool,
) -> None:
    from ragstat.study import StudyConfig, run_study, write_study

    config = StudyConfig(
        retrievers=tuple(r.strip() for r in retrievers.split(",") if r.strip()),
        chunk_words=chunk_words,
        query_words=query_words,
        k=k,
        stopwords=_none(stopwords),
        stemmer=_none(stemmer),
    )
    show = not quiet and not as_json and sys.stderr.isatty()
    corpus = load_corpus(corpus_name)
    with _progress(show) as say:
        study = run_study(corpus, config, progress=say)
        say("clustered intervals and the paired comparison")
        summary = write_study(study, out, seed=seed)
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False, default=str))
        return
    from ragstat.cli.render_study import print_study

    print_study(summary, out)


def study(
    corpus: Annotated[
        str, typer.Argument(help="A .jsonl file, a folder of txt/md/html/pdf, or 'demo'")
    ],
    retrievers: Retrievers = "bm25,tfidf",
    chunk_words: ChunkWords = 100,
    query_words: QueryWords = 20,
    k: Annotated[int, typer.Option(help="Candidates kept per query (audit depth)")] = 10,
    stopwords: Annotated[str, typer.Option(help="pt, en or none")] = "none",
    stemmer: Annotated[str, typer.Option(help="pt, en or none (Snowball)")] = "none",
    out: Out = None,
    seed: o.Seed = None,
    quiet: Quiet = False,
    as_json: o.Json = False,
) -> None:
    """Self-retrieval study: chunk, query with each chunk's first words, count same-document hits."""
    _run(
        corpus,
        retrievers,
        chunk_words,
        query_words,
        k,
        stopwords,
        stemmer,
        out or Path("ragstat-study"),
        0 if seed is None else seed,
        quiet,
        as_json,
    )


def demo(
    out: Out = None,
    retrievers: Retrievers = "bm25,tfidf",
    seed: o.Seed = None,
    quiet: Quiet = False,
    as_json: o.Json = False,
) -> None:
    """The study on the built-in corpus (249 State of the Union texts) with BM25 and TF-IDF."""
    _run(
        "demo",
        retrievers,
        100,
        20,
        10,
        "en",
        "none",
        out or Path("ragstat-demo"),
        0 if seed is None else seed,
        quiet,
        as_json,
    )
