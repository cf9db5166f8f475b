"""`ragstat runs`: list, show and diff the runs recorded in the registry."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragstat.cli.terminal import safe
from ragstat.cli.verb import Group
from ragstat.registry.display import data_fingerprint as source_fingerprint
from ragstat.registry.display import outcome_of, started_utc
from ragstat.registry.location import REGISTRY_ENV
from ragstat.tidy import json_text

if TYPE_CHECKING:
    from ragstat.registry import Manifest, Registry, RegistryLocation

__all__ = ["diff", "list_runs", "runs_app", "show"]

runs_app = typer.Typer(
    name="runs",
    cls=Group,
    help="Recorded runs: list them, show one manifest, diff two runs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

RegistryPath = Annotated[
    Path | None,
    typer.Option(
        "--registry",
        help=(
            f"Registry file (default: ${REGISTRY_ENV}, else registry.sqlite in the nearest "
            ".ragstat/ folder at or above the working folder, else in the per-user data folder)"
        ),
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print JSON")]
RunId = Annotated[str, typer.Argument(help="Run id or a unique prefix of one")]


def _registry(path: Path | None) -> tuple[Registry, RegistryLocation]:
    """The registry to read: ``--registry``, else the one :func:`locate_registry` finds."""
    from ragstat.registry import Registry, RegistryError, locate_registry
    from ragstat.registry.location import default_registry_timeout

    where = locate_registry(path)
    if where.path is None:
        raise RegistryError(
            f"run recording is {where.describe()}; pass --registry PATH to read a registry"
        )
    return Registry(where.path, timeout=default_registry_timeout()), where


def _say_where(where: RegistryLocation) -> None:
    """Name the registry read, in one line on stderr (stdout stays the listing, or pure
    JSON); only once it was read, so a failure stays one error line (that names it too)."""
    typer.echo(f"ragstat: registry {safe(where.describe())}", err=True)


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _echo(lines: list[str]) -> None:
    """Each line on stdout, control characters in names, argv and values made visible."""
    for line in lines:
        typer.echo(safe(line))


def _value(value: object) -> str:
    if value is None:
        return "—"
    return value if isinstance(value, str) else json_text(value)


@runs_app.command("list")
def list_runs(
    limit: Annotated[
        int, typer.Option("--limit", min=0, help="Show the newest N runs (0: all)")
    ] = 20,
    as_json: Json = False,
    registry: RegistryPath = None,
) -> None:
    """The recorded runs, newest first; status is what each came to: passed or failed gate
    (a gate), ran (a verb with no pass or fail), failed (an error) or interrupted."""
    reg, where = _registry(registry)
    runs = reg.list(limit or None)
    _say_where(where)
    if as_json:
        typer.echo(json_text([m.to_dict() for m in runs], indent=2))
        return
    if not runs:
        typer.echo(f"no runs recorded in {safe(reg.path)}")
        return
    rows = [["id", "time (UTC)", "command", "data", "seed", "wall", "status"]]
    for m in runs:
        seed = "—" if m.seed is None else str(m.seed)
        cells = [
            m.run_id,
            started_utc(m.started_at),
            m.command,
            source_fingerprint(m),
            seed,
            f"{m.wall_s:.1f}s",
            outcome_of(m),
        ]
        rows.append([safe(c) for c in cells])  # escaped before the column widths are measured
    _echo(_table(rows))


def _section(title: str, items: dict) -> list[str]:
    if not items:
        return [f"{title}: —"]
    return [f"{title}:", *(f"  {k}: {_value(v)}" for k, v in items.items())]


def manifest_lines(m: Manifest) -> list[str]:
    """A manifest as readable text."""
    from ragstat.registry.diff import flatten

    head = {
        "run": m.run_id,
        "command": m.command,
        "argv": shlex.join(m.argv) if m.argv else "—",
        "started": f"{started_utc(m.started_at)} UTC",
        "wall": f"{m.wall_s:.3f} s",
        "status": outcome_of(m),
        "seed": "—" if m.seed is None else str(m.seed),
        "corpus": m.corpus_fingerprint or "—",
    }
    if m.error:
        head["error"] = m.error
    width = max(len(k) for k in head)
    lines = [f"{k.ljust(width)}  {v}" for k, v in head.items()]
    lines += _section("inputs", m.inputs)
    lines += ["outputs:" if m.outputs else "outputs: —", *(f"  {p}" for p in m.outputs)]
    lines += _section("config", flatten(m.config))
    lines += _section("results", flatten(m.results))
    lines += _section("versions", m.versions)
    return lines


@runs_app.command("show")
def show(run_id: RunId, as_json: Json = False, registry: RegistryPath = None) -> None:
    """One run's manifest: command, config, data, outputs, results, versions."""
    reg, where = _registry(registry)
    m = reg.get(run_id)
    _say_where(where)
    if as_json:
        typer.echo(json_text(m.to_dict(), indent=2))
        return
    _echo(manifest_lines(m))


@runs_app.command("diff")
def diff(
    run_a: Annotated[str, typer.Argument(help="First run (id or unique prefix)")],
    run_b: Annotated[str, typer.Argument(help="Second run (id or unique prefix)")],
    as_json: Json = False,
    registry: RegistryPath = None,
) -> None:
    """What changed from run A to run B: config, data, results, versions."""
    from ragstat.registry import diff_runs

    reg, where = _registry(registry)
    d = diff_runs(reg.get(run_a), reg.get(run_b))
    _say_where(where)
    if as_json:
        typer.echo(json_text(d.to_dict(), indent=2))
        return
    _echo(d.lines())
