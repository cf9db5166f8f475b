"""Benchmark: the `ragstat ui` runs list over 10,000 recorded runs vs 10.

    python benchmarks/bench_ui_runs.py            # 10,000 vs 10 runs
    python benchmarks/bench_ui_runs.py --runs 50000

Two registries of synthetic runs (interval, compare and gate manifests with headline
estimates) are written to a temporary folder; the web view's ASGI app answers
``GET /`` (the first page, newest first) in this process, through Starlette and the
jinja2 templates, without a socket. Also timed on the large registry: a filtered page
(``?verb=gate``) and the last page (the largest OFFSET). A 50-run registry fills one
page as the large one does (10 runs show 10 rows, so part of that ratio is rendering).
Printed: each time (best and median of 20) and the ratios large / small. Timing ratios only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from _common import machine_line, timed
from ragstat.registry import Manifest, Registry
from ragstat.registry.schema import UPSERT, manifest_row
from ragstat.ui import create_app

VERBS = ("interval", "compare", "gate")


def _manifest(i: int) -> Manifest:
    verb = VERBS[i % 3]
    est = 0.5 + 0.3 * ((i * 7919) % 1000) / 1000 - 0.15
    results: dict[str, Any] = (
        {"hit1 at least 0.6": "pass" if est > 0.5 else "fail"}
        if verb == "gate"
        else {"micro": {"estimate": est, "lower": est - 0.05, "upper": est + 0.05}}
    )
    return Manifest.from_dict(
        {
            "run_id": f"2026{i:08d}-{i:06x}",
            "command": verb,
            "argv": [verb, f"results-{i % 50}.csv"],
            "config": {"file": f"/data/results-{i % 50}.csv", "level": 0.95},
            "seed": i,
            "corpus_fingerprint": f"{i % 50:064x}",
            "inputs": {"file": f"{i:064x}"},
            "outputs": [f"/runs/{i}/report.html"],
            "results": results,
            "versions": {"python": "3.11", "ragstat": "0"},
            "started_at": f"2026-01-01T00:00:00.{i:06d}+00:00",
            "wall_s": 1.0,
            "status": "failed" if i % 97 == 0 else "ok",
        }
    )


def build(path: Path, n: int) -> Path:
    """A registry at ``path`` holding ``n`` runs (bulk-inserted in one transaction)."""
    Registry(path).record(_manifest(0))
    with sqlite3.connect(path) as con:
        con.executemany(UPSERT, (manifest_row(_manifest(i), "TEXT") for i in range(1, n)))
    return path


def get(app: Any, path: str, query: str = "") -> bytes:
    """One GET through the ASGI app, in this process; the response body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8765),
    }
    body: list[bytes] = []
    status: list[int] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))

    asyncio.run(app(scope, receive, send))
    if status != [200]:
        raise RuntimeError(f"GET {path}?{query} answered {status}")
    return b"".join(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp:
        small = create_app(build(Path(tmp) / "small.sqlite", 10))
        page = create_app(build(Path(tmp) / "page.sqlite", 50))
        large = create_app(build(Path(tmp) / "large.sqlite", args.runs))
        get(small, "/"), get(large, "/")  # warm the templates
        print("runs list, first page (GET /; 50 runs a page), best of 20:")
        t_small = timed("10 runs", lambda: get(small, "/"), repeat=20)
        t_page = timed("50 runs (one full page)", lambda: get(page, "/"), repeat=20)
        t_large = timed(f"{args.runs:,} runs", lambda: get(large, "/"), repeat=20)
        last = (args.runs + 49) // 50
        timed(f"{args.runs:,} runs, ?verb=gate", lambda: get(large, "/", "verb=gate"), repeat=20)
        timed(
            f"{args.runs:,} runs, last page ({last})", lambda: get(large, "/", f"page={last}"), 20
        )
        print(f"ratio {args.runs:,} / 10 runs (best): {t_large.best / t_small.best:.2f}×")
        print(
            f"ratio {args.runs:,} / 50 runs (best, same rows shown): {t_large.best / t_page.best:.2f}×"
        )


if __name__ == "__main__":
    main()
