"""`ragstat ui`: the web view over a registry of real runs, in urllib and real headless Chromium."""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from ragstat.cli import main
from ragstat.errors import BackendUnavailable, InputError
from ragstat.registry import Manifest, Registry
from ui_server import serve

FORMATS = Path(__file__).parent / "fixtures" / "formats"
EVIL = "<script>alert('pwned')</script>"
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


def _interval_file(path: Path, flips: int) -> None:
    """The interval fixture with the first ``flips`` hits turned into misses."""
    lines = (FORMATS / "interval" / "results.csv").read_text(encoding="utf-8").splitlines()
    out, done = [lines[0]], 0
    for line in lines[1:]:
        cells = line.split(",")
        if done < flips and cells[3] == "1":
            cells[3], done = "0", done + 1
        out.append(",".join(cells))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _record(reg: Path, run_id: str, **kw: object) -> None:
    base: dict[str, object] = {
        "run_id": run_id,
        "command": "interval",
        "argv": ["interval", "x.csv"],
        "config": {"file": "/nowhere/x.csv", "score": "hit"},
        "seed": 1,
        "corpus_fingerprint": None,
        "inputs": {"file": "ab" * 32},
        "outputs": [],
        "results": {"micro": {"estimate": 0.5, "lower": 0.4, "upper": 0.6}},
        "versions": {"python": "3"},
        "started_at": "2026-01-01T00:00:00+00:00",
        "wall_s": 1.0,
    }
    base.update(kw)
    Registry(reg).record(Manifest.from_dict(base))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, object]:
    """A registry of real runs: three intervals of one file, a compare, two gates; plus an
    injected run whose source holds a script and a run whose report was moved away."""
    root = tmp_path_factory.mktemp("ui")
    reg = root / "registry.sqlite"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGSTAT_REGISTRY", str(reg))
        mp.chdir(root)
        data = root / "results.csv"
        for i, flips in enumerate((0, 3, 6)):
            _interval_file(data, flips)
            args = ["interval", str(data), "--out", f"i{i}", "--seed", "1"]
            assert main([*args, "--bootstrap-reps", "99"]) == 0
        compare = [str(FORMATS / "compare" / f"run_{s}.csv") for s in "ab"]
        assert main(["compare", *compare, "--out", "c0", "--bootstrap-reps", "99"]) == 0
        shutil.copytree(FORMATS / "gate", root / "g")
        for i in range(2):
            assert main(["gate", str(root / "g" / "gates.toml"), "--out", f"g{i}"]) in (0, 1)
    reg_obj = Registry(reg)
    ids = {m.run_id: m for m in reg_obj.list()}
    pair = _pair_runs(root, reg)
    _record(reg, "evil-run", config={"file": EVIL, "score": "hit"}, argv=["interval", EVIL])
    _record(reg, "moved-run", outputs=[str(root / "gone" / "report.html")])
    by_verb: dict[str, list[str]] = {}
    for m in sorted(ids.values(), key=lambda m: m.started_at):
        by_verb.setdefault(m.command, []).append(m.run_id)
    (root / "secret.txt").write_text("top secret", encoding="utf-8")
    return {"registry": reg, "root": root, "by_verb": by_verb, "pair": pair}


def _pair_runs(root: Path, reg: Path) -> dict[str, str]:
    """Interval runs on two tables sharing their query ids (``a``, ``b``) and on a third
    whose query ids are all different (``other``), by role."""
    folder = root / "pair"
    folder.mkdir()
    _interval_file(folder / "a.csv", 0)
    _interval_file(folder / "b.csv", 6)
    lines = (folder / "a.csv").read_text(encoding="utf-8").splitlines()
    other = [lines[0]] + ["z" + line for line in lines[1:]]
    (folder / "other.csv").write_text("\n".join(other) + "\n", encoding="utf-8")
    before = {m.run_id for m in Registry(reg).list()}
    roles = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGSTAT_REGISTRY", str(reg))
        mp.chdir(root)
        for role in ("a", "b", "other"):
            args = ["interval", str(folder / f"{role}.csv"), "--out", f"p-{role}"]
            assert main([*args, "--seed", "1", "--bootstrap-reps", "99"]) == 0
            (new,) = {m.run_id for m in Registry(reg).list()} - before - set(roles.values())
            roles[role] = new
    return roles


@pytest.fixture(scope="module")
def server(runs):
    with serve(runs["registry"]) as port:
        yield f"http://127.0.0.1:{port}"


