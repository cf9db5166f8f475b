"""Write docs/ui-runs.png and docs/ui-history.png: `ragstat ui` pages in headless Chromium.

    python scripts/make_ui_screenshot.py [--docs docs]

Records real runs in a temporary registry: five `ragstat interval` runs of bm25's hit@1 on
one results file (a few hits turned into misses between runs, as a retrieval change
would) and two of tfidf's reciprocal rank on the same file, a `ragstat compare` of the two
systems, and two `ragstat gate` runs, one that passes and one that fails (exit 1). Serves
the web view on a free loopback port, screenshots the runs list (the failed gate in red)
and the history of bm25's hit@1 (links to the other series), and stops the server by its
PID. Needs the ui extra and a Chromium (`chromium`) on PATH.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from ragstat.cli import main as ragstat_main
from ragstat.registry import Registry

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ROOT / "tests" / "fixtures" / "formats"
RESULTS = FORMATS / "interval" / "results.csv"
SERVE = (
    "import sys, uvicorn\nfrom ragstat.ui import create_app\n"
    "uvicorn.run(create_app(sys.argv[1]), host='127.0.0.1', port=int(sys.argv[2]),"
    " log_level='warning')\n"
)
REPS = ["--seed", "1", "--bootstrap-reps", "999"]


def _table(path: Path, flips: int) -> None:
    """The interval fixture as two systems, bm25 (hit1: the fixture's hits with the first
    ``flips`` turned into misses) and tfidf (rr), one row per query and system."""
    lines = RESULTS.read_text(encoding="utf-8").splitlines()
    out, done = ["query_id,doc_id,system,hit1,rr"], 0
    for i, line in enumerate(lines[1:]):
        qid, doc, _pos, hit, _law = line.split(",")
        if done < flips and hit == "1":
            hit, done = "0", done + 1
        out.append(f"{qid},{doc},bm25,{hit},{1.0 if hit == '1' else 0.25}")
        out.append(f"{qid},{doc},tfidf,{int(i % 3 == 0)},{1.0 if i % 3 == 0 else 0.2}")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _run(*args: str, expect: int = 0) -> None:
    code = ragstat_main(list(args))
    if code != expect:
        raise SystemExit(f"ragstat {args[0]} exited {code}, expected {expect}")


def _gates(folder: Path, threshold: float) -> Path:
    shutil.copytree(FORMATS / "gate", folder)
    spec = folder / "gates.toml"
    text = spec.read_text(encoding="utf-8").replace("threshold = 0.6", f"threshold = {threshold}")
    text = text.replace('"hit1 at least 0.6"', f'"hit1 at least {threshold}"')
    spec.write_text(text, encoding="utf-8")
    return spec


def record_runs(folder: Path) -> tuple[Path, str]:
    """The runs in a registry in ``folder``; the newest bm25 interval run's id."""
    registry = folder / "registry.sqlite"
    os.environ["RAGSTAT_REGISTRY"] = str(registry)
    os.chdir(folder)
    data = folder / "records.csv"
    newest = ""
    for run, flips in enumerate((5, 3, 4, 1, 0)):
        _table(data, flips)
        _run(
            "interval", str(data), "--system", "bm25", "--score", "hit1", "--out", f"b{run}", *REPS
        )
        newest = Registry(registry).list(1)[0].run_id
        if run in (1, 3):
            _run("interval", str(data), "--system", "tfidf", "--score", "rr", *REPS)
    _run("compare", str(data), "--systems", "bm25,tfidf", "--score", "hit1", *REPS)
    _run("gate", str(_gates(folder / "passes", 0.2)))
    _run("gate", str(_gates(folder / "fails", 0.99)), expect=1)
    if Registry(registry).list(1)[0].outcome != "failed gate":
        raise SystemExit(
            "the failed gate was not recorded as 'failed gate': cli/gate.py must report its "
            "outcome with log.decided(result.passed)"
        )
    return registry, newest


def _wait(url: str) -> None:
    for _ in range(200):
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=2).close()
            return
        time.sleep(0.05)


def _shot(browser: str, url: str, out: Path, size: str) -> None:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    flags += ["--no-first-run", "--disable-extensions", f"--window-size={size}"]
    shot = subprocess.Popen([browser, *flags, f"--screenshot={out}", url], start_new_session=True)
    try:
        shot.wait(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(shot.pid, signal.SIGKILL)
        shot.wait()
    if not out.is_file():
        raise SystemExit(f"chromium wrote no {out}")


def screenshots(registry: Path, run_id: str, docs: Path) -> list[Path]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("no chromium on PATH")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-c", SERVE, str(registry), str(port)])
    base = f"http://127.0.0.1:{port}"
    pages = [
        ("/", docs / "ui-runs.png", "1280,760"),
        (f"/history/{run_id}", docs / "ui-history.png", "900,760"),
    ]
    try:
        _wait(base + "/")
        for path, out, size in pages:
            _shot(browser, base + path, out, size)
    finally:
        os.kill(server.pid, signal.SIGTERM)
        server.wait(timeout=10)
    return [out for _, out, _ in pages]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=ROOT / "docs")
    docs = parser.parse_args().docs.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        registry, run_id = record_runs(Path(tmp))
        written = screenshots(registry, run_id, docs)
        os.chdir(ROOT)
    for out in written:
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
