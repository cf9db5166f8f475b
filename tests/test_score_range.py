"""`--score-range`: the values a score can take decide whether the bounded intervals apply."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ragstat.cli import main


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(2)
    n = rng.integers(1, 6, 30)
    frame = pd.DataFrame({"query_id": np.arange(n.sum()), "doc_id": np.repeat(np.arange(30), n)})
    frame["hit"] = (rng.random(len(frame)) < 0.3).astype(int)
    path = tmp_path / "q.csv"
    frame.to_csv(path, index=False)
    return path


def _methods(capsys, table, *extra) -> dict[str, bool]:
    capsys.readouterr()
    assert main(["interval", str(table), "--json", "--bootstrap-reps", "99", *extra]) == 0
    micro = json.loads(capsys.readouterr().out)["estimands"]["micro"]
    return {i["method"]: i["available"] for i in micro["intervals"]}


def test_hits_are_bounded_by_default_and_unbounded_when_declared(table, capsys):
    assert _methods(capsys, table)["korn_graubard"] is True
    unbounded = _methods(capsys, table, "--score-range", "-inf,inf")
    assert unbounded["korn_graubard"] is False and unbounded["logit"] is False
    assert unbounded["cr2_bm"] is True


@pytest.mark.parametrize("bad", ["1", "a,b", "1,0", "0,0", "nan,1", "0,1,2", ""])
def test_malformed_score_range_is_one_line_exit_2(table, capsys, bad):
    assert main(["interval", str(table), "--score-range", bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--score-range expects LO,HI" in err


def test_score_range_not_containing_the_data_is_exit_2(table, capsys):
    assert main(["interval", str(table), "--score-range", "0,0.5"]) == 2
    err = capsys.readouterr().err
    assert "the scores run from 0 to 1" in err and err.count("\n") == 1


def test_item_scores_near_one_get_a_recommended_interval_inside_0_1():
    """`ragstat generation` printed refusal_recall [0.738, 1.051]: a CR2 interval on a rate
    near 1 with few clusters. The recommended interval is now chosen among bounded ones."""
    from ragstat.cli.items import score_intervals

    rng = np.random.default_rng(4)
    ids = [f"i{i}" for i in range(24)]
    rows = [{"id": i, "doc": f"d{k % 6}"} for k, i in enumerate(ids)]
    values = (rng.random(24) < 0.93).astype(float)
    out = score_intervals({"refusal_recall": (ids, values)}, rows, "doc", reps=199)
    entry = out["scores"]["refusal_recall"]
    shown = next(i for i in entry["intervals"] if i["method"] == entry["recommended"])
    assert 0 <= shown["lower"] <= shown["upper"] <= 1, shown


def test_evaluate_shows_the_recommended_interval_inside_0_1(capsys):
    from pathlib import Path

    ir = Path(__file__).parent / "reference" / "ir"
    argv = ["evaluate", "--qrels", str(ir / "qrels.trec"), "--run", str(ir / "run_a.trec")]
    assert main([*argv, "--metrics", "hit@1,p@5", "--bootstrap-reps", "199", "--json"]) == 0
    for m in json.loads(capsys.readouterr().out)["metrics"].values():
        shown = next(i for i in m["intervals"] if i["method"] == m["recommended"])
        assert 0 <= shown["lower"] <= shown["upper"] <= 1, shown


def test_a_bootstrap_t_interval_below_0_is_flagged_and_never_recommended():
    """Found by the formats examples: doc_bootstrap_t left [0, 1] unflagged and was then
    recommended as 'range-respecting'. Every method is flagged alike now."""
    import ragstat
    from ragstat.records import aggregate_arrays

    rng = np.random.default_rng(3)
    K = int(rng.integers(4, 9))
    n = rng.integers(1, 30, K)
    p = rng.beta(0.3, 3, K)
    doc = np.repeat(np.arange(K), n)
    y = (rng.random(n.sum()) < np.repeat(p, n)).astype(float)
    stats = aggregate_arrays(doc_id=doc, y=y, score="hit")
    methods = ["doc_bootstrap_t", "cr2_bm", "logit", "korn_graubard", "t_rates"]
    report = ragstat.analyze(stats, seed=1, bootstrap_reps=499, methods=methods)
    micro = report.estimands["micro"]
    boot = micro.get("doc_bootstrap_t")
    assert boot.lower is not None and boot.lower < 0  # the case this test is about
    assert boot.outside_range
    chosen = micro.get(micro.recommended)
    assert not chosen.outside_range and 0 <= chosen.lower <= chosen.upper <= 1


def test_declared_range_other_than_unit_gives_range_respecting_intervals(table, capsys):
    """Ratings 1..5 declared as such: logit/Korn–Graubard on [1, 5], every interval checked
    against it, the bounds in the JSON, and the recommended one inside."""
    frame = pd.read_csv(table)
    frame["hit"] = 1 + 4 * frame["hit"]
    path = table.with_name("ratings.csv")
    frame.to_csv(path, index=False)
    assert _methods(capsys, path)["logit"] is False  # values 1..5: no known range
    capsys.readouterr()
    args = ["interval", str(path), "--json", "--bootstrap-reps", "99", "--score-range", "1,5"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bounds"] == [1.0, 5.0]
    for est in data["estimands"].values():
        ivs = {i["method"]: i for i in est["intervals"]}
        assert (
            ivs["logit"]["available"] and 1 <= ivs["logit"]["lower"] <= ivs["logit"]["upper"] <= 5
        )
        rec = ivs[est["recommended"]]
        assert not rec["outside_range"] and 1 <= rec["lower"] <= rec["upper"] <= 5
