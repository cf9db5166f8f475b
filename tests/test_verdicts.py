"""Plain verdicts of a paired comparison: wording, sign, units, no interval, CLI order, JSON."""

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from conftest import unequal_design
from ragstat import DocStats
from ragstat.cli import main
from ragstat.cli.render import print_comparison
from ragstat.inference.paired import ComparisonReport, compare
from ragstat.inference.verdict import format_amount, unit_scale_for, verdicts
from ragstat.records.paired import Pairing

IR = Path(__file__).parent / "reference" / "ir"


def _report(
    estimate, lower, upper, *, available=True, reason=None, recommended="cr2_bm", bounds=(-1, 1)
):
    """A comparison's report as JSON; ``bounds`` (the difference's known range: [−1, 1] for
    two rates, None unknown) decides the units: points for rates, else the score's own."""
    iv = {"method": "cr2_bm", "lower": lower, "upper": upper, "available": available}
    iv["reason"] = reason
    est = {"estimate": estimate, "recommended": recommended, "intervals": [iv]}
    known = None if bounds is None else list(bounds)
    return {"level": 0.95, "K": 249, "estimands": {"micro": est}, "bounds": known}


def _one(*args, score="hit@1", **kw):
    (v,) = verdicts(_report(*args, **kw), "bm25", "tfidf", score=score)
    return v


def test_real_difference():
    v = _one(0.022, 0.017, 0.027)
    assert v.real is True and v.question == "a random query" and v.unit == "points"
    assert v.sentence == (
        "For a random query, bm25 beats tfidf on hit@1 by 2.2 points "
        "(95 % interval 1.7 to 2.7, 249 documents): a real difference"
    )


def test_cannot_tell_apart():
    v = _one(0.0055, -0.008, 0.019)
    assert v.real is False
    assert v.sentence == (
        "For a random query, bm25 and tfidf cannot be told apart on hit@1: "
        "the 95 % interval \u22120.8 to +1.9 points includes 0 (249 documents)"
    )


def test_interval_touching_zero_is_not_real():
    assert _one(0.01, 0.0, 0.02).real is False


def test_negative_difference_b_beats_a():
    v = _one(-0.022, -0.027, -0.017)
    assert v.real is True and v.difference == -0.022 and v.lower == -0.027
    assert v.sentence.startswith(
        "For a random query, tfidf beats bm25 on hit@1 by 2.2 points (95 % interval 1.7 to 2.7,"
    )


def test_points_versus_plain_units():
    assert unit_scale_for("hit@1") == unit_scale_for("nDCG@10") == unit_scale_for("mrr") == 100
    assert unit_scale_for("rank") == unit_scale_for("latency_ms") == 1
    v = _one(0.35, 0.1, 0.6, score="rank", bounds=None)  # no known range: its own units
    assert v.unit == "score units"
    assert "beats tfidf on rank by 0.350 (95 % interval 0.100 to 0.600," in v.sentence
    assert "points" not in v.sentence
    (forced,) = verdicts(_report(2.5, 1.25, 3.75, bounds=None), "a", "b", score="rank",
                         unit_scale=1)  # fmt: skip
    (named,) = verdicts(_report(0.022, 0.017, 0.027, bounds=None), "a", "b", score="hit1")
    assert named.unit == "score units"  # units come from the range, never from the name
    (ranged,) = verdicts(_report(0.022, 0.017, 0.027), "a", "b", score="hit1")
    assert ranged.unit == "points" and "by 2.2 points" in ranged.sentence
    assert "by 2.50 (95 % interval 1.25 to 3.75" in forced.sentence
    assert (
        format_amount(-0.00004, 100) == "\u22120.0040" and format_amount(0.0, 100, True) == "+0.0"
    )


def test_unavailable_interval_is_said_plainly():
    v = _one(0.03, None, None, available=False, reason="fewer than 2 documents")
    assert v.real is None and v.lower is None and v.upper is None
    assert "+3.0 points, but no interval could be computed: " in v.sentence
    assert "fewer than 2 documents" in v.sentence
    v = _one(0.03, 0.01, 0.05, recommended=None)
    assert v.real is None and (
        "no interval could be computed: no method can be recommended on this sample" in v.sentence
    )
    assert json.loads(json.dumps(v.to_dict()))["real"] is None


def _comparison(seed: int = 3) -> tuple[ComparisonReport, DocStats]:
    doc, y, _ = unequal_design(np.random.default_rng(seed), 30)
    other = np.where(np.random.default_rng(seed + 1).random(y.size) < 0.6, y, 0.0)
    ids, inverse = np.unique(doc, return_inverse=True)
    d = y - other
    n = np.bincount(inverse).astype(float)
    s = np.bincount(inverse, weights=d)
    q = np.bincount(inverse, weights=d * d)
    stats = DocStats(doc_id=ids, n=n, s=s, q=q, score="hit")
    return compare(stats, seed=1, bootstrap_reps=199, permutation_reps=199), stats


