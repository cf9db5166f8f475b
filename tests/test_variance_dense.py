"""The O(K) document-space forms of CR1, CR2 and their dfs equal the dense N×N definitions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dense_reference import (
    dense_design,
    dense_df_bell_mccaffrey,
    dense_df_imbens_kolesar,
    dense_g_matrix,
    dense_moulton,
    dense_se_cr1,
    dense_se_cr2,
)
from ragstat.inference.variance import (
    df_bell_mccaffrey,
    df_imbens_kolesar,
    moulton_parameters,
    se_cr1,
    se_cr2,
)
from ragstat.records import aggregate_frame

REL = 1e-9
SCORES = ("binary", "uniform", "reciprocal_rank", "paired_difference")


def _sizes(rng: np.random.Generator, kind: str, N_max: int = 400) -> np.ndarray:
    K = int(rng.integers(2, 41))
    if kind == "lognormal":
        n = np.maximum(1, np.round(rng.lognormal(1.5, 1.0, size=K))).astype(int)
    elif kind == "uniform":
        n = rng.integers(1, 30, size=K)
    elif kind == "dominant":  # one document holds most queries
        n = rng.integers(1, 6, size=K)
        n[rng.integers(K)] = int(rng.integers(150, 300))
    else:  # geometric: many singletons
        n = rng.geometric(0.3, size=K)
    while n.sum() > N_max:
        n = np.maximum(1, n // 2)
    return n


def _scores(rng: np.random.Generator, kind: str, n: np.ndarray) -> np.ndarray:
    K, N = n.size, int(n.sum())
    doc_effect = np.repeat(rng.normal(0.0, 1.0, size=K), n)
    if kind == "binary":
        p = 1.0 / (1.0 + np.exp(-(0.3 + doc_effect)))
        return (rng.random(N) < p).astype(float)
    if kind == "uniform":
        return np.clip(0.5 + 0.2 * doc_effect + rng.uniform(-0.3, 0.3, N), 0.0, 1.0)
    if kind == "reciprocal_rank":
        hit = rng.random(N) < 1.0 / (1.0 + np.exp(-doc_effect))
        return np.where(hit, 1.0 / rng.geometric(0.4, size=N).clip(max=10), 0.0)
    diff = rng.integers(-1, 2, size=N).astype(float)  # paired differences
    frac = rng.random(N) < 0.4
    return np.where(frac, rng.uniform(-1, 1, N) + 0.2 * doc_effect, diff)


def _design(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1000 + seed)
    kind = ("lognormal", "uniform", "dominant", "geometric")[seed % 4]
    n = _sizes(rng, kind)
    y = _scores(rng, SCORES[(seed // 4) % 4], n)
    if np.ptp(y) == 0:  # a constant score has no variance to compare
        y[0] = 1.0 - y[0]
    ids = np.array([f"d{d:03d}" for d in range(n.size)])
    doc = np.repeat(ids, n)
    order = rng.permutation(doc.size)  # queries arrive in any order
    return doc[order], y[order]


def _fixed_designs() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    out = {}
    n = np.array([380, 3, 2, 1, 4])  # one document holds most queries
    out["dominant_k5"] = (np.repeat([f"d{i}" for i in range(5)], n), rng.random(n.sum()))
    n = np.array([1, 399])  # K = 2, the extreme
    out["k2_dominant"] = (np.repeat(["a", "b"], n), (rng.random(400) < 0.3).astype(float))
    n = np.ones(40, dtype=int)  # every document a single query: HC2
    out["singletons"] = (np.repeat([f"d{i:02d}" for i in range(40)], n), rng.random(40))
    n = np.array([2, 2, 2, 2, 2, 250])
    out["dominant_binary"] = (
        np.repeat([f"d{i}" for i in range(6)], n),
        (rng.random(n.sum()) < 0.5).astype(float),
    )
    return out


FIXED = _fixed_designs()


def _check(doc: np.ndarray, y: np.ndarray) -> None:
    st = aggregate_frame(pd.DataFrame({"doc": doc, "y": y}), cluster="doc", score="y")
    N = st.N
    R = st.s.sum() / N
    u = st.s - R * st.n
    des = dense_design(doc, y)
    assert des.K == st.K
    assert des.N == N

    assert se_cr1(u, N) == pytest.approx(dense_se_cr1(des), rel=REL)
    assert se_cr2(u, st.n) == pytest.approx(dense_se_cr2(des), rel=REL)

    # the CR2 variance is the quadratic form yᵀ G Gᵀ y that the dfs describe
    G = dense_g_matrix(des)
    assert float(np.sum((G.T @ y) ** 2)) == pytest.approx(dense_se_cr2(des) ** 2, rel=REL)

    assert df_bell_mccaffrey(st.n) == pytest.approx(dense_df_bell_mccaffrey(des), rel=REL)

    sigma2, rho = moulton_parameters(st.n, st.s, st.q)
    d_sigma2, d_rho = dense_moulton(des)
    scale = float(des.e @ des.e) / N
    assert rho == pytest.approx(d_rho, rel=REL, abs=1e-12 * scale)
    assert sigma2 == pytest.approx(d_sigma2, rel=REL, abs=1e-12 * scale)
    assert df_imbens_kolesar(st.n, st.s, st.q) == pytest.approx(
        dense_df_imbens_kolesar(des), rel=REL
    )


@pytest.mark.parametrize("seed", range(32))
def test_random_designs_match_dense(seed: int):
    _check(*_design(seed))


@pytest.mark.parametrize("name", sorted(FIXED))
def test_edge_designs_match_dense(name: str):
    _check(*FIXED[name])


def test_random_designs_are_varied():
    designs = [_design(seed) for seed in range(32)]
    assert all(doc.size <= 400 for doc, _ in designs)
    shares = [pd.Series(doc).value_counts(normalize=True).iloc[0] for doc, _ in designs]
    assert max(shares) > 0.5  # at least one document holding most queries
    assert any(np.all(np.isin(y, (0.0, 1.0))) for _, y in designs)
    assert any(y.min() < 0 for _, y in designs)


@pytest.mark.parametrize(("K", "m"), [(2, 1), (2, 7), (5, 3), (10, 12), (37, 4)])
def test_equal_sizes_bell_mccaffrey_is_k_minus_one(K: int, m: int):
    n = np.full(K, float(m))
    assert df_bell_mccaffrey(n) == pytest.approx(K - 1, rel=1e-12)
    rng = np.random.default_rng(K * 100 + m)
    doc = np.repeat([f"d{d:02d}" for d in range(K)], m)
    y = rng.random(K * m)
    assert dense_df_bell_mccaffrey(dense_design(doc, y)) == pytest.approx(K - 1, rel=1e-9)
