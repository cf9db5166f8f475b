"""The web view tells the truth: a run's status is its outcome (a failed gate is "failed gate",
in red; "passed" and "ran" are distinct), the source column names the input files, the
history draws one score of one system per figure (links select the others), and the
headline recorded and shown is :func:`ragstat.inference.headline.headline` of the report."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from ragstat.cli import main
from ragstat.cli.runlog import recorded
from ragstat.inference.headline import headline
from ragstat.registry import Registry
from ui_server import serve

FORMATS = Path(__file__).parent / "fixtures" / "formats"
RED = "#b3261e"


def _systems_table(path: Path, documents: int | None = None) -> None:
    """The interval fixture as two systems (bm25, tfidf) with two scores (hit1, rr); only the
    first ``documents`` documents when given."""
    lines = (FORMATS / "interval" / "results.csv").read_text(encoding="utf-8").splitlines()
    rows = [line.split(",") for line in lines[1:]]
    if documents is not None:
        keep = list(dict.fromkeys(r[1] for r in rows))[:documents]
        rows = [r for r in rows if r[1] in keep]
    out = ["query_id,doc_id,system,hit1,rr"]
    for i, (qid, doc, _pos, hit, _law) in enumerate(rows):
        out.append(f"{qid},{doc},bm25,{hit},{0.5 + 0.5 * int(hit) if i % 3 else 0.25}")
        flipped = "0" if i % 4 == 0 else hit
        out.append(f"{qid},{doc},tfidf,{flipped},{0.2 + 0.8 * int(flipped)}")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _gates(folder: Path, threshold: float) -> Path:
    """The gate fixture with its first gate's threshold set to ``threshold``."""
    shutil.copytree(FORMATS / "gate", folder)
    spec = folder / "gates.toml"
    text = spec.read_text(encoding="utf-8").replace("threshold = 0.6", f"threshold = {threshold}")
    text = text.replace('"hit1 at least 0.6"', f'"hit1 at least {threshold}"')
    spec.write_text(text, encoding="utf-8")
    return spec


def _gate_run(spec: Path) -> int:
    """A gate run recorded as the gate verb records one, with its outcome reported through
    ``RunLog.decided``; the exit code the verb would give."""
    from ragstat.api.verbs.gate import gate as decide
    from ragstat.api.verbs.gate import input_files, read_gates_file

    spec_file = read_gates_file(spec)
    inputs = {"gates_file": spec, **input_files(spec_file)}
    with recorded("gate", {"gates_file": str(spec.resolve())}, inputs=inputs) as log:
        result = decide(spec_file)
        log.results = {g.spec.name: g.decision.outcome for g in result.gates}
        log.decided(result.passed)
    return result.exit_code()


