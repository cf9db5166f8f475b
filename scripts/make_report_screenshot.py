"""Write docs/report-verdict.png: the top of the demo's report.html in headless Chromium.

    python scripts/make_report_screenshot.py [--study FOLDER] [--out docs/report-verdict.png]

Runs `ragstat demo` (the built-in corpus, BM25 and TF-IDF, seed 0; about 25 s) into a
temporary folder, unless ``--study`` names a study folder that already has a report.html,
then screenshots the page's top — the title, the verdict (hit@1 of each retriever with its
headline interval, who wins the paired comparison, by how much, and whether it is real),
the facts of the run and the summary table — and checks that the verdict's first sentence
is in the page Chromium rendered. Needs a Chromium (`chromium`) on PATH.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--no-first-run",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
)
WINDOW = "--window-size=1280,1100"


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no Chromium on PATH (apt-get install chromium)")


def _chromium(args: list[str]) -> bytes:
    """Run Chromium in its own process group and end the group by its id afterwards."""
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    if proc.returncode != 0:
        sys.exit(f"chromium failed: {err.decode(errors='replace')[-2000:]}")
    return out


def _demo(folder: Path) -> Path:
    from ragstat.cli import main as ragstat_main

    code = ragstat_main(["demo", "--out", str(folder), "--quiet"])
    if code != 0:
        sys.exit(f"ragstat demo exited {code}")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", type=Path, help="a study folder with report.html")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report-verdict.png")
    args = parser.parse_args()
    browser = _browser()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.study or _demo(Path(tmp) / "demo")
        page = (folder / "report.html").resolve()
        first = json.loads((folder / "summary.json").read_text(encoding="utf-8"))["verdicts"][0]
        base = [browser, *FLAGS, f"--user-data-dir={Path(tmp) / 'profile'}"]
        dom = _chromium([*base, "--dump-dom", page.as_uri()]).decode("utf-8")
        text = re.sub(r"<[^>]+>", "", dom)
        if first not in text:
            sys.exit(f"the verdict {first!r} is not in the rendered page")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        _chromium([*base, f"--screenshot={args.out.resolve()}", WINDOW, page.as_uri()])
    print(f"wrote {args.out} (verdict: {first})")


if __name__ == "__main__":
    main()
