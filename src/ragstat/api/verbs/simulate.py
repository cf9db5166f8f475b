"""``ragstat.simulate``: check every interval method's coverage on a census of your own data.

A census is every document of the population: a per-query table (a path, a pandas
DataFrame or a pyarrow Table) or a per-document table with columns ``n`` and ``s``
(optionally ``q`` or ``w``). Samples of K documents are drawn from it many times, every
interval is computed on each, and the share that covers the census value is counted
(:mod:`ragstat.simulation.coverage`). With ``from_study``, the census is a self-retrieval
study's records instead, one simulation per study folder (e.g. one per chunk size).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from ragstat.api.arguments import flag, level_value, whole_number, whole_numbers
from ragstat.api.columns import STUDY_SCORE, read_schema, resolve_column, resolve_score
from ragstat.api.data import Data, as_path, label_of
from ragstat.engine import Executor, get_executor
from ragstat.errors import InputError
from ragstat.records.cells import check_non_numeric
from ragstat.simulation.results import CoverageReport, StudiesCoverage, StudyCoverage

if TYPE_CHECKING:
    from ragstat.simulation import Census

__all__ = ["REPS_GRID", "REPS_ONE_K", "default_reps", "simulate"]

#: Samples per K when ``reps`` is not given: one K, or each K of a grid.
REPS_ONE_K = 5_000
REPS_GRID = 2_000

#: One study folder, or several.
StudyFolders = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
Progress = Callable[[int, int], None]


def default_reps(ks: Sequence[int]) -> int:
    """Samples per K when none are asked for: 5,000 for one K, 2,000 per K in a grid."""
    return REPS_ONE_K if len(ks) == 1 else REPS_GRID


@overload
def simulate(
    census: None = None,
    *,
    k: int | Sequence[int] = ...,
    reps: int | None = ...,
    design: str = ...,
    strata: str | None = ...,
    types: int | None = ...,
    methods: str | Sequence[str] | None = ...,
    estimands: str | Sequence[str] = ...,
    level: float = ...,
    bootstrap_reps: int = ...,
    fpc: bool = ...,
    seed: int = ...,
    workers: int = ...,
    engine: str = ...,
    scheduler: str | None = ...,
    cluster: str = ...,
    score: str | None = ...,
    system: str | None = ...,
    from_study: StudyFolders,
    progress: Progress | None = ...,
    non_numeric: str = ...,
) -> StudiesCoverage: ...


@overload
def simulate(
    census: Data,
    *,
    k: int | Sequence[int] = ...,
    reps: int | None = ...,
    design: str = ...,
    strata: str | None = ...,
    types: int | None = ...,
    methods: str | Sequence[str] | None = ...,
    estimands: str | Sequence[str] = ...,
    level: float = ...,
    bootstrap_reps: int = ...,
    fpc: bool = ...,
    seed: int = ...,
    workers: int = ...,
    engine: str = ...,
    scheduler: str | None = ...,
    cluster: str = ...,
    score: str | None = ...,
    system: str | None = ...,
    from_study: None = ...,
    progress: Progress | None = ...,
    non_numeric: str = ...,
) -> CoverageReport: ...


@overload
def simulate(
    census: Data | None = ...,
    *,
    k: int | Sequence[int] = ...,
    reps: int | None = ...,
    design: str = ...,
    strata: str | None = ...,
    types: int | None = ...,
    methods: str | Sequence[str] | None = ...,
    estimands: str | Sequence[str] = ...,
    level: float = ...,
    bootstrap_reps: int = ...,
    fpc: bool = ...,
    seed: int = ...,
    workers: int = ...,
    engine: str = ...,
    scheduler: str | None = ...,
    cluster: str = ...,
    score: str | None = ...,
    system: str | None = ...,
    from_study: StudyFolders | None = ...,
    progress: Progress | None = ...,
    non_numeric: str = ...,
) -> CoverageReport | StudiesCoverage: ...


def simulate(
    census: Data | None = None,
    *,
    k: int | Sequence[int] = (20,),
    reps: int | None = None,
    design: str = "srs",
    strata: str | None = None,
    types: int | None = None,
    methods: str | Sequence[str] | None = None,
    estimands: str | Sequence[str] = ("micro", "macro"),
    level: float = 0.95,
    bootstrap_reps: int = 999,
    fpc: bool = False,
    seed: int = 0,
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    cluster: str = "doc_id",
    score: str | None = None,
    system: str | None = None,
    from_study: StudyFolders | None = None,
    progress: Progress | None = None,
    non_numeric: str = "error",
) -> CoverageReport | StudiesCoverage:
    """Draw ``reps`` samples of each K documents from ``census`` and count how often each
    interval method covers the census value; also its width, bias and RMSE, and the method
    recommended per K and estimand.

    ``census``: a per-query table or a per-document ``n, s`` table (path, DataFrame or
    Table); or, instead, ``from_study``: one or more ``ragstat study`` folders. ``k``: one K
    or a grid; ``reps`` defaults to 5,000 for one K and 2,000 per K in a grid. ``design``:
    ``srs``, ``stratified`` or ``two-stage`` (both need ``strata``; two-stage samples
    ``types`` types, then K documents in each). ``score`` defaults to the only score column
    (``hit1`` on study records). Same ``seed``, same result, whatever ``workers`` or
    ``engine`` (``local`` or ``dask``, at ``scheduler``). ``progress(done, total)`` is called
    as blocks of samples finish. A score cell that is not a number stops the run unless
    ``non_numeric="missing"`` (its row is then left out, counted in the census notes).
    """
    ks = _ks(k)
    if (census is None) == (not from_study):
        raise InputError(
            "give one of census (a path, DataFrame or Table) or from_study (study folders)"
        )
    opts = _options(ks, reps, level, bootstrap_reps, fpc, types)
    opts |= {"design": design, "methods": None if methods is None else _names(methods),
             "estimands": _names(estimands), "seed": seed, "progress": progress}  # fmt: skip
    columns: dict[str, Any] = {"score": score, "system": system,
                               "non_numeric": check_non_numeric(non_numeric)}  # fmt: skip
    with get_executor(workers, engine, scheduler) as executor:
        if census is not None:
            pop, used = _census(census, cluster=cluster, strata=strata, **columns)
            return _simulate(pop, ks, opts, executor, used)
        return _studies(_folders(from_study), ks, opts, executor, **columns)


def _ks(k: int | Sequence[int]) -> list[int]:
    ks = whole_numbers(k, "k (documents per sample)", low=2)
    if not ks:
        raise InputError("k is empty: give at least one number of documents per sample")
    return ks


def _options(
    ks: list[int], reps: Any, level: Any, bootstrap_reps: Any, fpc: Any, types: Any
) -> dict[str, Any]:
    """The plain arguments in their types (a Python caller's ``level="x"`` is an
    InputError here, not a TypeError inside the simulation)."""
    return {
        "reps": default_reps(ks) if reps is None else whole_number(reps, "reps"),
        "level": level_value(level),
        "bootstrap_reps": whole_number(bootstrap_reps, "bootstrap_reps"),
        "fpc": flag(fpc, "fpc"),
        "types": None if types is None else whole_number(types, "types"),
    }


def _names(value: str | Sequence[str]) -> list[str]:
    """Names given as a sequence or as one comma-separated string."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)


