"""Coverage simulator: determinism across workers, designs, CLI, bad input, statistics."""

import json

import numpy as np
import pandas as pd
import pytest

from ragstat import DocStats, InputError
from ragstat.cli import main
from ragstat.simulation import Census, simulate_coverage


def _census(M=300, equal=False, seed=0, strata=None) -> Census:
    rng = np.random.default_rng(seed)
    n = np.full(M, 30.0) if equal else np.maximum(1, rng.lognormal(2.5, 1.0, M).round())
    p = np.clip(rng.normal(0.4, 0.12, M), 0.02, 0.98) if equal else rng.beta(0.7, 2.0, M)
    s = rng.binomial(n.astype(int), p).astype(float)
    st = DocStats(
        doc_id=[f"d{i}" for i in range(M)],
        n=n,
        s=s,
        q=s,
        binary=True,
        stratum=strata(n) if strata else None,
    )
    return Census.from_docstats(st)


def _stats(c: Census) -> DocStats:
    return DocStats(doc_id=[f"d{i}" for i in range(c.M)], n=c.n, s=c.s, q=c.s, binary=c.binary)


def test_same_seed_same_results_with_one_or_two_workers():
    c = _census()
    kw = dict(reps=240, bootstrap_reps=99, seed=7)
    first = simulate_coverage(c, [5, 20], workers=1, **kw)
    one, two = first.to_dict(), simulate_coverage(c, [5, 20], workers=2, **kw).to_dict()
    assert one == two
    again = simulate_coverage(Census.from_docstats(_stats(c)), [5, 20], workers=1, **kw)
    assert again == first and again.population is not first.population  # the census: no part
    other = simulate_coverage(c, [5, 20], workers=1, **{**kw, "seed": 8}).to_dict()
    assert other != one


def test_report_shape_and_recommendation():
    rep = simulate_coverage(_census(), [10], reps=150, bootstrap_reps=99, seed=1).to_dict()
    assert {"census", "design", "seed", "results", "recommendation"} <= set(rep)
    assert rep["census"]["K"] == 300
    row = rep["results"][0]
    assert {
        "k",
        "estimand",
        "method",
        "coverage",
        "coverage_se",
        "mean_width",
        "bias",
        "rmse",
        "unavailable",
    } <= set(row)
    assert "k=10 micro" in rep["recommendation"]["by_k_estimand"]
    assert "not guaranteed" in rep["recommendation"]["caveat"]


def test_stratified_and_two_stage_designs_run():
    c = _census(strata=lambda n: np.where(n > 20, "big", "small"))
    strat = simulate_coverage(c, [12], reps=100, design="stratified", seed=2)
    assert {r.method for r in strat.results} == {"stratified_ratio", "stratified_mean"}
    typed = _census(M=120, strata=lambda n: np.array([f"t{i % 6}" for i in range(n.size)]))
    two = simulate_coverage(typed, [4], reps=100, design="two-stage", types=3, seed=2)
    (row,) = two.results
    assert row.method == "two_stage_t" and row.estimand == "type_mean"
    assert two.census.type_mean is not None and 0.0 <= row.coverage <= 1.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"ks": [400]}, "exceeds the census"),
        ({"ks": [1]}, "≥ 2"),
        ({"ks": [5], "methods": ["nope"]}, "unknown method"),
        ({"ks": [5], "design": "stratified"}, "needs a stratum"),
        ({"ks": [5], "reps": 0}, "positive"),
    ],
)
def test_bad_input(kwargs, match):
    ks = kwargs.pop("ks")
    with pytest.raises(InputError, match=match):
        simulate_coverage(_census(), ks, **kwargs)


def test_stratum_too_small_for_the_allocation():
    c = _census(M=40, strata=lambda n: np.array(["a"] * 30 + ["b"] * 5 + ["c"] * 5))
    with pytest.raises(InputError, match="cannot allocate K = 4"):
        simulate_coverage(c, [4], reps=50, design="stratified")
    typed = _census(M=40, strata=lambda n: np.array([f"t{i % 4}" for i in range(n.size)]))
    with pytest.raises(InputError, match="--types"):
        simulate_coverage(typed, [3], reps=50, design="two-stage", types=9)


