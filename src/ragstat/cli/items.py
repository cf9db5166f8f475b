"""Terminal table of the item-level metric verbs (``ragstat.api.items``): per score the
mean, the recommended clustered interval and the naive one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragstat.cli import options as o

if TYPE_CHECKING:  # the library is imported when a verb runs: a lean start for the others
    from ragstat.api.items import ItemScores, Scores

__all__ = ["emit", "render", "score_intervals"]

_COLUMNS = ("score", "mean", "n", "not scored", "clusters", "95% recommended", "naive iid")


def score_intervals(
    scores: Scores,
    rows: list[dict[str, Any]],
    cluster_by: str | None,
    *,
    level: float = 0.95,
    seed: int = 0,
    reps: int = 1999,
) -> dict[str, Any]:
    """{"scores": {score: {mean, n, …, intervals}}, "clustering": note} — the JSON form of
    :func:`ragstat.api.items.score_intervals` (kept for callers of the former helper)."""
    from ragstat.api.items import score_intervals as compute

    found, note = compute(scores, rows, cluster_by, level=level, seed=seed, reps=reps)
    return {"scores": {k: v.to_dict() for k, v in found.items()}, "clustering": note}


def _ci(ivs: dict[str, dict[str, Any]], method: str, named: bool = False) -> str:
    iv = ivs.get(method)
    if iv is None or iv["lower"] is None:
        return "—"
    return f"[{iv['lower']:.3f}, {iv['upper']:.3f}]" + (f" {method}" if named else "")


def render(result: ItemScores, title: str) -> None:
    """The scores as a table, then the clustering rule and the notes."""
    from rich.table import Table

    from ragstat.cli.terminal import console as make_console
    from ragstat.cli.terminal import literal

    data = result.to_dict()
    console = make_console()
    t = Table(title=literal(title), title_justify="left")
    for col in _COLUMNS:
        t.add_column(col, justify="left" if col == "score" else "right")
    for name, e in data["scores"].items():
        ivs = {iv["method"]: iv for iv in e["intervals"]}
        t.add_row(
            literal(name),
            "—" if e["mean"] is None else f"{e['mean']:.4f}",
            str(e["n"]),
            str(e["not_scored"]),
            str(e.get("clusters", "—")),
            _ci(ivs, e.get("recommended") or "cr2_bm", named=True),
            _ci(ivs, "wald_iid"),
        )
    console.print(t)
    console.print(literal(data["clustering"]))
    for extra in data.get("notes", []):
        console.print(literal(f"note: {extra}"))


def emit(result: ItemScores, as_json: bool, source: object) -> None:
    """One JSON object (``--json``) or the table titled by the verb and its input."""
    o.emit(result, as_json, lambda: render(result, f"{result.heading}: {source}"))
