"""`compare --design two-sample` against clubSandwich CR2 + Satterthwaite on y ~ arm.

Reference: tests/reference/two_sample_reference.json, written (data and results) by
tests/reference/reference_two_sample.R, so R is not needed at test time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ragstat
from ragstat.api.verbs.compare import compare_two_sample
from ragstat.cli import main
from ragstat.errors import InputError
from ragstat.inference.two_sample import two_sample

REF = json.loads(
    (Path(__file__).resolve().parent / "reference" / "two_sample_reference.json").read_text()
)["datasets"]


def _frame(name: str) -> pd.DataFrame:
    d = REF[name]
    return pd.DataFrame({"user_id": d["unit"], "arm": d["arm"], "score": d["y"]})


def close(v: float) -> object:
    return pytest.approx(v, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("name", sorted(REF))
def test_equals_club_sandwich(name: str) -> None:
    r = compare_two_sample(_frame(name), cluster="user_id", systems="A,B")
    ref = REF[name]
    assert r.estimate == close(ref["beta"])
    assert r.se == close(ref["se"])
    assert r.df == close(ref["df"])
    assert r.t == close(ref["t"])
    assert r.p == close(ref["p"])


@pytest.mark.parametrize("name", sorted(REF))
def test_compare_twin_two_tables(name: str) -> None:
    f = _frame(name)
    r = ragstat.compare(
        f[f.arm == "A"].drop(columns="arm"),
        f[f.arm == "B"].drop(columns="arm"),
        design="two-sample",
        cluster="user_id",
    )
    assert isinstance(r, ragstat.api.verbs.compare.TwoSampleResult)
    assert r.se == close(REF[name]["se"]) and r.df == close(REF[name]["df"])


def test_equal_units_df_is_welch_like() -> None:
    n = np.full(6, 3.0)
    rng = np.random.default_rng(1)
    r = two_sample(
        n, rng.binomial(3, 0.5, 6).astype(float), n, rng.binomial(3, 0.5, 6).astype(float)
    )
    assert r.df == pytest.approx(10.0)  # equal sizes: Bell–McCaffrey gives K − 1 per arm


def test_unit_in_both_arms_is_an_error() -> None:
    f = pd.DataFrame(
        {"user_id": ["u1", "u1", "u2", "u3"], "arm": ["A", "B", "A", "B"], "score": [1, 0, 1, 0]}
    )
    with pytest.raises(InputError, match="both arms"):
        compare_two_sample(f, cluster="user_id")


def test_one_unit_per_arm_is_an_error() -> None:
    with pytest.raises(InputError, match="at least two"):
        two_sample(np.array([2.0]), np.array([1.0]), np.array([2.0, 3.0]), np.array([1.0, 2.0]))


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ab.csv"
    _frame("continuous").to_csv(path, index=False)
    code = main(["compare", str(path), "--design", "two-sample", "--cluster", "user_id", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["se"] == close(REF["continuous"]["se"])
    code = main(
        ["compare", str(path), "--design", "two-sample", "--cluster", "user_id", "--arm", "nope"]
    )
    assert code == 2 and "needs an 'nope' column" in capsys.readouterr().err
