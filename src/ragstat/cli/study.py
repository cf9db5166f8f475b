"""`ragstat study CORPUS` and `ragstat demo`: the self-retrieval study of seed 001."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import absolute, headline, recorded
from ragstat.cli.terminal import literal, markup, safe
from ragstat.corpus.loaders import load_corpus
from ragstat.engine import get_executor
from ragstat.errors import InputError, RagstatError
from ragstat.outfolder import link_entries, staging_folders

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

    @property
    def batched(self) -> bool:
        return self.engine != "local" or self.workers > 1 or self.index_dir is not None

    def executor(self):
        if self.scheduler is not None and self.engine != "dask":
            raise InputError("--scheduler applies to --engine dask only")
        if not self.batched:
            return nullcontext(None)
        return get_executor(self.workers, self.engine, self.scheduler)


def _run(
    corpus_name: str,
    config: dict,
    out: Path,
    seed: int,
    quiet: bool,
    as_json: bool,
    strata: str | None = None,
    command: str = "study",
    scale: Scale | None = None,
    force: bool = False,
) -> None:
    from ragstat.report import report_from_study
    from ragstat.study import StudyConfig, run_study, write_study

    study_config = StudyConfig(**config)
    show = not quiet and not as_json and sys.stderr.isatty()
    name = corpus_name if corpus_name == "demo" else absolute(corpus_name)
    scale = scale or Scale()
    settings = {"corpus": name, **study_config.to_dict(), "seed": seed, "strata": strata}
    settings["engine"] = scale.engine
    inputs = {"corpus": Path(corpus_name)} if corpus_name != "demo" else {}
    with recorded(command, settings, inputs=inputs, out=out, force=force) as log:
        corpus = load_corpus(corpus_name, exclude=(out, *staging_folders(out)))
        _say_skipped(corpus.skipped, quiet or as_json)
        log.corpus_fingerprint = corpus.fingerprint
        with _progress(show) as say, scale.executor() as executor:
            index_dir = scale.index_dir or (_staged_index(out, log.out) if scale.batched else None)
            study = run_study(
                corpus,
                study_config,
                progress=say,
                executor=executor,
                index_dir=index_dir,
                replace_index=scale.index_dir is None,  # OUT/index is this run's to rebuild
            )
            say("clustered intervals and the paired comparison")
            staging = log.out or out
            summary = write_study(study, staging, seed=seed, strata=strata)
            log.wrote(*(staging / f for f in (*summary["files"].values(), "summary.json")))
            say("report")
            log.write_report(report_from_study(staging, created=log.started_at))
        log.results = {
            name: {"hit1": headline(r["hit1"])} for name, r in summary["retrievers"].items()
        }
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False, default=str))
        return
    from ragstat.cli.render_study import print_study

    print_study(summary, out)


def _staged_index(out: Path, staging: Path | None) -> Path:
    """The default index folder: inside the staging folder, with the previous run's index
    hard-linked in (reused at no cost; a rebuild never touches the published folder)."""
    from ragstat.study.index import read_manifest

    if staging is None:
        return out / "index"
    old, new = out / "index", staging / "index"
    try:
        manifest = read_manifest(old) if old.is_dir() else None
    except (RagstatError, OSError):
        manifest = None
    if manifest is not None:  # only what the index lists: files a rebuild writes are new
        names = ["manifest.json", "chunk_doc.npy", *map(str, manifest.get("retrievers", []))]
        link_entries(old, new, names)
    return new


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
    return tuple(r.strip() for r in value.split(",") if r.strip())


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
        str | None, typer.Option(help="Metadata field to break hit@1 down by")
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
    out: Out = None,
    force: o.Force = False,
    seed: Seed = 0,
    quiet: Quiet = False,
    as_json: o.Json = False,
) -> None:
    """Self-retrieval study: chunk, query with each chunk's first words, count same-document hits."""
    from ragstat.study import parse_sample_queries

    config = dict(
        retrievers=_retrievers(retrievers),
        chunk_words=chunk_words,
        query_words=query_words,
        k=k,
        stopwords=_none(stopwords),
        stemmer=_none(stemmer),
        sample_queries=parse_sample_queries(sample_queries),
        sample_seed=sample_seed,
    )
    scale = Scale(engine, scheduler, workers, index_dir)
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
