"""The HTML report in a real headless browser: figures and checklist render, nothing is fetched."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ragstat.inference import analyze
from ragstat.records import aggregate_arrays
from ragstat.report import report_from_interval, write_report
from ragstat.report.checklist import LABELS

pytestmark = pytest.mark.slow  # headless Chromium

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
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
TIMEOUT = 60


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium/Chrome browser installed")


def _run(args: list[str]) -> subprocess.CompletedProcess:
    """Run the browser in its own process group; kill the whole group whatever happens."""
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        out, err = b"", b"timed out"
    finally:
        with contextlib.suppress(ProcessLookupError):  # the group holds the helper processes
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    rng = np.random.default_rng(2)
    n = rng.integers(2, 40, 40)
    doc = np.repeat([f"d{i:02d}" for i in range(40)], n)
    y = (rng.random(n.sum()) < np.repeat(rng.beta(1, 3, 40), n)).astype(float)
    pos = np.concatenate([np.arange(k) for k in n])
    strata = np.repeat(np.array(["<script>alert(1)</script>", "<b>x</b>"] * 20), n)
    stats = aggregate_arrays(doc, y, position=pos, stratum=strata, score="hit")
    rep = analyze(stats, seed=0, bootstrap_reps=99)
    report = report_from_interval(rep, stats, source="browser test", created="2026-01-01T00:00:00")
    out = tmp_path_factory.mktemp("page")
    return write_report(report, out)["html"]


def test_html_has_no_external_references(page):
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, flags=re.I)
    assert "<script" not in html.lower()


def test_browser_renders_checklist_and_figures(page, tmp_path):
    browser = _browser()
    profile = tmp_path / "profile"
    base = [browser, *FLAGS, f"--user-data-dir={profile}"]
    res = _run([*base, "--dump-dom", page.as_uri()])
    assert res.returncode == 0, res.stderr.decode(errors="replace")[-2000:]
    dom = res.stdout.decode("utf-8")
    text = re.sub(r"<[^>]+>", " ", dom)
    for label in LABELS.values():
        assert label in text.replace("&amp;", "&")
    drawn = re.findall(r'<figure id="(T\d)" class="drawn"', dom)
    assert drawn == ["T1", "T2", "T5", "T6"]
    assert dom.count("<svg") == len(drawn)
    assert "<script" not in dom  # the hostile stratum names stayed text

    shot = tmp_path / "shot.png"
    res = _run([*base, f"--screenshot={shot}", "--window-size=1280,4000", page.as_uri()])
    assert res.returncode == 0 and shot.is_file(), res.stderr.decode(errors="replace")[-2000:]
    from PIL import Image

    with Image.open(shot) as img:
        rgb = np.asarray(img.convert("RGB"))
    assert rgb.shape[:2] == (4000, 1280)
    non_white = np.mean(np.any(rgb < 245, axis=2))
    colours = np.unique(rgb[::4, ::4].reshape(-1, 3), axis=0).shape[0]
    assert non_white > 0.05  # text, tables and figures, not a blank page
    assert colours > 50
    # the figures' blue bars are on the page (matplotlib's C0, #1f77b4)
    blue = np.all(np.abs(rgb.astype(int) - [31, 119, 180]) < 30, axis=2)
    assert blue.mean() > 0.002


@pytest.fixture(scope="module")
def study_page(tmp_path_factory) -> tuple[Path, list[str]]:
    """A demo-style study folder (two retrievers, paired): its report.html and verdicts."""
    import json

    from ragstat.api.verbs.study import study

    rng = np.random.default_rng(4)
    vocab = [f"w{i}" for i in range(300)]
    rows = []
    for d in range(16):
        own = rng.choice(300, 25, replace=False)
        words = [
            vocab[own[i % 25]] if rng.random() < 0.5 else vocab[int(rng.integers(0, 300))]
            for i in range(int(rng.integers(100, 300)))
        ]
        rows.append(json.dumps({"doc_id": f"d{d:02d}", "text": " ".join(words)}))
    folder = tmp_path_factory.mktemp("study-page")
    (folder / "c.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = study(folder / "c.jsonl", chunk_words=40, query_words=8, bootstrap_reps=199)
    result.write(folder / "out", report=result.report(created="2026-01-01T00:00:00+00:00"))
    return folder / "out" / "report.html", result.summary.verdicts()


def test_browser_shows_the_study_verdict_first(study_page, tmp_path):
    page, sentences = study_page
    browser = _browser()
    base = [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    res = _run([*base, "--dump-dom", page.as_uri()])
    assert res.returncode == 0, res.stderr.decode(errors="replace")[-2000:]
    dom = res.stdout.decode("utf-8")
    section = re.search(r'<section id="verdict">(.*?)</section>', dom, flags=re.S)
    assert section is not None and dom.index('id="verdict"') < dom.index('class="facts"')
    shown = [re.sub(r"<[^>]+>", "", li).strip() for li in re.findall(r"<li>(.*?)</li>", section[1])]
    assert shown == sentences
    assert shown[0].startswith("For a random query, hit1 of bm25 is ")
    assert any(" beats " in s or "cannot be told apart" in s for s in shown[-2:])
