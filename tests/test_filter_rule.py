"""The hard-vs-soft filter rule: the pure rule on hand-set estimates, the verb on a
hand-made example checked by brute force, refusals, and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import typer

import ragstat
import ragstat.cli as cli
from ragstat import InputError
from ragstat.api.verbs.evaluate import METHODS_RUN
from ragstat.api.verbs.filter_rule import filter_rule
from ragstat.cli import filter_rule as filter_rule_cli
from ragstat.decisions.filter_rule import (
    ACCESS_KINDS,
    Estimate,
    FilterRuleResult,
    Thresholds,
    decide_filter_rule,
)

K = 2
SEED = 3
T = Thresholds(delta_min=0.03, epsilon=0.02, recall_loss_max=0.01)
GAIN = Estimate(0.10, 0.04, 0.16, "cr2_bm")
RATE = Estimate(0.01, 0.0, 0.05, "korn_graubard")
RECALL = Estimate(-0.005, -0.02, 0.01, "cr2_bm")


def held(result: FilterRuleResult) -> dict[str, bool]:
    return {c.name: c.held for c in result.conditions}


# ------------------------------------------------------------------ the pure rule


def test_rule_all_three_hold_is_hard_and_says_why():
    r = decide_filter_rule(GAIN, RATE, RECALL, T, name="locale = en-US", kind="locale")
    assert r.decision == "hard" and all(held(r).values())
    assert r.sentence.startswith("Use 'locale = en-US' as a hard filter: the precision gain's")
    assert repr(r).startswith(r.sentence)
    # ε against the upper bound 0.05 > 0.02 would keep it soft: reported, not hidden
    assert r.alternative_decision == "soft"
    d = r.to_dict()
    assert d["alternative"] == {
        "epsilon_against": "upper",
        "decision": "soft",
        "changes": True,
        "sentence": r.alternative_sentence,
    }
    assert d["epsilon_against"] == "estimate" and "Access rules" in d["rule"]
    assert json.loads(json.dumps(d)) == d


@pytest.mark.parametrize(
    "which, gain, rate, recall, reason",
    [
        ("precision_gain", Estimate(0.10, 0.01, 0.19), RATE, RECALL,
         "the precision gain's lower bound 0.01 is below Δ_min 0.03"),
        ("exclusion_rate", GAIN, Estimate(0.03, 0.01, 0.06), RECALL,
         "the exclusion rate 0.03 is above ε 0.02"),
        ("recall_difference", GAIN, RATE, Estimate(-0.02, -0.05, 0.01),
         "the recall difference −0.02 is below −recall_loss_max = −0.01"),
    ],
)  # fmt: skip
def test_rule_exactly_one_condition_fails_is_soft(which, gain, rate, recall, reason):
    r = decide_filter_rule(gain, rate, recall, T, name="locale = en-US")
    assert r.decision == "soft"
    assert {n for n, ok in held(r).items() if not ok} == {which}
    assert r.sentence == f"Keep 'locale = en-US' as a soft boost: {reason}"
    assert r.condition(which).reason == reason


def test_rule_bounds_equal_to_thresholds_hold():
    # 0.1 + 0.2 − 0.27 reads 0.030000000000000027: equality up to rounding holds
    gain = Estimate(0.05, 0.1 + 0.2 - 0.27, 0.07)
    rate = Estimate(1 / 50, 0.0, 0.04)
    recall = Estimate(0.2 - 0.21, -0.03, 0.01)
    r = decide_filter_rule(gain, rate, recall, T)
    assert r.decision == "hard", r.sentence
    assert r.sentence.startswith("Use the preference as a hard filter")


def test_rule_without_an_interval_is_never_hard():
    gain = Estimate(0.10, method="cr2_bm", reason="zero standard error")
    r = decide_filter_rule(gain, RATE, RECALL, T)
    assert r.decision == "soft" and r.alternative_decision == "soft"
    assert "no interval (zero standard error)" in r.sentence
    no_upper = Estimate(0.0, reason="no interval")
    r = decide_filter_rule(GAIN, no_upper, RECALL, T, epsilon_against="upper")
    assert r.decision == "soft" and r.alternative_decision == "hard"


def test_rule_epsilon_against_the_upper_bound():
    r = decide_filter_rule(GAIN, RATE, RECALL, T, epsilon_against="upper")
    assert r.decision == "soft" and r.alternative_decision == "hard"
    c = r.condition("exclusion_rate")
    assert (c.compared, c.value, c.threshold) == ("upper bound", 0.05, 0.02)
    assert "upper bound 0.05 is above ε 0.02" in r.sentence
    assert "point estimate (0.01) would give hard" in r.alternative_sentence


def test_rule_frame_has_one_row_per_condition():
    frame = decide_filter_rule(GAIN, RATE, RECALL, T, name="locale = en-US").to_frame()
    assert list(frame["condition"]) == ["precision_gain", "exclusion_rate", "recall_difference"]
    assert list(frame["value"]) == [0.04, 0.01, -0.005]
    assert list(frame["threshold"]) == [0.03, 0.02, -0.01]
    assert set(frame["decision"]) == {"hard"}


@pytest.mark.parametrize(
    "kind", [*ACCESS_KINDS, "Authorization", "publication-state", "Tenant", "entitlement"]
)
def test_access_kinds_are_refused(kind):
    with pytest.raises(InputError, match="access rules are always hard filters"):
        decide_filter_rule(GAIN, RATE, RECALL, T, name="x", kind=kind)


def test_an_access_attribute_in_the_name_is_refused_without_a_kind():
    with pytest.raises(InputError, match="access rules are always hard filters"):
        decide_filter_rule(GAIN, RATE, RECALL, T, name="tenant = acme")
    assert decide_filter_rule(GAIN, RATE, RECALL, T, name="locale = en-US").decision == "hard"


@pytest.mark.parametrize(
    "values, match",
    [
        ((None, 0.02, 0.01), "delta_min .* is required: pre-register"),
        ((0.03, None, 0.01), "epsilon .* is required"),
        ((0.03, 0.02, None), "recall_loss_max is required"),
        ((1.5, 0.02, 0.01), r"in \[0, 1\]"),
        ((0.03, -0.1, 0.01), r"in \[0, 1\]"),
        ((0.03, 0.02, float("nan")), r"in \[0, 1\]"),
        ((0.03, True, 0.01), r"in \[0, 1\]"),
    ],
)
def test_thresholds_are_required_and_checked(values, match):
    with pytest.raises(InputError, match=match):
        Thresholds(*values)


# ------------------------------------------------------------ a hand-made example
# k = 2. Type A (20 queries): 4 relevant; soft ranks 1 in its top 2, hard ranks 2 and
# lists 3 of them → ΔP = +0.5, ΔR = +0.25. Type B (6): 1 relevant, ranked first by soft,
# absent from the hard run (excluded) → ΔP = −0.5, ΔR = −1. Type C (4): 1 relevant,
# first in both → 0, 0. Mean ΔP = (10 − 3)/30 = 0.2333, ΔR = (5 − 6)/30 = −0.0333,
# exclusion rate 6/30 = 0.2.


def example() -> tuple[dict, dict, dict]:
    qrels: dict = {}
    hard: dict = {}
    soft: dict = {}
    for i, kind in enumerate("A" * 20 + "B" * 6 + "C" * 4):
        q = f"q{i:02d}"
        g = [f"{q}-g{j}" for j in range(4 if kind == "A" else 1)]
        qrels[q] = dict.fromkeys(g, 1)
        if kind == "A":
            soft[q], hard[q] = [g[0], f"{q}-x0", g[1], f"{q}-x1"], g[:3]
        elif kind == "B":
            soft[q], hard[q] = [g[0], f"{q}-x0"], [f"{q}-x1", f"{q}-x2"]
        else:
            soft[q], hard[q] = [g[0], f"{q}-x0"], [g[0], f"{q}-x1"]
    return qrels, hard, soft


def brute_force(qrels: dict, run: dict, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: relevant in top k / k, / |relevant|, and 'no relevant document listed'."""
    p, r, ex = [], [], []
    for q, docs in qrels.items():
        rel = {d for d, g in docs.items() if g > 0}
        top = run.get(q, [])[:k]
        p.append(sum(d in rel for d in top) / k)
        r.append(sum(d in rel for d in top) / len(rel))
        ex.append(float(not rel & set(run.get(q, []))))
    return np.array(p), np.array(r), np.array(ex)


