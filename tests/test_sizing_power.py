"""Golden-set sizing by documents and A/B power by the randomisation unit (issue 16)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from statsmodels.stats.power import NormalIndPower, tt_ind_solve_power

from ragstat.api.verbs.plan import GoldenSet, plan, power
from ragstat.cli import main
from ragstat.errors import InputError
from ragstat.inference.power import (
    ABDesign,
    ab_units,
    design_effect,
    exact_units,
    golden_set,
    pilot_icc,
)


def test_seed_004_five_and_a_half_points() -> None:
    s = golden_set(math.sqrt(0.8 * 0.2), queries=200)
    assert s.half_width_independent == pytest.approx(1.96 * math.sqrt(0.16 / 200), rel=1e-4)
    assert round(100 * s.half_width_independent, 1) == 5.5
    r = plan(documents=200, golden=GoldenSet(rate=0.8))
    assert r.sizing is not None and r.sizing.sentence().startswith("±5.5 points")


@pytest.mark.parametrize(("m", "icc"), [(3, 0.2), (5, 0.05), (1, 0.5), (10, 0.0)])
def test_clustered_half_width_is_the_deff_formula(m: int, icc: float) -> None:
    s = golden_set(0.4, queries=200, queries_per_doc=m, icc=icc)
    deff = 1 + (m - 1) * icc
    assert s.deff == pytest.approx(deff)
    assert s.half_width == pytest.approx(1.959963984540054 * math.sqrt(0.16 / 200 * deff))
    assert s.documents == math.ceil(200 / m)


def test_inverse_sizing_reaches_the_target() -> None:
    s = golden_set(0.4, target=0.05, queries_per_doc=3, icc=0.2)
    assert (
        s.half_width
        <= 0.05
        < golden_set(0.4, queries=s.queries - 3, queries_per_doc=3, icc=0.2).half_width
    )
    assert s.queries == 3 * s.documents and s.queries_independent == 246


def test_plan_json_keys_unchanged_without_new_options() -> None:
    r = plan(documents=50, sd=0.3).to_dict()
    assert "sizing" not in r
    assert set(r) == {
        "estimand", "level", "sd", "sd_source", "population", "paired", "power",
        "achieved_half_width", "documents", "minimum_detectable_difference", "assumptions",
    }  # fmt: skip


def test_eldridge_deff() -> None:
    assert design_effect(5, 0.1, cv=0.5) == pytest.approx(1 + (1.25 * 5 - 1) * 0.1)


@pytest.mark.parametrize("alt", ["two-sided", "larger"])
@pytest.mark.parametrize("d", [0.1, 0.3])
def test_z_power_equals_statsmodels(alt: str, d: float) -> None:
    p = ab_units(d, 1.0, sided=2 if alt == "two-sided" else 1, power=0.9, level=0.95)
    ref = NormalIndPower().solve_power(
        effect_size=d, alpha=0.05, power=0.9, ratio=1, alternative=alt
    )
    assert exact_units(p) == pytest.approx(ref, rel=1e-6)
    assert p.units_per_arm == math.ceil(ref)
    assert p.units_formula == pytest.approx(ref, rel=1e-3)


@pytest.mark.parametrize("alt", ["two-sided", "larger"])
def test_t_power_equals_statsmodels(alt: str) -> None:
    p = ab_units(0.4, 1.0, sided=2 if alt == "two-sided" else 1, test="t")
    ref = tt_ind_solve_power(effect_size=0.4, alpha=0.05, power=0.8, ratio=1, alternative=alt)
    assert exact_units(p) == pytest.approx(ref, rel=1e-6)


def test_rate_power_uses_averaged_bernoulli_variance() -> None:
    r = power(ABDesign(mde=0.05, rate=0.3))
    sd = math.sqrt((0.3 * 0.7 + 0.35 * 0.65) / 2)
    ref = NormalIndPower().solve_power(effect_size=0.05 / sd, alpha=0.05, power=0.8, ratio=1)
    assert r.ab.units_per_arm == math.ceil(ref)


def test_pilot_icc_recovers_anova() -> None:
    n = np.array([2.0, 2.0, 2.0])
    y = [[1.0, 1.0], [0.0, 0.0], [1.0, 0.0]]
    s = np.array([sum(v) for v in y])
    sd, rho = pilot_icc(n, s, s)
    assert sd == pytest.approx(np.std(np.concatenate(y), ddof=1))
    msb, msw = (2 * ((1 - 0.5) ** 2 * 2)) / 2, 0.5 / 3
    assert rho == pytest.approx((msb - msw) / (msb + msw))


@pytest.mark.slow
def test_power_matches_clustered_bernoulli_simulation() -> None:
    p0, delta, m, cv, icc, reps = 0.3, 0.06, 4.0, 0.5, 0.05, 3000
    plan_ = ab_units(delta, math.sqrt((p0 * (1 - p0) + (p0 + delta) * (1 - p0 - delta)) / 2),
                     events_per_unit=m, cv=cv, icc=icc)  # fmt: skip
    n, rng = plan_.units_per_arm, np.random.default_rng(16)
    shape = (1 - icc) / icc
    k = 1.0 / cv**2  # gamma-Poisson sizes: mean m, CV ≈ cv (plus one to avoid empty units)
    hits = 0
    for _ in range(reps):
        est, var = [], []
        for p in (p0 + delta, p0):
            size = 1 + rng.poisson(rng.gamma(k, (m - 1) / k, n))
            s = rng.binomial(size, rng.beta(p * shape, (1 - p) * shape, n))
            r = s.sum() / size.sum()
            est.append(r)
            var.append(np.sum((s - r * size) ** 2) * n / (n - 1) / size.sum() ** 2)
        hits += abs(est[0] - est[1]) / math.sqrt(sum(var)) > 1.959963984540054
    mc_se = math.sqrt(0.8 * 0.2 / reps)
    assert abs(hits / reps - 0.8) < 2 * mc_se


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_sizing_and_ab(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        "plan",
        "--queries",
        "200",
        "--rate",
        "0.8",
        "--queries-per-doc",
        "3",
        "--icc",
        "0.2",
    )
    assert code == 0 and "±5.5 points assuming independence; ±6.6 with 3" in out
    code, out, _ = _run(
        capsys, "plan", "--ab", "--rate", "0.3", "--mde", "0.05", "--traffic", "100", "--json"
    )
    assert code == 0 and json.loads(out)["days"] == math.ceil(
        2 * json.loads(out)["units_per_arm"] / 100
    )


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "--ab", "--rate", "0.3", "--mde", "0.05", "--icc", "1"),
        ("plan", "--ab", "--rate", "0.3", "--mde", "0.05", "--power", "0.04"),
        ("plan", "--queries", "200", "--rate", "0.8", "--icc", "-0.1"),
    ],
)
def test_bad_input_exits_2(capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    code, _, err = _run(capsys, *args)
    assert code == 2 and len(err.strip().splitlines()) == 1, err


def test_errors_are_input_errors() -> None:
    with pytest.raises(InputError):
        golden_set(0.4, queries=10, target=0.1)
