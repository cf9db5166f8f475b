"""`ragstat study CORPUS` and `ragstat demo`: the self-retrieval study.

A thin shell over :func:`ragstat.api.verbs.study.study`: parse the options, run the study
inside the run's transaction (:func:`ragstat.cli.runlog.recorded`), write the study folder
into the staging folder, render the summary (or print ``study(...).to_dict()`` with
``--json``)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import absolute, headline, recorded
from ragstat.cli.terminal import literal, markup, safe

if TYPE_CHECKING:
    from ragstat.corpus.document import Corpus

Retrievers = Annotated[str, typer.Option(help="Comma-separated: bm25, tfidf, dense, rrf")]
ChunkWords = Annotated[int, typer.Option(help="Words per chunk")]
QueryWords = Annotated[int, typer.Option(help="Words of each chunk used as its query")]
Out = Annotated[Path | None, typer.Option(help="Output folder")]
Quiet = Annotated[bool, typer.Option("--quiet", help="No progress messages")]
Seed = Annotated[int, typer.Option(help="Seed of the bootstrap in the summary", min=0)]


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
            console.log(literal(msg))
            status.update(f"ragstat: {markup(msg)}")

        yield say


def load_corpus(
    name: str, *, exclude: Sequence[Path] = (), follow_symlinks: bool = False
) -> Corpus:
    """:func:`ragstat.corpus.loaders.load_corpus`, imported when a study runs (the corpus
    readers are not needed to start the command line)."""
    from ragstat.corpus.loaders import load_corpus as load

    return load(name, exclude=exclude, follow_symlinks=follow_symlinks)


def _none(value: str) -> str | None:
    return None if value == "none" else value


@dataclass(frozen=True)
class Scale:
    """Where the study's queries run: in this process (default), or batched over an executor
    with the index saved to a folder every worker reads."""

    engine: str = "local"
    scheduler: str | None = None
    workers: int = 1
    index_dir: Path | None = None
    #: Read symbolic links in a corpus folder that point outside it (refused by default).
    follow_symlinks: bool = False


def _run(
    corpus_name: str,
    options: dict[str, Any],
    out: Path,
    seed: int,
    quiet: bool,
    as_json: bool,
    strata: str | None = None,
    command: str = "study",
    scale: Scale | None = None,
    force: bool = False,
) -> None:
    from ragstat.api.verbs.study import batched, study_config
    from ragstat.api.verbs.study import study as self_retrieval
    from ragstat.outfolder import staging_folders

    show = not quiet and not as_json and sys.stderr.isatty()
    name = corpus_name if corpus_name == "demo" else absolute(corpus_name)
    scale = scale or Scale()
    settings = {"corpus": name, **study_config(**options).to_dict(), "seed": seed}
    settings.update(strata=strata, engine=scale.engine)
    inputs = {"corpus": Path(corpus_name)} if corpus_name != "demo" else {}
    with recorded(command, settings, inputs=inputs, out=out, force=force) as log:
        corpus = load_corpus(
            corpus_name,
            exclude=(out, *staging_folders(out)),
            follow_symlinks=scale.follow_symlinks,
        )
        _say_skipped(corpus.skipped, quiet or as_json)
        log.corpus_fingerprint = corpus.fingerprint
        staged = batched(scale.engine, scale.workers, scale.index_dir)
        with _progress(show) as say:
            index_dir = scale.index_dir or (_staged_index(out, log.out) if staged else None)
            result = self_retrieval(
                corpus,
                **options,
                strata=strata,
                engine=scale.engine,
                scheduler=scale.scheduler,
                workers=scale.workers,
                index_dir=index_dir,
                replace_index=scale.index_dir is None,  # OUT/index is this run's to rebuild
                seed=seed,
                progress=say,
            )
            say("report")
            report = result.report(created=log.started_at)
            log.wrote(*result.write(log.out or out, report=report))
        log.results = {
            n: {"hit1": headline(r.hit1.to_dict())} for n, r in result.summary.retrievers.items()
        }
    if as_json:
        from ragstat.tidy import json_text

        typer.echo(json_text(result.to_dict(), default=str))
        return
    from ragstat.cli.render_study import print_study

    print_study(result.summary, out, strata=report.strata)


def _staged_index(out: Path, staging: Path | None) -> Path:
    """The default index folder: inside the staging folder, with the previous run's index
    hard-linked in (reused at no cost; a rebuild never touches the published folder)."""
    from ragstat.api.verbs.study import reuse_index

    if staging is None:
        return out / "index"
    return reuse_index(out / "index", staging / "index")


def _say_skipped(skipped: tuple[str, ...], quiet: bool) -> None:
    """Say which sub-folders of a corpus folder were not read (ragstat output folders)."""
    if skipped and not quiet:
        shown = ", ".join(skipped[:3]) + (
            f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
        )
        print(
            f"ragstat: note: not read as documents (ragstat output): {safe(shown)}", file=sys.stderr
        )


def _retrievers(value: str) -> tuple[str, ...]:
    """``--retrievers`` as names (at most ``RAGSTAT_MAX_LIST`` of them)."""
    from ragstat.resources.caps import check_list

    names = tuple(r.strip() for r in value.split(",") if r.strip())
    check_list(names, "--retrievers")
    return names


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
    strata: Annotated[
        str | None,
        typer.Option(
            help="Metadata field to break hit@1 down by, with or without meta_ (law = meta_law): "
            "a table of hit@1 per stratum with intervals"
        ),
    ] = None,
    sample_queries: Annotated[
        str | None,
        typer.Option(
            help="Score a sample of queries: N in all or a FRACTION (0.1) of each document's "
            "chunks — a two-stage design: every document, then chunks within it"
        ),
    ] = None,
    sample_seed: Annotated[int, typer.Option(help="Seed of --sample-queries", min=0)] = 0,
    engine: o.Engine = "local",
    scheduler: o.Scheduler = None,
    workers: o.Workers = 1,
    index_dir: Annotated[
        Path | None,
        typer.Option(help="Saved index folder, readable by every worker (default OUT/index)"),
    ] = None,
    follow_symlinks: Annotated[
        bool,
        typer.Option(help="Read symbolic links that point outside the corpus folder"),
    ] = False,
    out: Out = None,
    force: o.Force = False,
    seed: Seed = 0,
    quiet: Quiet = False,
    as_json: o.Json = False,
) -> None:
    """Self-retrieval study: chunk, query with each chunk's first words, count same-document hits.

    Corpus: JSONL with doc_id, text and any metadata fields, or a folder of
    .txt/.md/.html/.pdf files. Fields, examples, output files: docs/formats/study.md.
    """
    config = dict(
        retrievers=_retrievers(retrievers),
        chunk_words=chunk_words,
        query_words=query_words,
        k=k,
        stopwords=_none(stopwords),
        stemmer=_none(stemmer),
        sample_queries=sample_queries,
        sample_seed=sample_seed,
    )
    scale = Scale(engine, scheduler, workers, index_dir, follow_symlinks)
    out = (out or Path("ragstat-study")).absolute()
    _run(corpus, config, out, seed, quiet, as_json, strata, scale=scale, force=force)


def demo(
    out: Out = None,
    force: o.Force = False,
    retrievers: Retrievers = "bm25,tfidf",
    seed: Seed = 0,
    quiet: Quiet = False,
    as_json: o.Json = False,
) -> None:
    """The study on the built-in corpus (249 State of the Union texts) with BM25 and TF-IDF;
    the same as `ragstat study demo`."""
    _run(
        "demo",
        {"retrievers": _retrievers(retrievers)},
        (out or Path("ragstat-demo")).absolute(),
        seed,
        quiet,
        as_json,
        command="demo",
        force=force,
    )
