"""The Python twins of `ragstat evaluate` and the item-level metric verbs: the same numbers
as the command line (``--json`` == ``to_dict()``), frames == files, tidy views, the report."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from ragstat import InputError
from ragstat.api.verbs.evaluate import evaluate
from ragstat.api.verbs.generation import generation
from ragstat.api.verbs.ingestion import ingestion, latency
from ragstat.api.verbs.ontology import ontology
from ragstat.cli import main
from ragstat.inference.headline import headline
from ragstat.metrics import read_qrels, read_run

IR = Path(__file__).parent / "reference" / "ir"
QRELS, RUN_A, RUN_B = IR / "qrels.trec", IR / "run_a.trec", IR / "run_b.trec"
REPS = 99
TIDY = ("estimand", "method", "estimate", "lower", "upper", "recommended")


def _cli_json(capsys, *args) -> dict:
    code = main([str(a) for a in args] + ["--json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    return json.loads(cap.out)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.seen: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.open.append(tag)
        self.seen.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, (self.open, tag)
        self.open.pop()


def _assert_short_views(result) -> None:
    text = repr(result)
    assert len(text) < 2_000 and "np.float64" not in text and "array(" not in text, text
    parser = _Tags()
    parser.feed(result._repr_html_())
    parser.close()
    assert parser.open == [] and "table" in parser.seen and "td" in parser.seen


def _write(path: Path, rows: list) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    return path


# ------------------------------------------------------------------------------ evaluate


def test_evaluate_one_run_equals_the_cli(capsys):
    args = ["--qrels", QRELS, "--run", RUN_A, "--metrics", "ndcg@10,mrr"]
    out = _cli_json(capsys, "evaluate", *args, "--bootstrap-reps", REPS, "--seed", 5)
    result = evaluate(QRELS, RUN_A, metrics="ndcg@10,mrr", bootstrap_reps=REPS, seed=5)
    assert result.to_dict() == out
    assert result.seed == 5 and result.metrics == ("ndcg@10", "mrr")
    counts = result.runs["run_a"].queries
    assert (counts.total, counts.missing_run, counts.no_relevant) == (64, 6, 6)
    assert result.paired is None and result.verdicts == ()
    _assert_short_views(result)


def test_evaluate_two_runs_equals_the_cli_and_frames_equal_files(capsys):
    args = ["--qrels", QRELS, "--run", RUN_A, "--run", RUN_B, "--metrics", "p@10,map"]
    out = _cli_json(capsys, "evaluate", *args, "--bootstrap-reps", REPS, "--seed", 2)
    result = evaluate(QRELS, [RUN_A, RUN_B], metrics=["P@10", "map"], bootstrap_reps=REPS, seed=2)
    assert result.to_dict() == out
    assert {v.estimand for v in result.verdicts} == {"micro", "macro"}
    assert len(result.verdicts) == 4  # two metrics × two estimands
    frames = evaluate(
        read_qrels(QRELS).to_frame(),
        {"run_a": read_run(RUN_A).to_frame(), "run_b": read_run(RUN_B).to_frame()},
        metrics="p@10,map",
        bootstrap_reps=REPS,
        seed=2,
    )
    assert frames.to_dict() == out
    _assert_short_views(result)
    assert all(v.sentence.split(",")[0] in repr(result) for v in result.verdicts)


def test_evaluate_paired_differences_of_unit_metrics_are_bounded_and_in_points():
    """IR metrics lie in [0, 1] (read from the values), so A − B lies in [−1, 1]: the
    range-respecting intervals are computed, none leaving it is recommended, verdicts in points."""
    result = evaluate(QRELS, [RUN_A, RUN_B], metrics="ndcg@10,mrr", bootstrap_reps=REPS, seed=3)
    assert result.paired is not None
    for metric, p in result.paired.metrics.items():
        rep = p.comparison.report
        assert rep.bounds == (-1.0, 1.0)
        assert result.to_dict()["paired"]["metrics"][metric]["bounds"] == [-1.0, 1.0]
        for est in rep.estimands.values():
            by_method = {iv.method: iv for iv in est.intervals}
            assert by_method["logit"].available and by_method["korn_graubard"].available
            shown = by_method[est.recommended]
            assert -1.0 <= shown.lower <= shown.upper <= 1.0 and not shown.outside_range
        for v in p.verdicts:
            assert v.unit == "points" and " points" in v.sentence
    run = result.runs["run_a"].metrics["mrr"]
    assert run.report is not None and run.report.bounds == (0.0, 1.0)
    assert result.to_dict()["runs"]["run_a"]["metrics"]["mrr"]["bounds"] == [0.0, 1.0]


def test_evaluate_to_frame_has_a_row_per_run_metric_estimand_method():
    result = evaluate(QRELS, [RUN_A, RUN_B], metrics="mrr,map", bootstrap_reps=REPS, seed=1)
    frame = result.to_frame()
    assert {"run", "metric", *TIDY, "permutation_p"} <= set(frame.columns)
    d = result.to_dict()
    per_run = sum(
        len(m["intervals"]) + len(m["macro"]["intervals"])
        for run in d["runs"].values()
        for m in run["metrics"].values()
    )
    paired = sum(
        len(e["intervals"])
        for p in d["paired"]["metrics"].values()
        for e in p["estimands"].values()
    )
    assert frame.shape[0] == per_run + paired
    assert set(frame["run"]) == {"run_a", "run_b", "run_a − run_b"}
    assert set(frame["metric"]) == {"mrr", "map"} and set(frame["estimand"]) == {"micro", "macro"}
    assert not frame.duplicated(["run", "metric", "estimand", "method"]).any()
    shown = frame[(frame["run"] == "run_a") & (frame["metric"] == "mrr") & frame["recommended"]]
    assert shown.set_index("estimand").loc["micro", "estimate"] == pytest.approx(
        d["runs"]["run_a"]["metrics"]["mrr"]["mean"]
    )


def test_evaluate_clusters_from_a_mapping_or_a_frame_equal_the_file(tmp_path):
    queries = sorted(read_qrels(QRELS).judgments)
    topics = {q: f"t{i % 7}" for i, q in enumerate(queries)}
    mapping = tmp_path / "topics.csv"
    pd.DataFrame({"query_id": list(topics), "topic": list(topics.values())}).to_csv(
        mapping, index=False
    )
    opts = {"metrics": "mrr", "bootstrap_reps": REPS, "seed": 4, "cluster_column": "topic"}
    by_file = evaluate(QRELS, RUN_A, cluster_by=mapping, **opts).to_dict()
    by_dict = evaluate(QRELS, RUN_A, cluster_by=topics, **opts).to_dict()
    frame = pd.DataFrame({"query_id": list(topics), "topic": list(topics.values())})
    by_frame = evaluate(QRELS, RUN_A, cluster_by=frame, **opts).to_dict()
    assert by_file["metrics"]["mrr"]["clusters"] == 7
    for other in (by_dict, by_frame):
        assert other["metrics"] == by_file["metrics"]
        assert other["clustering"]["clusters"] == 7
        assert "/tmp" not in other["clustering"]["note"]
    with pytest.raises(InputError, match="no cluster"):
        evaluate(QRELS, RUN_A, cluster_by=dict(list(topics.items())[:5]), **opts)


def test_evaluate_runs_in_memory_are_named_and_checked():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}, "q4": {"d1": 1, "d4": 1}}
    run = {"q1": ["d1", "d2"], "q2": {"d1": 2.0, "d2": 1.0}, "q3": ["d3"], "q4": ["d4"]}
    one = evaluate(qrels, run, metrics="mrr", bootstrap_reps=REPS, seed=0)
    assert one.to_dict()["run"] == "run"
    assert one.to_dict()["metrics"]["mrr"]["mean"] == pytest.approx((1 + 0.5 + 1 + 1) / 4)
    two = evaluate(qrels, [run, run], metrics="mrr", bootstrap_reps=REPS, seed=0)
    assert list(two.runs) == ["run1", "run2"]
    named = evaluate(qrels, {"x": run, "y": run}, metrics="mrr", bootstrap_reps=REPS, seed=0)
    assert list(named.runs) == ["x", "y"] and named.paired is not None
    with pytest.raises(InputError, match="share the name"):
        evaluate(qrels, [RUN_A, RUN_A], metrics="mrr")
    with pytest.raises(InputError, match="qrels"):
        evaluate(42, run)
    with pytest.raises(InputError, match="empty"):
        evaluate(qrels, run, metrics=" , ")


def test_evaluate_out_writes_the_report(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["--qrels", QRELS, "--run", RUN_A, "--run", RUN_B, "--metrics", "mrr"]
    printed = _cli_json(capsys, "evaluate", *args, "--bootstrap-reps", REPS, "--out", out)
    names = {p.name for p in out.iterdir()}
    assert {"result.json", "report.json", "report.md", "report.html", "manifest.json"} <= names
    assert json.loads((out / "result.json").read_text()) == printed
    from ragstat.report import load_report

    report = load_report(out)
    assert report.kind == "comparison" and len(report.verdicts) == 2
    subjects = {b.subject for b in report.results}
    assert subjects == {"run_a mrr", "run_b mrr", "mrr: run_a − run_b"}
    html = (out / "report.html").read_text()
    assert "run_a − run_b" in html and "naive" in html
    parser = HTMLParser()
    parser.feed(html)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"] == "evaluate"
    assert any(p.endswith("report.html") for p in manifest["outputs"])
    checklist = {c.key: c.text for c in report.checklist}
    assert "queries as clusters" in checklist["k_n"]
    assert "the query" in checklist["method"]


def test_evaluate_report_of_one_run_is_an_interval_report():
    result = evaluate(QRELS, RUN_A, metrics="mrr,p@10", bootstrap_reps=REPS, seed=0)
    report = result.report(source="run_a against qrels")
    assert report.kind == "interval"
    # one run: no comparison, but every run × metric × estimand leads with its headline
    assert list(report.verdicts) == result.sentences() and len(report.verdicts) == 4
    mrr = result.runs["run_a"].metrics["mrr"].report
    assert mrr.bounds == (0.0, 1.0)  # values in [0, 1]: a rate, said in points
    h = headline(mrr, "micro")
    assert report.verdicts[0] == (
        f"For a random query, mrr of run_a is {h.estimate * 100:.1f} points (95 % interval "
        f"{h.lower * 100:.1f} to {h.upper * 100:.1f}, 58 queries as clusters)"
    )
    assert report.verdicts[1].startswith("For a typical document, mrr of run_a is ")
    assert report.verdicts[2].startswith("For a random query, p@10 of run_a is ")
    assert {b.subject for b in report.results} == {"run_a mrr", "run_a p@10"}
    assert all(b.naive_interval is not None for b in report.results)
    assert any("without a relevant document" in c.text for c in report.checklist)


# ------------------------------------------------------------------- item-level verbs


def _judgment(ext: list[str], sup: list[str]) -> dict:
    return {
        "extracted_claims": ext,
        "supported_claims": sup,
        "unsupported_claims": [c for c in ext if c not in sup],
        "outcome": "scored" if ext else "no_claims",
        "failure_mode": "none",
        "rationale": "r",
    }


ANSWERS = [
    {"id": "a1", "doc": "d1", "judgment": _judgment(["x", "y"], ["x"]), "answer": "Paris",
     "gold": "paris", "context": "Paris was not founded in 1994.", "cited": ["c1"],
     "supporting": ["c1", "c2"], "refused": False, "should_abstain": False},
    {"id": "a2", "doc": "d1", "judgment": _judgment([], []), "answer": "Rome", "gold": "Paris",
     "context": ["Paris", "x"], "refused": True, "should_abstain": True},
    {"id": "a3", "doc": "d2", "judgment": _judgment(["z"], ["z"]), "answer": "the Paris",
     "gold": "Paris", "context": "Paris", "cited": ["c5"], "supporting": ["c5"]},
    {"id": "a4", "doc": "d3", "answer": "Berlin", "gold": "Berlin", "context": "Berlin",
     "refused": False, "should_abstain": True},
]  # fmt: skip
LABELS = [("Hatchback", "Sedan"), ("Hatchback", "Submarine"), ("Sedan", "Sedan"),
          ("Boat", "Submarine"), ("Car", "Sedan"), ("Boat", "Boat")]  # fmt: skip
ITEMS = [
    {"id": f"i{k}", "gold": g, "predicted": p, "doc": f"d{k % 3}"}
    for k, (g, p) in enumerate(LABELS)
]
EDGES = [("Vehicle", "Car"), ("Vehicle", "Watercraft"), ("Car", "Sedan"), ("Car", "Hatchback"),
         ("Watercraft", "Submarine"), ("Watercraft", "Boat")]  # fmt: skip
DOCS = [
    {"id": "m1", "reference": "abcd efgh", "extracted": "abcd efgx", "text": "ﬁle\u200b",
     "class": "pdf", "src": "s1"},
    {"id": "m2", "reference": "same text", "extracted": "same text", "text": "plain", "src": "s1"},
    {"id": "m3", "reference": "one two three", "extracted": "one too three four", "src": "s2"},
    {"id": "m4", "text": "Ｈello", "src": "s3"},
]  # fmt: skip
SPANS = [
    {"trace_id": f"t{k}", "stage": s, "duration_ms": float(k * (2 if s == "gen" else 1)),
     "tenant": f"c{k % 3}"}
    for k in range(1, 13)
    for s in ("retrieve", "gen")
]  # fmt: skip


def _case(verb: str, tmp_path: Path):
    """(CLI arguments, the twin called on the file, the twin called on a DataFrame)."""
    opts = {"bootstrap_reps": REPS, "seed": 3}
    if verb == "generation":
        path = _write(tmp_path / "g.jsonl", ANSWERS)
        args = [path, "--cluster-by", "doc"]
        return (
            args,
            generation(path, cluster_by="doc", **opts),
            generation(pd.DataFrame(ANSWERS), cluster_by="doc", **opts),
        )
    if verb == "ontology":
        path = _write(tmp_path / "o.jsonl", ITEMS)
        edges = pd.DataFrame(EDGES, columns=["parent", "child"])
        edges.to_csv(tmp_path / "tax.csv", index=False)
        args = [path, "--taxonomy", tmp_path / "tax.csv", "--cluster-by", "doc"]
        file = ontology(path, tmp_path / "tax.csv", cluster_by="doc", **opts)
        return args, file, ontology(pd.DataFrame(ITEMS), edges, cluster_by="doc", **opts)
    if verb == "ingestion":
        pytest.importorskip("jiwer")
        path = _write(tmp_path / "i.jsonl", DOCS)
        args = [path, "--cluster-by", "src"]
        return (
            args,
            ingestion(path, cluster_by="src", **opts),
            ingestion(pd.DataFrame(DOCS), cluster_by="src", **opts),
        )
    path = _write(tmp_path / "t.jsonl", SPANS)
    args = [path, "--cluster-by", "tenant"]
    return (
        args,
        latency(path, cluster_by="tenant", **opts),
        latency(pd.DataFrame(SPANS), cluster_by="tenant", **opts),
    )


@pytest.mark.parametrize("verb", ["generation", "ontology", "ingestion", "latency"])
def test_item_verbs_equal_the_cli_and_frames_equal_files(verb, tmp_path, capsys):
    args, from_file, from_frame = _case(verb, tmp_path)
    out = _cli_json(capsys, verb, *args, "--bootstrap-reps", REPS, "--seed", 3)
    assert from_file.to_dict() == out
    assert from_frame.to_dict() == out
    frame = from_file.to_frame()
    assert {"score", *TIDY} <= set(frame.columns)
    with_intervals = [s for s in from_file.scores.values() if s.report is not None]
    assert with_intervals
    expected = sum(len(r.intervals) for s in with_intervals for r in s.report.estimands.values())
    assert frame.shape[0] == expected
    assert set(frame["score"]) == {s.name for s in with_intervals}
    assert not frame.duplicated(["score", "estimand", "method"]).any()
    _assert_short_views(from_file)


def test_item_records_in_memory_and_their_errors():
    as_list = generation(ANSWERS, cluster_by="doc", bootstrap_reps=REPS, seed=1)
    as_frame = generation(pd.DataFrame(ANSWERS), cluster_by="doc", bootstrap_reps=REPS, seed=1)
    assert as_list.to_dict() == as_frame.to_dict()
    faith = as_list.scores["faithfulness"]  # a2: no claims (not scored); a4: no judgment
    assert (faith.n, faith.not_scored) == (2, 1)
    pairs = ontology(ITEMS, EDGES, bootstrap_reps=REPS, seed=1)
    assert pairs.scores["hf1"].n == len(ITEMS)
    with pytest.raises(InputError, match="duplicate id 'a1'"):
        generation([ANSWERS[0], ANSWERS[0]])
    with pytest.raises(InputError, match="no records"):
        generation([])
    with pytest.raises(InputError, match="expected a path"):
        latency(42)
    drawn = latency(SPANS, bootstrap_reps=REPS)
    assert isinstance(drawn.seed, int) and drawn.percentiles is not None
