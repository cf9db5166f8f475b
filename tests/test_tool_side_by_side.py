"""The tool's own aggregate and standard error beside ragstat's (issue 30, item 2).

Every number is checked against an independent reference: the value written in the
tool's file (read here with ``json``), ``statistics.stdev`` for an independent-items SE,
ragstat's own report for its SE, df and headline interval, and a hand computation for the
design effect, the width ratio and the difference of two systems.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import replace
from pathlib import Path

import pytest
from scipy import stats as sps

import ragstat
from ragstat.adapters.registry import read_source as read_table
from ragstat.adapters.reported_errors import inspect_stderr, lm_eval_stderr
from ragstat.inference.headline import headline
from ragstat.inference.provenance import ToolValue, tool_values
from ragstat.inference.tool_agreement import beside_comparison, beside_interval, iid_se
from ragstat.report.build import source_line

ROOT = Path(__file__).parent / "fixtures" / "adapters"
INSPECT = ROOT / "inspect" / "json"
LM = ROOT / "lm_eval" / "dummy-a"
DATE = "2026-01-01T00-00-00.000000"
MC = LM / f"samples_passages_mc_{DATE}.jsonl"
PROMPTFOO = ROOT / "promptfoo" / "results.json"
Z95 = float(sps.norm.ppf(0.975))


def _column(entry: dict) -> str:
    return (
        entry["name"] if entry["name"] == entry["scorer"] else f"{entry['scorer']}.{entry['name']}"
    )


def _inspect_logged() -> dict[str, dict]:
    """``"<system>/<score>"`` → the score entry of the log, read straight from the files."""
    out = {}
    for name in ("alpha", "beta"):
        log = json.loads((INSPECT / f"{name}.json").read_text())
        for entry in log["results"]["scores"]:
            out[f"mockllm/{name}/{_column(entry)}"] = entry
    return out


def _with_tool(source, errors: dict) -> ragstat.Source:
    """The source with the tool's numbers, as ``read_source`` attaches them once the
    readers expose their standard errors (``SourceTable.errors``)."""
    table = read_table(Path(source.info.path), source.info.format)
    reported = getattr(table, "errors", None)
    if reported:  # the reader exposes them: they must be what the file says
        assert dict(reported) == errors
    values = tool_values(table.aggregates, errors)
    return replace(source, info=replace(source.info, tool_values=values))


def _inspect_source(cluster_by: str | None = "source_doc") -> ragstat.Source:
    errors = {k: r for k, e in _inspect_logged().items() if (r := inspect_stderr(e["metrics"]))}
    return _with_tool(ragstat.read_source(INSPECT, "inspect", cluster_by=cluster_by), errors)


def _lm_source(cluster_by: str | None) -> ragstat.Source:
    results = json.loads((LM / f"results_{DATE}.json").read_text())["results"]["passages_mc"]
    errors = {f"dummy-a/{m}": lm_eval_stderr(results, f"{m},none") for m in ("acc", "acc_norm")}
    return _with_tool(ragstat.read_source(MC, "lm-eval", cluster_by=cluster_by), errors)


def _interval(report, method: str) -> dict:
    micro = report.to_dict()["estimands"]["micro"]
    return next(iv for iv in micro["intervals"] if iv["method"] == method)


# ----------------------------------------------------------------------------- readers


def test_inspect_stderr_is_the_logs_value_and_method():
    logged = _inspect_logged()
    clustered = 0
    for entry in logged.values():
        found = inspect_stderr(entry["metrics"])
        stderr = entry["metrics"].get("stderr")
        if stderr is None:
            assert found is None
            continue
        assert found == (stderr["value"], "cr1", 'stderr(cluster="source_doc")', "source_doc")
        clustered += 1
    assert clustered == 6
    plain = {"stderr": {"name": "stderr", "value": 0.1, "params": {}}}
    assert inspect_stderr(plain) == (0.1, "iid", "stderr()", None)
    assert inspect_stderr({"stderr": {"value": float("nan")}}) is None


def test_lm_eval_stderr_is_the_files_value():
    results = json.loads((LM / f"results_{DATE}.json").read_text())["results"]
    mc, gen = results["passages_mc"], results["passages_gen"]
    assert lm_eval_stderr(mc, "acc,none") == (mc["acc_stderr,none"], "iid", "acc_stderr", None)
    assert lm_eval_stderr(gen, "exact_match,upper")[0] == gen["exact_match_stderr,upper"]
    assert lm_eval_stderr({"acc_stderr,none": "N/A"}, "acc,none") is None


def test_tool_values_split_keys_at_the_last_slash():
    values = tool_values(
        {"mockllm/alpha/grade": 0.5, "echo / short/pass": 0.8},
        {"mockllm/alpha/grade": (0.04, "cr1", 'stderr(cluster="d")', "d")},
    )
    assert values == (
        ToolValue("echo / short", "pass", 0.8),
        ToolValue("mockllm/alpha", "grade", 0.5, 0.04, "cr1", 'stderr(cluster="d")', "d"),
    )
    with pytest.raises(ValueError, match="unknown standard-error method"):
        tool_values({"a/x": 1.0}, {"a/x": (0.1, "hc3", "x")})


# ----------------------------------------------------------------------------- interval


@pytest.mark.parametrize("system", ["mockllm/alpha", "mockllm/beta"])
@pytest.mark.parametrize("score", ["includes_doc", "grade", "closeness"])
def test_inspect_clustered_stderr_beside_ragstat(system, score):
    source = _inspect_source()
    report = ragstat.interval(source, score=score, system=system, seed=1)
    (c,) = beside_interval(source.info, report, system=system, frame=source.frame).comparisons
    logged = _inspect_logged()[f"{system}/{score}"]["metrics"]
    metric = logged.get("accuracy") or logged["mean"]
    assert c.tool_value == metric["value"] and c.tool_se == logged["stderr"]["value"]
    assert abs(c.estimate - c.tool_value) <= 1e-12
    assert abs(c.tool_se_check - c.tool_se) <= 1e-12  # ragstat's CR1 is inspect's stderr
    assert c.tool_se_check == _interval(report, "cr1")["se"]
    h = headline(report, "micro")
    assert (c.method, c.lower, c.upper) == (h.method, h.lower, h.upper)
    cr2 = _interval(report, "cr2_bm")
    assert (c.se, c.df) == (cr2["se"], cr2["df"])
    assert c.width_ratio == pytest.approx((h.upper - h.lower) / (2 * Z95 * c.tool_se), rel=1e-12)
    wider = (c.width_ratio - 1) * 100
    for text in (f"{c.tool_se:.4g}", f"{c.se:.4g}", f"{c.df:.2g} Bell–McCaffrey df",
                 f"{abs(wider):.0f} % {'wider' if wider >= 0 else 'narrower'}", "CR1",
                 "3 repeats", "is ragstat's estimate"):  # fmt: skip
        assert text in c.sentence, (text, c.sentence)


@pytest.mark.parametrize("cluster_by", ["doc.source_doc", None])
def test_lm_eval_stderr_beside_ragstat(cluster_by):
    source = _lm_source(cluster_by)
    report = ragstat.interval(source, score="acc", seed=1)
    (c,) = beside_interval(source.info, report, frame=source.frame).comparisons
    results = json.loads((LM / f"results_{DATE}.json").read_text())["results"]["passages_mc"]
    assert c.system == "dummy-a" and c.tool_value == results["acc,none"]
    assert c.tool_se == results["acc_stderr,none"] and c.tool_se_method == "iid"
    values = [float(v) for v in source.frame["acc"]]
    reference = statistics.stdev(values) / math.sqrt(len(values))
    assert abs(c.tool_se_check - reference) <= 1e-12 and abs(c.tool_se - reference) <= 1e-12
    assert c.design_effect == pytest.approx((c.se / c.tool_se) ** 2, rel=1e-12)
    assert c.se == _interval(report, "cr2_bm")["se"]
    assert f"{c.tool_se:.4g}" in c.sentence and "acc_stderr" in c.sentence
    if cluster_by is None:
        assert "both take the 12 items as independent" in c.sentence
    else:
        assert "assumes the 12 items are independent" in c.sentence
        assert "clustered by 4 documents" in c.sentence
        assert f"design effect {c.design_effect:.2g}" in c.sentence
        assert c.design_effect > 1


def test_a_tool_without_uncertainty_says_so():
    table = read_table(PROMPTFOO, "promptfoo")
    for cluster_by in (None, "vars.source_doc"):  # 6 items alone; 3 documents: no interval
        source = _with_tool(ragstat.read_source(PROMPTFOO, "promptfoo", cluster_by=cluster_by), {})
        report = ragstat.interval(source, score="pass", system="echo / long", seed=1)
        (c,) = beside_interval(source.info, report, system="echo / long").comparisons
        assert c.tool_value == table.aggregates["echo / long/pass"]
        assert abs(c.estimate - c.tool_value) <= 1e-12
        assert c.tool_se is None and c.width_ratio is None and c.design_effect is None
        assert "promptfoo reports no uncertainty" in c.sentence
        h = headline(report, "micro")
        if h.available:
            assert f"{h.lower:.4g} to {h.upper:.4g}" in c.sentence
        else:
            assert cluster_by is not None and h.reason in c.sentence


def test_a_mean_that_differs_is_said_with_its_size():
    source = _inspect_source()
    report = ragstat.interval(source, score="grade", system="mockllm/beta", seed=1)
    estimate = report.estimands["micro"].estimate
    for value, words in ((round(estimate, 2), "rounded to 2 decimals"),
                         (estimate + 0.01, "differs from ragstat's")):  # fmt: skip
        tool = ToolValue("mockllm/beta", "grade", value)
        info = replace(source.info, tool_values=(tool,))
        (c,) = beside_interval(info, report, system="mockllm/beta").comparisons
        assert c.value_difference == pytest.approx(value - estimate, abs=1e-15)
        assert words in c.sentence, c.sentence
    assert "by 0.01" in c.sentence


def test_no_tool_value_and_unknown_system():
    source = _inspect_source()
    report = ragstat.interval(source, score="grade", system="mockllm/beta", seed=1)
    info = replace(source.info, tool_values=())
    (c,) = beside_interval(info, report, system="mockllm/beta").comparisons
    assert c.tool_value is None and "reports no overall grade" in c.sentence
    # two systems in the file and none named: nothing to set beside the pooled estimate
    assert beside_interval(source.info, report).comparisons == ()


def test_iid_se_is_statistics_stdev_over_root_n():
    values = [0.0, 1.0, 1.0, 0.5, 0.25]
    assert iid_se(values) == pytest.approx(statistics.stdev(values) / math.sqrt(5), rel=1e-15)
    assert iid_se([1.0]) is None


# ----------------------------------------------------------------------------- compare


def test_compare_sets_each_systems_aggregate_and_the_difference():
    source = _inspect_source()
    result = ragstat.compare(source, score="grade", seed=1)
    a, b, diff = beside_comparison(source.info, result, frame=source.frame).comparisons
    logged = _inspect_logged()
    va = logged["mockllm/alpha/grade"]["metrics"]["accuracy"]["value"]
    vb = logged["mockllm/beta/grade"]["metrics"]["accuracy"]["value"]
    assert (a.system, a.tool_value, b.system, b.tool_value) == (
        "mockllm/alpha", va, "mockllm/beta", vb)  # fmt: skip
    for side in (a, b):
        assert abs(side.estimate - side.tool_value) <= 1e-12
    se_a = logged["mockllm/alpha/grade"]["metrics"]["stderr"]["value"]
    se_b = logged["mockllm/beta/grade"]["metrics"]["stderr"]["value"]
    assert diff.kind == "difference" and diff.tool_value == va - vb
    assert abs(diff.estimate - diff.tool_value) <= 1e-12  # paired over the same 12 items
    assert diff.tool_se == pytest.approx(math.sqrt(se_a**2 + se_b**2), rel=1e-15)
    recommended = result.report.estimands["micro"].recommended
    assert diff.se == _interval(result.report, recommended)["se"]
    assert "as ragstat's paired estimate" in diff.sentence
    assert f"({se_a:.4g}, {se_b:.4g})" in diff.sentence and f"{diff.tool_se:.4g}" in diff.sentence


# ----------------------------------------------------------------------------- shown


def test_json_terminal_and_report_show_the_comparison(capsys):
    from ragstat.cli.sources import print_source

    source = _inspect_source()
    report = ragstat.interval(source, score="grade", system="mockllm/alpha", seed=1)
    info = beside_interval(source.info, report, system="mockllm/alpha", frame=source.frame)
    report = replace(report, source=info)
    shown = report.to_dict()["source"]
    assert shown["tool_comparison"] == [info.comparisons[0].to_dict()]
    assert (
        json.loads(json.dumps(shown["tool_comparison"]))[0]["tool_se"]
        == info.comparisons[0].tool_se
    )
    assert len(shown["tool_values"]) == 10
    print_source(info, systems=["mockllm/alpha"], score="grade")
    out = " ".join(capsys.readouterr().out.split())
    assert info.sentence() in out and info.comparisons[0].sentence in out
    line = source_line("logs (inspect_ai)", info)
    assert line == "logs (inspect_ai) " + info.comparisons[0].sentence
    assert source_line("plain.parquet", None) == "plain.parquet"


def test_items_taken_as_independent_are_counted_as_items():
    """No cluster: each item is its own unit, and the sentence counts items, not documents."""
    path = Path(__file__).resolve().parent / "fixtures" / "adapters" / "ragas" / "bm25.csv"
    result = ragstat.interval(ragstat.read_source(path, "ragas"), score="exact_match", seed=1)
    (comparison,) = result.to_dict()["source"]["tool_comparison"]
    assert "(6 items)" in comparison["sentence"]
    assert "documents)" not in comparison["sentence"]


@pytest.mark.parametrize("fmt", ["beir", "mteb"])
def test_evaluate_sets_each_runs_own_means_beside_ragstats(fmt):
    """BEIR/MTEB results files: each run × metric the tool reported sits beside ragstat's
    mean of the same run and metric (the files round to 5 decimals) and its interval."""
    folder = Path(__file__).resolve().parent / "fixtures" / "adapters" / fmt / "tiny"
    source = ragstat.read_source(folder, fmt)
    result = ragstat.evaluate(source, metrics="ndcg@10", bootstrap_reps=199, seed=1).to_dict()
    found = result["source"]["tool_comparison"]
    reported = {(v["system"], v["score"]) for v in result["source"]["tool_values"]}
    assert {(c["system"], c["score"]) for c in found} == {
        (run, metric) for run, metric in reported if metric == "ndcg@10"
    }
    assert found
    for c in found:
        ours = result["runs"][c["system"]]["metrics"]["ndcg@10"]["mean"]
        assert c["estimate"] == pytest.approx(ours, abs=1e-12)
        assert abs(c["tool_value"] - ours) <= 5e-6  # the files' 5 decimals
        assert c["lower"] < ours < c["upper"]
        assert (
            "reports no uncertainty" in c["sentence"] and "rounded to 5 decimals" in c["sentence"]
        )
