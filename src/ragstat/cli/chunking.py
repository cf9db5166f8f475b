"""`ragstat chunking CHUNKS.jsonl`: structural and lexical checks of one or more chunkers,
clustered by document (the work is in :mod:`ragstat.api.verbs.chunking`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragstat.cli import options as o

if TYPE_CHECKING:  # the library is imported when the verb runs
    from ragstat.api.verbs.chunking import ChunkingReport


def _render(result: ChunkingReport) -> None:
    """One table per chunker, its sizes, then the comparison sentence."""
    from ragstat.cli import items
    from ragstat.cli.terminal import console, literal

    out = console()
    for name, scores in result.chunkers.items():
        items.render(scores, f"chunker {name}: {result.source}")
        s = result.sizes[name]
        w = s["words"]
        out.print(
            literal(
                f"{s['chunks']} chunks in {s['documents']} documents; words mean {w['mean']:.1f}, "
                f"p5 {w['p5']:g}, p50 {w['p50']:g}, p95 {w['p95']:g}; "
                f"{s['share_under_min_words']:.1%} under {s['min_words']} words, "
                f"{s['share_over_max_words']:.1%} over {s['max_words']}"
            )
        )
    if result.sentence:
        out.print(literal(result.sentence))
    for note in result.notes:
        out.print(literal(f"note: {note}"))


def chunking(
    file: Annotated[Path, typer.Argument(help="JSONL chunks: doc_id, chunk_id, text, chunker")],
    systems: Annotated[
        str | None, typer.Option(help="Two chunkers A,B: per-document A − B boundary problems")
    ] = None,
    min_words: Annotated[int, typer.Option(help="Chunks under this many words are small")] = 25,
    max_words: Annotated[int, typer.Option(help="Chunks over this many words are large")] = 400,
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 1999,
    seed: o.Seed = None,
    as_json: o.Json = False,
) -> None:
    """Cuts inside sentences, tables and lists, orphan headings, sizes and coherence.

    JSONL chunks: doc_id, chunk_id, text, optional chunker. Fields, examples, output:
    docs/formats.md.
    """
    from ragstat.api.verbs.chunking import chunking as check_chunks

    result = check_chunks(
        file, systems=systems, min_words=min_words, max_words=max_words, level=level,
        bootstrap_reps=bootstrap_reps, seed=seed,
    )  # fmt: skip
    o.emit(result, as_json, lambda: _render(result))