def _get(url: str) -> tuple[int, str, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode("utf-8"), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8"), dict(e.headers)


def _raw(base: str, path: str) -> tuple[int, str]:
    """A request with ``path`` sent exactly as written (no client-side ``..`` folding)."""
    host, port = base.removeprefix("http://").split(":")
    con = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        con.request("GET", path)
        r = con.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        con.close()


# ----------------------------------------------------------------------------- pages


def test_runs_list_shows_every_run_with_its_headline_and_filters(runs, server):
    status, html, headers = _get(server + "/")
    assert status == 200
    assert "default-src 'none'" in headers["content-security-policy"]
    for ids in runs["by_verb"].values():
        for run_id in ids:
            assert f'data-run="{run_id}"' in html
    # the recorded headline: estimate, interval and the method that gave it
    assert re.search(r"hit · micro [\d.]+( points)? \([\d.]+ to [\d.]+, \w+\)", html)
    _, gates, _ = _get(server + "/?verb=gate")
    assert gates.count('class="run"') == 2 and "interval</td>" not in gates
    _, old, _ = _get(server + "/?order=old&verb=interval")
    first = runs["by_verb"]["interval"][0]
    assert old.index(first) < old.index(runs["by_verb"]["interval"][-1])
    assert "<script" not in html.lower().replace("&lt;script", "")


def test_run_page_has_manifest_inputs_command_and_the_report(runs, server):
    run_id = runs["by_verb"]["interval"][0]
    status, html, _ = _get(f"{server}/run/{run_id}")
    assert status == 200
    assert 'id="reproduce">ragstat interval ' in html and "--seed 1" in html
    assert re.search(r'<td class="mono">[0-9a-f]{64}</td>', html)  # an input's sha256
    assert f'src="/run/{run_id}/report"' in html
    status, report, headers = _get(f"{server}/run/{run_id}/report")
    recorded = Path(runs["root"]) / "i0" / "report.html"
    assert status == 200 and report == recorded.read_text(encoding="utf-8")
    assert "frame-ancestors 'self'" in headers["content-security-policy"]


def test_a_moved_report_is_explained(server):
    status, html, _ = _get(f"{server}/run/moved-run")
    assert status == 200 and "is not there any more" in html and "<iframe" not in html
    assert _get(f"{server}/run/moved-run/report")[0] == 404


def test_history_draws_one_point_per_run_and_marks_gate_outcomes(runs, server):
    ids = runs["by_verb"]["interval"]
    _, html, _ = _get(f"{server}/history/{ids[-1]}")
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert svg.count('class="point"') == len(ids) == 3
    assert svg.count('class="interval"') == 3
    gate_ids = runs["by_verb"]["gate"]
    _, gates, _ = _get(f"{server}/history/{gate_ids[0]}")
    svg = gates[gates.index("<svg") : gates.index("</svg>")]
    assert svg.count('class="point"') == 2 and svg.count("outcome-pass") == 2


def test_compare_shows_the_runs_diff(runs, server):
    a, b = runs["by_verb"]["interval"][0], runs["by_verb"]["interval"][-1]
    status, html, _ = _get(f"{server}/compare?a={a}&b={b}")
    assert status == 200 and 'id="diff-data"' in html and 'id="diff-results"' in html
    assert _get(f"{server}/compare?a={a}&b=nope")[0] == 404


def test_compare_pairs_runs_that_share_queries(runs, server):
    pair = runs["pair"]
    status, html, _ = _get(f"{server}/compare?a={pair['a']}&b={pair['b']}")
    assert status == 200 and 'id="paired"' in html and 'id="paired-problem"' not in html
    verdicts = re.findall(r'<p class="paired-verdict">([^<]*)</p>', html)
    assert len(verdicts) == 2  # micro and macro
    assert all("beats" in v or "cannot be told apart" in v for v in verdicts), verdicts
    assert "24 shared queries in 8 documents" in html


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        ("other", "a", "share no query ids"),  # tables with no query in common
        ("i0", "a", "has changed since the run"),  # i0's table was overwritten later
        ("gate", "a", "is not a per-query analysis"),
        ("moved-run", "a", "is not there any more"),
    ],
)
def test_compare_explains_why_runs_are_not_paired(runs, server, a, b, why):
    ids = {**runs["pair"], "i0": runs["by_verb"]["interval"][0]}
    ids["gate"] = runs["by_verb"]["gate"][0]
    a_id, b_id = ids.get(a, a), ids.get(b, b)
    status, html, _ = _get(f"{server}/compare?a={a_id}&b={b_id}")
    assert status == 200 and 'id="paired-problem"' in html
    assert why in html and 'class="paired-verdict"' not in html


