"""``ragstat.compare``: paired comparison of two systems on the same queries."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from ragstat.api.columns import read_schema, resolve_column, resolve_score
from ragstat.api.data import Data, as_path, label_of
from ragstat.api.design import (
    PopulationCounts,
    apply_design,
    parse_score_range,
    srs_options,
    strata_column,
)
from ragstat.api.score_bounds import difference_bounds
from ragstat.api.sources import Source, pair_sources
from ragstat.errors import InputError
from ragstat.inference import DEFAULT_REPS
from ragstat.inference.paired import ComparisonReport
from ragstat.inference.paired import compare as compare_systems
from ragstat.inference.provenance import SourceInfo
from ragstat.inference.two_sample import TwoSampleResult, two_sample
from ragstat.inference.weighted import WEIGHTED_DEFAULT
from ragstat.records import ON_MISSING, DocStats, PairedTable, pair_files
from ragstat.records.cells import numeric_cells, parse_cells
from ragstat.records.docstats import difference_range, known_range
from ragstat.records.ranges import side_ranges

__all__ = ["ComparisonRun", "compare", "compare_run", "compare_two_sample", "parse_systems"]


@dataclass(frozen=True)
class ComparisonRun:
    """A comparison with the per-document differences a report needs beside it."""

    result: ComparisonReport
    stats: DocStats
    score: str


def parse_systems(systems: str | Sequence[str] | None) -> tuple[str, str] | None:
    """``"A,B"`` or ``("A", "B")`` → ("A", "B"); anything but two non-empty names is an error."""
    if systems is None:
        return None
    items = systems.split(",") if isinstance(systems, str) else list(systems)
    pair = tuple(str(v).strip() for v in items)
    if len(pair) != 2 or not all(pair):
        raise InputError(f"--systems expects two names, A,B; got {systems!r}")
    return pair[0], pair[1]


def compare(
    a: Data,
    b: Data | None = None,
    *,
    systems: str | Sequence[str] | None = None,
    cluster: str = "doc_id",
    score: str | None = None,
    query_id: str = "query_id",
    on_missing: str = "error",
    level: float = 0.95,
    population: int | None = None,
    methods: Sequence[str] | None = None,
    estimands: Sequence[str] = ("micro", "macro"),
    bootstrap_reps: int = DEFAULT_REPS,
    permutation_reps: int = 9_999,
    seed: int | None = None,
    design: str = "srs",
    strata: str | None = None,
    population_file: PopulationCounts | None = None,
    score_range: str | Sequence[float] | None = None,
    non_numeric: str = "error",
) -> ComparisonReport | TwoSampleResult:
    """Intervals for the per-query difference A − B, clustered by document, and a
    document-level sign-flip test; ``design="two-sample"``: two independent arms of units
    (``cluster`` = the unit), see :func:`compare_two_sample`.

    Either two per-query tables ``a`` and ``b`` (paths, DataFrames or pyarrow Tables)
    aligned on ``query_id``, or one table ``a`` with a system column and
    ``systems=("A", "B")``. Two other tools' files (:func:`~ragstat.read_source` each)
    compare paired by item: the one system of each, or ``systems`` naming A's and B's. ``on_missing="drop"`` drops queries found in one table only
    (counted in the result); the default is an error naming them. Every interval is checked
    against the difference's range [lo − hi, hi − lo]: ``score_range`` ("LO,HI") if declared,
    else [0, 1] when every value of A and B lies there ([−1, 1]), else none is known. A
    score cell that is not a number is an error unless ``non_numeric="missing"`` (its row
    is then left out, counted in ``pairing.non_numeric``; its query has no partner).
    """
    if design == "two-sample":
        return compare_two_sample(
            a, b, systems=systems, cluster=cluster, score=score, level=level,
            non_numeric=non_numeric,
        )  # fmt: skip
    return compare_run(**locals()).result


def _frame(data: Data, name: str, cluster: str, score: str | None) -> tuple[Any, str, str]:
    """A table as a DataFrame with its unit and score columns resolved."""
    from ragstat.api.data import read_table

    with as_path(data, name) as path:
        where = label_of(data, name)
        schema = read_schema(path)
        names = [n for n, _ in schema]
        unit = resolve_column(names, cluster, "--cluster", where)
        frame = read_table(path)
        return frame, unit, resolve_score(schema, score, where)


def _per_unit(
    frame: Any, unit: str, score: str, arm: str, non_numeric: str
) -> tuple[Any, Any, set[str]]:
    values, _ = numeric_cells(frame[score], score, f"arm {arm!r}", non_numeric)
    keep = ~parse_cells(frame[score])[1]  # cells that are not numbers: left out (or an error)
    frame = frame[keep].assign(**{score: values[keep]})
    if frame[unit].isna().any() or frame[score].isna().any():
        raise InputError(f"arm {arm!r}: missing unit or score values")
    g = frame.groupby(frame[unit].astype(str), sort=True)[score]
    return g.size().to_numpy(float), g.sum().to_numpy(float), set(g.size().index)


def compare_two_sample(
    a: Data,
    b: Data | None = None,
    *,
    systems: str | Sequence[str] | None = None,
    arm: str = "arm",
    cluster: str = "doc_id",
    score: str | None = None,
    level: float = 0.95,
    non_numeric: str = "error",
) -> TwoSampleResult:
    """A − B for two independent arms of units (CR2 on ``y ~ arm`` clustered by unit,
    Satterthwaite df): one table with an ``arm`` column (arms ``systems`` "A,B", else its
    two values in sorted order) or two tables ``a`` and ``b``; no unit may be in both."""
    fa, unit, score_a = _frame(a, "a", cluster, score)
    names: tuple[str, ...]
    if b is not None:
        fb, unit_b, score_b = _frame(b, "b", cluster, score)
        names = _arm_names(a, b, parse_systems(systems))
        parts = [(fa, unit, score_a), (fb, unit_b, score_b)]
    else:
        if arm not in fa.columns:
            raise InputError(f"two-sample with one table needs an {arm!r} column (or give B)")
        pair = parse_systems(systems)
        values = sorted(fa[arm].dropna().astype(str).unique())
        names = pair if pair is not None else tuple(values)
        if len(names) != 2 or not set(names) <= set(values):
            raise InputError(f"the {arm!r} column has arms {values}; name two with --systems A,B")
        parts = [(fa[fa[arm].astype(str) == x], unit, score_a) for x in names]
    (n_a, s_a, u_a), (n_b, s_b, u_b) = (
        _per_unit(f, u, s, x, non_numeric) for (f, u, s), x in zip(parts, names, strict=True)
    )
    shared = sorted(u_a & u_b)
    if shared:
        raise InputError(
            f"{len(shared)} unit(s) in both arms (e.g. {shared[0]!r}): a two-sample design needs "
            "units nested in arms; the same units in both arms is the paired design"
        )
    bounds = difference_bounds(*(f[s] for f, _, s in parts))  # from the values of each arm
    arms = (names[0], names[1])
    return two_sample(n_a, s_a, n_b, s_b, level=level, arms=arms, score=score_a, bounds=bounds)


def _arm_names(a: Data, b: Data, pair: tuple[str, str] | None) -> tuple[str, str]:
    if pair is not None:
        return pair
    if isinstance(a, (str, Path)) and isinstance(b, (str, Path)):
        return Path(a).stem, Path(b).stem
    return "A", "B"


def compare_run(
    a: Data,
    b: Data | None = None,
    *,
    systems: str | Sequence[str] | None = None,
    cluster: str = "doc_id",
    score: str | None = None,
    query_id: str = "query_id",
    on_missing: str = "error",
    level: float = 0.95,
    population: int | None = None,
    methods: Sequence[str] | None = None,
    estimands: Sequence[str] = ("micro", "macro"),
    bootstrap_reps: int = DEFAULT_REPS,
    permutation_reps: int = 9_999,
    seed: int | None = None,
    design: str = "srs",
    strata: str | None = None,
    population_file: PopulationCounts | None = None,
    score_range: str | Sequence[float] | None = None,
    non_numeric: str = "error",
) -> ComparisonRun:
    """:func:`compare` with the per-document differences it used."""
    if on_missing not in ON_MISSING:
        raise InputError(f"--on-missing must be one of {', '.join(ON_MISSING)}, got {on_missing!r}")
    a, b, pair = _sides(a, b, systems)
    with ExitStack() as stack:
        path_a = stack.enter_context(as_path(a, "a"))
        path_b = None if b is None else stack.enter_context(as_path(b, "b"))
        cluster, score, strata = _resolve(path_a, label_of(a, "a"), cluster, score, strata)

        load = partial(
            pair_files, path_a, path_b, systems=pair, cluster=cluster, score=score,
            query_id=query_id, stratum=strata_column(strata), on_missing=on_missing,
            non_numeric=non_numeric,
        )  # fmt: skip

        table = _named(load(with_rows=False), a, b, pair)
        stats, counts = apply_design(
            table.stats, design, strata, population_file, population=population, methods=methods
        )
        if table.weighted and methods is None:  # sampled queries: the weighted default set
            methods = list(WEIGHTED_DEFAULT)
        rows = lambda: load(with_rows=True).query_scores  # noqa: E731
        srs = srs_options(design, methods, population, bootstrap_reps, stats, rows)
        result = compare_systems(
            stats,
            pairing=table.pairing,
            design=design,
            population_counts=counts,
            level=level,
            estimands=list(estimands),
            permutation_reps=permutation_reps,
            seed=seed,
            bounds=_difference_bounds(path_a, path_b, score, pair, score_range),
            **srs,
        )
    result = _left_out(result, score, table.pairing.non_numeric)
    return ComparisonRun(_named_source(result, a), stats, score)


def _sides(
    a: Data, b: Data | None, systems: str | Sequence[str] | None
) -> tuple[Data, Data | None, tuple[str, str] | None]:
    """The tables and the pair of systems: two tools' files become one table."""
    if isinstance(a, Source) and isinstance(b, Source):
        both, pair = pair_sources(a, b, parse_systems(systems))
        return both, None, pair
    return a, b, parse_systems(systems) or _source_pair(a, b)