@pytest.fixture(scope="module")
def case() -> tuple[dict, dict, dict]:
    return example()


def run_rule(case, **thresholds) -> FilterRuleResult:
    qrels, hard, soft = case
    t = {"delta_min": 0.05, "epsilon": 0.25, "recall_loss_max": 0.05} | thresholds
    return filter_rule(qrels, hard, soft, k=K, name="locale = en-US", kind="locale",
                       seed=SEED, bootstrap_reps=999, **t)  # fmt: skip


def test_estimates_equal_brute_force_and_evaluate(case):
    qrels, hard, soft = case
    r = run_rule(case)
    ph, rh, ex = brute_force(qrels, hard, K)
    ps, rs, _ = brute_force(qrels, soft, K)
    assert r.condition("precision_gain").estimate == pytest.approx((ph - ps).mean())
    assert r.condition("precision_gain").estimate == pytest.approx(7 / 30)
    assert r.condition("recall_difference").estimate == pytest.approx(-1 / 30)
    assert r.condition("exclusion_rate").estimate == pytest.approx(ex.mean()) == 0.2
    means = r.context["means"]
    assert means["hard"] == pytest.approx({"p@2": ph.mean(), "recall@2": rh.mean()})
    assert means["soft"] == pytest.approx({"p@2": ps.mean(), "recall@2": rs.mean()})
    assert r.context["exclusion"]["excluded_queries"] == 6
    assert r.context["exclusion"]["document_rate"] == pytest.approx((20 + 6) / (80 + 6 + 4))
    # the paired intervals are evaluate's: same kernels, same clustering, same seed
    ev = ragstat.evaluate(qrels, {"hard": hard, "soft": soft}, metrics=["p@2", "recall@2"],
                          seed=SEED, bootstrap_reps=999)  # fmt: skip
    for name, metric in (("precision_gain", "p@2"), ("recall_difference", "recall@2")):
        micro = ev.paired.metrics[metric].comparison.report.estimands["micro"]
        iv = micro.get(micro.recommended)
        c = r.condition(name)
        assert (c.method, c.lower, c.upper) == (iv.method, iv.lower, iv.upper)
    # the exclusion rate's interval is analyze's recommended one on the 0/1 indicators
    rep = ragstat.analyze(ragstat.aggregate_arrays(list(qrels), ex, score="exclusion_rate"),
                          methods=METHODS_RUN, seed=SEED, bootstrap_reps=999)  # fmt: skip
    micro = rep.estimands["micro"]
    c = r.condition("exclusion_rate")
    assert (c.method, c.lower, c.upper) == (micro.recommended, *_bounds(micro))
    assert 0.0 <= c.lower < 0.2 < c.upper <= 1.0


