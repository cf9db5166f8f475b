"""``ragstat.read_source``: another tool's result file as ragstat's per-query table.

A :class:`Source` can be passed as ``data`` to ``interval``, ``compare`` and ``gate``
(and, for ranx/BEIR/MTEB files, as the qrels of ``evaluate``); the result then names
the tool, its version and how items were grouped into documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragstat.errors import InputError
from ragstat.inference.provenance import RepeatComponents, SourceInfo, tool_values

if TYPE_CHECKING:
    from ragstat.adapters.base import RunSource, SourceTable
    from ragstat.adapters.units import Units

__all__ = [
    "CLUSTER_RULES",
    "MISSING_CLUSTER",
    "Source",
    "pair_sources",
    "read_source",
    "resolve_input",
]

CLUSTER_RULES = ("first-reference", "component")
MISSING_CLUSTER = ("exclude", "error")
#: Files read as ragstat's own tables unless ``--from`` names a format (Parquet is not
#: sniffed: a ragas result saved as Parquet needs ``--from ragas``).
_NOT_SNIFFED = {".parquet", ".pq"}


@dataclass(frozen=True)
class Source:
    """A result file of another tool, read into ragstat's per-query table.

    ``frame``: one row per system × item — ``query_id`` (the item), ``doc_id`` (its
    document, or the item itself when no cluster was chosen), ``system``, one column per
    score (the item's mean over its repeats), ``meta_n_repeats`` (the item's number of
    repeats) and the ``meta_*`` fields.
    ``runs``: the qrels and runs of a ranx/BEIR/MTEB file (``frame`` is then empty).
    """

    frame: Any
    scores: tuple[str, ...]
    info: SourceInfo
    runs: RunSource | None = None

    def to_frame(self) -> Any:
        return self.frame

    def to_dict(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "source": self.info.to_dict()}

    def __repr__(self) -> str:
        return f"<Source: {self.info.sentence()}>"


def read_source(
    path: str | Path,
    fmt: str | None = None,
    *,
    cluster_by: str | None = None,
    cluster_rule: str | None = None,
    missing_cluster: str = "exclude",
    task: str | None = None,
    all_runs: bool = False,
    qrels: str | None = None,
    run: str | Sequence[str] | None = None,
    score: str | None = None,
) -> Source:
    """Read ``path`` written by another tool (``fmt``: ``inspect``, ``lm-eval``, ``helm``,
    ``ragas``, ``deepeval``, ``promptfoo``, ``ragchecker``, ``ranx``, ``beir``, ``mteb``;
    detected from the file when None). ``cluster_by`` names the field holding each item's
    document (``meta_`` optional); ``cluster_rule`` ``"first-reference"`` or
    ``"component"`` groups items by their reference document ids; without either, items
    are treated as independent and the result says so. ``missing_cluster``: items without
    a cluster value are ``"exclude"``-d (counted) or an ``"error"``.

    Folders: ``task`` picks one task of an lm-eval or HELM folder (required when it holds
    several); ``all_runs`` pools an inspect folder's reruns of one task and model as
    repeats (default: the latest run of each, the others named in the notes); ``qrels``
    and ``run`` (a name or a list, comma-separated) name the files of a ranx, BEIR or MTEB
    folder. ``score`` (the score to be analysed) only makes a message more precise."""
    from ragstat.adapters.base import ReadOptions, RunSource
    from ragstat.adapters.registry import read_source as read_file
    from ragstat.adapters.registry import resolve_format

    path = Path(path)
    _check_choice(cluster_rule, CLUSTER_RULES, "--cluster-rule")
    _check_choice(missing_cluster, MISSING_CLUSTER, "--missing-cluster")
    runs = tuple(r.strip() for r in (run.split(",") if isinstance(run, str) else run or ()))
    options = ReadOptions(task, all_runs, qrels, tuple(r for r in runs if r), score)
    name = resolve_format(path, fmt)
    table = read_file(path, name, options)
    if isinstance(table, RunSource):
        return _run_source(table, name)
    from ragstat.adapters.units import to_units

    units = to_units(table, cluster_by=cluster_by, rule=cluster_rule, on_missing=missing_cluster)
    info = _info(table, units, name, _components(units) if _has_repeats(units) else ())
    return Source(frame=units.frame, scores=units.scores, info=info)


def resolve_input(path: Path, fmt: str | None = None, **options: Any) -> Path | Source:
    """What a verb's FILE argument is: another tool's file (``--from`` or detected) as a
    :class:`Source` read with ``options`` (those of :func:`read_source`), else the path
    itself (ragstat's own per-query table)."""
    if fmt is None:
        if not path.is_file() or path.suffix.lower() in _NOT_SNIFFED:
            _no_source_options(options)
            return path
        from ragstat.adapters.registry import detect

        fmt = detect(path)
        if fmt is None:
            _no_source_options(options)
            return path
    return read_source(path, fmt, **options)


_SOURCE_ONLY = {"task": "--task", "all_runs": "--all-runs", "qrels": "--qrels", "run": "--run"}


def _no_source_options(options: dict[str, Any]) -> None:
    if options.get("cluster_by") is not None or options.get("cluster_rule") is not None:
        raise InputError(
            "--cluster-by and --cluster-rule apply to another tool's file (--from FORMAT); "
            "for a ragstat table name the document column with --cluster"
        )
    given = [flag for name, flag in _SOURCE_ONLY.items() if options.get(name)]
    if given:
        verb = "applies" if len(given) == 1 else "apply"
        raise InputError(f"{' and '.join(given)} {verb} to another tool's files (--from FORMAT)")


def _check_choice(value: str | None, choices: tuple[str, ...], option: str) -> None:
    if value is not None and value not in choices:
        raise InputError(f"{option} {value}: expected one of {', '.join(choices)}")


def _has_repeats(units: Units) -> bool:
    from ragstat.adapters.units import REPEATS

    return bool(len(units.frame)) and int(units.frame[REPEATS].max()) > 1


def _components(units: Units) -> tuple[RepeatComponents, ...]:
    """Variance components per system and score, when items were repeated."""
    from ragstat.inference.components import nested_components

    out = []
    rows = units.repeats
    for system, part in rows.groupby("system", sort=True):
        for score in units.scores:
            kept = part[part[score].notna()]
            if kept["doc_id"].nunique() < 2:
                continue
            comp = nested_components(
                kept[score].to_numpy(float),
                kept["doc_id"].astype(str).to_numpy(),
                kept["item_id"].astype(str).to_numpy(),
            )
            out.append(RepeatComponents(str(system), score, comp))
    return tuple(out)


def _info(
    table: SourceTable, units: Units, fmt: str, repeats: tuple[RepeatComponents, ...]
) -> SourceInfo:
    frame = units.frame
    return SourceInfo(
        tool=table.tool,
        version=table.version,
        format=fmt,
        path=table.source,
        items=int(frame["query_id"].nunique()),
        documents=int(frame["doc_id"].nunique()),
        cluster=units.cluster,
        independent=units.independent,
        excluded=units.excluded,
        notes=tuple(table.notes) + tuple(units.notes),
        repeats=repeats,
        tool_values=tool_values(table.aggregates, table.errors),
    )


def _run_source(runs: RunSource, fmt: str) -> Source:
    import pandas as pd

    queries = {q for run in runs.runs.values() for q in run} | set(runs.qrels)
    info = SourceInfo(
        tool=runs.tool,
        version=runs.version,
        format=fmt,
        path=runs.source,
        items=len(queries),
        documents=len(queries),
        cluster="queries (name a query → document mapping with --cluster-by)",
        independent=True,
        notes=tuple(runs.notes),
        noun="queries",
        tool_values=tool_values(runs.aggregates),
    )
    return Source(frame=pd.DataFrame(), scores=(), info=info, runs=runs)


def pair_sources(
    a: Source, b: Source, systems: tuple[str, str] | None = None
) -> tuple[Source, tuple[str, str]]:
    """Two tools' files as one table with the two systems to compare: A's system (the
    only one, or ``systems[0]``) and B's (``systems[1]``); the same name in both files is
    told apart by the file names."""
    import pandas as pd

    picked = [_one_system(s, None if systems is None else systems[i], "AB"[i])
              for i, s in enumerate((a, b))]  # fmt: skip
    names = list(picked)
    if names[0] == names[1]:
        stems = [Path(s.info.path).stem or s.info.path for s in (a, b)]
        names = [f"{n} ({stem})" for n, stem in zip(names, stems, strict=True)]
        if names[0] == names[1]:
            names = [f"{n} ({side})" for n, side in zip(picked, "AB", strict=True)]
    parts = [
        s.frame[s.frame["system"].astype(str) == p].assign(system=n)
        for s, p, n in zip((a, b), picked, names, strict=True)
    ]
    scores = tuple(x for x in a.scores if x in b.scores)
    if not scores:
        raise InputError(f"{a.info.path} and {b.info.path} share no score")
    notes = tuple(f"{Path(s.info.path).name}: {n}" for s in (a, b) for n in s.info.notes)
    info = SourceInfo(
        tool=a.info.tool if a.info.tool == b.info.tool else f"{a.info.tool} and {b.info.tool}",
        version=a.info.version if a.info.version == b.info.version else None,
        format=a.info.format,
        path=f"{a.info.path} vs {b.info.path}",
        items=len(set(parts[0]["query_id"]) | set(parts[1]["query_id"])),
        documents=len(set(parts[0]["doc_id"]) | set(parts[1]["doc_id"])),
        cluster=a.info.cluster,
        independent=a.info.independent,
        excluded=a.info.excluded + b.info.excluded,
        notes=notes,
        repeats=a.info.repeats + b.info.repeats,
        tool_values=tuple(
            replace(v, system=n)
            for s, p, n in zip((a, b), picked, names, strict=True)
            for v in s.info.tool_values
            if v.system == p
        ),
    )
    frame = pd.concat(parts, ignore_index=True)
    return Source(frame=frame, scores=scores, info=info), (names[0], names[1])


def _one_system(source: Source, name: str | None, side: str) -> str:
    present = sorted(source.frame["system"].astype(str).unique())
    if name is not None:
        if name not in present:
            raise InputError(
                f"{source.info.path}: no system {name!r} (systems: {', '.join(present)})"
            )
        return name
    if len(present) != 1:
        raise InputError(
            f"{source.info.path}: {len(present)} systems ({', '.join(present[:6])}); name "
            f"the one of each file with --systems A,B ({side} is this file's)"
        )
    return present[0]