def _left_out(result: ComparisonReport, score: str, dropped: tuple[int, int]) -> ComparisonReport:
    """The report with a warning for rows left out because their score was not a number."""
    if not any(dropped):
        return result
    note = (
        f"{score}: {dropped[0]} (A) and {dropped[1]} (B) row(s) whose score is not a number "
        "left out as missing (non_numeric = missing)"
    )
    report = replace(result.report, warnings=(*result.report.warnings, note))
    return replace(result, report=report)


def _difference_bounds(
    path_a: Path,
    path_b: Path | None,
    score: str,
    pair: tuple[str, str] | None,
    score_range: str | Sequence[float] | None,
) -> tuple[float, float] | None:
    """The range of A − B: from the declared score range of both, else from their values
    (every value of a side in [0, 1]: a rate); None when a side's range is unknown."""
    declared = parse_score_range(score_range)
    ranges = side_ranges(path_a, path_b, score=score, systems=pair)
    if declared is not None:
        for side, seen in zip(pair or ("A", "B"), ranges, strict=True):
            if seen is not None and (seen[0] < declared[0] or seen[1] > declared[1]):
                raise InputError(
                    f"--score-range {declared[0]:g},{declared[1]:g}: the scores of {side} run "
                    f"from {seen[0]:g} to {seen[1]:g}, outside the declared range"
                )
    a, b = (known_range(seen, declared) for seen in ranges)
    return difference_range(a, b)


