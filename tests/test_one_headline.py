"""One answer everywhere (issue 27): the same headline method and bounds from `ragstat
interval --json`, `ragstat.interval` and a gate; verdict sentences first in the terminal and
the repr; flags in words; no impossible number; the gate's p-value."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ragstat
from ragstat.cli import main
from ragstat.decisions.gates import GateSpec
from ragstat.decisions.pvalue import gate_p_value, one_sided_p
from ragstat.inference.headline import headline
from ragstat.inference.results import Interval


def _cli_json(capsys, args: list[str]) -> dict:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_interval_cli_python_and_gate_give_one_headline(capsys, demo_workdir):
    demo = demo_workdir / "ragstat-demo" / "records.parquet"
    printed = _cli_json(
        capsys, ["interval", str(demo), "--system", "bm25", "--seed", "7", "--json"]
    )
    twin = ragstat.interval(demo, system="bm25", seed=7)
    gates = ragstat.gate(
        {
            "seed": 7, "bootstrap_reps": printed["bootstrap_reps"], "correction": "none",
            "inputs": {"candidate": {"path": str(demo), "system": "bm25"}},
            "gates": [
                {"name": f"{est} hit1", "kind": "at_least", "metric": "hit1", "threshold": 0.05,
                 "estimand": est}
                for est in ("micro", "macro")
            ],
        }
    )  # fmt: skip
    for result in gates.gates:
        est = result.spec.estimand
        from_cli, from_python = headline(printed, est), headline(twin, est)
        assert from_cli.available and from_cli.method is not None
        assert from_cli.method == from_python.method == result.method
        assert from_cli.lower == pytest.approx(from_python.lower, abs=1e-12)
        assert from_cli.upper == pytest.approx(from_python.upper, abs=1e-12)
        assert result.lower == pytest.approx(from_cli.lower, abs=1e-12)
        assert result.upper == pytest.approx(from_cli.upper, abs=1e-12)
        assert result.outcome == "pass" and 0 <= result.p_value < 0.025


def _records(K: int, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = rng.integers(3, 9, K)
    doc = np.repeat(np.arange(K), n).astype(str)
    p = np.repeat(rng.beta(3, 5, K), n)
    return pd.DataFrame({"query_id": np.arange(doc.size), "doc_id": doc,
                         "hit1": (rng.random(doc.size) < p).astype(int)})  # fmt: skip


def test_interval_terminal_and_repr_lead_with_one_sentence_per_estimand(capsys, tmp_path):
    path = tmp_path / "records.csv"
    _records(30).to_csv(path, index=False)
    assert main(["interval", str(path), "--seed", "1", "--bootstrap-reps", "199"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[0].startswith("For a random query, hit1 is ")
        and " points (95 % interval " in lines[0]
    )
    assert lines[1].startswith("For a typical document, hit1 is ")


def test_interval_repr_leads_with_the_terminal_sentences(capsys, tmp_path):
    path = tmp_path / "records.csv"
    _records(30).to_csv(path, index=False)
    assert main(["interval", str(path), "--seed", "1", "--bootstrap-reps", "199"]) == 0
    lines = capsys.readouterr().out.splitlines()
    text = repr(ragstat.interval(path, seed=1, bootstrap_reps=199)).splitlines()
    assert text[:2] == lines[:2]


def test_three_documents_no_headline_and_flags_in_words(capsys, tmp_path):
    path = tmp_path / "few.csv"
    _records(3).to_csv(path, index=False)
    assert main(["interval", str(path), "--seed", "1", "--bootstrap-reps", "199"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "no interval is shown: only 3 documents: the data cannot support an interval" in first
    assert "a bootstrap from only 3 documents" in out  # the note column names the flag


def test_negative_icc_is_said_in_words():
    from ragstat.cli.render import diagnostics_line
    from ragstat.inference.results import Diagnostics

    d = Diagnostics(icc=-0.474, deff=-0.2, n_eff=None, chunks_mean=2.0, chunks_cv=0.1,
                    chunks_median=2.0, chunks_top10_share=0.2, share_rate0=0.1, share_rate1=0.0,
                    lag1_autocorrelation=None, moulton_rho=None, moulton_sigma2=None)  # fmt: skip
    line = diagnostics_line(d)
    assert line.startswith("no clustering detected (estimate ≤ 0)")
    assert "−0.474" not in line and "-0.474" not in line and "DEFF" not in line


def test_coverage_never_prints_a_half_width_wider_than_the_range():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"doc_id": ["a", "a", "b", "b"] + [f"d{i}" for i in range(40)],
                          "intent": ["x"] * 4 + ["y"] * 40,
                          "hit1": [0, 1, 1, 0, *rng.integers(0, 2, 40)]})  # fmt: skip
    m = ragstat.coverage(frame, dims="intent", score="hit1")
    small = next(c for c in m.cells if c.values == ("x",))
    assert small.half_width > 0.5  # t(0.975; 1) · S/√2: the raw number is impossible
    row = next(r for r in m.to_dict()["cells"] if r["intent"] == "x")
    assert (
        row["half_width"] is None
        and "wider than the score's range [0, 1]" in row["half_width_note"]
    )
    assert "6.35" not in repr(m) and "wider than the score's range" in repr(m)


def _iv(method: str, est: float, lo: float, hi: float, df: float | None, level: float = 0.95):
    return Interval(method, "micro", est, lo, hi, level, "t", se=None, df=df)


def test_gate_p_value_is_the_one_sided_t_test_and_agrees_with_the_decision():
    from scipy.stats import t

    est, se, df = 0.62, 0.03, 40.0
    q = t.ppf(0.975, df)
    iv = _iv("cr2_bm", est, est - q * se, est + q * se, df)
    at_least = GateSpec(name="g", kind="at_least", metric="hit1", threshold=0.55)
    assert gate_p_value(at_least, iv) == pytest.approx(1 - t.cdf((est - 0.55) / se, df))
    at_most = GateSpec(name="g", kind="at_most", metric="hit1", threshold=0.70)
    assert gate_p_value(at_most, iv) == pytest.approx(1 - t.cdf((0.70 - est) / se, df))
    for threshold in np.linspace(0.5, 0.7, 41):  # p < α/2 exactly when the bound clears it
        p = one_sided_p(iv, float(threshold), "lower")
        assert (p < 0.025) == (iv.lower > threshold) or math.isclose(iv.lower, threshold)
    logit = _iv("logit", 0.3, 0.2, 0.42, 30.0)  # a bound on the logit scale
    p = one_sided_p(logit, 0.2, "lower")
    assert p == pytest.approx(0.025, abs=1e-9)


def test_gate_json_p_value_is_filled(tmp_path):
    frame = _records(40)
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    report = ragstat.gate({"seed": 1, "bootstrap_reps": 199, "inputs": {"candidate": {"path": str(path)}},
                           "gates": [{"name": "g", "kind": "at_least", "metric": "hit1",
                                      "threshold": 0.1}]})  # fmt: skip
    g = report.to_dict()["gates"][0]
    assert g["p_value"] is not None and 0 <= g["p_value"] <= 1


def test_ppi_sentence_names_its_design():
    rng = np.random.default_rng(1)
    n = 400
    f = rng.random(n)
    y = (f + rng.normal(0, 0.3, n) > 0.5).astype(float)
    y[rng.random(n) > 0.3] = np.nan
    frame = pd.DataFrame({"doc_id": rng.integers(0, 40, n).astype(str), "judge": f, "human": y})
    r = ragstat.ppi(frame, judge="judge", human="human")
    text = repr(r)
    assert text.startswith("For a random item, the human label human is ")
    assert "design same_documents" in text.splitlines()[0]
    assert any("only with --design disjoint_documents" in note for note in r.notes)


def test_evaluate_single_run_leads_with_headlines():
    ir = Path(__file__).parent / "reference" / "ir"
    result = ragstat.evaluate(ir / "qrels.trec", ir / "run_a.trec", metrics="ndcg@10", seed=1,
                              bootstrap_reps=199)  # fmt: skip
    first = repr(result).splitlines()[0]
    assert first.startswith("For a random query, ndcg@10 of run_a is ") and " points " in first
    h = headline(result.runs["run_a"].metrics["ndcg@10"].report, "micro")
    assert f"{h.lower * 100:.1f} to {h.upper * 100:.1f}" in first
