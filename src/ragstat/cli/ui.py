"""`ragstat ui`: a local, read-only web view of the recorded runs (needs the ``ui`` extra)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli.runs import RegistryPath
from ragstat.cli.terminal import safe
from ragstat.errors import BackendUnavailable, InputError

__all__ = ["is_loopback", "ui"]

_EXTRA = 'the web view needs the ui extra: pip install "ragstat[ui]" (Starlette and uvicorn)'


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1 or localhost)."""
    name = host.strip().strip("[]")
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _is_wildcard(host: str) -> bool:
    """Whether ``host`` binds every address of the machine (0.0.0.0, ::)."""
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_unspecified
    except ValueError:
        return not host.strip()


def ui(
    registry: RegistryPath = None,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to serve on")] = 8765,
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (loopback unless --allow-remote)")
    ] = "127.0.0.1",
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow a non-loopback --host (anyone who reaches it reads every run)",
        ),
    ] = False,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            metavar="NAME",
            help="Also answer requests addressed to NAME (repeat for more names); other "
            "Host names than 127.0.0.1, localhost, [::1] and --host get 400",
        ),
    ] = None,
) -> None:
    """Browse the recorded runs in a web browser: runs list, run pages with their
    reports, comparisons and history figures. Read-only; bound to 127.0.0.1; answers only
    requests addressed to this server's own names (a guard against DNS rebinding)."""
    if not is_loopback(host) and not allow_remote:
        raise InputError(
            f"--host {host!r} is not a loopback address: the web view shows every recorded run "
            "to whoever reaches it; pass --allow-remote to serve it there anyway"
        )
    from ragstat.registry import RegistryError, locate_registry

    where = locate_registry(registry)
    if where.path is None:
        raise RegistryError(
            f"run recording is {where.describe()}; pass --registry PATH to read a registry"
        )
    try:
        import uvicorn

        from ragstat.ui import create_app
    except ImportError as exc:
        raise BackendUnavailable(_EXTRA) from exc
    wildcard = _is_wildcard(host)
    names = [*([] if wildcard else [host]), *(allowed_host or [])]
    app = create_app(Path(where.path), allowed_hosts=names, any_address=allow_remote and wildcard)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"ragstat: registry {safe(where.describe())}", err=True)
    typer.echo(f"ragstat: serving the runs at http://{shown}:{port}/ (Ctrl-C stops)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False)
