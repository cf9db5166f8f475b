"""`ragstat simulate CENSUS`: check every interval method's coverage on your own data."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import RunLog, absolute, recorded, write_json
from ragstat.errors import InputError
from ragstat.inference.names import METHODS
from ragstat.tidy import json_text

if TYPE_CHECKING:
    from ragstat.simulation.results import CoverageReport, StudiesCoverage

Census = Annotated[
    Path | None, typer.Argument(help="Census: per-query table or per-document n,s table")
]
Ks = Annotated[str, typer.Option(help="Documents per sample, e.g. 5,20,40,80")]
Samples = Annotated[
    int | None, typer.Option(help="Samples per K (default 5,000 for one K, 2,000 per K in a grid)")
]
Strata = Annotated[str | None, typer.Option(help="Stratum/type column (stratified, two-stage)")]
Types = Annotated[
    int | None, typer.Option(help="Two-stage: types sampled (K = documents per type)")
]
BootstrapReps = Annotated[int, typer.Option(help="Bootstrap replicates inside each sample")]
Fpc = Annotated[bool, typer.Option("--fpc", help="Apply the finite correction 1 − K/M")]
Seed = Annotated[int, typer.Option(help="Seed of the whole simulation", min=0)]
Score = Annotated[
    str | None,
    typer.Option(help="Score column (default: the only score column; hit1 on study records)"),
]
System = Annotated[str | None, typer.Option(help="Rows of this system/retriever only")]
FromStudy = Annotated[
    list[Path] | None, typer.Option(help="Study folder(s), e.g. at several chunk sizes")
]
#: How a per-document census's score is named in the report.
DOC_TOTALS = "per-document totals (n, s)"


def _listed(values: list[str] | None, option: str) -> list[str] | None:
    from ragstat.resources.caps import check_list

    if values is not None:
        check_list(values, option)
    return values


def _ints(value: str, what: str) -> list[int]:
    from ragstat.resources.caps import check_list

    parts = [v for v in value.split(",") if v.strip()]
    check_list(parts, f"--{what}")
    try:
        out = [int(v) for v in parts]
    except ValueError:
        raise InputError(
            f"--{what} expects whole numbers separated by commas, got {value!r}"
        ) from None
    if not out:
        raise InputError(f"--{what} is empty")
    return out


def simulate(
    census: Census = None,
    k: Ks = "20",
    reps: Samples = None,
    design: o.Design = "srs",
    strata: Strata = None,
    types: Types = None,
    methods: o.Methods = None,
    estimand: o.Estimand = "micro,macro",
    level: o.Level = 0.95,
    bootstrap_reps: BootstrapReps = 999,
    fpc: Fpc = False,
    seed: Seed = 0,
    workers: o.Workers = 1,
    engine: o.Engine = "local",
    scheduler: o.Scheduler = None,
    cluster: o.Cluster = "doc_id",
    score: Score = None,
    system: System = None,
    from_study: FromStudy = None,
    non_numeric: o.NonNumeric = "error",
    out_folder: o.OutDir = None,
    force: o.Force = False,
    as_json: o.Json = False,
) -> None:
    """Draw many samples from a census and count how often each interval covers the truth.

    Census: a per-query table (doc_id, a score column; optional stratum/type) or a
    per-document table (doc_id, n, s); or study folders with --from-study. Fields,
    examples, output: docs/formats/simulate.md.
    """
    if (census is None) == (not from_study):
        raise InputError("give a CENSUS file or one or more --from-study folders")
    ks = _ints(k, "k")
    opts = _options(ks, reps, design, methods, estimand, level, bootstrap_reps, seed, fpc, types)
    columns: dict[str, Any] = dict(cluster=cluster, score=score, strata=strata, system=system,
                                   non_numeric=non_numeric)  # fmt: skip
    settings = _settings(census, from_study, ks, opts, columns, engine)
    inputs = _inputs(census, from_study)
    from ragstat.api.verbs.simulate import simulate as simulate_api

    with recorded("simulate", settings, inputs=inputs, out=out_folder, force=force) as log:
        with _progress(not as_json and sys.stderr.isatty()) as tick:
            result = simulate_api(
                census, k=ks, **opts, **columns, from_study=from_study, workers=workers,
                engine=engine, scheduler=scheduler, progress=tick,
            )  # fmt: skip
        log.config["score"] = result.score
        out = result.to_dict()
        log.results = _headline(out)
        if log.out is not None:
            _write(log, log.out, result, census, from_study, types)
    if as_json:
        typer.echo(json_text(out))
    else:
        from ragstat.cli.render_sim import print_coverage

        print_coverage(out)


def _options(
    ks: list[int],
    reps: int | None,
    design: str,
    methods: str | None,
    estimand: str,
    level: float,
    bootstrap_reps: int,
    seed: int,
    fpc: bool,
    types: int | None,
) -> dict[str, Any]:
    """The simulation's options as the twin takes them (names checked, default reps)."""
    from ragstat.api.verbs.simulate import default_reps

    return {
        "reps": default_reps(ks) if reps is None else reps,
        "design": design,
        "methods": _listed(o.split(methods, METHODS, "methods"), "--methods"),
        "estimands": o.split(estimand, ("micro", "macro"), "estimand"),
        "level": level,
        "bootstrap_reps": bootstrap_reps,
        "seed": seed,
        "fpc": fpc,
        "types": types,
    }


def _settings(
    census: Path | None,
    from_study: list[Path] | None,
    ks: list[int],
    opts: dict[str, Any],
    columns: dict[str, Any],
    engine: str,
) -> dict[str, Any]:
    """The run's config for the registry (paths absolute)."""
    return {
        "census": absolute(census),
        "from_study": [absolute(f) for f in from_study or []],
        "k": ks,
        **opts,
        **columns,
        "engine": engine,
    }


def _inputs(census: Path | None, from_study: list[Path] | None) -> dict[str, Path | None]:
    """The run's input files by role."""
    if census is not None:
        return {"census": census}
    return {f"study{i}": Path(f) / "records.parquet" for i, f in enumerate(from_study or [])}


def _write(
    log: RunLog,
    folder_out: Path,
    result: CoverageReport | StudiesCoverage,
    census: Path | None,
    from_study: list[Path] | None,
    types: int | None,
) -> None:
    """result.json and the report in the output folder."""
    from ragstat.report import report_from_simulation
    from ragstat.simulation.results import StudiesCoverage

    if isinstance(result, StudiesCoverage):
        source = ", ".join(map(str, from_study or []))
        pops: Any = [s.report.population for s in result.studies]
    else:
        source, pops = str(census), result.population
    out = result.to_dict()
    log.wrote(write_json(folder_out / "result.json", out))
    log.write_report(
        report_from_simulation(
            out,
            source=source,
            created=log.started_at,
            census=pops,
            score=result.score or DOC_TOTALS,
            types=types,
        )
    )


def _headline(out: dict[str, Any]) -> dict[str, Any]:
    """Coverage per K, estimand and method: what a registry diff compares."""
    reports = out.get("studies", [out])
    heads = {}
    for i, rep in enumerate(reports):
        cov = {f"K{r['k']}.{r['estimand']}.{r['method']}": r["coverage"] for r in rep["results"]}
        heads[f"study{i}" if "studies" in out else "coverage"] = cov
    return heads


@contextmanager
def _progress(show: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar over blocks of samples on a terminal; nothing when piped."""
    if not show:
        yield None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task("samples", total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield tick
