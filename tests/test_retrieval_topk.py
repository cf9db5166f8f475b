"""Exact top-k with the ranking rule (score desc, index asc) against brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ragstat.errors import InputError
from ragstat.retrieval.topk import check_exclude, topk_dense, topk_product


def brute_topk(scores, k, exclude=None, positive_only=False):
    """sorted(candidates, key=(−score, index))[:k], padded with (−1, NaN)."""
    q, n = scores.shape
    idx = np.full((q, k), -1, dtype=np.int64)
    val = np.full((q, k), np.nan)
    for i in range(q):
        cands = [
            (float(scores[i, j]), j)
            for j in range(n)
            if not math.isnan(scores[i, j])
            and scores[i, j] != -np.inf
            and (exclude is None or j != exclude[i])
            and (not positive_only or scores[i, j] > 0)
        ]
        best = sorted(cands, key=lambda c: (-c[0], c[1]))[:k]
        for pos, (s, j) in enumerate(best):
            idx[i, pos] = j
            val[i, pos] = s
    return idx, val


def assert_same(got, want):
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])  # NaN == NaN for assert_array_equal


@pytest.mark.parametrize("seed", range(40))
def test_random_integer_scores_with_many_ties(seed):
    rng = np.random.default_rng(seed)
    q, n = rng.integers(1, 12), rng.integers(1, 300)
    scores = rng.integers(-2, 4, size=(q, n)).astype(float)
    k = int(rng.integers(1, n + 5))
    exclude = rng.integers(-1, n, size=q)
    for positive_only in (False, True):
        got = topk_dense(scores, k, exclude, positive_only)
        assert_same(got, brute_topk(scores, k, exclude, positive_only))


@pytest.mark.parametrize("seed", range(10))
def test_boundary_ties_keep_lowest_indices(seed):
    rng = np.random.default_rng(100 + seed)
    n = 2000  # wide rows: the grouped threshold pass is active
    scores = np.zeros((5, n))
    scores[:, rng.choice(n, 300, replace=False)] = 1.0
    scores[:, rng.choice(n, 4, replace=False)] = 2.0
    got = topk_dense(scores, 10, positive_only=True)
    assert_same(got, brute_topk(scores, 10, positive_only=True))


@settings(max_examples=150, deadline=None)
@given(
    scores=arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(1, 80)),
        elements=st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, np.nan, -np.inf]),
    ),
    k=st.integers(1, 90),
    positive_only=st.booleans(),
    data=st.data(),
)
def test_property_matches_brute_force(scores, k, positive_only, data):
    q, n = scores.shape
    exclude = np.array(data.draw(st.lists(st.integers(-1, n - 1), min_size=q, max_size=q)))
    before = scores.copy()
    got = topk_dense(scores, k, exclude, positive_only)
    assert_same(got, brute_topk(scores, k, exclude, positive_only))
    np.testing.assert_array_equal(scores, before)  # input untouched


def test_padding_and_dtypes():
    scores = np.array([[0.0, 3.0, 0.0, 1.0]])
    idx, val = topk_dense(scores, 6, positive_only=True)
    assert idx.dtype == np.int64 and val.dtype == np.float64
    np.testing.assert_array_equal(idx, [[1, 3, -1, -1, -1, -1]])
    assert np.isnan(val[0, 2:]).all()
    idx, _ = topk_dense(scores, 6)  # all scores are candidates
    np.testing.assert_array_equal(idx, [[1, 3, 0, 2, -1, -1]])


def test_exclusion_of_minus_one_is_none():
    scores = np.array([[5.0, 4.0], [5.0, 4.0]])
    idx, _ = topk_dense(scores, 2, np.array([-1, 0]))
    np.testing.assert_array_equal(idx, [[0, 1], [1, -1]])


def test_empty_blocks():
    idx, val = topk_dense(np.zeros((0, 5)), 3)
    assert idx.shape == (0, 3) and val.shape == (0, 3)
    idx, _ = topk_dense(np.zeros((2, 0)), 3)
    np.testing.assert_array_equal(idx, -np.ones((2, 3)))


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "3"])
def test_bad_k(k):
    with pytest.raises(InputError, match="k must be"):
        topk_dense(np.ones((1, 3)), k)


def test_bad_exclude():
    with pytest.raises(InputError, match="one chunk index per query"):
        check_exclude(np.array([0, 1]), 3, 5)
    with pytest.raises(InputError, match="chunk indices in"):
        check_exclude(np.array([5]), 1, 5)
    with pytest.raises(InputError, match="integer"):
        check_exclude(np.array([0.5]), 1, 5)
    np.testing.assert_array_equal(check_exclude(None, 2, 5), [-1, -1])


@pytest.mark.parametrize("block_elements", [1, 7, 64, None])
def test_blocked_product_equals_dense(block_elements):
    rng = np.random.default_rng(7)
    left = sp.random(23, 15, density=0.3, random_state=1, format="csr")
    left.data = np.round(left.data * 3)
    right = sp.random(15, 40, density=0.3, random_state=2, format="csr")
    right.data = np.round(right.data * 3)
    exclude = rng.integers(-1, 40, 23)
    full = (left @ right).toarray()
    got = topk_product(left, right, 6, exclude, True, block_elements)
    assert_same(got, brute_topk(full, 6, exclude, positive_only=True))
    dense_got = topk_product(left.toarray(), right.toarray(), 6, exclude, False, block_elements)
    assert_same(dense_got, brute_topk(full, 6, exclude))
