"""Weighted (sampled-query) records against R survey and clubSandwich (tests/reference/).

The values come from tests/reference/reference_weighted.R on the CSVs written by
tests/reference/make_weighted_data.py; CI reads r_weighted.json and needs no R.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragstat.errors import InputError
from ragstat.inference.design_analysis import analyze_design
from ragstat.inference.variance import df_bell_mccaffrey, se_cr2
from ragstat.inference.weighted import se_df_cr2_weighted
from ragstat.records import aggregate_arrays
from ragstat.records.weighted import expand

REF = Path(__file__).parent / "reference"
R = {k: v for k, v in json.loads((REF / "r_weighted.json").read_text()).items() if k[0] != "_"}
TOL = 1e-8


def _expanded(name: str):
    q = pd.read_csv(REF / "data_weighted" / f"{name}.csv", dtype={"doc_id": str})
    doc = q["doc_id"].to_numpy()
    stats = aggregate_arrays(doc, q["y"].to_numpy(), score="y")
    return expand(stats, aggregate_arrays(doc, q["weight"].to_numpy(), score="weight")), q


def _check(iv, ref: dict) -> None:
    for key in ("lower", "upper", "se", "df"):
        assert getattr(iv, key) == pytest.approx(float(ref[key]), abs=TOL), key


@pytest.mark.parametrize("fpc", [False, True])
@pytest.mark.parametrize("name", sorted(R))
def test_micro_and_macro_match_survey(name, fpc):
    stats, q = _expanded(name)
    ref = R[name]
    report = analyze_design(
        stats,
        methods=["cr2_bm", "cr1", "t_rates"],
        population=int(ref["M"]) if fpc else None,
        seed=0,
    )
    suffix = "_fpc" if fpc else ""
    micro, macro = report.estimands["micro"], report.estimands["macro"]
    w, y = q["weight"].to_numpy(), q["y"].to_numpy()
    assert micro.estimate == pytest.approx(np.sum(w * y) / np.sum(w), abs=1e-12)
    assert micro.estimate == pytest.approx(float(ref["micro" + suffix]["estimate"]), abs=TOL)
    assert macro.estimate == pytest.approx(float(ref["macro" + suffix]["estimate"]), abs=TOL)
    _check(micro.get("cr1"), ref["micro" + suffix])
    _check(macro.get("t_rates"), ref["macro" + suffix])
    cr2 = micro.get("cr2_bm")
    assert cr2.available
    if cr2.outside_range:  # never recommended when it leaves [0, 1] (K = 5 here)
        assert micro.recommended is None and "leaves [0, 1]" in micro.recommendation_note
    else:
        assert micro.recommended == "cr2_bm"


@pytest.mark.parametrize("name", sorted(R))
def test_weighted_cr2_matches_clubsandwich(name):
    stats, _ = _expanded(name)
    ref = R[name]["clubsandwich_cr2"]
    u = stats.s - stats.s.sum() / stats.n.sum() * stats.n
    se, df = se_df_cr2_weighted(stats.n, stats.m, u)
    assert se == pytest.approx(float(ref["se"]), abs=TOL)
    assert df == pytest.approx(float(ref["df"]), abs=TOL)
    iv = analyze_design(stats, methods=["cr2_bm"], seed=0).estimands["micro"].get("cr2_bm")
    assert (iv.se, iv.df) == (pytest.approx(se, abs=1e-15), pytest.approx(df, abs=1e-12))
    # the unweighted CR2-BM on the expanded totals would be wrong: df assumes n_d scored
    assert abs(df_bell_mccaffrey(stats.n) - df) > 1e-3
    assert abs(se_cr2(u, stats.n) - se) > 1e-6
    assert float(R[name]["clubsandwich_cr1"]["se"]) == pytest.approx(
        float(R[name]["micro"]["se"]), abs=TOL
    )


def test_weighted_cr2_reduces_to_cr2_bm_without_sampling():
    rng = np.random.default_rng(3)
    n = rng.integers(1, 30, 12).astype(float)
    u = rng.normal(size=12)
    u -= u.mean()
    se, df = se_df_cr2_weighted(n, n, u)
    assert se == pytest.approx(se_cr2(u, n), rel=1e-12)
    assert df == pytest.approx(df_bell_mccaffrey(n), rel=1e-10)


def test_invalid_methods_are_unavailable_with_the_reason():
    stats, _ = _expanded("w_k15_binary")
    report = analyze_design(stats, methods=["cr1", "cr2_ik", "wald_iid"], seed=0)
    micro = report.estimands["micro"]
    assert micro.get("cr1").available
    assert not micro.get("cr2_ik").available and "Imbens" in micro.get("cr2_ik").reason
    assert not micro.get("wald_iid").available and "expanded" in micro.get("wald_iid").reason
    assert micro.recommended is None  # cr2_bm was not asked for


def test_weights_must_be_constant_within_a_document():
    doc = np.array(["a", "a", "b", "b"])
    y = np.array([1.0, 0.0, 1.0, 1.0])
    stats = aggregate_arrays(doc, y)
    with pytest.raises(InputError, match="differ between its queries"):
        expand(stats, aggregate_arrays(doc, np.array([1.0, 2.0, 1.5, 1.5])))
    with pytest.raises(InputError, match="whole number"):
        expand(stats, aggregate_arrays(doc, np.array([1.2, 1.2, 1.5, 1.5])))