def test_paired_differences_know_their_range(case):
    """P@k and recall@k lie in [0, 1], so hard − soft lies in [−1, 1]: compare gets that
    range (range-respecting intervals computed, none leaving it shown)."""
    r = run_rule(case)
    for name in ("precision_gain", "recall_difference"):
        report = r.context["intervals"][name]
        assert report["bounds"] == [-1.0, 1.0]
        for est in report["estimands"].values():
            methods = {iv["method"]: iv for iv in est["intervals"]}
            assert methods["logit"]["lower"] is not None
            assert methods["korn_graubard"]["lower"] is not None
            assert not methods[est["recommended"]]["outside_range"]
        c = r.condition(name)
        assert -1.0 <= c.lower <= c.estimate <= c.upper <= 1.0
    assert r.context["intervals"]["exclusion_rate"]["bounds"] == [0.0, 1.0]


def _bounds(result) -> tuple[float, float]:
    iv = result.get(result.recommended)
    return iv.lower, iv.upper


def test_the_example_decides_hard_when_all_hold(case):
    r = run_rule(case)
    gain = r.condition("precision_gain")
    assert 0.05 < gain.lower < 0.15 < gain.estimate  # the thresholds below sit around it
    assert r.decision == "hard" and all(held(r).values())
    assert r.alternative_decision == "soft"  # the exclusion rate's upper bound exceeds 0.25
    assert r.context["clustering"]["by"] == "query" and r.context["clusters"] == 30
    assert "queries are treated as independent" in r.notes[0]


@pytest.mark.parametrize(
    "thresholds, fails",
    [
        ({"delta_min": 0.15}, "precision_gain"),  # the point estimate 0.233 would pass
        ({"epsilon": 0.1}, "exclusion_rate"),
        ({"recall_loss_max": 0.02}, "recall_difference"),
    ],
)
def test_the_example_each_condition_decides(case, thresholds, fails):
    r = run_rule(case, **thresholds)
    assert r.decision == "soft"
    assert {n for n, ok in held(r).items() if not ok} == {fails}
    assert r.sentence.startswith("Keep 'locale = en-US' as a soft boost: ")


