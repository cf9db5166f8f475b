"""Bounded intervals (`logit`, `korn_graubard`) against R survey's svyciprop.

Reference values live in tests/reference/r_svyciprop.json, written by
tests/reference/reference_svyciprop.R from the CSVs in
tests/reference/data_svyciprop/ (made by make_svyciprop_data.py); R is not
needed at test time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from ragstat.inference import methods as m
from ragstat.inference.estimators import fpc_factor
from ragstat.records import DocStats, aggregate_frame

REFERENCE = Path(__file__).resolve().parent / "reference"
DATA = REFERENCE / "data_svyciprop"
REF = json.loads((REFERENCE / "r_svyciprop.json").read_text())
CASES = REF["cases"]
OURS = {"logit": m.logit, "beta": m.korn_graubard}
TOL = 1e-8


def _sample(st: DocStats, level: float, M: int | None = None) -> m.Sample:
    return m.Sample(
        n=st.n,
        s=st.s,
        q=st.q,
        binary=st.binary,
        level=level,
        fpc=fpc_factor(st.K, M),
        reps=1,
        w=st.within_ss,
        bounds=st.known_bounds(),
    )


def _stats(name: str) -> DocStats:
    frame = pd.read_csv(DATA / f"{name}.csv", dtype={"doc": str, "y": np.float64})
    return aggregate_frame(frame, cluster="doc", score="y")


def _case_id(c: dict) -> str:
    fpc = "fpc" if c["M"] is not None else "nofpc"
    return f"{c['dataset']}-{c['estimand']}-{c['method']}-{c['level']}-{fpc}"


def test_reference_json_covers_every_csv_and_case():
    on_disk = sorted(p.stem for p in DATA.glob("*.csv"))
    assert on_disk == sorted({c["dataset"] for c in CASES})
    assert len(CASES) == len(on_disk) * 2 * 2 * 2 * 2  # fpc × estimand × method × level
    assert REF["versions"]["survey"]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_matches_svyciprop(case: dict):
    st = _stats(case["dataset"])
    iv = OURS[case["method"]](_sample(st, case["level"], case["M"]), case["estimand"])
    assert iv.available, iv.reason
    assert iv.df == case["df"]
    for ours, theirs in ((iv.estimate, "estimate"), (iv.se, "se")):
        assert ours == pytest.approx(case[theirs], rel=TOL, abs=1e-12)
    assert abs(iv.lower - case["lower"]) <= TOL
    assert abs(iv.upper - case["upper"]) <= TOL
    assert 0.0 <= iv.lower <= iv.estimate <= iv.upper <= 1.0
    assert not iv.outside_range


def _constant(value: float, sizes: tuple[int, ...] = (3, 8, 5, 20)) -> DocStats:
    n = np.array(sizes, dtype=float)
    return DocStats(
        doc_id=[f"d{i}" for i in range(n.size)], n=n, s=value * n, q=value * n, binary=True
    )


@pytest.mark.parametrize("value", [0.0, 1.0])
@pytest.mark.parametrize("estimand", ["micro", "macro"])
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_rule_at_zero_and_one(value: float, estimand: str, level: float):
    st = _constant(value)
    x = _sample(st, level)
    iv = m.korn_graubard(x, estimand)
    a = 1 - level
    n = st.N if estimand == "micro" else st.K
    n_eff = n * (sps.t.ppf(a / 2, n - 1) / sps.t.ppf(a / 2, st.K - 1)) ** 2
    bound = 1 - (a / 2) ** (1 / n_eff)  # Clopper–Pearson with 0 successes in n_eff
    want = (0.0, bound) if value == 0 else (1 - bound, 1.0)
    assert iv.available and (iv.lower, iv.upper) == pytest.approx(want, rel=1e-12)
    assert iv.estimate == value and "design effect 1" in iv.reason
    assert np.isfinite([iv.lower, iv.upper]).all()
    if estimand == "macro":
        assert n_eff == pytest.approx(st.K)
    lg = m.logit(x, estimand)
    assert not lg.available and f"exactly {value:g}" in lg.reason


def test_rule_is_the_limit_of_the_formula_as_the_design_effect_goes_to_one():
    """Clopper–Pearson at x → 0 successes of n_eff = N · rat, continuous with the rule."""
    from ragstat.inference import bounded

    N, K, level = 58.0, 4.0, 0.95
    theta = 1e-9
    se = np.sqrt(theta * (1 - theta) / N)  # design effect 1
    lo, hi = bounded.korn_graubard_bounds(theta, se, N, K - 1, level)
    lo0, hi0 = bounded.clopper_pearson_at_bound(0.0, N, K - 1, level)
    assert lo0 == 0.0 and lo == pytest.approx(0.0, abs=1e-6) and hi == pytest.approx(hi0, rel=1e-6)


def _random_stats(rng: np.random.Generator, K: int, binary: bool) -> DocStats:
    n = rng.integers(1, 30, K).astype(float)
    p = rng.beta(0.3, 0.3, K)  # many rates near 0 and 1
    if binary:
        s = rng.binomial(n.astype(int), p).astype(float)
        return DocStats(doc_id=[f"d{i:02d}" for i in range(K)], n=n, s=s, q=s, binary=True)
    ys = [np.clip(rng.normal(pd_, 0.1, int(k)), 0, 1) for pd_, k in zip(p, n, strict=True)]
    s = np.array([y.sum() for y in ys])
    q = np.array([(y * y).sum() for y in ys])
    return DocStats(doc_id=[f"d{i:02d}" for i in range(K)], n=n, s=s, q=q, score_range=(0.0, 1.0))


@pytest.mark.parametrize("binary", [True, False])
def test_bounded_intervals_always_lie_in_unit_interval(binary: bool):
    rng = np.random.default_rng(13)
    for _ in range(300):
        K = int(rng.integers(2, 25))
        st = _random_stats(rng, K, binary)
        M = None if rng.random() < 0.5 else int(K * rng.integers(1, 5))
        x = _sample(st, float(rng.choice([0.8, 0.9, 0.95, 0.99])), M)
        for est in ("micro", "macro"):
            for method in (m.logit, m.korn_graubard, m.logit_cr2_bm):
                iv = method(x, est)
                if not iv.available:
                    assert iv.reason and iv.lower is None
                    continue
                assert np.isfinite([iv.lower, iv.upper]).all()
                assert 0.0 <= iv.lower <= iv.estimate <= iv.upper <= 1.0
            assert m.korn_graubard(x, est).available or "zero standard error" in (
                m.korn_graubard(x, est).reason or ""
            )


def test_census_and_scores_outside_unit():
    st = _stats("k10_near0")
    census = m.korn_graubard(_sample(st, 0.95, st.K), "micro")
    assert census.lower == census.upper == census.estimate and "census" in census.reason
    wide = DocStats(doc_id=["a", "b", "c"], n=[2, 3, 4], s=[1, 4, 2], q=[1, 8, 2])
    for method in (m.logit, m.korn_graubard):
        iv = method(_sample(wide, 0.95), "micro")
        assert not iv.available and "[0, 1]" in iv.reason


def test_macro_logit_equals_the_delta_variant_and_micro_differs():
    x = _sample(_stats("k40_half"), 0.95)
    assert m.logit(x, "macro").lower == pytest.approx(m.logit_cr2_bm(x, "macro").lower)
    assert m.logit(x, "micro").lower != pytest.approx(m.logit_cr2_bm(x, "micro").lower)
    assert m.logit_cr2_bm(x, "micro").method == "logit_cr2_bm"


def test_unbounded_interval_outside_range_is_flagged_not_clipped():
    x = _sample(_stats("k10_near0"), 0.95)
    iv = m.cr2_bm(x, "micro")
    assert iv.lower < 0 and iv.outside_range and iv.to_dict()["outside_range"] is True
    assert not m.korn_graubard(x, "micro").outside_range
    inside = m.cr2_bm(_sample(_stats("k40_half"), 0.95), "micro")
    assert not inside.outside_range and inside.to_dict()["outside_range"] is False
    not_unit = m.Sample(**{**x.__dict__, "bounds": None})
    assert not m.cr2_bm(not_unit, "micro").outside_range
