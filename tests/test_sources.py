"""Other tools' files through the verbs: ``read_source`` → interval / compare / evaluate /
gate, and the ``--from`` command line (one line and exit 2 on bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ragstat
from ragstat.api.sources import Source, read_source, resolve_input
from ragstat.cli import main
from ragstat.errors import InputError
from ragstat.inference.variance import se_cr1

ADAPTERS = Path(__file__).parent / "fixtures" / "adapters"
INSPECT = ADAPTERS / "inspect" / "eval"
PROMPTFOO = ADAPTERS / "promptfoo" / "results.json"
RANX = ADAPTERS / "ranx" / "run"
FAST = {"bootstrap_reps": 199, "seed": 3}


def test_inspect_log_interval_is_clustered_by_the_named_field_and_names_the_tool():
    logs = read_source(INSPECT, "inspect", cluster_by="source_doc")
    assert isinstance(logs, Source)
    report = ragstat.interval(logs, score="grade", system="mockllm/alpha", **FAST)
    assert report.K == 4 and report.N == 12  # 12 samples from 4 documents, epochs averaged
    alpha = logs.frame[logs.frame["system"] == "mockllm/alpha"]
    assert report.estimands["micro"].estimate == pytest.approx(alpha["grade"].mean(), abs=1e-15)
    source = report.to_dict()["source"]
    assert source["tool"] == "inspect_ai" and source["version"] == "0.3.285"
    assert source["documents"] == 4 and not source["independent"]
    # the repeats' variance components ride along, one per system × score
    assert {(r["system"], r["score"]) for r in source["repeats"]} >= {("mockllm/alpha", "grade")}


def test_inspect_clustered_se_is_cr1_on_the_item_means():
    logs = read_source(INSPECT, "inspect", cluster_by="source_doc")
    alpha = logs.frame[logs.frame["system"] == "mockllm/alpha"]
    x = alpha["grade"].to_numpy(float)
    docs = alpha["doc_id"].to_numpy()
    u = np.array([(x[docs == d] - x.mean()).sum() for d in np.unique(docs)])
    reported = logs.info.tool_value("mockllm/alpha", "grade")
    assert reported.se_method == "cr1" and reported.cluster == "source_doc"
    assert abs(se_cr1(u, len(x)) - reported.se) <= 1e-12  # the log's own value


def test_two_systems_in_one_file_are_compared_paired_by_item():
    logs = read_source(INSPECT, "inspect", cluster_by="source_doc")
    result = ragstat.compare(logs, score="grade", **FAST)
    assert result.systems == ("mockllm/alpha", "mockllm/beta")
    assert result.to_dict()["source"]["tool"] == "inspect_ai"
    assert result.report.K == 4


def test_without_a_cluster_items_are_independent_and_the_output_says_so():
    results = read_source(PROMPTFOO)  # detected
    assert results.info.tool == "promptfoo" and results.info.independent
    assert any("independent" in n for n in results.info.notes)
    assert (results.frame["doc_id"] == results.frame["query_id"]).all()


def test_missing_cluster_values_are_counted_or_refused():
    grouped = read_source(PROMPTFOO, cluster_by="vars.source_doc")
    assert (grouped.info.documents, grouped.info.excluded) == (3, 0)
    assert grouped.frame["doc_id"].str.startswith("doc-").all()
    with pytest.raises(InputError, match="no such field"):
        read_source(PROMPTFOO, cluster_by="vars.sorce_doc")


def test_ranx_folder_feeds_evaluate_and_matches_ranx():
    runs = read_source(RANX, "ranx")
    report = ragstat.evaluate(runs, metrics="ndcg@10", **FAST)
    expected = json.loads((ADAPTERS / "ranx" / "expected.json").read_text())
    for run in ("bm25", "dense"):
        mean = report.runs[run].metrics["ndcg@10"].mean
        assert mean == pytest.approx(expected[run]["ndcg@10"], abs=1e-12)
    assert report.to_dict()["source"]["tool"] == "ranx"
    assert runs.info.sentence().startswith("Read 12 queries from ranx")


def test_a_score_file_is_not_qrels_and_a_ranx_folder_is_not_scores():
    with pytest.raises(InputError, match="not qrels and runs"):
        ragstat.evaluate(read_source(PROMPTFOO, "promptfoo"))
    with pytest.raises(InputError, match="holds its runs already"):
        ragstat.evaluate(read_source(RANX, "ranx"), {"q": {"d": 1.0}})


def test_plain_tables_pass_through_and_cluster_options_need_another_tools_file(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("query_id,doc_id,hit\nq1,d1,1\nq2,d2,0\n")
    assert resolve_input(table) == table
    with pytest.raises(InputError, match="--cluster-by and --cluster-rule apply"):
        resolve_input(table, cluster_by="doc")
    with pytest.raises(InputError, match="unknown format"):
        read_source(table, "nope")


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_interval_from_inspect_equals_the_twin(capsys):
    args = [str(INSPECT), "--from", "inspect", "--cluster-by", "source_doc"]
    args += ["--system", "mockllm/alpha", "--score", "grade", "--bootstrap-reps", "199"]
    code, out, err = _cli(["interval", *args, "--seed", "3", "--json"], capsys)
    assert code == 0, err
    printed = json.loads(out)
    logs = read_source(INSPECT, "inspect", cluster_by="source_doc")
    twin = ragstat.interval(logs, score="grade", system="mockllm/alpha", **FAST).to_dict()
    assert printed == json.loads(json.dumps(twin))
    code, out, err = _cli(["interval", *args, "--seed", "3"], capsys)
    assert code == 0 and "inspect_ai 0.3.285" in out and "Repeats: 3 per item" in out


def test_cli_compare_and_evaluate_from_other_tools(capsys):
    code, out, err = _cli(
        ["compare", str(PROMPTFOO), "--cluster-by", "vars.source_doc", "--score", "pass",
         "--bootstrap-reps", "199", "--seed", "3", "--json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["source"]["tool"] == "promptfoo"
    code, out, err = _cli(
        ["evaluate", str(RANX), "--from", "ranx", "--metrics", "ndcg@10",
         "--bootstrap-reps", "199", "--seed", "3", "--json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["source"]["format"] == "ranx"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["interval", str(PROMPTFOO), "--from", "inspect"], "inspect"),
        (["interval", str(PROMPTFOO), "--from", "nope"], "unknown format"),
        (["interval", str(PROMPTFOO), "--cluster-by", "vars.nothing"], "no such field"),
        (["interval", str(PROMPTFOO), "--cluster-rule", "sideways"], "--cluster-rule"),
        (["evaluate", str(PROMPTFOO), "--from", "promptfoo"], "not qrels and runs"),
        (["evaluate"], "--qrels"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args, message, capsys):
    code, _out, err = _cli(args, capsys)
    assert code == 2
    assert message in err and err.count("\n") == 1


def test_missing_cluster_error_mode_counts_the_items(tmp_path, capsys):
    data = json.loads(PROMPTFOO.read_text())
    for row in data["results"]["results"][:2]:
        row["vars"].pop("source_doc", None)
        row.get("testCase", {}).get("vars", {}).pop("source_doc", None)
    broken = tmp_path / "results.json"
    broken.write_text(json.dumps(data))
    kept = read_source(broken, "promptfoo", cluster_by="vars.source_doc")
    assert kept.info.excluded >= 1
    assert any("excluded" in n for n in kept.info.notes)
    code, _, err = _cli(
        ["interval", str(broken), "--cluster-by", "vars.source_doc", "--missing-cluster", "error",
         "--system", "echo / short", "--score", "pass"],
        capsys,
    )  # fmt: skip
    assert code == 2 and "have no" in err


def test_gate_reads_another_tools_file_and_names_it(tmp_path):
    gates = tmp_path / "gates.toml"
    gates.write_text(
        f"""
seed = 3
bootstrap_reps = 199
[inputs.candidate]
path = "{PROMPTFOO.as_posix()}"
from = "promptfoo"
cluster_by = "vars.source_doc"
system = "echo / short"
[[gates]]
name = "pass rate"
metric = "pass"
kind = "at_least"
threshold = 0.0
"""
    )
    report = ragstat.gate(gates)
    # 3 documents: no headline interval, so the gate fails for missing evidence (never a pass)
    g = report.gates[0]
    assert g.K == 3 and g.outcome == "fail" and g.p_value is None
    assert "the data cannot support an interval" in g.decision.reason
    assert any("promptfoo" in w for w in report.warnings)