def test_a_script_in_a_source_stays_escaped_on_the_compare_page(runs, server):
    status, html, _ = _get(f"{server}/compare?a=evil-run&b={runs['pair']['a']}")
    problem = re.search(r'<p class="note" id="paired-problem">([^<]*)</p>', html)
    assert status == 200 and problem and "relative path &lt;script&gt;alert(" in problem[1]
    assert EVIL not in html and "&lt;script&gt;alert(" in html
    assert "<script" not in html.lower()


# -------------------------------------------------------------------------- security


def test_a_script_in_a_source_is_escaped(server):
    _, listing, _ = _get(server + "/")
    _, page, _ = _get(server + "/run/evil-run")
    for html in (listing, page):
        assert EVIL not in html and "&lt;script&gt;alert(" in html


@pytest.mark.parametrize(
    "path",
    [
        "/run/../../etc/passwd",
        "/run/..%2F..%2Fetc%2Fpasswd",
        "/run/%2Fetc%2Fpasswd",
        "/run/%2Fetc%2Fpasswd/report",
        "/run/..%2Fsecret.txt/report",
        "/run/no-such-run",
        "/run/no-such-run/report",
        "/history/no-such-run",
        "/etc/passwd",
        "//etc/passwd",
    ],
)
def test_paths_never_reach_the_file_system(server, path):
    status, body = _raw(server, path)
    assert status == 404
    assert "root:" not in body and "top secret" not in body


def test_the_view_is_read_only(server):
    req = urllib.request.Request(server + "/", method="POST", data=b"x")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 405


# ------------------------------------------------------------------------------- CLI


def test_cli_refuses_a_remote_host_and_names_the_extra(monkeypatch, tmp_path):
    from ragstat.cli import ui

    assert ui.is_loopback("127.0.0.1") and ui.is_loopback("::1") and ui.is_loopback("localhost")
    assert not ui.is_loopback("0.0.0.0") and not ui.is_loopback("example.org")
    with pytest.raises(InputError, match="--allow-remote"):
        ui.ui(registry=tmp_path / "r.sqlite", host="0.0.0.0")
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    with pytest.raises(BackendUnavailable, match="ui extra"):
        ui.ui(registry=tmp_path / "r.sqlite")


# --------------------------------------------------------------------------- Chromium


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium/Chrome browser installed")


def _chromium(url: str, *extra: str) -> str:
    """Run the browser in its own process group; kill the whole group whatever happens."""
    proc = subprocess.Popen(
        [_browser(), *FLAGS, *extra, url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return out.decode("utf-8", "replace")


def _shot(url: str, path: Path, size: str = "1100,900") -> None:
    _chromium(url, f"--screenshot={path}", f"--window-size={size}")
    assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow  # headless Chromium
def test_pages_in_headless_chromium(runs, server, tmp_path):
    _browser()
    ids = runs["by_verb"]["interval"]
    dom = _chromium(server + "/", "--dump-dom")
    listed = sum(len(v) for v in runs["by_verb"].values()) + len(runs["pair"]) + 2
    assert dom.count('class="run"') == listed
    assert "<script>alert(" not in dom
    dom = _chromium(f"{server}/run/{ids[0]}", "--dump-dom")
    assert re.search(rf'<iframe[^>]+src="/run/{ids[0]}/report"', dom)
    dom = _chromium(f"{server}/history/{ids[-1]}", "--dump-dom")
    assert "<svg" in dom and dom.count('class="point"') == 3
    dom = _chromium(f"{server}/compare?a={ids[0]}&b={ids[-1]}", "--dump-dom")
    assert 'id="verdict"' in dom and "What changed from" in dom
    pair = runs["pair"]
    dom = _chromium(f"{server}/compare?a={pair['a']}&b={pair['b']}", "--dump-dom")
    assert 'class="paired-verdict"' in dom and "24 shared queries" in dom
    for name, path in (
        ("runs", "/"),
        ("run", f"/run/{ids[0]}"),
        ("history", f"/history/{ids[-1]}"),
    ):
        _shot(server + path, tmp_path / f"ui-{name}.png")
