"""The HTML/Markdown/JSON report of `ragstat gate` and `ragstat filter-rule` (``--out``)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ragstat
from ragstat.cli import main
from ragstat.decisions.filter_rule import Estimate, Thresholds, decide_filter_rule
from ragstat.report import (
    Report,
    load_report,
    render_html,
    render_markdown,
    report_from_filter_rule,
    report_from_gates,
)

GATES = """
level = 0.95
seed = 1
bootstrap_reps = 199

[inputs.candidate]
path = "records.parquet"
system = "bm25"

[inputs.baseline]
path = "records.parquet"
system = "tfidf"

[[gates]]
name = "hit1 at least 0.5"
kind = "at_least"
metric = "hit1"
threshold = 0.5

[[gates]]
name = "not worse than tfidf"
kind = "not_worse_than_baseline"
metric = "hit1"
margin = 0.02

[[gates]]
name = "equivalent to tfidf"
kind = "equivalent"
metric = "hit1"
margin = 0.3
blocking = false

[[gates]]
name = "labour"
kind = "at_least"
metric = "hit1"
threshold = 0.3
slice = { law = "labour" }
"""


@pytest.fixture(scope="module")
def gates_file(tmp_path_factory) -> Path:
    """Two systems on the same 300 queries of 40 documents (bm25 better); one gate has an
    empty slice, so the family fails."""
    rng = np.random.default_rng(5)
    n = rng.integers(4, 12, 40)
    doc = np.repeat(np.arange(40), n)
    law = np.repeat(np.array(["civil", "tax"])[np.arange(40) % 2], n)
    base = np.repeat(rng.beta(6, 3, 40), n)
    frames = []
    for system, shift in (("bm25", 0.08), ("tfidf", 0.0)):
        hit = (rng.random(doc.size) < np.clip(base + shift, 0, 1)).astype(int)
        frames.append(pd.DataFrame({"query_id": np.arange(doc.size), "doc_id": doc,
                                    "retriever": system, "meta_law": law, "hit1": hit}))  # fmt: skip
    folder = tmp_path_factory.mktemp("gate-report")
    pd.concat(frames).to_parquet(folder / "records.parquet")
    path = folder / "gates.toml"
    path.write_text(GATES, encoding="utf-8")
    return path


class _Checker(HTMLParser):
    """Fails on unbalanced structure a browser would silently repair (sections, tables)."""

    STRICT = frozenset({"section", "table", "tr", "figure", "svg", "ul", "ol"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.STRICT:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.STRICT:
            assert self.stack and self.stack.pop() == tag, f"unbalanced </{tag}>"


def _parses(page: str) -> None:
    checker = _Checker()
    checker.feed(page)
    checker.close()
    assert checker.stack == []


def test_gate_report_round_trips_and_renders(gates_file):
    result = ragstat.gate(gates_file)
    report = report_from_gates(result, source="gates.toml", created="2025-01-01T00:00:00+00:00")
    assert report.kind == "gate" and len(report.gates) == 4
    assert Report.from_dict(json.loads(json.dumps(report.to_dict()))) == report
    by = {g.name: g for g in report.gates}
    assert by["labour"].outcome == "fail" and by["labour"].lower is None
    assert by["equivalent to tfidf"].bound == -0.3 and by["equivalent to tfidf"].bound_upper == 0.3
    assert by["not worse than tfidf"].bound == -0.02
    md = render_markdown(report)
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + len(result.gates)  # the header, then one row per gate
    assert md.index("## Verdict") < md.index("## Gates")
    page = render_html(report)
    assert page.count("<svg") == 1 and "<script" not in page
    assert page.index('id="verdict"') < page.index('id="gates"') < page.index('id="G1"')
    _parses(page)
    assert render_html(report) == page  # deterministic


def test_an_old_report_json_without_gates_still_loads(gates_file):
    report = report_from_gates(ragstat.gate(gates_file), source="g", created="c")
    data = report.to_dict()
    data.pop("gates")
    data["kind"] = "interval"
    assert Report.from_dict(data).gates == ()


def test_gate_out_folder_has_the_report(gates_file, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["gate", str(gates_file), "--out", str(out)]) == 1  # the empty slice fails
    capsys.readouterr()
    assert {"report.json", "report.md", "report.html"} <= {p.name for p in out.iterdir()}
    report = load_report(out)
    assert report.kind == "gate" and [g.name for g in report.gates][-1] == "labour"
    assert "<svg" in (out / "report.html").read_text(encoding="utf-8")


def _filter_result():
    return decide_filter_rule(
        Estimate(0.10, 0.04, 0.16, "cr2_bm"),
        Estimate(0.01, 0.0, 0.05, "korn_graubard"),
        Estimate(-0.005, -0.02, 0.01, "cr2_bm"),
        Thresholds(delta_min=0.03, epsilon=0.02, recall_loss_max=0.01),
        name="locale = en-US",
        kind="locale",
        level=0.95,
        k=2,
    )


def test_filter_rule_report_round_trips_and_renders():
    result = _filter_result()
    report = report_from_filter_rule(result, source="hard vs soft", created="c")
    assert report.kind == "filter-rule" and report.verdicts[0].startswith("Use 'locale")
    assert Report.from_dict(json.loads(json.dumps(report.to_dict()))) == report
    md = render_markdown(report)
    assert md.index("## Verdict") < md.index("## Conditions of the filter rule")
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(rows) == 4 and all("| yes |" in r for r in rows[1:])
    page = render_html(report)
    assert "<svg" in page
    _parses(page)


def test_filter_rule_out_folder_has_the_report(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    hard, soft = tmp_path / "hard.txt", tmp_path / "soft.txt"
    qrels.write_text("".join(f"q{i} 0 q{i}-g 1\n" for i in range(12)), encoding="utf-8")
    soft.write_text("".join(f"q{i} Q0 q{i}-x 1 2 s\nq{i} Q0 q{i}-g 2 1 s\n" for i in range(12)),
                    encoding="utf-8")  # fmt: skip
    hard.write_text("".join(f"q{i} Q0 q{i}-g 1 2 h\n" for i in range(12)), encoding="utf-8")
    out = tmp_path / "out"
    args = ["filter-rule", "--qrels", str(qrels), "--hard", str(hard), "--soft", str(soft),
            "--delta-min", "0.1", "--epsilon", "0.1", "--recall-loss-max", "0.05", "--k", "2",
            "--cluster-by", "query", "--seed", "1", "--bootstrap-reps", "199", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    report = load_report(out)
    assert report.kind == "filter-rule" and len(report.gates) == 3
    assert "<svg" in (out / "report.html").read_text(encoding="utf-8")