def _named_source(result: ComparisonReport, a: Data) -> ComparisonReport:
    """Read from another tool's file (two files are one table by now): the report names
    it, with the tool's own numbers beside ragstat's (each system's, and the difference)."""
    from ragstat.inference.tool_agreement import beside_comparison

    info = getattr(a, "info", None)
    if not isinstance(info, SourceInfo):
        return result
    frame = getattr(a, "frame", None)
    info = beside_comparison(info, result, systems=result.systems, frame=frame)
    return replace(result, report=replace(result.report, source=info))


def _source_pair(a: Data, b: Data | None) -> tuple[str, str] | None:
    """Another tool's file with exactly two systems (models, prompts): compare those."""
    frame = getattr(a, "frame", None)
    if b is not None or getattr(a, "info", None) is None or frame is None:
        return None
    names = sorted(frame["system"].astype(str).unique()) if "system" in frame else []
    if len(names) != 2:
        raise InputError(
            f"{label_of(a)}: {len(names)} systems ({', '.join(names[:6])}); "
            "name two with --systems A,B"
        )
    return names[0], names[1]


def _resolve(
    path: Path, where: str, cluster: str, score: str | None, strata: str | None
) -> tuple[str, str, str | None]:
    """The cluster, score and strata columns as found in the table (defaults, aliases)."""
    schema = read_schema(path)
    names = [n for n, _ in schema]
    column = strata_column(strata)
    return (
        resolve_column(names, cluster, "--cluster", where),
        resolve_score(schema, score, where),
        strata if column is None else resolve_column(names, column, "--strata", where),
    )


def _named(
    table: PairedTable, a: Data, b: Data | None, pair: tuple[str, str] | None
) -> PairedTable:
    """Frames have no file stem: name their systems A and B (unless ``systems`` named them)."""
    if pair is not None or (isinstance(a, (str, Path)) and isinstance(b, (str, Path))):
        return table
    names = (
        Path(a).stem if isinstance(a, (str, Path)) else "A",
        Path(b).stem if isinstance(b, (str, Path)) else "B",
    )
    return replace(table, pairing=replace(table.pairing, systems=names))
