"""Regressions for defects found in review: numerics, degenerate bootstraps, validation."""

import numpy as np
import pandas as pd
import pytest

from conftest import unequal_design
from ragstat import DesignError, DocStats, InputError, aggregate_arrays, aggregate_file, analyze
from ragstat.cli import main
from ragstat.inference import df_bell_mccaffrey, df_imbens_kolesar
from ragstat.inference.designs import stratified_macro
from ragstat.inference.diagnostics import deff, icc_anova


@pytest.mark.parametrize("big", [1e7, 1e8, 1e9, 1e12])
def test_bm_df_with_one_dominant_document(big):
    assert df_bell_mccaffrey(np.array([big, 1.0])) == pytest.approx(1.0, rel=1e-12)
    n = np.array([big, 1.0, 2.0])
    df = df_bell_mccaffrey(n)
    assert np.isfinite(df) and 1.0 <= df <= 2.0


def test_ik_df_stays_finite_with_one_dominant_document():
    n = np.array([1e9, 3.0, 5.0])
    s = np.array([3e8, 1.0, 4.0])
    assert np.isfinite(df_imbens_kolesar(n, s, s)) and df_imbens_kolesar(n, s, s) > 0


def test_shifting_scores_leaves_variance_diagnostics_unchanged():
    doc, y, _ = unequal_design(np.random.default_rng(3), 30, binary=False)
    base = aggregate_arrays(doc, y)
    for shift in (1e6, 1e7):
        moved = aggregate_arrays(doc, y + shift)
        assert icc_anova(moved.n, moved.s, moved.q, moved.within_ss) == pytest.approx(
            icc_anova(base.n, base.s, base.q, base.within_ss), rel=1e-6
        )
        a = analyze(base, methods=["cr2_ik", "wald_iid"], seed=0).estimands["micro"]
        b = analyze(moved, methods=["cr2_ik", "wald_iid"], seed=0).estimands["micro"]
        assert b.get("cr2_ik").df == pytest.approx(a.get("cr2_ik").df, rel=1e-6)
        assert b.get("wald_iid").se == pytest.approx(a.get("wald_iid").se, rel=1e-6)


def test_tiny_score_units_are_not_mistaken_for_zero_variance():
    doc, y, _ = unequal_design(np.random.default_rng(4), 25)
    rep = analyze(aggregate_arrays(doc, y * 1e-11), methods=["cr2_bm", "t_rates"], seed=0)
    assert rep.estimands["micro"].get("cr2_bm").available
    assert rep.estimands["macro"].get("t_rates").available


def test_bootstrap_t_with_two_documents_is_unavailable_not_a_point():
    st = aggregate_arrays(list("aaabbbb"), [1, 1, 0, 0, 1, 0, 0])
    rep = analyze(st, methods=["doc_bootstrap_t"], seed=1, bootstrap_reps=500)
    for est in rep.estimands.values():
        iv = est.get("doc_bootstrap_t")
        assert not iv.available and iv.lower is None
    one = analyze(
        aggregate_arrays(*unequal_design(np.random.default_rng(1), 10)[:2]),
        methods=["doc_bootstrap_t"],
        bootstrap_reps=1,
        seed=1,
    )
    assert not one.estimands["micro"].get("doc_bootstrap_t").available
    assert any("noisy" in w for w in one.warnings)


def test_census_gives_the_population_value_with_a_reason():
    doc, y, _ = unequal_design(np.random.default_rng(2), 12)
    st = aggregate_arrays(doc, y)
    rep = analyze(st, population=st.K, seed=0, bootstrap_reps=200)
    for name in ("cr2_bm", "cr1", "doc_bootstrap_t", "doc_bootstrap_percentile"):
        iv = rep.estimands["micro"].get(name)
        assert iv.lower == iv.upper == iv.estimate and "census" in iv.reason


def test_deff_is_one_without_clustering():
    n = np.ones(10)
    assert deff(n, None) == 1.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"bootstrap_reps": 100.0}, "whole"),
        ({"bootstrap_reps": 10**8}, "whole"),
    ],
)
def test_seed_and_reps_are_validated(kwargs, match):
    st = aggregate_arrays(list("aabb"), [1, 0, 0, 0])
    with pytest.raises(InputError, match=match):
        analyze(st, **kwargs)


