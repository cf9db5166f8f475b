"""The built-in default interval: the packaged coverage table and the rule that reads it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from ragstat.inference import analyze
from ragstat.inference import defaults as d
from ragstat.inference.results import METHODS
from ragstat.records import aggregate_arrays

CORPORA = {"planalto-leis", "aneel-ren1000", "demo"}
KS = [5, 10, 20, 40, 80]
ALL = set(METHODS)
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "planalto-leis.jsonl"


def _cell(coverage: float, width: float, se: float = 0.004) -> dict:
    return {"coverage": coverage, "mc_se": se, "mean_width": width, "reps": 4000}


@pytest.fixture
def fake_table(monkeypatch) -> Iterator[None]:
    """One corpus, K = 5 and 20: at 20 cr1 is narrow but short, cr2_bm reaches; at 5 none."""
    by_k = {
        "5": {
            "micro": {
                "cr2_bm": _cell(0.880, 0.30),
                "korn_graubard": _cell(0.912, 0.40),
                "wald_iid": _cell(0.990, 0.05),
            }
        },
        "20": {
            "micro": {
                "cr1": _cell(0.930, 0.10),
                "cr2_bm": _cell(0.945, 0.12),
                "logit": _cell(0.960, 0.14),
                "wald_iid": _cell(0.999, 0.01),
                "wald_effective_n": _cell(0.999, 0.02),
            }
        },
    }
    table = {"settings": {"ks": [5, 20]}, "corpora": {"one": {"by_k": by_k}}}
    monkeypatch.setattr(d, "coverage_table", lambda: table)
    d.pooled_rows.cache_clear()
    yield
    d.pooled_rows.cache_clear()


def test_table_ships_with_every_corpus_k_estimand_and_method():
    path = resources.files("ragstat.inference").joinpath("data/coverage_table.json")
    assert path.is_file()
    table = d.coverage_table()
    assert table is not None and table["ragstat_version"]
    s = table["settings"]
    assert s["level"] == 0.95 and s["ks"] == KS and s["reps_per_k"] >= 1000
    assert s["bootstrap_reps"] >= 199
    assert set(table["corpora"]) == CORPORA
    for corpus in table["corpora"].values():
        assert sorted(map(int, corpus["by_k"])) == KS
        for cell in corpus["by_k"].values():
            assert set(cell) == {"micro", "macro"}
            assert {"cr2_bm", "cr1", "logit", "korn_graubard"} <= set(cell["micro"])
            assert {"t_rates", "logit", "korn_graubard"} <= set(cell["macro"])
            for row in (*cell["micro"].values(), *cell["macro"].values()):
                assert 0 <= row["coverage"] <= 1 and row["mc_se"] >= 0 and row["reps"] > 0


@pytest.mark.parametrize("estimand", ["micro", "macro"])
@pytest.mark.parametrize("K", [3, 5, 14, 20, 33, 80, 600])
def test_pick_is_narrowest_within_two_mc_se_and_never_naive(estimand, K):
    c = d.default_choice(estimand, K, 0.95, False, ALL)
    assert c.method not in d.NEVER_RECOMMENDED
    assert d.nearest_k(K, KS) == c.K
    assert set(c.corpora) == CORPORA
    rows = {r.method: r for r in d.pooled_rows(estimand, c.K) if r.method in ALL}
    ok = [r for r in rows.values() if r.coverage >= 0.95 - 2 * r.coverage_se]
    ok = [r for r in ok if r.method not in d.NEVER_RECOMMENDED]
    chosen = rows[c.method]
    if ok:
        assert c.reached and chosen in ok
        assert chosen.mean_width == min(r.mean_width for r in ok)
    else:
        assert not c.reached
        fair = [r for r in rows.values() if r.method not in d.NEVER_RECOMMENDED]
        assert chosen.coverage == max(r.coverage for r in fair)


def test_rule_on_a_known_table(fake_table):
    c = d.default_choice("micro", 22, 0.95, False, ALL)
    assert (c.method, c.K, c.coverage) == ("cr2_bm", 20, 0.945)
    assert c.note == "on similar data (1 corpora) this method covered 94.5 % at K = 20"
    assert d.default_choice("micro", 22, 0.95, False, {"logit", "wald_iid"}).method == "logit"


def test_note_when_no_method_reaches_nominal(fake_table):
    c = d.default_choice("micro", 4, 0.95, False, ALL)
    assert c.method == "korn_graubard" and not c.reached
    assert c.note == (
        "with K = 4 documents no method reaches 95 % on similar data (best: korn_graubard, 91.2 %)"
    )
    assert d.choices_note({"micro": c}) == [f"micro: {c.note}"]


def test_bounded_pick_leaving_the_range_falls_back_to_a_bounded_method(fake_table):
    c = d.default_choice("micro", 20, 0.95, True, ALL, outside={"cr2_bm", "cr1"})
    assert c.method == "logit"
    assert c.note.startswith("cr2_bm's interval leaves [0, 1]")
    same = d.default_choice("micro", 20, 0.95, False, ALL, outside={"cr2_bm"})
    assert same.method == "cr2_bm"  # unbounded scores: the range does not apply


def test_other_level_keeps_the_guide():
    for est, method in d.GUIDE.items():
        c = d.default_choice(est, 20, 0.90, False, ALL)
        assert c.method == method and c.coverage is None
        assert "applies to 95 % intervals, not 90 %" in c.note
    stats = aggregate_arrays(*_sample(np.random.default_rng(3), 30, 0.5))
    rep = analyze(stats, level=0.9, seed=1, bootstrap_reps=199)
    assert {e: r.recommended for e, r in rep.estimands.items()} == d.GUIDE


def test_explicit_recommendation_wins():
    stats = aggregate_arrays(*_sample(np.random.default_rng(4), 12, 0.5))
    rep = analyze(stats, seed=1, bootstrap_reps=199, recommended={"micro": "cr1"})
    assert rep.estimands["micro"].recommended == "cr1"
    assert rep.estimands["micro"].recommendation_note == "set by the caller"
    assert rep.estimands["macro"].recommendation_note
    assert rep.to_dict()["estimands"]["macro"]["recommendation_note"]


def _sample(rng: np.random.Generator, K: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    n = rng.integers(1, 8, size=K)
    rates = np.clip(rng.normal(p, 0.08, size=K), 0, 1)
    doc = np.repeat([f"d{i:02d}" for i in range(K)], n)
    return doc, (rng.random(n.sum()) < np.repeat(rates, n)).astype(float)


@pytest.mark.parametrize("p", [0.02, 0.08, 0.92, 0.98])
def test_bounded_recommended_interval_stays_in_unit_range(p):
    rng = np.random.default_rng(int(p * 100))
    for trial in range(12):
        K = 3 + trial % 8
        doc, y = _sample(rng, K, p)
        rep = analyze(aggregate_arrays(doc, y), seed=trial, bootstrap_reps=199)
        for est in rep.estimands.values():
            if K <= 3:  # too few documents: no recommended interval at all
                assert est.recommended is None
                assert "cannot support an interval" in (est.recommendation_note or "")
                continue
            assert est.recommended not in d.NEVER_RECOMMENDED
            iv = est.get(est.recommended)
            if iv.available:
                assert 0 <= iv.lower <= iv.upper <= 1, (K, p, est.estimand, iv)


def _recommended_intervals(result: dict) -> Iterator[dict]:
    for est in result["estimands"].values() if "estimands" in result else [result]:
        rec = est.get("recommended")
        for iv in est["intervals"]:
            if iv["method"] == rec and iv.get("lower") is not None:
                yield iv


@pytest.fixture(scope="module")
def planalto_by_law(tmp_path_factory) -> tuple[dict, dict]:
    if not SHARED.is_file():
        pytest.skip("../shared data not present")
    out = tmp_path_factory.mktemp("planalto")
    cmd = [
        sys.executable,
        "-m",
        "ragstat",
        "study",
        str(SHARED),
        "--retrievers",
        "bm25",
        "--strata",
        "law",
    ]
    subprocess.run([*cmd, "--out", str(out), "--quiet"], check=True, capture_output=True)
    return (
        json.loads((out / "summary.json").read_text()),
        json.loads((out / "report.json").read_text()),
    )


@pytest.mark.slow  # a study of a real corpus
def test_planalto_study_by_law_recommends_intervals_in_unit_range(planalto_by_law):
    summary, report = planalto_by_law
    found = list(_recommended_intervals(summary["retrievers"]["bm25"]["hit1"]))
    for block in report["results"]:
        found += list(_recommended_intervals(block))
    assert len(found) >= 4
    for iv in found:
        assert 0 <= iv["lower"] <= iv["upper"] <= 1
    for rows in summary["by_stratum"]["hit1"].values():
        for row in rows.values():
            assert 0 <= row["micro"] <= 1 and 0 <= row["macro"] <= 1


@pytest.mark.slow  # a study of a real corpus
def test_planalto_per_law_intervals_in_unit_range(planalto_by_law):
    _summary, report = planalto_by_law
    rows = [r for r in report["strata"] if r["macro_lower"] is not None]
    assert rows
    for r in rows:
        assert 0 <= r["macro_lower"] <= r["macro_upper"] <= 1, r


def test_table_without_paired_section_still_reads(fake_table):
    """A table written before the paired section: rates read as before, differences fall
    back to the method guide (never to an interval that leaves the range)."""
    assert d.table_section("rates") is not None and d.table_section("paired") is None
    assert d.default_choice("micro", 20, 0.95, True, ALL).method == "cr2_bm"
    c = d.default_choice("micro", 20, 0.95, True, ALL, kind="paired", bounds=(-1.0, 1.0))
    assert c.method == "cr2_bm" and "(paired) is missing" in c.note
    c = d.default_choice(
        "micro", 20, 0.95, True, ALL, outside={"cr2_bm"}, kind="paired", bounds=(-1.0, 1.0)
    )
    assert c.method in d.BOUNDED_METHODS


def test_paired_pick_that_leaves_the_range_is_replaced():
    rows = d.pooled_rows("micro", 20, "paired")
    pick, _ = d.pick_row(rows, 0.95)
    c = d.default_choice("micro", 20, 0.95, True, ALL, kind="paired", bounds=(-1.0, 1.0))
    assert c.method == pick.method and "similar differences" in c.note
    moved = d.default_choice(
        "micro", 20, 0.95, True, ALL, outside={pick.method}, kind="paired", bounds=(-1.0, 1.0)
    )
    assert moved.method in d.BOUNDED_METHODS - {pick.method}
    assert "leaves [-1, 1]" in moved.note
