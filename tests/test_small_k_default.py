"""The small-K candidates as analyze and the batch simulator compute them, and the default
that follows the contest table."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from ragstat.inference import analyze
from ragstat.inference import defaults as d
from ragstat.inference.jackknife import cr3_bm
from ragstat.inference.methods import Sample
from ragstat.inference.names import SMALL_K_METHODS
from ragstat.inference.small_k import table_candidates
from ragstat.inference.wild import wcr
from ragstat.records import aggregate_arrays
from ragstat.simulation.batch import batch_intervals


def _cell(coverage: float, width: float) -> dict:
    return {"coverage": coverage, "mc_se": 0.003, "width_vs_reference": width}


@pytest.fixture
def wcr_first(monkeypatch) -> Iterator[None]:
    """A table whose narrowest method reaching 95 % everywhere is wcr, then cr3_bm, then
    cr2_bm / t_rates; the bounded pool's best is doc_bootstrap_bca."""
    rows = {
        "wcr": _cell(0.95, 0.9),
        "cr3_bm": _cell(0.951, 0.95),
        "doc_bootstrap_bca": _cell(0.949, 0.97),
        "cr2_bm": _cell(0.95, 1.0),
        "t_rates": _cell(0.95, 1.0),
        "logit": _cell(0.90, 0.8),
        "wald_iid": _cell(0.99, 0.1),
    }
    family = {"label": "one", "census": {"binary": True}, "by_k": {"20": {"micro": rows,
              "macro": rows}}}  # fmt: skip
    table = {"settings": {"ks": [20]}, "families": {"one": family}}
    monkeypatch.setattr(d, "contest_table", lambda: table)
    d.family_rows.cache_clear()
    yield
    d.family_rows.cache_clear()


def _stats(K: int = 20, seed: int = 1):
    rng = np.random.default_rng(seed)
    n = rng.integers(2, 9, size=K)
    rates = rng.beta(2, 3, size=K)
    doc = np.repeat([f"d{i:02d}" for i in range(K)], n)
    return aggregate_arrays(doc, (rng.random(n.sum()) < np.repeat(rates, n)).astype(float))


def test_table_candidates_are_those_ranked_above_the_first_built_in_method(wcr_first):
    assert table_candidates("micro", 20, 0.95, "binary") == {"wcr", "cr3_bm", "doc_bootstrap_bca"}
    assert table_candidates("micro", 20, 0.90, "binary") == set()  # off the table's level
    assert table_candidates("micro", 20, 0.95, "continuous") == set()  # no such section


def test_analyze_computes_the_table_s_candidate_and_recommends_it(wcr_first):
    rep = analyze(_stats(), seed=3, bootstrap_reps=999, methods=["cr2_bm", "t_rates"])
    for est in ("micro", "macro"):
        res = rep.estimands[est]
        assert res.recommended == "wcr"
        assert {"wcr", "cr3_bm", "doc_bootstrap_bca"} <= {iv.method for iv in res.intervals}
        assert "reached 95 % at K = 20 in all 1 families" in res.recommendation_note
    listed = analyze(_stats(), seed=3, bootstrap_reps=999)
    assert listed.estimands["micro"].get("wcr").lower == rep.estimands["micro"].get("wcr").lower


def test_a_caller_s_recommendation_computes_no_candidate(wcr_first):
    rep = analyze(_stats(), seed=3, bootstrap_reps=199, recommended={"micro": "cr2_bm",
                  "macro": "t_rates"})  # fmt: skip
    for res in rep.estimands.values():
        assert not {iv.method for iv in res.intervals} & set(SMALL_K_METHODS)


def test_without_candidates_in_the_table_listing_is_unchanged(monkeypatch):
    monkeypatch.setattr(d, "contest_table", lambda: None)
    rep = analyze(_stats(), seed=3, bootstrap_reps=199)
    for res in rep.estimands.values():
        assert not {iv.method for iv in res.intervals} & set(SMALL_K_METHODS)


def _sample(n: np.ndarray, s: np.ndarray, reps: int) -> Sample:
    return Sample(n=n, s=s, q=s, binary=True, level=0.95, fpc=1.0, reps=reps,
                  w=s - s * s / n, bounds=(0.0, 1.0))  # fmt: skip