def _newest(reg: Path) -> str:
    return Registry(reg).list(1)[0].run_id


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("truth")
    reg = root / "registry.sqlite"
    ids: dict[str, str] = {}
    table, few = root / "records.csv", root / "few.csv"
    _systems_table(table)
    _systems_table(few, documents=3)
    reps = ["--seed", "1", "--bootstrap-reps", "99"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGSTAT_REGISTRY", str(reg))
        mp.chdir(root)
        for system, score in (("bm25", "hit1"), ("tfidf", "rr")):
            args = ["interval", str(table), "--system", system, "--score", score]
            assert main([*args, "--out", f"i-{system}", *reps]) == 0
            ids[f"{system} {score}"] = _newest(reg)
        assert main(["interval", str(few), "--system", "bm25", "--score", "hit1", *reps]) == 0
        ids["few"] = _newest(reg)
        files = [str(FORMATS / "compare" / f"run_{s}.csv") for s in "ab"]
        assert main(["compare", *files, *reps]) == 0
        ids["compare files"] = _newest(reg)
        assert (
            main(["compare", str(table), "--systems", "bm25,tfidf", "--score", "hit1", *reps]) == 0
        )
        ids["compare systems"] = _newest(reg)
        assert _gate_run(_gates(root / "gate-fails", 0.99)) == 1
        ids["failed gate"] = _newest(reg)
        assert _gate_run(_gates(root / "gate-passes", 0.2)) == 0
        ids["passed gate"] = _newest(reg)
        assert main(["interval", str(root / "missing.csv")]) == 2
        ids["error"] = _newest(reg)
    return {"registry": reg, "root": root, "ids": ids}


@pytest.fixture(scope="module")
def server(runs):
    with serve(runs["registry"]) as port:
        yield f"http://127.0.0.1:{port}"


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        raise AssertionError(f"{url}: HTTP {e.code}") from e


def _row(html: str, run_id: str) -> str:
    start = html.index(f'data-run="{run_id}"')
    return html[start : html.index("</tr>", start)]


def _status_cell(row: str) -> tuple[str, str]:
    found = re.search(r'<td class="status status-([\w-]+)">([^<]*)</td>', row)
    assert found, row
    return found[1], found[2]


# ----------------------------------------------------------------------------- status


def test_the_registry_records_each_outcome(runs):
    reg, ids = Registry(runs["registry"]), runs["ids"]
    outcome = {k: (reg.get(v).outcome, reg.get(v).status) for k, v in ids.items()}
    assert outcome["failed gate"] == ("failed gate", "ok")
    assert outcome["passed gate"] == ("passed", "ok")
    assert outcome["bm25 hit1"] == ("ran", "ok")
    assert outcome["error"] == ("failed", "failed")


def test_a_failed_gate_is_failed_in_red_and_passed_and_ran_are_distinct(runs, server):
    html, ids = _get(server + "/"), runs["ids"]
    shown = {k: _status_cell(_row(html, ids[k])) for k in ("failed gate", "passed gate")}
    shown |= {k: _status_cell(_row(html, ids[k])) for k in ("bm25 hit1", "error")}
    assert shown == {
        "failed gate": ("failed-gate", "failed gate"),
        "passed gate": ("passed", "passed"),
        "bm25 hit1": ("ran", "ran"),
        "error": ("failed", "failed"),
    }
    css = re.search(r"\.status-failed-gate[^{]*\{([^}]*)\}", html)
    assert css and f"color: {RED}" in css[1]
    assert "status-ok" not in html and ">ok<" not in html
    page = _get(f"{server}/run/{ids['failed gate']}")
    assert '<span class="status status-failed-gate" id="status">failed gate</span>' in page
    only = _get(server + "/?status=failed+gate")
    assert only.count('class="run"') == 1 and ids["failed gate"] in only
    assert '<option value="failed gate">failed gate</option>' in html


def test_an_old_row_without_an_outcome_reads_as_ran(runs, tmp_path):
    from ragstat.registry import Manifest
    from ragstat.registry.display import outcome_of
    from ragstat.ui.store import RunQuery, RunStore

    old = Registry(runs["registry"]).get(runs["ids"]["passed gate"]).to_dict()
    del old["outcome"]  # a manifest written before outcomes were recorded
    m = Manifest.from_dict({**old, "run_id": "old-gate-run"})
    assert m.outcome is None and m.status == "ok" and outcome_of(m) == "ran"
    reg = Registry(tmp_path / "r.sqlite")
    reg.record(m)
    assert reg.get("old-gate-run") == m
    page = RunStore(tmp_path / "r.sqlite").page(RunQuery(status="ran"))
    assert [r.run_id for r in page.runs] == ["old-gate-run"] and page.statuses == ("ran",)


def test_the_gate_verb_records_failed_gate(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGSTAT_REGISTRY", str(tmp_path / "r.sqlite"))
    assert main(["gate", str(_gates(tmp_path / "g", 0.99))]) == 1
    assert Registry(tmp_path / "r.sqlite").list(1)[0].outcome == "failed gate"


# ----------------------------------------------------------------------------- source


def test_the_source_column_names_the_input_files(runs, server):
    html, ids = _get(server + "/"), runs["ids"]

    def source(key: str) -> str:
        found = re.search(
            r'<td class="mono source" title="([^"]*)">([^<]*)</td>', _row(html, ids[key])
        )
        assert found
        return found[2]

    assert source("compare files") == "run_a.csv vs run_b.csv"
    assert source("compare systems") == "records.csv (bm25 vs tfidf)"
    assert source("bm25 hit1") == "records.csv (bm25)"
    assert source("failed gate") == "gates.toml"


# ---------------------------------------------------------------------------- history


def _svg(html: str) -> str:
    return html[html.index("<svg") : html.index("</svg>")]


def test_history_draws_one_score_of_one_system_with_links_to_the_others(runs, server):
    ids = runs["ids"]
    html = _get(f"{server}/history/{ids['bm25 hit1']}")
    assert "<h1>History of bm25 · hit1 · micro</h1>" in html
    assert _svg(html).count('class="point"') == 1  # the tfidf rr run is another series
    links = dict(re.findall(r'<a class="series-link" href="([^"]+)">([^<]+)</a>', html))
    names = set(links.values())
    assert {"bm25 · hit1 · macro", "tfidf · rr · micro", "tfidf · rr · macro"} <= names
    assert "<form" not in html and "<script" not in html
    other = next(href for href, name in links.items() if name == "tfidf · rr · micro")
    html = _get(server + other.replace("&amp;", "&"))
    assert "<h1>History of tfidf · rr · micro</h1>" in html
    assert _svg(html).count('class="point"') == 1
    rr = Registry(runs["registry"]).get(ids["tfidf rr"]).results["micro"]
    assert f'data-run="{ids["tfidf rr"]}"' in html and rr["estimate"] is not None


# --------------------------------------------------------------------------- headline


def test_the_recorded_headline_is_the_headline_of_the_report(runs):
    ids, root = runs["ids"], Path(runs["root"])
    for key, folder in (("bm25 hit1", "i-bm25"), ("tfidf rr", "i-tfidf")):
        report = json.loads((root / folder / "result.json").read_text(encoding="utf-8"))
        recorded = Registry(runs["registry"]).get(ids[key]).results
        assert set(recorded) == set(report["estimands"])
        for estimand, got in recorded.items():
            h = headline(report, estimand)
            assert got == {**h.to_dict(), "unit": h.unit}
            assert got["method"] == report["estimands"][estimand]["recommended"]


def test_pages_show_the_recorded_headline_or_its_reason(runs, server):
    ids = runs["ids"]
    m = Registry(runs["registry"]).get(ids["bm25 hit1"])
    page = _get(f"{server}/run/{ids['bm25 hit1']}")
    for estimand, h in m.results.items():
        row = re.search(rf'<tr class="series" data-series="bm25 · hit1 · {estimand}"([^>]*)>', page)
        assert row, estimand
        assert f'data-method="{h["method"]}"' in row[1]
        assert f'data-lower="{h["lower"]}"' in row[1] and f'data-upper="{h["upper"]}"' in row[1]
    assert re.search(r'<p class="verdict">For a random query, hit1 of bm25 is [\d.]+', page)
    few = Registry(runs["registry"]).get(ids["few"]).results["micro"]
    assert few["reason"].startswith("only 3 documents") and few["lower"] is None
    page = _get(f"{server}/run/{ids['few']}")
    assert "no interval is shown: only 3 documents: the data cannot support an interval" in page
    listing = _row(_get(server + "/"), ids["few"])
    assert "no interval: only 3 documents" in listing
    method = m.results["micro"]["method"]
    assert re.search(
        rf"bm25 · hit1 · micro [\d.]+( points)? \([\d.]+ to [\d.]+, {method}\)", _get(server + "/")
    )


# --------------------------------------------------------------------------- Chromium


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium/Chrome browser installed")


@pytest.mark.slow  # headless Chromium
def test_the_failed_gate_in_headless_chromium(runs, server):
    browser = _browser()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    flags += ["--disable-extensions", "--disable-dev-shm-usage", "--dump-dom"]
    proc = subprocess.Popen(
        [browser, *flags, server + "/"],
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
    dom = out.decode("utf-8", "replace")
    assert _status_cell(_row(dom, runs["ids"]["failed gate"])) == ("failed-gate", "failed gate")
    assert _status_cell(_row(dom, runs["ids"]["passed gate"])) == ("passed", "passed")
