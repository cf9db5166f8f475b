"""The web view's ASGI app: runs list, run page, report, compare and history (read-only).

Routes take run ids only: a path from the URL never reaches the file system. The one file
served is a run's own report.html (:mod:`ragstat.ui.reports`: a regular file reached through
no link, in the run's output folder, with the sha256 the run recorded). A request addressed
to another host than this server's names gets 400 (:mod:`ragstat.ui.hosts`). Every response
carries a Content-Security-Policy that forbids scripts and any load from elsewhere. A
registry row that cannot be read is left out of the lists with a note, never an error page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ragstat.errors import RagstatError
from ragstat.registry import Manifest, diff_runs
from ragstat.registry.diff import flatten
from ragstat.registry.display import outcome_of, outcome_slug
from ragstat.ui.figure import Row, history_figure
from ragstat.ui.hosts import HostGuard, HostPolicy
from ragstat.ui.pairing import paired_comparison
from ragstat.ui.reports import check_report
from ragstat.ui.series import Estimate, headline, metrics_of, sentences
from ragstat.ui.store import RunQuery, RunStore
from ragstat.ui.views import (
    RunRow,
    data_fingerprint,
    gate_estimates,
    history_key,
    reproduce,
    run_row,
    run_time,
    source_of,
    source_paths,
)

__all__ = ["PAGE_CSP", "REPORT_CSP", "create_app"]

#: The pages': inline styles, images from data: URLs, frames from this server only.
PAGE_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
#: The embedded report's own policy (as in its meta tag), framed by this server only.
REPORT_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'self'"
)
#: What computing a page line from a readable row can still raise on odd recorded values.
_ROW_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)
#: Page numbers past this are all "past the last page".
_MAX_PAGE_DIGITS = 18


class SecurityHeaders:
    """Adds the CSP (unless the route set its own) and no-sniff headers to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                extra = {
                    b"content-security-policy": PAGE_CSP.encode(),
                    b"x-content-type-options": b"nosniff",
                    b"referrer-policy": b"no-referrer",
                    b"cache-control": b"no-store",
                }
                headers += [(k, v) for k, v in extra.items() if k not in names]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class Pages:
    """The route handlers over one registry."""

    def __init__(self, registry_path: Path) -> None:
        self.store = RunStore(registry_path)
        self.env = Environment(
            loader=PackageLoader("ragstat.ui", "templates"), autoescape=True, trim_blocks=True
        )
        self.env.globals.update(
            registry=str(self.store.path),
            run_time=run_time,
            headline=headline,
            source_of=source_of,
            source_paths=source_paths,
            data_fingerprint=data_fingerprint,
            outcome_of=outcome_of,
            outcome_slug=outcome_slug,
        )

    def render(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        html = self.env.get_template(template).render(**context)
        return HTMLResponse(html, status_code=status)

    def _run(self, request: Request, name: str = "run_id") -> Manifest:
        run_id = str(request.path_params[name])
        m = self.store.get(run_id)
        if m is None and self.store.recorded(run_id):
            raise HTTPException(
                404, f"run {run_id} is recorded, but its row in the registry cannot be read"
            )
        if m is None:
            raise HTTPException(404, "no such run in this registry")
        return m

    def runs(self, request: Request) -> HTMLResponse:
        p = request.query_params
        order = "old" if p.get("order") == "old" else "new"
        asked = RunQuery(p.get("verb", ""), p.get("status", ""), order, _page_number(p))
        page = self.store.page(asked)
        q = RunQuery(asked.verb, asked.status, asked.order, page.number)
        rows: list[RunRow] = []
        for m in page.runs:
            try:
                rows.append(run_row(m))
            except _ROW_ERRORS:
                continue
        unreadable = page.unreadable + len(page.runs) - len(rows)
        return self.render(
            "runs.html", q=q, page=page, rows=rows, unreadable=unreadable, last=page.last
        )

    def run(self, request: Request) -> HTMLResponse:
        m = self._run(request)
        return self.render(
            "run.html",
            m=m,
            report=check_report(m),
            command=reproduce(m),
            config=flatten(m.config),
            results=flatten(m.results),
            metrics=metrics_of(m),
            sentences=sentences(m),
            history=history_key(m),
        )

    def report(self, request: Request) -> Response:
        """The run's own report.html (the bytes checked against its sha256), else one 404
        page saying why."""
        found = check_report(self._run(request))
        if found.body is None:
            raise HTTPException(404, found.problem or "no report")
        return Response(
            found.body,
            media_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": REPORT_CSP},
        )

    def compare(self, request: Request) -> HTMLResponse:
        a_id = request.query_params.get("a", "").strip()
        b_id = request.query_params.get("b", "").strip()
        if not (a_id and b_id):
            return self.render("compare.html", a_id=a_id, b_id=b_id, diff=None)
        a, b = self.store.get(a_id), self.store.get(b_id)
        missing = [i for i, m in ((a_id, a), (b_id, b)) if m is None]
        if a is None or b is None:
            return self.render(
                "compare.html", status=404, a_id=a_id, b_id=b_id, diff=None, missing=missing
            )
        d = diff_runs(a, b)
        paired = paired_comparison(a, b)
        return self.render("compare.html", a_id=a_id, b_id=b_id, a=a, b=b, diff=d, paired=paired)

    def history(self, request: Request) -> HTMLResponse:
        """One series (one score of one subject, one estimand) across the runs tied to this
        one; links select the other series."""
        m = self._run(request)
        key = history_key(m)
        runs, unreadable = self.store.history(key) if key is not None else ([m], 0)
        per_run: dict[str, list[Estimate]] = {}
        for r in runs:
            try:
                per_run[r.run_id] = _series(r)
            except _ROW_ERRORS:
                unreadable += 1
        runs = [r for r in runs if r.run_id in per_run]
        own = [e.name for e in per_run.get(m.run_id, [])]
        names = list(dict.fromkeys([*own, *(e.name for es in per_run.values() for e in es)]))
        p = request.query_params
        chosen = p.get("series", p.get("metric", ""))
        series = chosen if chosen in names else (names[0] if names else "")
        rows, missing = [], []
        for r in runs:
            e = next((e for e in per_run[r.run_id] if e.name == series), None)
            if e is None:
                missing.append(r)
                continue
            when = run_time(r.started_at)
            rows.append(Row(r.run_id, when, e.estimate, e.lower, e.upper, e.outcome, e.text))
        return self.render(
            "history.html",
            m=m,
            key=key,
            metric=series,
            metrics=names,
            rows=rows,
            missing=missing,
            unreadable=unreadable,
            figure=history_figure(rows),
        )

    async def not_found(self, request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else str(exc)
        return self.render("error.html", status=status, status_code=status, detail=detail)

    async def failed(self, request: Request, exc: Exception) -> Response:
        return self.render("error.html", status=500, status_code=500, detail=str(exc))


def _series(m: Manifest) -> list[Estimate]:
    """A run's series: a gate's gates (from its result.json), else its recorded estimates."""
    return gate_estimates(m) if m.command == "gate" else metrics_of(m)


def _page_number(params: Any) -> int:
    """``?page=`` as a page number ≥ 1 (a huge one: past the last page, which is shown);
    400 for anything else."""
    text = params.get("page", "1")
    if not re.fullmatch(r"[0-9]+", text) or not text.strip("0"):
        raise HTTPException(400, f"page must be a whole number from 1, not {text[:40]!r}")
    return int(text) if len(text) <= _MAX_PAGE_DIGITS else 10**_MAX_PAGE_DIGITS


def create_app(
    registry_path: str | Path,
    allowed_hosts: Iterable[str] = (),
    any_address: bool = False,
) -> ASGIApp:
    """The read-only web view over the registry file ``registry_path``. It answers requests
    addressed to the loopback names (127.0.0.1, localhost, [::1]) or ``allowed_hosts`` at the
    port it listens on, and any IP address when ``any_address``; other requests get 400."""
    pages = Pages(Path(registry_path))
    routes = [
        Route("/", pages.runs, methods=["GET"]),
        Route("/run/{run_id}", pages.run, methods=["GET"]),
        Route("/run/{run_id}/report", pages.report, methods=["GET"]),
        Route("/compare", pages.compare, methods=["GET"]),
        Route("/history/{run_id}", pages.history, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: pages.not_found, RagstatError: pages.failed},
    )
    return SecurityHeaders(HostGuard(app, HostPolicy.of(allowed_hosts, any_address)))