def test_cli_simulate_json(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = rng.integers(1, 30, 80)
    doc = np.repeat([f"d{i}" for i in range(80)], n)
    y = (rng.random(n.sum()) < np.repeat(rng.beta(1, 3, 80), n)).astype(int)
    path = tmp_path / "census.parquet"
    pd.DataFrame({"doc_id": doc, "hit": y}).to_parquet(path)
    code = main(
        [
            "simulate",
            str(path),
            "--k",
            "5,10",
            "--reps",
            "100",
            "--bootstrap-reps",
            "99",
            "--seed",
            "3",
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["census"]["K"] == 80 and out["seed"] == 3
    assert {r["k"] for r in out["results"]} == {5, 10}
    assert main(["simulate", str(path), "--k", "500"]) == 2
    assert "exceeds" in capsys.readouterr().err


@pytest.mark.slow
def test_t_rates_covers_nominal_on_equal_sizes_and_normal_rates():
    rep = simulate_coverage(
        _census(M=2000, equal=True),
        [20],
        reps=2000,
        methods=["t_rates", "wald_iid"],
        estimands=["macro"],
        seed=11,
    )
    t = next(r for r in rep.results if r.method == "t_rates")
    assert abs(t.coverage - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / t.reps), t


@pytest.mark.slow
def test_planalto_bm25_census_naive_far_below_document_methods(shared, tmp_path):
    from ragstat.corpus.loaders import load_jsonl
    from ragstat.records import aggregate_frame
    from ragstat.selfretrieval import StudyConfig, run_study

    study = run_study(
        load_jsonl(shared / "data" / "planalto-leis.jsonl"), StudyConfig(retrievers=("bm25",))
    )
    census = Census.from_docstats(aggregate_frame(study.records, score="hit1"))
    rep = simulate_coverage(census, [20], reps=1000, bootstrap_reps=199, seed=5)
    cov = {(r.estimand, r.method): r.coverage for r in rep.results}
    assert cov[("micro", "wald_iid")] < 0.75
    for key in [("micro", "cr2_bm"), ("micro", "doc_bootstrap_t"), ("macro", "t_rates")]:
        assert cov[key] > cov[("micro", "wald_iid")] + 0.15, (key, cov)


def test_chunk_size_sensitivity_from_study_folders(tmp_path, capsys):
    from ragstat.api.verbs.study import summarize
    from ragstat.corpus.document import Corpus, Document
    from ragstat.selfretrieval import StudyConfig, run_study, write_study

    rng = np.random.default_rng(0)
    vocab = np.array([f"w{i}" for i in range(400)])
    docs = tuple(Document(f"d{i}", " ".join(rng.choice(vocab, 300 + 40 * i))) for i in range(12))
    folders = []
    for cw in (50, 100):
        out = tmp_path / f"cw{cw}"
        done = run_study(Corpus(docs), StudyConfig(retrievers=("bm25",), chunk_words=cw))
        write_study(done, out, summarize(done, reps=99).to_dict())
        folders += ["--from-study", str(out)]
    code = main(
        ["simulate", *folders, "--k", "4", "--reps", "100", "--bootstrap-reps", "99", "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["chunk_words"] for s in out["studies"]] == [50, 100]
    assert all(s["eligible_documents"] == 12 for s in out["studies"])
    first = out["studies"][0]["expected_chunks_per_sample"]["4"]
    assert first > out["studies"][1]["expected_chunks_per_sample"]["4"]


def test_review_regressions_for_the_simulator():
    rng = np.random.default_rng(5)
    M = 60
    n = rng.integers(1, 30, M).astype(float)
    s = n * rng.random(M)  # continuous scores in [0, 1]
    st = DocStats(
        doc_id=np.arange(M).astype(str), n=n, s=s, q=s * s / n + 0.01 * n, score_range=(0.0, 1.0)
    )
    c = Census.from_docstats(st)
    rep = simulate_coverage(c, [10], reps=100, methods=["logit"], seed=1)
    assert all(r.unavailable < 1 for r in rep.results)  # logit on scores in [0, 1]
    census = simulate_coverage(
        _census(M=60),
        [60],
        reps=50,
        fpc=True,
        bootstrap_reps=99,
        methods=["t_rates", "cr2_bm"],
        seed=1,
    )
    assert all(r.coverage == 1.0 for r in census.results)  # K = M: the exact value, covered
    with pytest.raises(InputError, match="level"):
        simulate_coverage(_census(), [5], level=1.5)
    with pytest.raises(InputError, match="seed"):
        simulate_coverage(_census(), [5], seed=-1)
    with pytest.raises(InputError, match="applies"):
        simulate_coverage(_census(), [5], methods=["t_rates"], estimands=["micro"])
    big = simulate_coverage(_census(M=5000), [5], reps=100, methods=["t_rates"], seed=2)
    assert big.results[0].reps == 100


def test_a_per_document_census_may_give_w_instead_of_q(tmp_path):
    """w = Σ (y − r_d)² per document (the error message offered it): Σ y² = w + s²/n."""
    from ragstat.simulation.census import load_census

    n = np.array([3.0, 4.0, 5.0, 2.0, 6.0])
    s = np.array([0.9, 1.7, 2.4, 0.3, 4.1])
    q = np.array([0.5, 1.0, 1.5, 0.05, 3.2])
    with_q, with_w = tmp_path / "q.csv", tmp_path / "w.csv"
    doc = [f"d{i}" for i in range(5)]
    pd.DataFrame({"doc_id": doc, "n": n, "s": s, "q": q}).to_csv(with_q, index=False)
    pd.DataFrame({"doc_id": doc, "n": n, "s": s, "w": q - s**2 / n}).to_csv(with_w, index=False)
    a, b = load_census(with_q, score=""), load_census(with_w, score="")
    np.testing.assert_allclose(a.w, b.w, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.s, b.s)
