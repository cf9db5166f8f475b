"""Coverage of the other intervals at small K (agreement statistics, extraction F1, PPI):
the committed table (scripts/make_other_coverage.py) loads and is self-consistent, the
simulation calls the same functions the verbs do (equal intervals on the same sample and
seed), the verbs say the table's shortfall at the user's K and nothing where the table
shows none; slow: a fresh κ simulation at K = 10 and 30 agrees with the table."""

from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest

from ragstat.api.verbs.agreement import agreement
from ragstat.api.verbs.extraction import extraction
from ragstat.inference.other_coverage import (
    TABLE_LEVEL,
    agreement_note,
    coverage_at,
    other_coverage_table,
)

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "make_other_coverage.py"
_spec = importlib.util.spec_from_file_location("make_other_coverage", SCRIPT)
assert _spec is not None and _spec.loader is not None
sim = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sim)


def rows(interval: str, family: str, statistic: str) -> dict[int, dict]:
    table = other_coverage_table()
    assert table is not None
    return {
        r["K"]: r
        for r in table["rows"]
        if (r["interval"], r["family"], r["statistic"]) == (interval, family, statistic)
    }


def short(row: dict) -> bool:
    return row["coverage"] < TABLE_LEVEL - 2 * row["mc_se"]


# ------------------------------------------------------------------ the table


def test_table_loads_with_every_interval_at_every_k():
    table = other_coverage_table()
    assert table is not None and table["level"] == 0.95 and table["samples"] >= 1000
    assert {10, 20, 40} <= set(table["ks"])
    for key in (("agreement", "binary", "cohen_kappa"), ("agreement", "three-category",
                "cohen_kappa"), ("agreement", "binary", "krippendorff_alpha"),
                ("extraction_f1", "entities", "f1"), ("ppi", "ppi-census", "mean")):  # fmt: skip
        assert set(rows(*key)) == set(table["ks"]), key
    for r in table["rows"]:
        n = r["samples"] - r["no_interval"]
        assert n >= 1000
        assert r["mc_se"] == pytest.approx(
            math.sqrt(r["coverage"] * (1 - r["coverage"]) / n), abs=1e-5
        )
        assert 0.5 < r["coverage"] <= 1.0


def test_coverage_at_reads_interpolates_and_stops_beyond_the_table():
    got = rows("agreement", "binary", "cohen_kappa")
    ks = sorted(got)
    lo, hi = ks[0], ks[1]
    assert coverage_at("agreement", "binary", "cohen_kappa", lo).coverage == got[lo]["coverage"]
    mid = round(math.sqrt(lo * hi))  # log-linear interpolation by hand
    t = (math.log(mid) - math.log(lo)) / (math.log(hi) - math.log(lo))
    want = got[lo]["coverage"] + t * (got[hi]["coverage"] - got[lo]["coverage"])
    c = coverage_at("agreement", "binary", "cohen_kappa", mid)
    assert c.coverage == pytest.approx(want, abs=1e-12) and "interpolated" in c.how
    below = coverage_at("agreement", "binary", "cohen_kappa", lo - 5)
    assert below.coverage == got[lo]["coverage"] and "fewest" in below.how
    assert coverage_at("agreement", "binary", "cohen_kappa", ks[-1] + 1) is None
    assert coverage_at("agreement", "binary", "no_such_statistic", lo) is None


# ------------------------------------------------------------------ same function as the verbs


def agreement_records(per_doc_rng: np.random.Generator, q: int, K: int) -> list[dict]:
    """Items of K documents of the script's census, one row per item."""
    census = sim.agreement_census(np.random.default_rng([5, q]), q, M=300)
    docs = per_doc_rng.choice(census.shape[0], K, replace=False)
    out = []
    for d in docs:
        for (j, h), n in np.ndenumerate(census[d]):
            out += [{"doc_id": f"d{d}", "judge": j, "human": h}] * int(n)
    return out


def test_simulated_interval_is_the_agreement_verbs():
    recs = agreement_records(np.random.default_rng(1), 2, 12)
    res = agreement(recs, judge="judge", human="human", bootstrap_reps=499, seed=42)
    _, codes = np.unique([r["doc_id"] for r in recs], return_inverse=True)
    import ragstat.metrics.judging.agreement as k

    j = np.array([r["judge"] for r in recs])
    h = np.array([r["human"] for r in recs])
    per_doc = k.confusion_tables(j, h, codes, 2, 12)
    stream = np.random.default_rng(np.random.SeedSequence(42).spawn(1)[0])
    got = k.bootstrap_intervals(per_doc, sim.agreement_kernels(2), 0.95, 499, stream)
    for s in res.overall.statistics:
        if s.statistic in got:
            assert (s.lower, s.upper) == pytest.approx(got[s.statistic][1:3], abs=1e-12)
    assert {"cohen_kappa", "krippendorff_alpha"} <= {s.statistic for s in res.overall.statistics}


