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
