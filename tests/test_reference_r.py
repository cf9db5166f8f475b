"""Cross-checks against R: clubSandwich, estimatr and survey.

The reference values live in tests/reference/r_reference.json, written by
tests/reference/reference_r.R from the CSVs in tests/reference/data/ (made by
tests/reference/make_datasets.py), so R is not needed at test time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragstat.inference.estimators import fpc_factor, macro_mean, micro_mean
from ragstat.inference.variance import (
    df_bell_mccaffrey,
    df_imbens_kolesar,
    se_cr1,
    se_cr2,
    se_t_rates,
)
from ragstat.records import aggregate_frame

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "reference"
DATA = REFERENCE / "data"
SHARED = Path(__file__).resolve().parents[2] / "shared"
CLUSTER12 = SHARED / "data" / "fixtures" / "cluster12.csv"

REF = json.loads((REFERENCE / "r_reference.json").read_text())
LOCAL = sorted(name for name, entry in REF["datasets"].items() if entry["file"] != "cluster12.csv")

# Known check values on cluster12 (K = 12, N = 212); IK df from Kolesár's dfadjust.
CLUSTER12_KNOWN = {
    "R": 0.5283018868,
    "cr1": 0.0828765561,
    "cr2": 0.0840217171,
    "df_bm": 8.7602927451,
    "df_ik": 7.3680664398,
}


def close(value: float) -> object:
    return pytest.approx(value, rel=1e-8, abs=1e-12)


def _stats(path: Path):
    frame = pd.read_csv(path, dtype={"doc": str, "y": np.float64})
    return aggregate_frame(frame, cluster="doc", score="y")


def _ours(path: Path, M: int) -> dict[str, float]:
    st = _stats(path)
    N, K = st.N, st.K
    R = micro_mean(st.n, st.s)
    u = st.s - R * st.n
    cr1 = se_cr1(u, N)
    return {
        "K": K,
        "N": N,
        "R": R,
        "cr1": cr1,
        "cr2": se_cr2(u, st.n),
        "df_bm": df_bell_mccaffrey(st.n),
        "df_ik": df_imbens_kolesar(st.n, st.s, st.q),
        "cr1_fpc": cr1 * np.sqrt(fpc_factor(K, M)),
        "macro": macro_mean(st.n, st.s),
        "macro_se": se_t_rates(st.r),
        "macro_se_fpc": se_t_rates(st.r) * np.sqrt(fpc_factor(K, M)),
    }


def _assert_matches_r(ours: dict[str, float], ref: dict) -> None:
    assert ref["cr1_type"] == "CR1"
    assert ours["K"] == ref["K"]
    assert ours["N"] == ref["N"]
    assert ref["M"] == 4 * ref["K"]
    assert ours["R"] == close(ref["R"])
    assert ours["R"] == close(ref["mean_survey"])
    assert ours["R"] == close(ref["mean_micro_fpc_survey"])
    assert ours["cr1"] == close(ref["se_cr1_clubSandwich"])
    assert ours["cr1"] == close(ref["se_cr1_survey"])
    assert ours["cr2"] == close(ref["se_cr2_clubSandwich"])
    assert ours["cr2"] == close(ref["se_cr2_coef_test"])
    assert ours["cr2"] == close(ref["se_cr2_estimatr"])
    assert ours["df_bm"] == close(ref["df_bm_clubSandwich"])
    assert ours["df_bm"] == close(ref["df_cr2_estimatr"])
    assert ours["cr1_fpc"] == close(ref["se_micro_fpc_survey"])
    assert ours["macro"] == close(ref["macro_mean"])
    assert ours["macro"] == close(ref["macro_mean_survey"])
    assert ours["macro_se"] == close(ref["macro_se"])
    assert ours["macro_se"] == close(ref["macro_se_survey"])
    assert ours["macro_se_fpc"] == close(ref["macro_se_fpc_survey"])


def test_reference_json_covers_every_csv():
    on_disk = sorted(p.stem for p in DATA.glob("*.csv"))
    assert on_disk, "no reference CSVs in tests/reference/data"
    assert on_disk == LOCAL
    for key in ("R", "clubSandwich", "estimatr", "survey", "jsonlite"):
        assert REF["versions"][key]


@pytest.mark.parametrize("name", LOCAL)
def test_matches_r_packages(name: str):
    ref = REF["datasets"][name]
    _assert_matches_r(_ours(DATA / ref["file"], ref["M"]), ref)


@pytest.mark.parametrize("name", LOCAL)
def test_fpc_reduces_by_the_known_factor(name: str):
    ref = REF["datasets"][name]
    shrink = np.sqrt(1.0 - ref["K"] / ref["M"])
    assert ref["se_micro_fpc_survey"] == close(ref["se_cr1_survey"] * shrink)
    assert ref["macro_se_fpc_survey"] == close(ref["macro_se"] * shrink)


def test_equal_sizes_bell_mccaffrey_is_k_minus_one():
    ref = REF["datasets"]["e_binary_k10_equal"]
    st = _stats(DATA / ref["file"])
    assert np.all(st.n == st.n[0])
    assert df_bell_mccaffrey(st.n) == close(ref["K"] - 1)
    assert ref["df_bm_clubSandwich"] == close(ref["K"] - 1)


def test_cluster12_known_values():
    if not CLUSTER12.exists():
        pytest.skip(f"shared fixtures not available ({CLUSTER12})")
    ours = _ours(CLUSTER12, 48)
    assert ours["K"] == 12
    assert ours["N"] == 212
    for key, value in CLUSTER12_KNOWN.items():
        assert ours[key] == close(value), key


def test_cluster12_matches_r_packages():
    if not CLUSTER12.exists():
        pytest.skip(f"shared fixtures not available ({CLUSTER12})")
    if "cluster12" not in REF["datasets"]:
        pytest.skip("r_reference.json was generated without the shared cluster12 fixture")
    ref = REF["datasets"]["cluster12"]
    _assert_matches_r(_ours(CLUSTER12, ref["M"]), ref)
