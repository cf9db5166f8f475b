"""One answer everywhere: on the demo's records, the same recommended method and bounds for
bm25's micro and macro hit@1 in `ragstat interval` (terminal and JSON), `ragstat.interval`,
the study's summary.json and report, a release gate on the same score, and the run page of
`ragstat ui` — all read through :mod:`ragstat.inference.headline`."""

from __future__ import annotations

import html
import json
import os
import re
import urllib.request

import pytest

import ragstat
from ragstat.cli import main
from ragstat.inference.headline import describe, headline
from ragstat.registry import Registry
from ui_server import serve

ESTIMANDS = ("micro", "macro")


@pytest.fixture(scope="module")
def demo(demo_workdir) -> dict:
    folder = demo_workdir / "ragstat-demo"
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    return {"folder": folder, "records": folder / "records.parquet", "summary": summary}


def _same(a, b) -> None:
    """Two headlines: the same method and the same bounds (to the last digit but one)."""
    assert a.available and b.available, (a, b)
    assert a.method == b.method
    assert a.lower == pytest.approx(b.lower, rel=0, abs=1e-12)
    assert a.upper == pytest.approx(b.upper, rel=0, abs=1e-12)


def _page_rows(html: str) -> dict[str, dict[str, str]]:
    """The run page's headline rows: series name → its data attributes."""
    rows = {}
    for tag in re.findall(r'<tr class="series"[^>]*>', html):
        attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', tag))
        rows[attrs["series"]] = attrs
    return rows


def test_one_headline_everywhere_on_the_demo(demo, capsys, tmp_path):
    seed = int(demo["summary"]["seed"])
    records = demo["records"]
    # the study: summary.json's own report of bm25's hit@1, and the headline it wrote
    study = demo["summary"]["retrievers"]["bm25"]
    from_study = {e: headline(study["hit1"], e) for e in ESTIMANDS}
    # ragstat interval (JSON and terminal), recorded in a registry of its own
    registry = tmp_path / "registry.sqlite"
    os.environ["RAGSTAT_REGISTRY"] = str(registry)  # the autouse fixture restores it
    argv = ["interval", str(records), "--system", "bm25", "--seed", str(seed)]
    assert main([*argv, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    terminal = capsys.readouterr().out.splitlines()
    # the Python twin and a release gate on the same score
    twin = ragstat.interval(records, system="bm25", seed=seed)
    gates = ragstat.gate(
        {
            "seed": seed, "correction": "none",
            "inputs": {"candidate": {"path": str(records), "system": "bm25"}},
            "gates": [{"name": f"{e} hit1", "kind": "at_least", "metric": "hit1",
                       "threshold": 0.05, "estimand": e} for e in ESTIMANDS],
        }
    )  # fmt: skip
    by_gate = {g.spec.estimand: g for g in gates.gates}
    md = (demo["folder"] / "report.md").read_text(encoding="utf-8")
    report_md = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>])", r"\1", md)  # Markdown escapes undone
    report_html = html.unescape((demo["folder"] / "report.html").read_text(encoding="utf-8"))
    for i, e in enumerate(ESTIMANDS):
        h = headline(printed, e)
        assert h.method is not None and h.K == 249
        _same(h, from_study[e])
        _same(h, headline(twin, e))
        assert study["headline"][e]["method"] == h.method
        assert study["headline"][e]["lower"] == pytest.approx(h.lower, abs=1e-12)
        assert study["headline"][e]["upper"] == pytest.approx(h.upper, abs=1e-12)
        g = by_gate[e]
        assert (g.method, g.lower, g.upper) == pytest.approx((h.method, h.lower, h.upper))
        # one sentence, the same words, in the terminal and both reports
        sentence = describe(h, "hit1", "bm25")
        assert terminal[i] == sentence
        assert sentence in report_md
        assert sentence in report_html
    # the web view's run page shows the interval run's recorded headline
    run = next(r for r in Registry(registry).list() if r.command == "interval")
    with (
        serve(registry) as port,
        urllib.request.urlopen(f"http://127.0.0.1:{port}/run/{run.run_id}") as r,
    ):
        rows = _page_rows(r.read().decode("utf-8"))
    for e in ESTIMANDS:
        h = headline(printed, e)
        row = next(v for k, v in rows.items() if k.endswith(e))
        assert row["method"] == h.method
        assert float(row["lower"]) == pytest.approx(h.lower, abs=1e-12)
        assert float(row["upper"]) == pytest.approx(h.upper, abs=1e-12)