def test_simulated_f1_interval_is_the_extraction_verbs():
    totals = sim.extraction_census(np.random.default_rng(3), M=200)
    docs = np.random.default_rng(4).choice(200, 15, replace=False)
    recs = []
    for d in docs:
        tp, pred, ref = (int(x) for x in totals[d])
        ref_t = [[f"h{d}_{i}", "r", f"t{d}_{i}"] for i in range(ref)]
        wrong = [[f"x{d}_{i}", "r", f"y{d}_{i}"] for i in range(pred - tp)]
        recs.append({"id": f"d{d}", "doc": f"d{d}", "relations_pred": ref_t[:tp] + wrong,
                     "relations_ref": ref_t})  # fmt: skip
    res = extraction(recs, cluster_by="doc", bootstrap_reps=499, seed=9)
    m, clusters = sim.f1_matching(totals, docs)
    lo, hi, K = sim.f1_bootstrap(m, clusters, level=0.95, reps=499, seed=9)
    entry = res.f1["relation_f1"]
    assert K == 15 and entry["clusters"] == 15
    assert (entry["lower"], entry["upper"]) == pytest.approx((lo, hi), abs=1e-12)
    assert entry["estimate"] == pytest.approx(m.f1, abs=1e-12)


# ------------------------------------------------------------------ the sentence


def test_agreement_says_the_tables_shortfall_at_the_users_k():
    got = rows("agreement", "binary", "cohen_kappa")
    K = next((k for k in sorted(got) if short(got[k])), None)
    if K is None:
        pytest.skip("the table shows no κ shortfall at any K")
    recs = agreement_records(np.random.default_rng(2), 2, K)
    res = agreement(recs, judge="judge", human="human", bootstrap_reps=199, seed=1)
    said = [n for n in res.notes if "in simulation" in n]
    assert len(said) == 1
    pct = round(100 * got[K]["coverage"])
    assert f"with {K} documents" in said[0] and f"Cohen's κ about {pct} %" in said[0]
    assert f"simulated at {K} documents" in said[0]
    assert res.to_dict()["notes"] == list(res.notes)
    # at another level the table does not speak: the generic caution (or nothing) instead
    other = agreement(recs, judge="judge", human="human", level=0.9, bootstrap_reps=199, seed=1)
    assert not any("in simulation" in n for n in other.notes)


def test_no_sentence_where_the_table_reaches_nominal():
    """Every statistic the table shows reaching nominal − 2 MC SE is left out of the
    sentence; a K beyond the table gives no sentence at all."""
    table = other_coverage_table()
    names = ["accuracy", "cohen_kappa", "krippendorff_alpha", "gwet_ac1", "precision", "recall"]
    for K in table["ks"]:
        said = agreement_note(K, 2, "nominal", names, 0.95) or ""
        for name, words in (("cohen_kappa", "Cohen's κ"), ("krippendorff_alpha",
                            "Krippendorff's α"), ("gwet_ac1", "Gwet's AC1")):  # fmt: skip
            row = rows("agreement", "binary", name)[K]
            assert (f"{words} about" in said) == short(row), (K, name)
        if not any(short(rows("agreement", "binary", n)[K]) for n in names):
            assert said == ""
    assert agreement_note(max(table["ks"]) + 1, 2, "nominal", names, 0.95) is None


def test_extraction_f1_sentence_follows_the_table():
    got = rows("extraction_f1", "entities", "f1")
    for K, row in got.items():
        totals = sim.extraction_census(np.random.default_rng(3), M=max(200, K))
        docs = np.random.default_rng(K).choice(totals.shape[0], K, replace=False)
        recs = [{"id": f"d{d}", "doc": f"d{d}",
                 "relations_pred": [["h", "r", str(i)] for i in range(int(totals[d, 0]))],
                 "relations_ref": [["h", "r", str(i)] for i in range(int(totals[d, 2]))]}
                for d in docs]  # fmt: skip
        res = extraction(recs, cluster_by="doc", bootstrap_reps=99, seed=1)
        said = [n for n in res.notes if "in simulation" in n]
        assert bool(said) == short(row), K
        if said:
            pct = round(100 * row["coverage"])
            assert re.search(rf"relation_f1 about {pct} %", said[0])


# ------------------------------------------------------------------ fresh simulation (slow)


@pytest.mark.slow
@pytest.mark.parametrize("K", [10, 30])
def test_kappa_coverage_matches_the_table_on_a_fresh_simulation(K):
    """κ's document-bootstrap interval on 1,500 fresh samples (another seed, so another
    census and other samples) covers as the committed table says, within 3 SE of the
    difference of the two simulations."""
    R = 1500
    for q, family in ((2, "binary"), (3, "three-category")):
        fresh = sim.agreement_coverage(q, K, R, seed=777)["cohen_kappa"]
        table = rows("agreement", family, "cohen_kappa")[K]
        se = math.hypot(fresh["mc_se"], table["mc_se"])
        print(f"K={K} {family}: κ interval covered {100 * fresh['coverage']:.1f} % "
              f"(± {100 * fresh['mc_se']:.1f}) on a fresh simulation, table "
              f"{100 * table['coverage']:.1f} % (± {100 * table['mc_se']:.1f})")  # fmt: skip
        assert abs(fresh["coverage"] - table["coverage"]) <= 3 * se
