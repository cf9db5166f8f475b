"""`simulation.batch`: vectorised intervals for R samples against `ragstat.analyze` per sample."""

import time

import numpy as np
import pytest

from ragstat import InputError, analyze
from ragstat.inference import APPLICABLE, METHODS
from ragstat.records import DocStats
from ragstat.simulation import batch_boot
from ragstat.simulation.batch import batch_intervals
from ragstat.simulation.batch_boot import _features as boot_features
from ragstat.simulation.batch_boot import count_matrix, replicate_statistics, sorted_quantile

ANALYTIC = ("cr1", "cr2_bm", "cr2_ik", "t_rates", "wald_iid", "wald_effective_n", "logit")
BOOT = ("doc_bootstrap_t", "doc_bootstrap_percentile")
KINDS = ("random", "equal", "dominant", "zero", "random", "ones", "dominant", "single", "const")


@pytest.fixture(autouse=True)
def _one_count_matrix_per_sample(monkeypatch):
    """These tests repeat one sample many times to look at its bootstrap distribution, so
    every sample draws its own count matrix (in simulations SHARE samples share one)."""
    from ragstat.simulation import batch_boot

    monkeypatch.setattr(batch_boot, "SHARE", 1)


def _doc_scores(rng, n_d: int, p: float, binary: bool) -> np.ndarray:
    if binary:
        return (rng.random(n_d) < p).astype(float)
    return np.clip(rng.beta(2.0, 2.0, n_d) * 2 * p, 0.0, 1.0)


