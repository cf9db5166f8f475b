"""Per-item scores → clustered intervals and a table: shared by the seed-004 metric verbs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import typer

from ragstat.errors import InputError
from ragstat.inference import analyze
from ragstat.records import aggregate_arrays

#: The clustered methods, the bounded ones (a score in [0, 1] never gets an impossible
#: interval: the recommended one is chosen among these) and the naive contrast.
METHODS = (
    "cr2_bm", "cr1", "t_rates", "doc_bootstrap_t", "doc_bootstrap_percentile",
    "logit", "korn_graubard", "logit_cr2_bm", "wald_iid",
)  # fmt: skip


def read_jsonl(path: Path) -> list[dict]:
    """Records of a JSONL file (split on "\\n" only; UTF-8 or gzip), with the line number of
    any bad line."""
    from ragstat.records.textio import jsonl_objects

    rows = [row for _, row in jsonl_objects(path, "JSONL file")]
    if not rows:
        raise InputError(f"{path}: no records")
    return rows


def require_ids(rows: list[dict], path: Path) -> list[str]:
    """Every record's ``id`` as text, each one unique (a duplicate would silently replace)."""
    missing = [i for i, r in enumerate(rows, 1) if "id" not in r]
    if missing:
        raise InputError(f"{path}: record {missing[0]} has no 'id'")
    ids = [str(r["id"]) for r in rows]
    seen: set[str] = set()
    for i, item in enumerate(ids, 1):
        if item in seen:
            raise InputError(f"{path}: duplicate id {item!r} (record {i})")
        seen.add(item)
    return ids


def clusters_for(rows: list[dict], ids: list[str], cluster_by: str | None) -> tuple[list[str], str]:
    """The cluster of each item: a field of its record, or the item itself (independent)."""
    if cluster_by is None:
        return list(ids), "no --cluster-by: items are treated as independent"
    by_id = {str(r.get("id", i)): r for i, r in enumerate(rows)}
    out = []
    for item in ids:
        value = by_id.get(item, {}).get(cluster_by)
        if value is None:
            raise InputError(f"item {item!r} has no {cluster_by!r} field to cluster by")
        out.append(str(value))
    return out, f"clustered by {cluster_by!r}"


def score_intervals(
    scores: dict[str, tuple[list[str], np.ndarray]],
    rows: list[dict],
    cluster_by: str | None,
    *,
    level: float = 0.95,
    seed: int = 0,
    reps: int = 1999,
) -> dict:
    """{score: {mean, n, clusters, intervals}} for per-item scores (NaN = not scored, counted)."""
    out = {}
    note = ""
    for name, (ids, values) in scores.items():
        values = np.asarray(values, dtype=float)
        ok = np.isfinite(values)
        clusters, note = clusters_for(rows, ids, cluster_by)
        entry = {
            "mean": float(values[ok].mean()) if ok.any() else None,
            "n": int(ok.sum()),
            "not_scored": int((~ok).sum()),
            "intervals": [],
        }
        if ok.any():
            cl = np.asarray(clusters, dtype=object)[ok]
            stats = aggregate_arrays(cl, values[ok], score=name)
            entry["clusters"] = stats.K
            if stats.K >= 2:
                rep = analyze(stats, level=level, methods=METHODS, seed=seed, bootstrap_reps=reps)
                micro = rep.to_dict()["estimands"]["micro"]
                entry["intervals"] = micro["intervals"]
                entry["recommended"] = micro["recommended"]
        out[name] = entry
    return {"scores": out, "clustering": note}


def emit(result: dict, as_json: bool, title: str) -> None:
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False, default=_default))
        return
    from rich.table import Table

    from ragstat.cli.terminal import console as make_console
    from ragstat.cli.terminal import literal

    console = make_console()
    t = Table(title=literal(title), title_justify="left")
    for col in ("score", "mean", "n", "not scored", "clusters", "95% recommended", "naive iid"):
        t.add_column(col, justify="left" if col == "score" else "right")
    for name, e in result["scores"].items():
        ivs = {iv["method"]: iv for iv in e["intervals"]}

        def ci(m: str, ivs=ivs, named: bool = False) -> str:
            iv = ivs.get(m)
            if iv is None or iv["lower"] is None:
                return "—"
            return f"[{iv['lower']:.3f}, {iv['upper']:.3f}]" + (f" {m}" if named else "")

        t.add_row(
            literal(name),
            "—" if e["mean"] is None else f"{e['mean']:.4f}",
            str(e["n"]),
            str(e["not_scored"]),
            str(e.get("clusters", "—")),
            ci(e.get("recommended") or "cr2_bm", named=True),
            ci("wald_iid"),
        )
    console.print(t)
    console.print(literal(result["clustering"]))
    for extra in result.get("notes", []):
        console.print(literal(f"note: {extra}"))


def _default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    raise TypeError(type(value).__name__)
