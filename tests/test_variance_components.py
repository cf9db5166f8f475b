"""Repeats nested in items nested in documents: the ANOVA estimator and the SE projection."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragstat.errors import InputError
from ragstat.inference.components import nested_components, se_with_repeats

# A tiny unbalanced layout: document → repeats of each of its items.
LAYOUT = {"d0": [2, 3], "d1": [1, 2, 4], "d2": [3], "d3": [2, 2, 1, 3]}


def _long(layout, values):
    doc, item = [], []
    for d, reps in layout.items():
        for i, r in enumerate(reps):
            doc += [d] * r
            item += [f"{d}-{i}"] * r
    return np.asarray(values, dtype=float), np.array(doc), np.array(item)


def _loop_mean_squares(y, doc, item):
    """SS by explicit loops over documents, items and repeats."""
    docs = list(dict.fromkeys(doc))
    items = list(dict.fromkeys(item))
    grand = sum(y) / len(y)
    ss_d = ss_i = ss_e = 0.0
    for d in docs:
        yd = [v for v, dd in zip(y, doc, strict=True) if dd == d]
        mean_d = sum(yd) / len(yd)
        ss_d += len(yd) * (mean_d - grand) ** 2
        for it in {i for i, dd in zip(item, doc, strict=True) if dd == d}:
            yi = [v for v, ii in zip(y, item, strict=True) if ii == it]
            mean_i = sum(yi) / len(yi)
            ss_i += len(yi) * (mean_i - mean_d) ** 2
            ss_e += sum((v - mean_i) ** 2 for v in yi)
    df = (len(docs) - 1, len(items) - len(docs), len(y) - len(items))
    return np.array([ss_d / df[0], ss_i / df[1], ss_e / df[2]]), df


def _indicator(labels):
    levels = list(dict.fromkeys(labels))
    return np.array([[1.0 if lab == lev else 0.0 for lev in levels] for lab in labels])


def _projection(Z):
    return Z @ np.linalg.pinv(Z.T @ Z) @ Z.T


def _ems_by_traces(doc, item, df):
    """E[MS] coefficients as tr(A Z Z') / df of each quadratic form y'Ay."""
    N = len(doc)
    Zd, Zi = _indicator(doc), _indicator(item)
    P0, Pd, Pi = np.full((N, N), 1.0 / N), _projection(Zd), _projection(Zi)
    forms = (Pd - P0, Pi - Pd, np.eye(N) - Pi)
    covs = (Zd @ Zd.T, Zi @ Zi.T, np.eye(N))  # σ²_d, σ²_i, σ²_e
    return np.array([[np.trace(A @ V) / f for V in covs] for A, f in zip(forms, df, strict=True)])


def test_brute_force_mean_squares_and_expected_mean_squares():
    rng = np.random.default_rng(3)
    n = sum(sum(r) for r in LAYOUT.values())
    y, doc, item = _long(LAYOUT, rng.normal(size=n) + np.arange(n) % 3)
    ms, df = _loop_mean_squares(y, doc, item)
    coef = _ems_by_traces(doc, item, df)
    solved = np.linalg.solve(coef, ms)  # (σ²_d, σ²_i, σ²_e), untruncated
    vc = nested_components(y, doc, item)
    raw = np.array([vc.between_documents_raw, vc.between_items_raw, vc.within_items_raw])
    np.testing.assert_allclose(raw, solved, rtol=0, atol=1e-12)
    assert (vc.n_documents, vc.n_items) == (4, 10)
    assert vc.n_repeats == pytest.approx(n / 10)
    assert vc.repeats_harmonic == pytest.approx(10 / sum(1 / r for v in LAYOUT.values() for r in v))


def test_balanced_design_matches_the_classical_formulas():
    rng = np.random.default_rng(5)
    D, m, r = 6, 3, 4
    doc = np.repeat(np.arange(D), m * r)
    item = np.repeat(np.arange(D * m), r)
    y = rng.normal(size=D)[doc] + 0.7 * rng.normal(size=D * m)[item] + rng.normal(size=D * m * r)
    ybar_i = y.reshape(D * m, r).mean(1)
    ybar_d = y.reshape(D, m * r).mean(1)
    mse = np.sum((y - np.repeat(ybar_i, r)) ** 2) / (D * m * (r - 1))
    ms_i = r * np.sum((ybar_i - np.repeat(ybar_d, m)) ** 2) / (D * (m - 1))
    ms_d = m * r * np.sum((ybar_d - y.mean()) ** 2) / (D - 1)
    vc = nested_components(y, doc, item)
    assert vc.within_items_raw == pytest.approx(mse, abs=1e-12)
    assert vc.between_items_raw == pytest.approx((ms_i - mse) / r, abs=1e-12)
    assert vc.between_documents_raw == pytest.approx((ms_d - ms_i) / (r * m), abs=1e-12)
    assert vc.balanced and vc.repeats_harmonic == r
    assert "Repeats: 4 per item." in vc.summary()


TRUTH = (0.04, 0.02, 0.05)  # σ²_d, σ²_i, σ²_e


def test_recovery_on_simulated_nested_data():
    rng = np.random.default_rng(20240617)
    D, r, sims = 60, 3, 400
    m_d = rng.integers(2, 7, size=D)
    I = int(m_d.sum())  # noqa: E741
    doc_of_item = np.repeat(np.arange(D), m_d)
    doc, item = np.repeat(doc_of_item, r), np.repeat(np.arange(I), r)
    sd = np.sqrt(TRUTH)
    raw, se3, means3, means1 = [], [], [], []
    for _ in range(sims):
        item_true = rng.normal(0, sd[0], D)[doc_of_item] + rng.normal(0, sd[1], I)
        y = (item_true[:, None] + rng.normal(0, sd[2], (I, r))).ravel()
        vc = nested_components(y, doc, item)
        raw.append((vc.between_documents_raw, vc.between_items_raw, vc.within_items_raw))
        se3.append(dict(vc.se_by_repeats)[3])
        means3.append(y.mean())  # every item has r repeats: the item-weighted mean
        means1.append(y.reshape(I, r)[:, 0].mean())
    raw_a = np.array(raw)
    mc_se = raw_a.std(axis=0, ddof=1) / math.sqrt(sims)
    assert np.all(np.abs(raw_a.mean(axis=0) - TRUTH) < 2 * mc_se), (raw_a.mean(0), mc_se)
    for r_, means in ((3, means3), (1, means1)):
        projected = se_with_repeats(m_d.astype(float), *TRUTH, r=r_)
        assert np.std(means, ddof=1) == pytest.approx(projected, rel=0.10)
    assert np.mean(se3) == pytest.approx(np.std(means3, ddof=1), rel=0.10)


def test_projection_formula_and_order():
    m = np.array([2.0, 3.0, 5.0])
    se1 = se_with_repeats(m, 0.04, 0.02, 0.05, 1)
    expected = math.sqrt(sum(k * k * 0.04 + k * (0.02 + 0.05) for k in m)) / m.sum()
    assert se1 == pytest.approx(expected)
    floor = se_with_repeats(m, 0.04, 0.02, 0.05, math.inf)
    assert floor < se_with_repeats(m, 0.04, 0.02, 0.05, 10) < se1


def _small(seed=1, reps=3):
    rng = np.random.default_rng(seed)
    doc = np.repeat(np.arange(8), 3 * reps)
    item = np.repeat(np.arange(24), reps)
    y = rng.normal(size=8)[doc] * 0.3 + rng.normal(size=24)[item] * 0.2 + rng.normal(size=72)
    return y, doc, item


def test_se_now_is_the_projection_at_todays_repeats_and_summary_reads_plainly():
    vc = nested_components(*_small())
    assert vc.se_now == pytest.approx(dict(vc.se_by_repeats)[3])
    s = vc.summary()
    assert s.startswith("Repeats: 3 per item. Within-item noise is ")
    assert "10 repeats would narrow the interval by " in s and "infinitely many by " in s
    assert [r for r, _ in vc.se_by_repeats] == [1, 2, 3, 5, 10]
    frame = vc.to_frame()
    assert list(frame.columns) == ["quantity", "repeats", "value"] and len(frame) == 10
    assert vc.to_dict()["se_by_repeats"]["3"] == pytest.approx(vc.se_now)
    assert "Variance components" in repr(vc)


def test_unbalanced_repeats_use_the_harmonic_mean_and_say_so():
    y, doc, item = _long(LAYOUT, np.arange(sum(sum(r) for r in LAYOUT.values())) % 5)
    vc = nested_components(y, doc, item)
    assert not vc.balanced
    assert vc.se_now == pytest.approx(
        se_with_repeats(
            np.array([2.0, 3.0, 1.0, 4.0]),
            vc.between_documents,
            vc.between_items,
            vc.within_items,
            vc.repeats_harmonic,
        )
    )
    assert "harmonic mean" in vc.summary()


def test_negative_estimates_are_truncated_with_a_note():
    # items of a document differ less than repeats would make them: σ²_i < 0 untruncated
    doc = np.repeat([0, 0, 1, 1, 2, 2], 2)
    item = np.repeat(np.arange(6), 2)
    y = np.array([0, 1, 1, 0, 3, 4, 4, 3, 1, 2, 2, 1], dtype=float)
    vc = nested_components(y, doc, item)
    assert vc.between_items_raw < 0 and vc.between_items == 0
    assert any("below 0; set to 0" in n for n in vc.notes)


def test_missing_scores_are_left_out_with_a_note():
    y, doc, item = _small()
    y = y.copy()
    y[[0, 5]] = np.nan
    vc = nested_components(y, doc, item)
    assert "2 scores are missing; left out" in vc.notes
    assert not vc.balanced


def test_one_item_per_document_counts_everything_between_items():
    doc = np.repeat(np.arange(5), 2)
    vc = nested_components(doc * 1.0 + np.tile([0.0, 0.5], 5), doc, doc)
    assert vc.between_documents == 0 and vc.between_items == pytest.approx(2.5 - 0.125 / 2)
    assert isinstance(vc.between_items_raw, float)
    assert any("cannot be told apart" in n for n in vc.notes)


@pytest.mark.parametrize(
    "y, doc, item, words",
    [
        ([1.0, 2.0, 3.0], ["a", "a", "a"], ["x", "x", "y"], "two documents"),
        ([1.0, 2.0, 3.0, 4.0], ["a", "a", "b", "b"], ["w", "x", "y", "z"], "two or more repeats"),
        ([1.0, 2.0, 3.0, 4.0], ["a", "b", "b", "c"], ["x", "x", "y", "y"], "item 'x'"),
        ([1.0, 2.0], ["a"], ["x", "y"], "one length"),
    ],
)
def test_errors_name_the_problem(y, doc, item, words):
    with pytest.raises(InputError, match=words):
        nested_components(y, doc, item)


def test_summary_does_not_project_from_components_estimated_at_zero():
    """Only within-item noise estimated (the between parts truncated at 0): the model
    would promise 100 % narrowing with infinitely many repeats; the sentence says the data
    cannot tell instead. No within-item noise: repeats cannot help."""
    from dataclasses import replace

    vc = nested_components(*_small())
    only_noise = replace(vc, between_documents=0.0, between_items=0.0)
    s = only_noise.summary()
    assert "cannot be told from these data" in s and "infinitely many" not in s
    no_noise = replace(vc, within_items=0.0)
    assert "more repeats would not help" in no_noise.summary()
