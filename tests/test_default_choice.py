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
from ragstat.inference.names import SMALL_K_METHODS as SMALL_K
from ragstat.inference.results import METHODS
from ragstat.records import aggregate_arrays

CORPORA = {"planalto-leis", "aneel-ren1000", "demo"}
KS = [5, 10, 20, 40, 80]
ALL = set(METHODS)
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "planalto-leis.jsonl"


FAMILIES_MIN = 3 + 5  # the corpora and the 0/1 synthetic families


def _cell(coverage: float, width: float, se: float = 0.004) -> dict:
    return {"coverage": coverage, "mc_se": se, "width_vs_reference": width}


@pytest.fixture
def fake_table(monkeypatch) -> Iterator[None]:
    """Two 0/1 families, K = 5 and 20: at 20 cr1 is narrow but short in family b, cr2_bm
    reaches in both and logit too; at 5 none reaches in both."""

    def family(name: str, cr1: float, kg5: float) -> dict:
        by_k = {
            "5": {
                "micro": {
                    "cr2_bm": _cell(0.880, 1.0),
                    "korn_graubard": _cell(kg5, 1.2),
                    "wald_iid": _cell(0.990, 0.2),
                }
            },
            "20": {
                "micro": {
                    "cr1": _cell(cr1, 0.9),
                    "cr2_bm": _cell(0.945, 1.0),
                    "logit": _cell(0.960, 1.1),
                    "wald_iid": _cell(0.999, 0.1),
                    "wald_effective_n": _cell(0.999, 0.2),
                }
            },
        }
        return {"label": f"family {name}", "census": {"binary": True}, "by_k": by_k}

    families = {"a": family("a", 0.95, 0.93), "b": family("b", 0.90, 0.912)}
    table = {"settings": {"ks": [5, 20]}, "families": families}
    monkeypatch.setattr(d, "contest_table", lambda: table)
    d.family_rows.cache_clear()
    yield
    d.family_rows.cache_clear()


def test_contest_table_ships_with_every_family_k_estimand_and_method():
    path = resources.files("ragstat.inference").joinpath("data/contest_table.json")
    assert path.is_file()
    table = d.contest_table()
    assert table is not None and table["ragstat_version"] and table["runs"]
    s = table["settings"]
    assert s["level"] == 0.95 and s["ks"] == KS and s["reps_per_cell"] == 4000
    assert s["bootstrap_reps"] >= 999 and s["seed"] is not None
    assert set(table["families"]) >= CORPORA
    binary = d.table_section("binary")
    continuous = d.table_section("continuous")
    assert binary is not None and continuous is not None
    assert len(binary["corpora"]) >= FAMILIES_MIN and len(continuous["corpora"]) >= 3
    for family in table["families"].values():
        assert family["label"] and sorted(map(int, family["by_k"])) == KS
        # the beta-binomial model is for 0/1 scores only
        small = set(SMALL_K) - (set() if family["census"]["binary"] else {"beta_binomial"})
        for cell in family["by_k"].values():
            assert {"micro", "macro"} <= set(cell)
            assert {"cr2_bm", "logit", "korn_graubard", *small} <= set(cell["micro"])
            assert {"t_rates", "logit", "korn_graubard", *small} <= set(cell["macro"])
            for est in ("micro", "macro"):
                for row in cell[est].values():
                    assert 0 <= row["coverage"] <= 1 and row["mc_se"] >= 0


@pytest.mark.parametrize("kind", ["binary", "continuous", "paired"])
@pytest.mark.parametrize("estimand", ["micro", "macro"])
@pytest.mark.parametrize("K", [3, 5, 14, 20, 33, 80, 600])
def test_pick_reaches_nominal_in_every_family_or_comes_closest(kind, estimand, K):
    c = d.default_choice(estimand, K, 0.95, False, ALL, kind=kind)
    assert c.method not in d.NEVER_RECOMMENDED
    assert d.nearest_k(K, KS) == c.K
    section = d.table_section(kind)
    assert section is not None and set(c.corpora) == set(section["corpora"])
    cells = [f["by_k"][str(c.K)][estimand] for f in section["corpora"].values()]

    def everywhere(method: str) -> bool:
        return all(x[method]["coverage"] >= 0.95 - 2 * x[method]["mc_se"] for x in cells)

    rows = {r.method: r for r in d.family_rows(estimand, c.K, kind) if r.method in ALL}
    fair = [r for r in rows.values() if r.method not in d.NEVER_RECOMMENDED]
    ok = [r for r in fair if everywhere(r.method)]
    chosen = rows[c.method]
    if ok:
        assert c.reached and chosen in ok
        assert chosen.mean_width == min(r.mean_width for r in ok)
    else:
        assert not c.reached and "points short there" in c.note
        assert chosen.typical == max(r.typical for r in fair)
        mean = sum(x[c.method]["coverage"] for x in cells) / len(cells)
        assert chosen.typical == pytest.approx(mean, abs=1e-12)
        worst = min(x[c.method]["coverage"] + 2 * x[c.method]["mc_se"] for x in cells)
        assert chosen.coverage + 2 * chosen.coverage_se == worst


def test_rule_on_a_known_table(fake_table):
    c = d.default_choice("micro", 22, 0.95, False, ALL)
    assert (c.method, c.K, c.coverage) == ("cr2_bm", 20, 0.945)
    assert c.note == (
        "on similar data this method reached 95 % at K = 20 in all 2 families simulated "
        "(lowest: 94.5 %)"
    )
    assert d.default_choice("micro", 22, 0.95, False, {"logit", "wald_iid"}).method == "logit"
    assert d.default_choice("micro", 22, 0.95, False, {"cr1", "logit"}).method == "logit"


def test_note_when_no_method_reaches_nominal(fake_table):
    c = d.default_choice("micro", 4, 0.95, False, ALL)
    assert c.method == "korn_graubard" and not c.reached
    assert c.note == (
        "with K = 4 documents no method reaches 95 % in every family of similar data: "
        "korn_graubard covered 92.1 % on average over 2 families, 91.2 % in its worst "
        "(family b): 3.8 points short there"
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


def test_missing_paired_section_falls_back_to_the_guide(fake_table):
    """Without the paired table, differences fall back to the method guide (never to an
    interval that leaves the range); 0/1 scores still read the contest."""
    assert d.table_section("binary") is not None and d.table_section("paired") is None
    assert d.default_choice("micro", 20, 0.95, True, ALL).method == "cr2_bm"
    c = d.default_choice("micro", 20, 0.95, True, ALL, kind="paired", bounds=(-1.0, 1.0))
    assert c.method == "cr2_bm" and "(paired) is missing" in c.note
    c = d.default_choice(
        "micro", 20, 0.95, True, ALL, outside={"cr2_bm"}, kind="paired", bounds=(-1.0, 1.0)
    )
    assert c.method in d.BOUNDED_METHODS


def test_paired_pick_that_leaves_the_range_is_replaced():
    rows = d.family_rows("micro", 20, "paired")
    pick, _ = d.pick_row(rows, 0.95)
    c = d.default_choice("micro", 20, 0.95, True, ALL, kind="paired", bounds=(-1.0, 1.0))
    assert c.method == pick.method and "similar differences" in c.note
    moved = d.default_choice(
        "micro", 20, 0.95, True, ALL, outside={pick.method}, kind="paired", bounds=(-1.0, 1.0)
    )
    assert moved.method in d.BOUNDED_METHODS - {pick.method}
    assert "leaves [-1, 1]" in moved.note
