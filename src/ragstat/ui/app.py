"""The web view's ASGI app: runs list, run page, report, compare and history (read-only).

Routes take run ids only: a path from the URL never reaches the file system. The one file
served is a run's report.html, from the output path its manifest records. Every response
carries a Content-Security-Policy that forbids scripts and any load from elsewhere.
"""

from __future__ import annotations

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
from ragstat.ui.pairing import paired_comparison
from ragstat.ui.series import Estimate, headline, metrics_of, sentences
from ragstat.ui.store import PAGE_SIZE, RunQuery, RunStore
from ragstat.ui.views import (
    data_fingerprint,
    gate_estimates,
    history_key,
    report_file,
    reproduce,
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
_MAX_REPORT = 256 << 20


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
        m = self.store.get(str(request.path_params[name]))
        if m is None:
            raise HTTPException(404, "no such run in this registry")
        return m

    def runs(self, request: Request) -> HTMLResponse:
        p = request.query_params
        order = "old" if p.get("order") == "old" else "new"
        try:
            page_no = max(int(p.get("page", "1")), 1)
        except ValueError:
            page_no = 1
        q = RunQuery(p.get("verb", ""), p.get("status", ""), order, page_no)
        page = self.store.page(q)
        last = max((page.total + PAGE_SIZE - 1) // PAGE_SIZE, 1)
        return self.render("runs.html", q=q, page=page, last=last, size=PAGE_SIZE)

    def run(self, request: Request) -> HTMLResponse:
        m = self._run(request)
        return self.render(
            "run.html",
            m=m,
            report=report_file(m),
            command=reproduce(m),
            config=flatten(m.config),
            results=flatten(m.results),
            metrics=metrics_of(m),
            sentences=sentences(m),
            history=history_key(m),
        )

    def report(self, request: Request) -> Response:
        """The run's recorded report.html, and nothing else."""
        found = report_file(self._run(request))
        if found.path is None:
            raise HTTPException(404, found.problem or "no report")
        try:
            if found.path.stat().st_size > _MAX_REPORT:
                raise HTTPException(404, "the report is too large to show")
            body = found.path.read_bytes()
        except OSError as exc:
            raise HTTPException(404, "the report could not be read") from exc
        return Response(
            body,
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
        runs = self.store.history(key) if key is not None else [m]
        per_run = {r.run_id: _series(r) for r in runs}
        own = [e.name for e in per_run.get(m.run_id, _series(m))]
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


def create_app(registry_path: str | Path) -> ASGIApp:
    """The read-only web view over the registry file ``registry_path``."""
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
    return SecurityHeaders(app)