def test_verdicts_from_a_comparison_report():
    res, _ = _comparison()
    found = verdicts(res, "a", "b", score="hit")
    assert [v.estimand for v in found] == ["micro", "macro"]
    assert [v.question for v in found] == ["a random query", "a typical document"]
    micro = found[0]
    iv = res.report.estimands["micro"].get(res.report.estimands["micro"].recommended)
    assert (micro.lower, micro.upper, micro.method) == (iv.lower, iv.upper, iv.method)
    assert micro.difference == pytest.approx(res.report.estimands["micro"].estimate)
    assert micro.real is True and micro.documents == 30
    assert verdicts(res.to_dict(), "a", "b", score="hit") == found  # from the JSON too


def test_terminal_escapes_system_names():
    res, _ = _comparison()
    pairing = Pairing(("a\x1b[2Jx", "[bold]b"), 100, 0, 0, "error")
    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=False)
    print_comparison(ComparisonReport(res.report, res.paired, pairing), "src", console=console)
    text = buf.getvalue()
    assert "\x1b" not in text and "a\\x1b[2Jx" in text
    assert text.splitlines()[0].startswith("For a random query, a\\x1b[2Jx beats [bold]b on hit")


@pytest.fixture(scope="module")
def two_tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("verdicts")
    doc, y, _ = unequal_design(np.random.default_rng(11), 20)
    other = np.where(np.random.default_rng(12).random(y.size) < 0.6, y, 0.0)
    a = pd.DataFrame({"query_id": [f"q{i}" for i in range(y.size)], "doc_id": doc, "hit": y})
    a.to_csv(root / "bm25.csv", index=False)
    a.assign(hit=other).to_csv(root / "tfidf.csv", index=False)
    return root / "bm25.csv", root / "tfidf.csv"


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    return cap.out


def test_compare_prints_the_verdicts_first(two_tables, capsys):
    a, b = two_tables
    out = _cli(capsys, "compare", a, b, "--bootstrap-reps", "199", "--seed", "1")
    lines = out.splitlines()
    assert lines[0].startswith("For a random query, bm25 beats tfidf on hit by ")
    assert lines[0].endswith("20 documents): a real difference")
    assert lines[1].startswith("For a typical document, bm25 ")
    assert "paired queries" in lines[2]
    assert "micro — difference bm25 − tfidf for a random query: +" in out
    assert "macro — difference bm25 − tfidf for a typical document: +" in out
    assert "rate of a random query" not in out


def test_evaluate_two_runs_prints_the_verdicts_first(capsys):
    out = _cli(
        capsys, "evaluate", "--qrels", IR / "qrels.trec", "--run", IR / "run_a.trec",
        "--run", IR / "run_b.trec", "--metrics", "hit@1,ndcg@10", "--bootstrap-reps", "199",
    )  # fmt: skip
    lines = out.splitlines()
    for line, (question, metric) in zip(
        lines[:4],
        [(q, m) for m in ("hit@1", "ndcg@10") for q in ("a random query", "a typical document")],
        strict=True,
    ):
        assert line.startswith(f"For {question}, run_")
        assert f" on {metric}" in line and "queries as clusters" in line
    assert "hit@1 micro — difference run_a − run_b for a random query: " in out


def test_compare_json_has_verdicts(two_tables, capsys):
    a, b = two_tables
    out = _cli(capsys, "compare", a, b, "--bootstrap-reps", "199", "--seed", "1", "--json")
    found = json.loads(out)["verdicts"]
    assert [v["estimand"] for v in found] == ["micro", "macro"]
    assert found[0]["a_name"] == "bm25" and found[0]["real"] is True
    assert found[0]["sentence"].startswith("For a random query, bm25 beats tfidf on hit by ")


def test_evaluate_json_has_verdicts(capsys):
    out = _cli(
        capsys, "evaluate", "--qrels", IR / "qrels.trec", "--run", IR / "run_a.trec",
        "--run", IR / "run_b.trec", "--metrics", "p@10", "--bootstrap-reps", "199", "--json",
    )  # fmt: skip
    found = json.loads(out)["paired"]["metrics"]["p@10"]["verdicts"]
    assert [v["estimand"] for v in found] == ["micro", "macro"]
    assert (found[0]["a_name"], found[0]["b_name"], found[0]["score"]) == ("run_a", "run_b", "p@10")


def test_compare_report_leads_with_the_verdicts(two_tables, tmp_path, capsys):
    a, b = two_tables
    out = tmp_path / "cmp"
    _cli(capsys, "compare", a, b, "--bootstrap-reps", "199", "--seed", "1", "--out", out)
    md = (out / "report.md").read_text()
    assert md.index("## Verdict") < md.index("Declared estimand")
    assert "- **For a random query, bm25 beats tfidf on hit by " in md
    html = (out / "report.html").read_text()
    assert html.index('<section id="verdict">') < html.index('<section id="summary">')
    report = json.loads((out / "report.json").read_text())
    assert report["verdicts"][1].startswith("For a typical document, bm25 ")
