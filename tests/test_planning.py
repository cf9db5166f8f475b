"""Planning: the seed's numbers, the achieved half-width contract, allocation, MDD."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from conftest import unequal_design
from ragstat import InputError, aggregate_arrays
from ragstat.cli import main
from ragstat.inference import se_cr1
from ragstat.inference.planning import (
    allocate,
    half_width,
    minimum_detectable_difference,
    pilot_sd,
    plan_documents,
)


def _sd_for(K0: int, h: float = 0.05) -> float:
    """The S for which K₀ documents give exactly half-width h without the correction."""
    return h * math.sqrt(K0) / sps.t.ppf(0.975, K0 - 1)


@pytest.mark.parametrize("K0, K", [(80, 76), (264, 220)])
def test_seed_000_planning_numbers(K0, K):
    plan = plan_documents(0.05, _sd_for(K0), M=1300)
    assert plan.K0 == K0
    assert plan.K_formula == K == plan.K
    assert plan.achieved <= 0.05 < plan.achieved_previous


@settings(max_examples=80, deadline=None)
@given(
    st.floats(0.01, 0.2),
    st.floats(0.02, 0.6),
    st.one_of(st.none(), st.integers(30, 5000)),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_planned_k_is_the_smallest_that_reaches_h(h, S, M, level):
    plan = plan_documents(h, S, level=level, M=M)
    assert half_width(plan.K, S, level, M) <= h
    if plan.K > 2:
        assert half_width(plan.K - 1, S, level, M) > h
    assert plan.K <= plan.K0
    if M is not None:
        assert abs(plan.K - plan.K_formula) <= 2


def test_half_width_formula():
    S, K, M = 0.3, 40, 400
    want = sps.t.ppf(0.975, 39) * S / math.sqrt(K) * math.sqrt(1 - K / M)
    assert half_width(K, S, 0.95, M) == pytest.approx(want, rel=1e-14)


def test_minimum_detectable_difference():
    K, S = 50, 0.12
    want = (sps.t.ppf(0.975, K - 1) + sps.t.ppf(0.8, K - 1)) * S / math.sqrt(K)
    assert minimum_detectable_difference(K, S) == pytest.approx(want, rel=1e-12)
    assert minimum_detectable_difference(K, S, power=0.9) > want


def test_pilot_sd_matches_the_interval_formulas():
    doc, y, _ = unequal_design(np.random.default_rng(3), 35)
    st_ = aggregate_arrays(doc, y)
    u = st_.s - st_.s.sum() / st_.N * st_.n
    assert pilot_sd(st_, "micro") / math.sqrt(st_.K) == pytest.approx(se_cr1(u, st_.N), rel=1e-12)
    assert pilot_sd(st_, "macro") == pytest.approx(np.std(st_.r, ddof=1), rel=1e-12)


def test_allocation():
    pop = {"big": 129, "small": 1171}
    prop = allocate(20, pop, "proportional")
    assert prop == {"big": 2, "small": 18} and sum(prop.values()) == 20
    ney = allocate(20, pop, "neyman", {"big": 0.30, "small": 0.05})
    assert sum(ney.values()) == 20 and ney["big"] == round(
        20 * 129 * 0.3 / (129 * 0.3 + 1171 * 0.05)
    )
    capped = allocate(10, {"a": 3, "b": 100}, "neyman", {"a": 10.0, "b": 0.1})
    assert capped == {"a": 3, "b": 7}
    with pytest.raises(InputError, match="cannot allocate"):
        allocate(3, pop)
    with pytest.raises(InputError, match="pilot SD"):
        allocate(20, pop, "neyman")


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: plan_documents(0.0, 0.2), "half-width must be positive"),
        (lambda: plan_documents(-1, 0.2), "half-width must be positive"),
        (lambda: plan_documents(0.05, 0.0), "SD must be positive"),
        (lambda: half_width(50, 0.2, M=20), "cannot exceed the population"),
        (lambda: plan_documents(0.05, 0.2, level=1.2), "level"),
    ],
)
def test_bad_planning_input(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_cli_plan(tmp_path, capsys):
    assert (
        main(
            [
                "plan",
                "--half-width",
                "0.05",
                "--sd",
                str(_sd_for(80)),
                "--population",
                "1300",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["plan"]["K"] == 76 and out["documents"] == 76 and out["assumptions"]
    doc, y, _ = unequal_design(np.random.default_rng(1), 30)
    pilot = tmp_path / "pilot.csv"
    pd.DataFrame({"doc_id": doc, "hit": y, "stratum": np.where(doc < "d0010", "a", "b")}).to_csv(
        pilot, index=False
    )
    popf = tmp_path / "pop.csv"
    pd.DataFrame({"stratum": ["a", "b"], "M": [40, 400]}).to_csv(popf, index=False)
    assert (
        main(
            [
                "plan",
                "--documents",
                "20",
                "--pilot",
                str(pilot),
                "--strata",
                "stratum",
                "--population-file",
                str(popf),
                "--allocation",
                "neyman",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert sum(out["allocation"]["documents"].values()) == 20
    assert out["achieved_half_width"] > 0
    assert main(["plan", "--half-width", "0", "--sd", "0.2"]) == 2
    assert "positive" in capsys.readouterr().err
    assert main(["plan", "--documents", "50", "--sd", "0.2", "--population", "20"]) == 2
    assert "cannot exceed" in capsys.readouterr().err