def test_macro_estimand_and_a_cluster_mapping(case):
    qrels, hard, soft = case
    topics = {q: f"t{i % 10}" for i, q in enumerate(qrels)}
    r = filter_rule(qrels, hard, soft, k=K, delta_min=0.0, epsilon=0.5, recall_loss_max=0.5,
                    cluster_by=topics, estimand="macro", seed=SEED, bootstrap_reps=999)  # fmt: skip
    assert r.estimand == "macro" and r.context["clusters"] == 10
    assert r.context["clustering"]["by"] == "mapping"
    macro = r.context["intervals"]["precision_gain"]["estimands"]["macro"]
    assert r.condition("precision_gain").method == macro["recommended"]


def test_worked_example_reproduces_the_50_percent_exclusion_rate():
    # six documents, d3 in another tenant (an access rule: never in the candidates); the
    # hard run lists each query's locale survivors, the soft run every entitled document
    entitled = ["d1", "d2", "d4", "d5", "d6"]
    gold = {"q1": "d2", "q2": "d4", "q3": "d6", "q4": "d5"}
    qrels = {q: {d: 1} for q, d in gold.items()}
    hard = {"q1": ["d1", "d4"], "q2": entitled, "q3": ["d1", "d4"], "q4": ["d5"]}
    soft = {q: [d, *(e for e in entitled if e != d)] for q, d in gold.items()}
    r = filter_rule(qrels, hard, soft, delta_min=0.03, epsilon=0.02, recall_loss_max=0.01,
                    k=10, name="locale = en-US", seed=SEED, bootstrap_reps=999)  # fmt: skip
    assert r.condition("exclusion_rate").estimate == 0.5
    assert r.context["means"]["hard"]["recall@10"] == 0.5
    assert r.context["means"]["soft"]["recall@10"] == 1.0
    assert r.decision == "soft"
    assert not any("cut-off" in note for note in r.notes)  # the hard run lists the survivors
    cut = filter_rule(qrels, hard, soft, delta_min=0.03, epsilon=0.02, recall_loss_max=0.01,
                      k=5, seed=SEED, bootstrap_reps=999)  # fmt: skip
    assert any("cut-off counts as excluded" in note for note in cut.notes)


def test_missing_evidence_is_an_error_never_a_decision(case):
    qrels, hard, soft = case
    t = {"delta_min": 0.0, "epsilon": 1.0, "recall_loss_max": 1.0}
    no_gold = {q: dict.fromkeys(docs, 0) for q, docs in qrels.items()}
    with pytest.raises(InputError, match="no eligible query"):
        filter_rule(no_gold, hard, soft, seed=SEED, **t)
    one_cluster = dict.fromkeys(qrels, "all")
    with pytest.raises(InputError, match="fewer than two clusters"):
        filter_rule(qrels, hard, soft, cluster_by=one_cluster, seed=SEED, **t)


def test_verb_refuses_access_kinds_and_missing_thresholds(case):
    qrels, hard, soft = case
    with pytest.raises(InputError, match="access rules are always hard filters"):
        filter_rule(qrels, hard, soft, delta_min=0.03, epsilon=0.02, recall_loss_max=0.01,
                    kind="jurisdiction")  # fmt: skip
    with pytest.raises(TypeError, match="epsilon"):
        filter_rule(qrels, hard, soft, delta_min=0.03, recall_loss_max=0.01)  # type: ignore[call-arg]
    with pytest.raises(InputError, match="pre-register"):
        filter_rule(qrels, hard, soft, delta_min=0.03, epsilon=None, recall_loss_max=0.01)  # type: ignore[arg-type]
    for bad, match in (({"k": 0}, "k must be"), ({"estimand": "both"}, "estimand"),
                       ({"epsilon_against": "lower"}, "epsilon_against")):  # fmt: skip
        with pytest.raises(InputError, match=match):
            filter_rule(qrels, hard, soft, delta_min=0.03, epsilon=0.02, recall_loss_max=0.01,
                        **bad)  # fmt: skip


# ------------------------------------------------------------ files, frames, CLI