def test_cli_usage_errors_exit_2(tmp_path, capsys):
    data = tmp_path / "d.csv"
    pd.DataFrame({"doc_id": list("aabb"), "hit": [1, 0, 0, 1]}).to_csv(data, index=False)
    assert main(["interval", str(data), "--bogus"]) == 2
    assert main(["interval", str(data), "--level", "abc"]) == 2
    assert main(["interval"]) == 2
    assert main(["interval", str(data), "--seed", "-1"]) == 2
    assert "seed" in capsys.readouterr().err
    assert main([]) == 0  # help


def test_positions_must_be_numeric_present_and_unique(tmp_path):
    with pytest.raises(InputError, match="two queries at position"):
        aggregate_arrays(list("aab"), [1, 0, 1], position=[1, 1, 0])
    with pytest.raises(InputError, match="position is missing"):
        aggregate_arrays(list("aab"), [1, 0, 1], position=[1, None, 0])
    lex = aggregate_arrays(list("aaa"), [1, 0, 1], position=["2", "10", "1"])
    num = aggregate_arrays(list("aaa"), [1, 0, 1], position=[2, 10, 1])
    np.testing.assert_array_equal(lex.lag.c, num.lag.c)
    path = tmp_path / "p.csv"
    pd.DataFrame({"doc_id": list("aab"), "hit": [1, 0, 1], "position": [1, 1, 0]}).to_csv(
        path, index=False
    )
    with pytest.raises(InputError, match="two queries at position"):
        aggregate_file(path, score="hit", position="position")
    pd.DataFrame({"doc_id": list("aab"), "hit": [1, 0, 1], "position": [1, None, 0]}).to_csv(
        path, index=False
    )
    with pytest.raises(InputError, match="missing or not numeric"):
        aggregate_file(path, score="hit", position="position")


def test_missing_strata_and_ids_are_errors(tmp_path):
    with pytest.raises(InputError, match="stratum is missing"):
        aggregate_arrays(list("aab"), [1, 0, 1], stratum=["x", None, "y"])
    with pytest.raises(InputError, match="doc_id is missing"):
        aggregate_arrays([None, "a", "a"], [1, 0, 1])
    with pytest.raises(InputError, match="doc_id is missing"):
        aggregate_arrays(np.array([np.nan, 1.0, 1.0]), [1, 0, 1])
    with pytest.raises(InputError, match="rows, expected"):
        aggregate_arrays(list("aab"), [1, 0, 1], stratum=["x", "y"])
    path = tmp_path / "s.csv"
    pd.DataFrame({"doc_id": list("aab"), "hit": [1, 0, 1], "st": ["x", None, "y"]}).to_csv(
        path, index=False
    )
    with pytest.raises(InputError, match="rows with no 'st'"):
        aggregate_file(path, score="hit", stratum="st")


def test_docstats_sums_must_be_consistent():
    with pytest.raises(InputError, match="cannot come from 0/1"):
        DocStats(doc_id=list("abc"), n=[2, 2, 2], s=[5, 2, 0], q=[5, 2, 0], binary=True)
    with pytest.raises(InputError, match="q ≥ s²/n"):
        DocStats(doc_id=list("ab"), n=[2, 2], s=[2, 1], q=[1, 1])
    from ragstat.records import LagSums

    with pytest.raises(InputError, match="lag arrays"):
        DocStats(
            doc_id=list("ab"),
            n=[2, 2],
            s=[1, 1],
            q=[1, 1],
            lag=LagSums(np.zeros(5), np.zeros(5), np.zeros(5)),
        )


def test_stratified_design_needs_every_stratum_sampled():
    st = DocStats(
        doc_id=list("abcd"),
        n=[2, 2, 3, 3],
        s=[1, 0, 2, 1],
        q=[1, 0, 2, 1],
        binary=True,
        stratum=["x", "x", "y", "y"],
    )
    with pytest.raises(DesignError, match="no sampled documents"):
        stratified_macro(st, {"x": 10, "y": 10, "z": 5000})


