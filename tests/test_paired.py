"""Paired comparisons: alignment contracts, symmetry, ties and the exact sign-flip test."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from conftest import unequal_design
from ragstat import DocStats, InputError
from ragstat.cli import main
from ragstat.inference.paired import compare, sign_flip_p
from ragstat.records import pair_files


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("paired")
    doc, y, pos = unequal_design(np.random.default_rng(11), 12)
    rng = np.random.default_rng(12)
    other = np.where(rng.random(y.size) < 0.7, y, 1 - y)
    qid = [f"q{i}" for i in range(y.size)]
    a = pd.DataFrame({"query_id": qid, "doc_id": doc, "hit": y, "position": pos})
    b = a.assign(hit=other).sample(frac=1, random_state=3)  # other row order
    paths = {"a": root / "a.parquet", "b": root / "b.csv", "both": root / "both.parquet"}
    a.to_parquet(paths["a"])
    b.to_csv(paths["b"], index=False)
    pd.concat([a.assign(system="x"), b.assign(system="y")]).to_parquet(paths["both"])
    return paths, a, b


def test_differences_per_document(tables):
    paths, a, b = tables
    t = pair_files(paths["a"], paths["b"], score="hit")
    merged = a.merge(b, on="query_id", suffixes=("_a", "_b"))
    want = (merged.hit_a - merged.hit_b).groupby(merged.doc_id_a).agg(["size", "sum"])
    np.testing.assert_array_equal(t.stats.n, want["size"].to_numpy())
    np.testing.assert_allclose(t.stats.s, want["sum"].to_numpy())
    assert t.pairing.matched == len(a) and t.pairing.only_a == t.pairing.only_b == 0
    one = pair_files(paths["both"], systems=("x", "y"), score="hit")
    np.testing.assert_allclose(one.stats.s, t.stats.s)
    assert one.pairing.systems == ("x", "y")


def test_identical_systems_give_zero_and_all_ties(tables):
    paths, *_ = tables
    t = pair_files(paths["a"], paths["a"], score="hit")
    res = compare(t.stats, pairing=t.pairing, seed=1, bootstrap_reps=200)
    assert res.paired.ties_share == 1.0 and res.paired.identical_share == 1.0
    assert res.paired.permutation_p == {"micro": 1.0, "macro": 1.0}
    for est in res.report.estimands.values():
        assert est.estimate == 0.0
        assert all(not iv.available for iv in est.intervals)  # zero SE: said, not a point


def test_swapping_systems_flips_every_bound(tables):
    paths, *_ = tables
    ab = pair_files(paths["a"], paths["b"], score="hit", with_rows=True)
    ba = pair_files(paths["b"], paths["a"], score="hit", with_rows=True)
    r1 = compare(ab.stats, seed=4, bootstrap_reps=500, query_scores=ab.query_scores)
    r2 = compare(ba.stats, seed=4, bootstrap_reps=500, query_scores=ba.query_scores)
    for est in ("micro", "macro"):
        for i1, i2 in zip(
            r1.report.estimands[est].intervals, r2.report.estimands[est].intervals, strict=True
        ):
            assert i1.method == i2.method
            assert i1.available, i1.method
            assert i2.lower == pytest.approx(-i1.upper, abs=1e-12), i1.method
            assert i2.upper == pytest.approx(-i1.lower, abs=1e-12), i1.method
    assert r1.paired.permutation_p == r2.paired.permutation_p


def test_permutation_p_is_exact_by_enumeration():
    rng = np.random.default_rng(5)
    for K in (3, 7, 12):
        x = rng.integers(-3, 4, K).astype(float) / 7
        t = abs(x.sum())
        flips = [abs(np.dot(s, x)) >= t - 1e-12 for s in itertools.product((-1, 1), repeat=K)]
        nz = np.count_nonzero(x)
        p, how = sign_flip_p(x, 999, rng)
        assert how == "exact"
        assert p == pytest.approx(np.mean(flips)), K
        assert p * 2**nz == pytest.approx(round(p * 2**nz))


def test_monte_carlo_p_has_the_plus_one_correction():
    x = np.r_[np.full(30, 1.0), np.full(5, -1.0)]
    p, how = sign_flip_p(x, 999, np.random.default_rng(1), exact_max=10)
    assert how == "monte_carlo"
    assert p >= 1 / 1000 and (p * 1000) == pytest.approx(round(p * 1000))


def test_mismatched_queries_error_or_drop(tables, tmp_path):
    paths, a, _ = tables
    short = tmp_path / "short.csv"
    a.iloc[:-4].to_csv(short, index=False)
    with pytest.raises(InputError, match=r"4 query id\(s\).*first: 'q"):
        pair_files(paths["a"], short, score="hit")
    t = pair_files(paths["a"], short, score="hit", on_missing="drop")
    assert (t.pairing.matched, t.pairing.only_a, t.pairing.only_b) == (len(a) - 4, 4, 0)


def test_query_from_different_documents_is_an_error(tables, tmp_path):
    paths, a, _ = tables
    moved = tmp_path / "moved.csv"
    a.assign(doc_id=np.roll(a.doc_id.to_numpy(), 1)).to_csv(moved, index=False)
    with pytest.raises(InputError, match="different documents"):
        pair_files(paths["a"], moved, score="hit")


def test_cli_compare_json_and_errors(tables, tmp_path, capsys):
    paths, a, _ = tables
    code = main(
        [
            "compare",
            str(paths["both"]),
            "--systems",
            "x,y",
            "--json",
            "--seed",
            "2",
            "--bootstrap-reps",
            "300",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert {"K", "N", "estimands", "diagnostics", "paired"} <= set(out)
    assert {"ties_share", "permutation_p", "pairing"} <= set(out["paired"])
    assert out["paired"]["pairing"]["systems"] == ["x", "y"]
    short = tmp_path / "short.csv"
    a.iloc[:-1].to_csv(short, index=False)
    assert main(["compare", str(paths["a"]), str(short)]) == 2
    assert "no match" in capsys.readouterr().err
    assert main(["compare", str(paths["both"])]) == 2
    assert "--systems" in capsys.readouterr().err


def test_compare_needs_a_diff_docstats():
    st = DocStats(doc_id=["a", "b", "c"], n=[2, 3, 4], s=[1, -1, 2], q=[1, 1, 2])
    res = compare(st, seed=0, bootstrap_reps=100)
    assert res.report.estimands["micro"].estimate == pytest.approx(2 / 9)
    assert "logit" not in [iv.method for iv in res.report.estimands["micro"].intervals]
