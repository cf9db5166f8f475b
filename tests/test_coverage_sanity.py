"""Statistical sanity: on a census where the clustered model holds, the recommended
intervals cover near nominal while the naive one does not (Monte-Carlo, marked slow)."""

import numpy as np
import pytest

from ragstat import DocStats, analyze


@pytest.mark.slow
def test_clustered_intervals_cover_and_naive_does_not():
    rng = np.random.default_rng(2024)
    M, K, reps = 2000, 40, 500
    n = np.maximum(1, rng.lognormal(2.0, 0.6, M).round())
    p = rng.beta(1.0, 3.0, M)
    s = rng.binomial(n.astype(int), p).astype(float)
    ids = np.array([f"d{i}" for i in range(M)])
    micro_true, macro_true = s.sum() / n.sum(), np.mean(s / n)
    methods = ["cr2_bm", "cr2_ik", "t_rates", "wald_iid"]
    hits = {("micro", m): 0 for m in ("cr2_bm", "cr2_ik", "wald_iid")}
    hits |= {("macro", m): 0 for m in ("t_rates", "wald_iid")}
    for _ in range(reps):
        idx = rng.choice(M, K, replace=False)
        st = DocStats(doc_id=ids[idx], n=n[idx], s=s[idx], q=s[idx], binary=True)
        rep = analyze(st, methods=methods, population=M, seed=0)
        for est, m in hits:
            truth = micro_true if est == "micro" else macro_true
            hits[(est, m)] += bool(rep.estimands[est].get(m).covers(truth))
    cov = {k: v / reps for k, v in hits.items()}
    mc = 3 * np.sqrt(0.95 * 0.05 / reps)  # three Monte-Carlo standard errors
    assert abs(cov[("macro", "t_rates")] - 0.95) < mc + 0.01, cov
    assert cov[("micro", "cr2_bm")] > 0.95 - mc - 0.03, cov
    assert cov[("micro", "cr2_ik")] > 0.95 - mc - 0.03, cov
    assert cov[("micro", "wald_iid")] < 0.85, cov
    assert cov[("macro", "wald_iid")] < 0.85, cov