def write_trec(folder: Path, case) -> tuple[Path, Path, Path]:
    qrels, hard, soft = case
    q = folder / "qrels.trec"
    q.write_text("".join(f"{qid} 0 {d} {g}\n" for qid, docs in qrels.items()
                         for d, g in docs.items()))  # fmt: skip
    paths = [q]
    for name, run in (("hard", hard), ("soft", soft)):
        path = folder / f"{name}.trec"
        path.write_text("".join(f"{qid} Q0 {d} {i + 1} {100 - i} {name}\n"
                                for qid, docs in run.items() for i, d in enumerate(docs)))  # fmt: skip
        paths.append(path)
    return paths[0], paths[1], paths[2]


def frames(case) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    qrels, hard, soft = case
    q = pd.DataFrame([(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()],
                     columns=["query_id", "doc_id", "relevance"])  # fmt: skip
    runs = [pd.DataFrame([(qid, d, 100.0 - i) for qid, docs in run.items()
                          for i, d in enumerate(docs)], columns=["query_id", "doc_id", "score"])
            for run in (hard, soft)]  # fmt: skip
    return q, runs[0], runs[1]


def test_a_dataframe_input_equals_a_file_input(tmp_path, case):
    t = {"delta_min": 0.05, "epsilon": 0.25, "recall_loss_max": 0.05}
    common = {"k": K, "seed": SEED, "bootstrap_reps": 999, **t}
    from_files = filter_rule(*write_trec(tmp_path, case), **common)
    from_frames = filter_rule(*frames(case), **common)
    assert from_frames.to_dict() == from_files.to_dict()
    assert from_files.conditions == run_rule(case, **t).conditions  # and a mapping input


def main(args: list[str], monkeypatch) -> int:
    """``ragstat ARGS``; through a local app while the verb is not registered yet."""
    if not any(c.name == "filter-rule" for c in cli.app.registered_commands):
        app = typer.Typer(pretty_exceptions_enable=False)
        app.callback()(lambda: None)
        app.command("filter-rule")(filter_rule_cli.filter_rule)
        monkeypatch.setattr(cli, "app", app)
    return cli.main(["filter-rule", *args])


def test_cli_json_equals_the_twin_and_writes_its_folder(tmp_path, case, capsys, monkeypatch):
    qrels, hard, soft = write_trec(tmp_path, case)
    args = ["--qrels", qrels, "--hard", hard, "--soft", soft, "--delta-min", "0.15",
            "--epsilon", "0.25", "--recall-loss-max", "0.05", "--k", "2", "--name",
            "locale = en-US", "--kind", "locale", "--seed", "3", "--bootstrap-reps", "999"]  # fmt: skip
    assert main([str(a) for a in args] + ["--json", "--out", str(tmp_path / "out")],
                monkeypatch) == 0  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    twin = run_rule(case, delta_min=0.15)
    assert printed == twin.to_dict() and printed["decision"] == "soft"
    saved = json.loads((tmp_path / "out" / "result.json").read_text(encoding="utf-8"))
    assert saved == printed
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["command"] == "filter-rule" and manifest["results"]["decision"] == "soft"
    assert main([str(a) for a in args], monkeypatch) == 0
    assert capsys.readouterr().out.startswith("Keep 'locale = en-US' as a soft boost: ")


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--kind", "tenant"], "access rules are always hard filters"),
        (["--delta-min", "2"], "must be a number in [0, 1]"),
        (["--k", "0"], "k must be a positive whole number"),
    ],
)
def test_cli_bad_input_exits_2(tmp_path, case, capsys, monkeypatch, extra, message):
    qrels, hard, soft = write_trec(tmp_path, case)
    args = ["--qrels", str(qrels), "--hard", str(hard), "--soft", str(soft),
            "--epsilon", "0.02", "--recall-loss-max", "0.01"]  # fmt: skip
    if "--delta-min" not in extra:
        args += ["--delta-min", "0.03"]
    assert main(args + extra, monkeypatch) == 2
    assert message in capsys.readouterr().err


def test_cli_refuses_a_missing_threshold(tmp_path, case, capsys, monkeypatch):
    qrels, hard, soft = write_trec(tmp_path, case)
    args = ["--qrels", str(qrels), "--hard", str(hard), "--soft", str(soft),
            "--delta-min", "0.03", "--recall-loss-max", "0.01"]  # fmt: skip
    assert main(args, monkeypatch) == 2
    assert "--epsilon" in capsys.readouterr().err