def test_non_srs_designs_reject_srs_options(tmp_path, capsys):
    data, pop = tmp_path / "d.csv", tmp_path / "p.csv"
    pd.DataFrame(
        {"doc_id": list("aabbccdd"), "hit": [1, 0, 0, 1, 1, 1, 0, 0], "st": list("xxxxyyyy")}
    ).to_csv(data, index=False)
    pd.DataFrame({"stratum": ["x", "y"], "M": [10, 10]}).to_csv(pop, index=False)
    code = main(
        [
            "interval",
            str(data),
            "--design",
            "stratified",
            "--strata",
            "st",
            "--population-file",
            str(pop),
            "--population",
            "100",
        ]
    )
    assert code == 2 and "--population applies to --design srs" in capsys.readouterr().err


# ---------------------------------------------------------------- issue 3 review


def test_neyman_micro_allocation_favours_the_variable_large_documents():
    from ragstat.inference.planning import allocate, stratum_sd

    rng = np.random.default_rng(0)
    n = np.r_[np.full(10, 150.0), np.full(10, 20.0)]
    p = np.r_[rng.uniform(0, 0.6, 10), rng.uniform(0, 0.6, 10)]
    s = np.round(n * p)
    st = DocStats(
        doc_id=[f"d{i}" for i in range(20)],
        n=n,
        s=s,
        q=s,
        binary=True,
        stratum=["big"] * 10 + ["small"] * 10,
    )
    sd = stratum_sd(st, "micro")
    R = s.sum() / n.sum()
    u = s - R * n
    assert sd["big"] == pytest.approx(np.std(u[:10], ddof=1))
    alloc = allocate(40, {"big": 129, "small": 1171}, "neyman", sd)
    share = 129 * sd["big"] / (129 * sd["big"] + 1171 * sd["small"])
    assert alloc["big"] == pytest.approx(40 * share, abs=1)


def test_query_ids_of_different_types_pair_as_text(tmp_path):
    from ragstat.records import pair_files

    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    pd.DataFrame({"query_id": [1, 2, 3], "doc_id": list("xxy"), "hit": [1, 0, 1]}).to_parquet(a)
    pd.DataFrame({"query_id": ["1", "2", "3"], "doc_id": list("xxy"), "hit": [0, 0, 1]}).to_parquet(
        b
    )
    t = pair_files(a, b, score="hit")
    assert t.pairing.matched == 3 and t.stats.N == 3
    pd.DataFrame(
        {"query_id": ["1", "01", "2", "3"], "doc_id": list("xxxy"), "hit": [0, 0, 0, 1]}
    ).to_parquet(b)
    with pytest.raises(InputError, match="no match"):
        pair_files(a, b, score="hit")
    pd.DataFrame({"query_id": [1, None, 3], "doc_id": list("xxy"), "hit": [1, 0, 1]}).to_parquet(b)
    with pytest.raises(InputError, match="'query_id' is missing"):
        pair_files(a, b, score="hit")


def test_plan_edge_cases_exit_cleanly(tmp_path, capsys):
    from ragstat.inference.planning import allocate, plan_documents

    assert main(["plan", "--half-width", "100", "--sd", "0.1"]) == 0
    assert "K − 1 < 2" in capsys.readouterr().out
    assert main(["plan", "--half-width", "1e-10", "--sd", "1", "--population", "1300"]) == 0
    capsys.readouterr()
    with pytest.raises(InputError, match="too small"):
        plan_documents(1e-10, 1.0)
    pilot = tmp_path / "p.csv"
    pd.DataFrame(
        {"doc_id": list("ab"), "hit": [1, 0], "system": ["A", "A"], "query_id": [1, 2]}
    ).to_csv(pilot, index=False)
    assert main(["plan", "--half-width", "0.05", "--pilot", str(pilot), "--systems", "A"]) == 2
    assert "two names" in capsys.readouterr().err
    with pytest.raises(InputError, match="proportional"):
        allocate(10, {"a": 50, "b": 50}, "neyman", {"a": 0.0, "b": 0.0})
    assert allocate(5, {"a": 1, "b": 50}) == {"a": 1, "b": 4}


def test_a_stratum_taken_whole_is_certain_not_lonely():
    st = DocStats(
        doc_id=list("abcd"),
        n=[2, 2, 3, 3],
        s=[1, 0, 2, 1],
        q=[1, 0, 2, 1],
        binary=True,
        stratum=["x", "y", "y", "y"],
    )
    est = stratified_macro(st, {"x": 1, "y": 10})
    assert np.isfinite(est.se) and est.se > 0
    with pytest.raises(DesignError, match="one sampled document"):
        stratified_macro(st, {"x": 2, "y": 10})
