"""`ragstat demo`: the self-retrieval study on the built-in corpus."""

from __future__ import annotations

import typer


def demo() -> None:
    """Run the self-retrieval study on the built-in demo corpus."""
    typer.echo(
        "ragstat demo: not yet available — the self-retrieval study lands with the corpus and "
        "retrieval issue. Meanwhile: `ragstat interval FILE --cluster doc_id --score hit`."
    )
