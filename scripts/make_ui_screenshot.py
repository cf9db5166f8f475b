"""Write docs/ui-history.png: the `ragstat ui` history page in headless Chromium.

    python scripts/make_ui_screenshot.py [--out docs/ui-history.png]

Records five `ragstat interval` runs of one results file (a few hits turned into misses
between runs, as a retrieval change would) in a temporary registry, serves the web view
on a free loopback port, screenshots the history page and stops the server by its PID.
Needs the ui extra and a Chromium (`chromium`) on PATH.
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
RESULTS = ROOT / "tests" / "fixtures" / "formats" / "interval" / "results.csv"
SERVE = (
    "import sys, uvicorn\nfrom ragstat.ui import create_app\n"
    "uvicorn.run(create_app(sys.argv[1]), host='127.0.0.1', port=int(sys.argv[2]),"
    " log_level='warning')\n"
)


def record_runs(folder: Path) -> tuple[Path, str]:
    """Five interval runs of one file in a registry in ``folder``; the newest run's id."""
    registry = folder / "registry.sqlite"
    os.environ["RAGSTAT_REGISTRY"] = str(registry)
    os.chdir(folder)
    lines = RESULTS.read_text(encoding="utf-8").splitlines()
    data = folder / "results.csv"
    for run, flips in enumerate((5, 3, 4, 1, 0)):
        rows, done = [lines[0]], 0
        for line in lines[1:]:
            cells = line.split(",")
            if done < flips and cells[3] == "1":
                cells[3], done = "0", done + 1
            rows.append(",".join(cells))
        data.write_text("\n".join(rows) + "\n", encoding="utf-8")
        args = ["interval", str(data), "--out", f"run{run}", "--seed", "1"]
        if ragstat_main([*args, "--bootstrap-reps", "999"]) != 0:
            raise SystemExit("ragstat interval failed")
    return registry, Registry(registry).list(1)[0].run_id


def screenshot(registry: Path, run_id: str, out: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("no chromium on PATH")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-c", SERVE, str(registry), str(port)])
    url = f"http://127.0.0.1:{port}/history/{run_id}"
    try:
        for _ in range(200):
            with contextlib.suppress(OSError):
                urllib.request.urlopen(url, timeout=2).close()
                break
            time.sleep(0.05)
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
        flags += ["--no-first-run", "--disable-extensions", "--window-size=900,720"]
        shot = subprocess.Popen(
            [browser, *flags, f"--screenshot={out}", url], start_new_session=True
        )
        try:
            shot.wait(timeout=60)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(shot.pid, signal.SIGKILL)
    finally:
        os.kill(server.pid, signal.SIGTERM)
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "ui-history.png")
    out = parser.parse_args().out.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        registry, run_id = record_runs(Path(tmp))
        screenshot(registry, run_id, out)
        os.chdir(ROOT)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
