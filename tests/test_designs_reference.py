"""Cross-checks of the stratified and two-stage designs against R's survey package.

The reference values live in tests/reference/r_designs.json, written by
tests/reference/reference_designs.R from the CSVs in tests/reference/data_designs/
(made by tests/reference/make_design_datasets.py), so R is not needed at test time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ragstat
from ragstat.inference.designs import (
    DesignEstimate,
    size_strata,
    stratified_macro,
    stratified_micro,
    two_stage_type_mean,
)

REFERENCE = Path(__file__).resolve().parent / "reference"
DATA = REFERENCE / "data_designs"

REF = json.loads((REFERENCE / "r_designs.json").read_text())
STRATIFIED = sorted(n for n, e in REF["datasets"].items() if e["design"] == "stratified")
TWO_STAGE = sorted(n for n, e in REF["datasets"].items() if e["design"] == "two-stage")


def close(value: float) -> object:
    return pytest.approx(value, rel=1e-8, abs=1e-12)


def _load(name: str) -> tuple[ragstat.DocStats, dict[str, int]]:
    entry = REF["datasets"][name]
    frame = pd.read_csv(DATA / entry["file"], dtype={"doc": str, "stratum": str, "y": np.float64})
    pop = pd.read_csv(DATA / entry["population_file"], dtype={"stratum": str, "M": np.int64})
    stats = ragstat.aggregate_frame(frame, cluster="doc", score="y", stratum="stratum")
    return stats, dict(zip(pop["stratum"], pop["M"].astype(int).tolist(), strict=True))


def _stats(n, s, stratum) -> ragstat.DocStats:
    n = np.asarray(n, dtype=float)
    s = np.asarray(s, dtype=float)
    return ragstat.DocStats(
        doc_id=[f"d{i}" for i in range(n.size)],
        n=n,
        s=s,
        q=s,
        binary=True,
        stratum=stratum,
    )


# --------------------------------------------------------------------- the files


def test_reference_json_covers_every_csv():
    on_disk = sorted(p.stem for p in DATA.glob("*.csv") if not p.stem.endswith("_population"))
    assert on_disk, "no design reference CSVs in tests/reference/data_designs"
    assert on_disk == sorted(REF["datasets"])
    for name, entry in REF["datasets"].items():
        assert (DATA / entry["population_file"]).exists(), name
    assert len(STRATIFIED) == 2
    assert len(TWO_STAGE) == 2
    for key in ("R", "survey", "jsonlite"):
        assert REF["versions"][key]
    assert REF["options"]["survey.ultimate.cluster"] is False


@pytest.mark.parametrize("name", sorted(REF["datasets"]))
def test_dataset_shape_matches_r(name: str):
    entry = REF["datasets"][name]
    stats, population = _load(name)
    assert entry["K"] == stats.K
    assert entry["N"] == stats.N
    labels, counts = np.unique(stats.stratum.astype(str), return_counts=True)
    sampled = entry["strata"] if entry["design"] == "stratified" else entry["types"]
    assert dict(zip(labels.tolist(), counts.tolist(), strict=True)) == sampled
    assert population == entry["population"]


# ------------------------------------------------------------------- stratified


@pytest.mark.parametrize("name", STRATIFIED)
def test_stratified_macro_matches_survey(name: str):
    ref = REF["datasets"][name]
    est = stratified_macro(*_load(name))
    assert isinstance(est, DesignEstimate)
    assert est.estimate == close(ref["macro_estimate_survey"])
    assert est.se == close(ref["macro_se_survey"])
    assert est.df == close(ref["macro_df_satterthwaite_by_hand"])


@pytest.mark.parametrize("name", STRATIFIED)
def test_stratified_micro_matches_survey(name: str):
    ref = REF["datasets"][name]
    est = stratified_micro(*_load(name))
    assert est.estimate == close(ref["micro_estimate_survey"])
    assert est.se == close(ref["micro_se_survey"])
    # the per-query svymean(~y, ids = ~doc) is the same estimator
    assert est.estimate == close(ref["micro_estimate_query_table_survey"])
    assert est.se == close(ref["micro_se_query_table_survey"])
    assert est.df == close(ref["micro_df_satterthwaite_by_hand"])


@pytest.mark.parametrize("name", STRATIFIED)
def test_stratified_df_is_satterthwaite_not_survey_degf(name: str):
    ref = REF["datasets"][name]
    stats, population = _load(name)
    K_h = np.array(list(ref["strata"].values()), dtype=float)
    assert ref["degf_survey"] == stats.K - K_h.size
    for est in (stratified_macro(stats, population), stratified_micro(stats, population)):
        # Satterthwaite lies between the smallest K_h - 1 and Σ (K_h - 1)
        assert K_h.min() - 1 <= est.df <= np.sum(K_h - 1) + 1e-9


def test_size_strata_labels():
    n = np.array([1, 76, 77, 200, 76.0])
    assert size_strata(n, 76).tolist() == ["n<=76", "n<=76", "n>76", "n>76", "n<=76"]
    assert size_strata(np.array([10.0]), 7.5).tolist() == ["n>7.5"]


def test_size_strata_reproduce_the_dataset_labels():
    stats, population = _load("b_stratified_size_continuous")
    labels = size_strata(stats.n, 76)
    assert labels.tolist() == stats.stratum.tolist()
    assert set(labels.tolist()) == set(population) == {"n>76", "n<=76"}
    assert np.any(stats.n == 76) and np.any(stats.n == 77)


@pytest.mark.parametrize("name", STRATIFIED)
def test_fully_sampled_strata_have_zero_se(name: str):
    ref = REF["datasets"][name]
    stats, _ = _load(name)
    full = dict(ref["strata"])  # M_h = K_h
    K_h = np.array(list(full.values()), dtype=float)
    assert ref["full_macro_se_survey"] == 0.0
    assert ref["full_micro_se_survey"] == 0.0
    for fn, key in ((stratified_macro, "macro"), (stratified_micro, "micro")):
        est = fn(stats, full)
        assert est.estimate == close(ref[f"full_{key}_estimate_survey"])
        assert est.se == 0.0
        # no variance terms: the Satterthwaite df falls back to Σ (K_h − 1)
        assert est.df == np.sum(K_h - 1)
        assert est.census
        interval = est.interval(0.95)  # a census has no sampling error: the exact value
        assert interval.available and interval.se == 0.0
        assert interval.lower == interval.upper == est.estimate
        assert "census" in interval.reason


# -------------------------------------------------------------------- two-stage


@pytest.mark.parametrize("name", TWO_STAGE)
def test_two_stage_matches_survey(name: str):
    ref = REF["datasets"][name]
    stats, population = _load(name)
    assert len(population) == ref["T"]
    est = two_stage_type_mean(stats, population)
    assert est.estimate == close(ref["estimate_survey"])
    assert est.se == close(ref["se_survey"])
    assert est.se**2 == close(ref["var_between_by_hand"] + ref["var_within_by_hand"])
    # the second stage matters: the first-stage-only SE is clearly smaller
    assert est.se > ref["se_first_stage_only_survey"] * (1 + 1e-3)


@pytest.mark.parametrize("name", TWO_STAGE)
def test_two_stage_df_is_t_minus_one(name: str):
    ref = REF["datasets"][name]
    est = two_stage_type_mean(*_load(name))
    assert est.df == ref["t"] - 1
    assert est.df == ref["degf_survey"]


def test_two_stage_unsampled_types_change_the_se():
    """T comes from the population listing: dropping unsampled types changes the SE."""
    stats, population = _load("c_two_stage_binary")
    sampled = {h: population[h] for h in np.unique(stats.stratum.astype(str))}
    assert len(sampled) < len(population)
    full = two_stage_type_mean(stats, population)
    only = two_stage_type_mean(stats, sampled)
    assert only.estimate == close(full.estimate)
    assert only.se != pytest.approx(full.se, rel=1e-6)


# ----------------------------------------------------------------------- errors


@pytest.mark.parametrize("fn", [stratified_macro, stratified_micro, two_stage_type_mean])
def test_one_sampled_document_raises(fn):
    stats = _stats([5, 6, 7, 8], [1, 2, 3, 4], ["a", "a", "a", "b"])
    with pytest.raises(ragstat.DesignError, match="one sampled document"):
        fn(stats, {"a": 10, "b": 10})


@pytest.mark.parametrize("fn", [stratified_macro, stratified_micro, two_stage_type_mean])
def test_population_smaller_than_sample_raises(fn):
    stats = _stats([5, 6, 7, 8, 9], [1, 2, 3, 4, 5], ["a", "a", "a", "b", "b"])
    with pytest.raises(ragstat.DesignError, match="smaller than the 3 documents sampled"):
        fn(stats, {"a": 2, "b": 10})


@pytest.mark.parametrize("fn", [stratified_macro, stratified_micro, two_stage_type_mean])
def test_missing_population_label_raises(fn):
    stats = _stats([5, 6, 7, 8], [1, 2, 3, 4], ["a", "a", "b", "b"])
    with pytest.raises(ragstat.DesignError, match="population counts missing"):
        fn(stats, {"a": 10})


@pytest.mark.parametrize("fn", [stratified_macro, stratified_micro, two_stage_type_mean])
def test_no_strata_raises(fn):
    stats = ragstat.DocStats(doc_id=["x", "y"], n=[3, 4], s=[1, 2], q=[1, 2], binary=True)
    with pytest.raises(ragstat.DesignError, match="stratum/type for every document"):
        fn(stats, {"a": 10})


def test_two_stage_needs_two_sampled_types():
    stats = _stats([5, 6, 7], [1, 2, 3], ["a", "a", "a"])
    with pytest.raises(ragstat.DesignError, match="at least two sampled types"):
        two_stage_type_mean(stats, {"a": 10, "b": 10})
