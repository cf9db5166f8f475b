"""`ragstat simulate CENSUS`: check every interval method's coverage on your own data."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import absolute, recorded, write_json
from ragstat.engine import get_executor
from ragstat.errors import InputError
from ragstat.inference import METHODS
from ragstat.outfolder import check_complete


def _ints(value: str, what: str) -> list[int]:
    try:
        out = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise InputError(
            f"--{what} expects whole numbers separated by commas, got {value!r}"
        ) from None
    if not out:
        raise InputError(f"--{what} is empty")
    return out


def simulate(
    census: Annotated[
        Path | None, typer.Argument(help="Census: per-query table or per-document n,s table")
    ] = None,
    k: Annotated[str, typer.Option(help="Documents per sample, e.g. 5,20,40,80")] = "20",
    reps: Annotated[
        int | None,
        typer.Option(help="Samples per K (default 5,000 for one K, 2,000 per K in a grid)"),
    ] = None,
    design: o.Design = "srs",
    strata: Annotated[
        str | None, typer.Option(help="Stratum/type column (stratified, two-stage)")
    ] = None,
    types: Annotated[
        int | None, typer.Option(help="Two-stage: types sampled (K = documents per type)")
    ] = None,
    methods: o.Methods = None,
    estimand: o.Estimand = "micro,macro",
    level: o.Level = 0.95,
    bootstrap_reps: Annotated[
        int, typer.Option(help="Bootstrap replicates inside each sample")
    ] = 999,
    fpc: Annotated[bool, typer.Option("--fpc", help="Apply the finite correction 1 − K/M")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the whole simulation", min=0)] = 0,
    workers: o.Workers = 1,
    engine: o.Engine = "local",
    scheduler: o.Scheduler = None,
    cluster: o.Cluster = "doc_id",
    score: o.Score = "hit",
    system: Annotated[str | None, typer.Option(help="Rows of this system/retriever only")] = None,
    from_study: Annotated[
        list[Path] | None, typer.Option(help="Study folder(s), e.g. at several chunk sizes")
    ] = None,
    out_folder: o.OutDir = None,
    force: o.Force = False,
    as_json: o.Json = False,
) -> None:
    """Draw many samples from a census and count how often each interval covers the truth."""
    ks = _ints(k, "k")
    wanted = o.split(methods, METHODS, "methods")
    estimands = o.split(estimand, ("micro", "macro"), "estimand")
    reps = reps if reps is not None else (5_000 if len(ks) == 1 else 2_000)
    opts = dict(
        reps=reps,
        design=design,
        methods=wanted,
        estimands=estimands,
        level=level,
        bootstrap_reps=bootstrap_reps,
        seed=seed,
        fpc=fpc,
        types=types,
    )
    if (census is None) == (not from_study):
        raise InputError("give a CENSUS file or one or more --from-study folders")
    settings, inputs = _settings(
        census, from_study, ks, opts, cluster=cluster, score=score, strata=strata,
        system=system, engine=engine,
    )  # fmt: skip
    with recorded("simulate", settings, inputs=inputs, out=out_folder, force=force) as log:
        with (
            _progress(not as_json and sys.stderr.isatty()) as tick,
            get_executor(workers, engine, scheduler) as executor,
        ):
            opts["progress"] = tick
            opts["executor"] = executor
            out, pops = _simulate(census, from_study, ks, opts, cluster, score, strata, system)
        log.results = _headline(out)
        if log.out is not None:
            _write(log, log.out, out, census, from_study, pops, score, types)
    if as_json:
        typer.echo(json.dumps(out, ensure_ascii=False))
    else:
        from ragstat.cli.render_sim import print_coverage

        print_coverage(out)


def _settings(census, from_study, ks, opts, **columns) -> tuple[dict, dict]:
    """The run's config for the registry (paths absolute) and its inputs by role."""
    settings = {
        "census": absolute(census),
        "from_study": [absolute(f) for f in from_study or []],
        "k": ks,
        **opts,
        **columns,
    }
    inputs = (
        {"census": census}
        if census is not None
        else {f"study{i}": Path(f) / "records.parquet" for i, f in enumerate(from_study)}
    )
    return settings, inputs


def _write(log, folder_out: Path, out: dict, census, from_study, pops, score, types) -> None:
    """result.json and the report in the output folder."""
    from ragstat.report import report_from_simulation

    source = str(census) if census is not None else ", ".join(map(str, from_study))
    log.wrote(write_json(folder_out / "result.json", out))
    log.write_report(
        report_from_simulation(
            out,
            source=source,
            created=log.started_at,
            census=pops[0] if census is not None else pops,
            score=score if census is not None else (score if score != "hit" else "hit1"),
            types=types,
        )
    )


def _simulate(census, from_study, ks, opts, cluster, score, strata, system) -> tuple[dict, list]:
    """The simulation's JSON object and the census (one per study) it drew from."""
    from ragstat.simulation import load_census, simulate_coverage, study_census

    if census is not None:
        pop = load_census(census, cluster=cluster, score=score, stratum=strata, system=system)
        return simulate_coverage(pop, ks, **opts).to_dict(), [pop]
    out: dict = {"studies": []}
    pops = []
    for folder in from_study:
        check_complete(folder)
        name = score if score != "hit" else "hit1"
        pop, info = study_census(folder, score=name, system=system)
        rep = simulate_coverage(pop, ks, **opts).to_dict()
        info["expected_chunks_per_sample"] = {str(x): x * float(pop.n.mean()) for x in ks}
        out["studies"].append({**info, **rep})
        pops.append(pop)
    return out, pops


def _headline(out: dict) -> dict:
    """Coverage per K, estimand and method: what a registry diff compares."""
    reports = out.get("studies", [out])
    heads = {}
    for i, rep in enumerate(reports):
        cov = {f"K{r['k']}.{r['estimand']}.{r['method']}": r["coverage"] for r in rep["results"]}
        heads[f"study{i}" if "studies" in out else "coverage"] = cov
    return heads


@contextmanager
def _progress(show: bool):
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