@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_batch_candidates_equal_the_library_where_deterministic(estimand):
    rng = np.random.default_rng(7)
    R, K = 12, 5
    n = rng.integers(1, 9, size=(R, K)).astype(float)
    s = rng.binomial(n.astype(int), rng.beta(2, 2, size=(R, K))).astype(float)
    reps = 6**K  # Webb's six points enumerated: deterministic
    out = batch_intervals(n, s, s - s * s / n, binary=True, methods=["cr3_bm", "wcr"],
                          estimands=[estimand], bootstrap_reps=reps, rng=rng)  # fmt: skip
    for i in range(R):
        x = _sample(n[i], s[i], reps)
        for method, iv in (("cr3_bm", cr3_bm(x, estimand)), ("wcr", wcr(x, estimand, None))):
            b = out.get(estimand, method)
            assert bool(b.available[i]) == iv.available
            if iv.available:
                assert b.lower[i] == pytest.approx(iv.lower, abs=1e-10)
                assert b.upper[i] == pytest.approx(iv.upper, abs=1e-10)


def test_beta_binomial_has_no_interval_for_continuous_scores_and_says_why():
    rng = np.random.default_rng(2)
    n = np.full((4, 6), 3.0)
    s = rng.random((4, 6)) * 3
    w = np.full((4, 6), 0.1)
    out = batch_intervals(n, s, w, binary=False, methods=["beta_binomial"], rng=rng,
                          bounds=(0.0, 1.0))  # fmt: skip
    for b in out:
        assert not b.available.any() and b.reason == "the beta-binomial model is for 0/1 scores"


def test_simulated_defaults_leave_candidates_out():
    rng = np.random.default_rng(3)
    n = np.full((3, 5), 4.0)
    s = rng.integers(0, 5, size=(3, 5)).astype(float)
    out = batch_intervals(n, s, s - s * s / n, binary=True, rng=rng)
    assert not {b.method for b in out} & set(SMALL_K_METHODS)


def test_beta_binomial_batch_takes_samples_with_no_successes():
    """A block whose samples hold no 0/1 success at all (every count zero) gets the library's
    posterior interval (a regression: the rising-factorial sum had no terms)."""
    from ragstat.inference.bayes import beta_binomial

    n = np.full((3, 6), 4.0)
    s = np.zeros((3, 6))
    out = batch_intervals(n, s, s.copy(), binary=True, methods=["beta_binomial"],
                          bootstrap_reps=4000, rng=np.random.default_rng(1),
                          bounds=(0.0, 1.0))  # fmt: skip
    for b in out:
        lib = beta_binomial(_sample(n[0], s[0], 40_000), b.estimand, np.random.default_rng(2))
        assert b.available.all() and lib.available
        assert np.allclose(b.lower, lib.lower, atol=0.01)
        assert np.allclose(b.upper, lib.upper, atol=0.02)


def test_pick_without_an_interval_on_the_sample_gives_korn_graubard(wcr_first):
    """Every document at rate 0: the table's picks (wcr, cr3_bm, …) have no interval, and
    the interval shown is Korn–Graubard's, which the contest counts in their place."""
    doc = np.repeat([f"d{i:02d}" for i in range(20)], 3)
    rep = analyze(aggregate_arrays(doc, np.zeros(doc.size)), seed=3, bootstrap_reps=199)
    for res in rep.estimands.values():
        assert not res.get("wcr").available
        assert res.recommended == d.FALLBACK == "korn_graubard"
        assert res.recommendation_note.startswith("wcr, the default here, gives no interval")
        iv = res.get("korn_graubard")
        assert iv.available and iv.lower == 0.0 and 0 < iv.upper < 0.2


def test_no_candidate_is_computed_unasked_beyond_the_small_k_range(wcr_first):
    from ragstat.inference.small_k import MAX_CANDIDATE_K

    assert table_candidates("micro", MAX_CANDIDATE_K, 0.95, "binary")
    assert table_candidates("micro", MAX_CANDIDATE_K + 1, 0.95, "binary") == set()
    rep = analyze(_stats(K=MAX_CANDIDATE_K + 1), seed=3, bootstrap_reps=199)
    for res in rep.estimands.values():
        assert not {iv.method for iv in res.intervals} & set(SMALL_K_METHODS)
        assert res.recommended in ("cr2_bm", "t_rates")  # the table's pick among the usual