def _sample(rng, K: int, binary: bool, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, s, w) of one sample of K documents with unequal sizes."""
    n = rng.integers(1, 40, K) if kind != "single" else np.ones(K, dtype=int)
    if kind == "dominant":
        n[rng.integers(K)] = 3000
    if kind == "equal":  # every rate exactly 1/2 (even sizes, half 0.25/0.75 or 0/1)
        n = 2 * rng.integers(1, 20, K)
        lo, hi = (0.0, 1.0) if binary else (0.25, 0.75)
        ys = [np.repeat([lo, hi], k // 2) for k in n]
    elif kind in ("zero", "ones", "const"):  # const: rates equal up to rounding of Σ 0.3
        ys = [
            np.full(k, {"zero": 0.0, "ones": 1.0, "const": 0.3 if not binary else 1.0}[kind])
            for k in n
        ]
    else:
        ys = [_doc_scores(rng, k, rng.beta(0.8, 2.5), binary) for k in n]
    s = np.array([y.sum() for y in ys])
    w = np.array([np.sum((y - y.mean()) ** 2) for y in ys])
    return n.astype(float), s, w


def _batch_arrays(seed: int, K: int, binary: bool, R: int = 20):
    rng = np.random.default_rng(seed)
    rows = [_sample(rng, K, binary, KINDS[i % len(KINDS)]) for i in range(R)]
    return tuple(np.array([r[j] for r in rows]) for j in range(3))


def _docstats(n, s, w, binary: bool) -> DocStats:
    ids = [f"d{i:03d}" for i in range(len(n))]
    q = s if binary else w + s * s / n
    return DocStats(
        doc_id=ids, n=n, s=s, q=q, w=w, binary=binary, score_range=None if binary else (0.0, 1.0)
    )


def _close(a: float | None, b: float) -> bool:
    if a is None:
        return bool(np.isnan(b))
    return a == pytest.approx(b, rel=1e-9, abs=1e-13)


@pytest.mark.parametrize("K", [2, 5, 20, 60])
@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("M", [None, 200])
def test_analytic_methods_equal_analyze(K, binary, M):
    n, s, w = _batch_arrays(K * 7 + binary, K, binary)
    fpc, level = (1.0, 0.95) if M is None else (1 - K / M, 0.9)
    out = batch_intervals(
        n, s, w, binary=binary, fpc=fpc, level=level, methods=ANALYTIC, scores_in_unit=True
    )
    assert [(b.estimand, b.method) for b in out] == [
        (e, m) for e in ("micro", "macro") for m in APPLICABLE[e] if m in ANALYTIC
    ]
    seen_unavailable = 0
    for i in range(n.shape[0]):
        st = _docstats(n[i], s[i], w[i], binary)
        rep = analyze(st, methods=ANALYTIC, population=M, level=level, seed=1)
        for b in out:
            iv = rep.estimands[b.estimand].get(b.method)
            assert bool(b.available[i]) == iv.available, (i, b.estimand, b.method, iv.reason)
            assert iv.estimate == pytest.approx(b.estimate[i], rel=1e-12, abs=1e-15)
            assert _close(iv.lower, b.lower[i]), (i, b.estimand, b.method)
            assert _close(iv.upper, b.upper[i]), (i, b.estimand, b.method)
            seen_unavailable += not iv.available
    assert seen_unavailable > 0  # the degenerate rows exercise the availability rules
    assert sum(out.unavailable.values()) == seen_unavailable


def test_census_gives_point_intervals_for_clustered_methods():
    n, s, w = _batch_arrays(3, 5, True)
    out = batch_intervals(n, s, w, binary=True, fpc=0.0, bootstrap_reps=50)
    for i in range(n.shape[0]):
        rep = analyze(_docstats(n[i], s[i], w[i], True), population=5, seed=0, bootstrap_reps=50)
        for b in out:
            iv = rep.estimands[b.estimand].get(b.method)
            if b.method == "query_bootstrap":
                assert bool(b.available[i]) == iv.available
                continue
            assert bool(b.available[i]) == iv.available, (i, b.estimand, b.method)
            assert _close(iv.lower, b.lower[i]) and _close(iv.upper, b.upper[i])


def test_query_bootstrap_and_logit_without_binary_scores_are_unavailable():
    n, s, w = _batch_arrays(4, 5, False)
    out = batch_intervals(n, s, w, binary=False, methods=["query_bootstrap", "logit"])
    for b in out:
        assert not b.available.any() and b.unavailable == n.shape[0]
        assert "per-query" in b.reason or "bounded range" in b.reason


def test_sorted_quantile_is_numpy_linear_quantile():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 37))
    m = rng.integers(1, 38, 50)
    xs = np.sort(np.where(np.arange(37) < m[:, None], x, np.nan), axis=1)
    for p in (0.0, 0.025, 0.5, 0.975, 1.0):
        want = [np.quantile(xs[i, : m[i]], p) for i in range(50)]
        np.testing.assert_array_equal(sorted_quantile(xs, m, p), want)


def test_large_k_degeneracy_check_equals_the_rank_sums(monkeypatch):
    n = np.array([[5.0, 8, 3, 10, 6], [2, 2, 4, 4, 9]])
    s = np.array([[0.0, 0, 1, 4, 0], [1, 1, 2, 2, 0]])
    micro, macro = s.sum(1) / n.sum(1), (s / n).mean(1)
    F = boot_features(n, s, micro, macro, 1e-12 * np.abs(s / n).max(1))
    C = count_matrix(np.random.default_rng(3), 2, 500, 5)
    exact = replicate_statistics(C, F, micro, macro)
    monkeypatch.setattr(batch_boot, "_EXACT_RANK_K", 4)
    direct = replicate_statistics(C, F, micro, macro)
    for est in ("micro", "macro"):
        np.testing.assert_array_equal(exact[est][1] == 0, direct[est][1] == 0)
        assert 0 < np.mean(exact[est][1] == 0) < 0.5


def test_replicate_statistics_equal_resampling_the_documents():
    n, s, _ = _batch_arrays(5, 20, True, R=6)
    K = n.shape[1]
    micro, macro = s.sum(1) / n.sum(1), (s / n).mean(1)
    tol = 1e-12 * np.abs(s / n).max(1)
    C = count_matrix(np.random.default_rng(1), 6, 300, K)
    assert np.all(C.sum(axis=2) == K)
    stats = replicate_statistics(C, boot_features(n, s, micro, macro, tol), micro, macro)
    for i in range(6):
        for b in range(0, 300, 7):
            idx = np.repeat(np.arange(K), C[i, b].astype(int))
            nb, sb = n[i, idx], s[i, idx]
            R = sb.sum() / nb.sum()
            se_micro = np.sqrt(K / (K - 1) * np.sum((sb - R * nb) ** 2)) / nb.sum()
            rb = sb / nb
            se_macro = rb.std(ddof=1) / np.sqrt(K)
            for est, theta, se in (("micro", R, se_micro), ("macro", rb.mean(), se_macro)):
                assert stats[est][0][i, b] == pytest.approx(theta, rel=1e-12, abs=1e-15)
                if se <= tol[i]:
                    assert stats[est][1][i, b] == 0.0
                else:
                    assert stats[est][1][i, b] == pytest.approx(se, rel=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("binary", "K", "kind", "M", "level"),
    [
        (True, 12, "random", None, 0.95),
        (False, 6, "dominant", 12, 0.9),
        (True, 3, "random", None, 0.95),
    ],
)
def test_bootstrap_bounds_match_analyze_in_distribution(binary, K, kind, M, level):
    """One sample repeated R = 400 times: batch bounds vs analyze with 400 seeds."""
    R, B = 400, 999
    n, s, w = _sample(np.random.default_rng(11), K, binary, kind)
    methods = [*BOOT, "query_bootstrap"] if binary else list(BOOT)
    out = batch_intervals(
        *(np.tile(a, (R, 1)) for a in (n, s, w)),
        binary=binary,
        level=level,
        fpc=1.0 if M is None else 1 - K / M,
        methods=methods,
        bootstrap_reps=B,
        rng=np.random.default_rng(2),
        scores_in_unit=True,
    )
    st = _docstats(n, s, w, binary)
    kw = {"methods": methods, "bootstrap_reps": B, "population": M, "level": level}
    reps = [analyze(st, seed=1000 + j, **kw) for j in range(R)]
    for b in out:
        ivs = [r.estimands[b.estimand].get(b.method) for r in reps]
        np.testing.assert_array_equal(b.available, [iv.available for iv in ivs])
        if not b.available.any():
            continue
        for side in ("lower", "upper"):
            ref = np.array([getattr(iv, side) for iv in ivs])
            got = getattr(b, side)
            if ref.std() < 1e-12 and got.std() < 1e-12:  # K = 3: a quantile can be fixed
                assert got.mean() == pytest.approx(ref.mean(), rel=1e-12)
                continue
            z = (got.mean() - ref.mean()) / np.sqrt(got.var() / R + ref.var() / R)
            assert abs(z) < 4, (b.estimand, b.method, side, got.mean(), ref.mean())
            if K >= 6:  # with K = 3 the bounds sit on a few atoms: SDs are too noisy
                assert 0.75 < got.std() / ref.std() < 1.33, (b.estimand, b.method, side)
        if b.method == "doc_bootstrap_t":
            ref_disc = np.array([iv.discarded for iv in ivs])
            z = (b.discarded.mean() - ref_disc.mean()) / np.sqrt(2 * ref_disc.var() / R + 1e-12)
            assert abs(z) < 4


def test_degenerate_bootstraps_are_unavailable():
    n = np.array([[10.0, 20, 5], [4, 6, 8], [3, 9, 1]])
    s = np.array([[0.0, 0, 0], [2, 3, 4], [1, 2, 0]])  # all 0; all rates 1/2; unequal
    w = s - s * s / n
    out = batch_intervals(n, s, w, binary=True, methods=BOOT, bootstrap_reps=200)
    for b in out:
        np.testing.assert_array_equal(b.available, [False, False, True])
        assert np.isnan(b.lower[:2]).all() and np.isnan(b.upper[:2]).all()
    t = out.get("macro", "doc_bootstrap_t")
    assert (t.discarded[:2] == 200).all() and 0 < t.discarded[2] < 200


def test_two_documents_bootstrap_t_unavailable_percentile_available():
    n = np.array([[10.0, 30]] * 200)
    s = np.array([[2.0, 21]] * 200)
    out = batch_intervals(n, s, s - s * s / n, binary=True, methods=BOOT, bootstrap_reps=99)
    for est in ("micro", "macro"):
        assert not out.get(est, "doc_bootstrap_t").available.any()
        assert out.get(est, "doc_bootstrap_percentile").available.all()
    # half the replicates pick one document twice (zero SE) and are discarded
    assert out.get("macro", "doc_bootstrap_t").discarded.mean() / 99 == pytest.approx(0.5, abs=0.02)


def test_small_blocks_and_large_k_fallback_agree_in_distribution(monkeypatch):
    """Replicate chunks (B·K > block) and the direct rank comparison (large K) paths."""
    R = 300
    n, s = np.array([5.0, 8, 3, 10, 6]), np.array([0.0, 0, 1, 4, 0])  # 3 of 5 at rate 0
    arrays = [np.tile(a, (R, 1)) for a in (n, s, s - s * s / n)]
    kw = {"binary": True, "methods": BOOT, "bootstrap_reps": 199}
    ref = batch_intervals(*arrays, rng=np.random.default_rng(1), **kw)
    monkeypatch.setattr(batch_boot, "BLOCK_ELEMENTS", 100)
    monkeypatch.setattr(batch_boot, "_EXACT_RANK_K", 4)
    got = batch_intervals(*arrays, rng=np.random.default_rng(2), **kw)
    for a, b in zip(ref, got, strict=True):
        assert a.available.all() and b.available.all()
        for side in ("lower", "upper", "discarded"):
            x, y = getattr(a, side), getattr(b, side)
            if x.var() + y.var() == 0:  # e.g. the lower percentile sits on the atom at 0
                assert x.mean() == y.mean()
                continue
            z = (x.mean() - y.mean()) / np.sqrt((x.var() + y.var()) / R)
            assert abs(z) < 4, (a.estimand, a.method, side)


def test_fpc_shrinks_bootstrap_deviations():
    n, s, w = _batch_arrays(9, 20, True, R=8)
    kw = {"binary": True, "methods": BOOT, "bootstrap_reps": 199}
    full = batch_intervals(n, s, w, rng=np.random.default_rng(3), **kw)
    half = batch_intervals(n, s, w, fpc=0.25, rng=np.random.default_rng(3), **kw)
    for a, b in zip(full, half, strict=True):
        ok = a.available
        np.testing.assert_allclose(b.upper[ok] - b.estimate[ok], 0.5 * (a.upper - a.estimate)[ok])


def test_same_generator_state_same_results():
    n, s, w = _batch_arrays(6, 5, True)
    a = batch_intervals(n, s, w, binary=True, bootstrap_reps=99, rng=np.random.default_rng(4))
    b = batch_intervals(n, s, w, binary=True, bootstrap_reps=99, rng=np.random.default_rng(4))
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x.lower, y.lower)
        np.testing.assert_array_equal(x.upper, y.upper)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"methods": ["nope"]},
        {"estimands": ["median"]},
        {"level": 1.5},
        {"fpc": -0.1},
        {"bootstrap_reps": 0},
    ],
)
def test_bad_arguments_raise_input_error(kwargs):
    n, s, w = _batch_arrays(1, 5, True, R=2)
    with pytest.raises(InputError):
        batch_intervals(n, s, w, binary=True, **kwargs)


def test_bad_arrays_raise_input_error():
    n, s, w = _batch_arrays(1, 5, True, R=2)
    with pytest.raises(InputError):
        batch_intervals(n[:, :1], s[:, :1], w[:, :1], binary=True)
    with pytest.raises(InputError):
        batch_intervals(n, s[:, :3], w, binary=True)
    bad = n.copy()
    bad[0, 0] = 0
    with pytest.raises(InputError):
        batch_intervals(bad, s, w, binary=True)


@pytest.mark.slow
def test_speed_all_methods_5000_samples(capsys):
    """Times (printed, not asserted) for R = 5,000, K = 20, B = 999."""
    rng = np.random.default_rng(0)
    n, s, w = _batch_arrays(8, 20, True, R=250)
    n, s, w = (np.tile(a, (20, 1)) for a in (n, s, w))
    lines = []
    for group in [[m] for m in METHODS] + [list(METHODS)]:
        t0 = time.perf_counter()
        batch_intervals(n, s, w, binary=True, methods=group, bootstrap_reps=999, rng=rng)
        lines.append(
            f"{'+'.join(group) if len(group) == 1 else 'all':>26}: {time.perf_counter() - t0:6.2f} s"
        )
    with capsys.disabled():
        print("\nbatch_intervals, R = 5,000, K = 20, B = 999 (micro + macro):")
        print("\n".join(lines))


def test_shared_count_matrices_keep_each_sample_an_ordinary_bootstrap(monkeypatch):
    """With SHARE samples per count matrix, identical samples in one group get identical
    bounds, but every sample still gets a valid interval and different samples differ."""
    from ragstat.simulation import batch_boot

    monkeypatch.setattr(batch_boot, "SHARE", 25)
    rng = np.random.default_rng(4)
    n = rng.integers(2, 40, (50, 12)).astype(float)
    s = np.floor(n * rng.random((50, 12)))
    w = s - s * s / n
    res = batch_intervals(
        n,
        s,
        w,
        binary=True,
        methods=["doc_bootstrap_t"],
        bootstrap_reps=299,
        rng=np.random.default_rng(1),
    )
    bt = res.get("macro", "doc_bootstrap_t")
    assert bt.available.all()
    assert np.unique(bt.lower).size == 50
    assert np.all(bt.lower < bt.estimate) and np.all(bt.estimate < bt.upper)
