"""`ragstat chunking CHUNKS.jsonl`: structural and lexical checks of one or more chunkers,
clustered by document (the work is in :mod:`ragstat.api.verbs.chunking`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import items
from ragstat.cli import options as o
from ragstat.cli.verb import options_command

if TYPE_CHECKING:  # the library is imported when the verb runs
    from ragstat.api.verbs.chunking import ChunkingReport

File = Annotated[Path, typer.Argument(help="JSONL chunks: doc_id, chunk_id, text, chunker")]
Systems = Annotated[
    str | None, typer.Option(help="Two chunkers A,B: per-document A − B boundary problems")
]
MinWords = Annotated[int, typer.Option(help="Chunks under this many words are small")]
MaxWords = Annotated[int, typer.Option(help="Chunks over this many words are large")]


@dataclass(frozen=True, kw_only=True)
class ChunkingOptions(o.OutputOptions):
    file: File
    systems: Systems = None
    min_words: MinWords = 25
    max_words: MaxWords = 400
    level: o.Level = 0.95
    bootstrap_reps: o.Reps = 1999
    seed: o.Seed = None


def _sizes(s: dict[str, Any]) -> str:
    w = s["words"]
    return (
        f"{s['chunks']} chunks in {s['documents']} documents; words mean {w['mean']:.1f}, "
        f"p5 {w['p5']:g}, p50 {w['p50']:g}, p95 {w['p95']:g}; "
        f"{s['share_under_min_words']:.1%} under {s['min_words']} words, "
        f"{s['share_over_max_words']:.1%} over {s['max_words']}"
    )


def _render(result: ChunkingReport) -> None:
    """The comparison sentence first, then per chunker its sentences, table and sizes."""
    from ragstat.cli.terminal import console, literal

    out = console()
    if result.sentence:
        out.print(literal(result.sentence))
    for name, scores in result.chunkers.items():
        items.render(scores, f"chunker {name}: {result.source}", prefix=f"{name}: ")
        out.print(literal(_sizes(result.sizes[name])))
    for line in result.comparison_flags():
        out.print(literal(f"flag: {line}"))
    for note in result.notes:
        out.print(literal(f"note: {note}"))


def _describe(result: ChunkingReport) -> tuple[dict[str, Any], str]:
    """Registry results (per chunker its scores; the comparison's headline) and summary."""
    results: dict[str, Any] = {n: items.item_results(s) for n, s in result.chunkers.items()}
    if result.comparison is not None:
        results["comparison"] = result.comparison_headline()
    flags = [f"{n}: {f}" for n, s in result.chunkers.items() for f in s.flags()]
    more = {
        "Sizes": [f"{n}: {_sizes(s)}" for n, s in result.sizes.items()],
        "Flags": flags + result.comparison_flags(),
        "Notes": list(result.notes),
    }
    return results, items.markdown_summary(result, more)


@options_command(ChunkingOptions)
def chunking(a: ChunkingOptions) -> None:
    """Cuts inside sentences, tables and lists, orphan headings, sizes and coherence.

    JSONL chunks: doc_id, chunk_id, text, optional chunker. Fields, examples, output:
    docs/formats/chunking.md.
    """
    from ragstat.api.verbs.chunking import chunking as check_chunks

    result = items.run_recorded(
        "chunking", a, {"file": a.file},
        lambda: check_chunks(
            a.file, systems=a.systems, min_words=a.min_words, max_words=a.max_words,
            level=a.level, bootstrap_reps=a.bootstrap_reps, seed=a.seed,
        ),
        _describe,
    )  # fmt: skip
    o.emit(result, a.as_json, lambda: _render(result))
