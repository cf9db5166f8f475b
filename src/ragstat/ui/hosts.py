"""The ``Host`` check of the web view: a guard against DNS rebinding.

A web page on another site can make a browser send requests to 127.0.0.1 under the site's
own name (its DNS answer changed to 127.0.0.1), and read the answers as its own. Such a
request carries the site's name in its ``Host`` header; the view therefore answers only a
request addressed to a name it was started for — the loopback names (``127.0.0.1``,
``localhost``, ``[::1]``), the address it is bound to, and the names given with
``--allowed-host`` — at the port it listens on. Any other request gets one 400 page. With
``--allow-remote`` on a wildcard address (``0.0.0.0``, ``::``) any IP address is accepted too:
a page that rebinds a name can never send an address as its ``Host``.
"""

from __future__ import annotations

import html
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LOOPBACK_NAMES", "HostGuard", "HostPolicy", "split_host"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
_MAX_SHOWN = 200


def _name(text: str) -> str:
    """A host name compared as DNS does: lower case, no trailing dot, no IPv6 brackets."""
    return text.strip().strip("[]").rstrip(".").lower()


def split_host(header: str) -> tuple[str, int | None] | None:
    """``Host`` as (name, port); port None when absent; None when it does not parse."""
    text = header.strip()
    if not text:
        return None
    if text.startswith("["):  # [::1]:8765
        end = text.find("]")
        if end < 0:
            return None
        name, rest = text[1:end], text[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else None
    elif text.count(":") == 1:
        name, port_text = text.split(":")
    elif ":" in text:  # a bare IPv6 address is not a valid Host
        return None
    else:
        name, port_text = text, None
    if port_text is None:
        return _name(name), None
    if not (port_text.isascii() and port_text.isdigit() and len(port_text) <= 5):
        return None
    return _name(name), int(port_text)


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class HostPolicy:
    """The names a request may be addressed to (besides the loopback names), and whether
    any IP address is (a wildcard bind the user opened with ``--allow-remote``)."""

    names: frozenset[str] = frozenset(LOOPBACK_NAMES)
    any_address: bool = False

    @classmethod
    def of(cls, extra: Iterable[str] = (), any_address: bool = False) -> HostPolicy:
        names = {_name(n) for n in (*LOOPBACK_NAMES, *extra) if _name(n)}
        return cls(frozenset(names), any_address)

    def allows(self, header: str | None, port: int | None) -> bool:
        """Whether a request whose ``Host`` is ``header`` may be answered by a server
        listening on ``port`` (None: not known, any port)."""
        parsed = split_host(header or "")
        if parsed is None:
            return False
        name, asked = parsed
        if port is not None and (asked if asked is not None else 80) != port:
            return False
        return name in self.names or (self.any_address and _is_address(name))


class HostGuard:
    """ASGI middleware: a request whose ``Host`` the policy refuses gets a 400 page."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        hosts = [v for k, v in scope.get("headers", []) if k.lower() == b"host"]
        header = hosts[0].decode("latin-1") if len(hosts) == 1 else None
        server = scope.get("server")
        port = int(server[1]) if server and server[1] is not None else None
        if self.policy.allows(header, port):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        else:
            await _refuse(send, header, port, self.policy)


async def _refuse(send: Send, header: str | None, port: int | None, policy: HostPolicy) -> None:
    shown = "no Host header" if header is None else f"Host: {header[:_MAX_SHOWN]}"
    names = ", ".join(sorted(policy.names))
    at = f" at port {port}" if port is not None else ""
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>400 · ragstat'
        "</title></head><body><h1>400 · wrong host</h1><p>This ragstat view answers only "
        f"requests addressed to {html.escape(names)}{at}; this one came with "
        f"{html.escape(shown)}. A page on another site that points its name at this machine "
        "(DNS rebinding) is refused this way. To serve the view under another name, start it "
        "with <code>ragstat ui --allowed-host NAME</code>.</p></body></html>"
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 400,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