def _folders(from_study: StudyFolders | None) -> list[Path]:
    if from_study is None:
        return []
    if isinstance(from_study, (str, os.PathLike)):
        return [Path(from_study)]
    return [Path(f) for f in from_study]


def _simulate(
    pop: Census, ks: list[int], opts: dict[str, Any], executor: Executor, score: str | None
) -> CoverageReport:
    # looked up at call time, so that a test may wrap the simulator
    from ragstat.simulation import simulate_coverage

    report = replace(simulate_coverage(pop, ks, executor=executor, **opts), score=score)
    if pop.non_numeric:
        what = "score" if score else "n, s, q or w"
        note = (f"{score or 'per-document totals'}: {pop.non_numeric} not a number, 0 missing: "
                f"the rows whose {what} is not a number were left out of the census "
                "(non_numeric = missing)")  # fmt: skip
        report = replace(report, notes=(*report.notes, note))
    return report


def _census(
    census: Data,
    *,
    cluster: str,
    score: str | None,
    strata: str | None,
    system: str | None,
    non_numeric: str,
) -> tuple[Census, str | None]:
    """The census in ``census`` and the score column it was built from (None for a
    per-document ``n, s`` table)."""
    from ragstat.simulation import load_census

    with as_path(census, "census") as path:
        where = label_of(census, "census")
        schema = read_schema(path)
        names = [n for n, _ in schema]
        if {"n", "s"} <= set(names) and (score is None or score not in names):
            # per-document totals: load_census reads them when the score is not a column
            pop = load_census(path, cluster=cluster, score=score or "", stratum=strata,
                              non_numeric=non_numeric)  # fmt: skip
            return pop, None
        used = resolve_score(schema, score, where)
        column = resolve_column(names, cluster, "--cluster", where)
        stratum = None if strata is None else resolve_column(names, strata, "--strata", where)
        pop = load_census(path, cluster=column, score=used, stratum=stratum, system=system,
                          non_numeric=non_numeric)  # fmt: skip
        return pop, used


def _studies(
    folders: list[Path],
    ks: list[int],
    opts: dict[str, Any],
    executor: Executor,
    *,
    score: str | None,
    system: str | None,
    non_numeric: str,
) -> StudiesCoverage:
    """One simulation per study folder, on its retriever's per-document hits."""
    from ragstat.outfolder import check_complete
    from ragstat.simulation import study_census

    out = []
    for folder in folders:
        check_complete(folder)
        used = _study_score(folder, score)
        pop, info = study_census(folder, score=used, system=system, non_numeric=non_numeric)
        expected = {str(x): x * float(pop.n.mean()) for x in ks}
        report = _simulate(pop, ks, opts, executor, used)
        out.append(StudyCoverage(**info, expected_chunks_per_sample=expected, report=report))
    return StudiesCoverage(tuple(out))


def _study_score(folder: Path, score: str | None) -> str:
    """hit1 by default; a named score checked against the study's records (when present)."""
    records = folder / "records.parquet"
    if score is None:
        return STUDY_SCORE
    if not records.is_file():
        return score  # the study reader names what is missing
    return resolve_score(read_schema(records), score, str(records))
