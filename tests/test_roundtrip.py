"""Other tools' files used as people use them (issue 30, round trip): two files compared
with --from, folders of runs, --task, inspect reruns, bookkeeping columns, ranx folders
and the messages. Each test reproduced a breakage first."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest

import ragstat
from cli_run import cli

ROOT = Path(__file__).parent / "fixtures" / "adapters"
EVAL = ROOT / "inspect" / "eval"
FAST = ["--bootstrap-reps", "199", "--permutation-reps", "199", "--seed", "3"]
FAST_PY = {"bootstrap_reps": 199, "permutation_reps": 199, "seed": 3}


def _json(capsys, *args: object) -> dict:
    code, out, err = cli(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def _ci(result: dict) -> tuple[float, float, float]:
    micro = result["estimands"]["micro"]
    best = micro["recommended"]
    row = next(i for i in micro["intervals"] if i["method"] == best)
    return micro["estimate"], row["lower"], row["upper"]


# ---------------------------------------------------------------------------- two files


def test_two_inspect_logs_compare_like_the_folder_and_like_python(capsys):
    common = ["--from", "inspect", "--cluster-by", "source_doc", "--score", "grade", *FAST]
    two = _json(capsys, "compare", EVAL / "alpha.eval", EVAL / "beta.eval", *common)
    folder = _json(capsys, "compare", EVAL, *common, "--systems", "mockllm/alpha,mockllm/beta")
    assert two["paired"]["systems"] == ["mockllm/alpha", "mockllm/beta"]
    assert two["paired"]["pairing"]["matched"] == 12
    assert _ci(two) == pytest.approx(_ci(folder), abs=1e-12)
    a = ragstat.read_source(EVAL / "alpha.eval", "inspect", cluster_by="source_doc")
    b = ragstat.read_source(EVAL / "beta.eval", "inspect", cluster_by="source_doc")
    twin = ragstat.compare(a, b, score="grade", **FAST_PY).to_dict()
    assert json.loads(json.dumps(twin)) == two
    # the difference by hand: the mean over items of (alpha − beta) item means
    fa, fb = (s.frame.set_index("query_id")["grade"] for s in (a, b))
    assert two["estimands"]["micro"]["estimate"] == pytest.approx((fa - fb).mean(), abs=1e-12)
    code, out, err = cli(capsys, "compare", EVAL / "alpha.eval", EVAL / "beta.eval", *common)
    assert code == 0, err
    assert "mockllm/alpha and mockllm/beta cannot be told apart on grade" in out


def test_from_b_reads_b_as_its_own_format(capsys):
    beta_json = ROOT / "inspect" / "json" / "beta.json"
    common = ["--cluster-by", "source_doc", "--score", "grade", *FAST]
    mixed = _json(
        capsys, "compare", EVAL / "alpha.eval", beta_json, "--from", "inspect",
        "--from-b", "inspect", *common,
    )  # fmt: skip
    same = _json(
        capsys, "compare", EVAL / "alpha.eval", EVAL / "beta.eval", "--from", "inspect", *common
    )
    assert _ci(mixed) == pytest.approx(_ci(same), abs=1e-12)


@pytest.mark.parametrize(
    ("fmt", "a", "b", "extra", "systems"),
    [
        ("deepeval", "deepeval/bm25.json", "deepeval/dense.json", ["--score", "pass"],
         ["bm25", "dense"]),
        ("ragas", "ragas/bm25.csv", "ragas/dense.csv",
         ["--score", "id_based_context_recall", "--cluster-rule", "first-reference"],
         ["bm25", "dense"]),
        ("lm-eval", "lm_eval/dummy-a", "lm_eval/dummy-b",
         ["--task", "passages_mc", "--score", "acc", "--cluster-by", "doc.source_doc"],
         ["dummy-a", "dummy-b"]),
        ("ragchecker", "ragchecker/bm25.json", "ragchecker/dense.json",
         ["--score", "recall", "--cluster-rule", "first-reference"], ["bm25", "dense"]),
    ],
)  # fmt: skip
def test_two_runs_of_a_tool_compare_paired_by_item(capsys, fmt, a, b, extra, systems):
    args = [ROOT / a, ROOT / b, "--from", fmt, *extra, *FAST]
    result = _json(capsys, "compare", *args)
    assert result["paired"]["systems"] == systems
    score = extra[extra.index("--score") + 1]
    cluster = {"cluster_by": "doc.source_doc"} if fmt == "lm-eval" else {}
    task = {"task": "passages_mc"} if fmt == "lm-eval" else {}
    assert result["source"]["tool"] == ragstat.read_source(ROOT / a, fmt, **task).info.tool
    if "--cluster-rule" in extra:
        cluster = {"cluster_rule": "first-reference"}
    fa, fb = (
        ragstat.read_source(ROOT / p, fmt, **cluster, **task).frame.set_index("query_id")[score]
        for p in (a, b)
    )
    assert result["estimands"]["micro"]["estimate"] == pytest.approx((fa - fb).mean(), abs=1e-12)
    code, out, err = cli(capsys, "compare", *args)
    assert code == 0 and f"{systems[0]} " in out and "For a random query" in out, err


def test_two_promptfoo_files_pick_a_system_of_each(tmp_path, capsys):
    src = ROOT / "promptfoo" / "results.json"
    shutil.copy(src, tmp_path / "monday.json")
    shutil.copy(src, tmp_path / "tuesday.json")
    common = ["--from", "promptfoo", "--cluster-by", "vars.source_doc", "--score", "score", *FAST]
    two = _json(
        capsys, "compare", tmp_path / "monday.json", tmp_path / "tuesday.json", *common,
        "--systems", "echo / long,echo / short",
    )  # fmt: skip
    one = _json(capsys, "compare", src, *common, "--systems", "echo / long,echo / short")
    assert two["estimands"]["micro"]["estimate"] == one["estimands"]["micro"]["estimate"]
    code, _out, err = cli(capsys, "compare", tmp_path / "monday.json", tmp_path / "tuesday.json",
                          *common)  # fmt: skip
    assert code == 2 and "2 systems" in err and "--systems A,B" in err
    same = _json(
        capsys, "compare", tmp_path / "monday.json", tmp_path / "tuesday.json", *common,
        "--systems", "echo / long,echo / long",
    )  # fmt: skip
    assert same["paired"]["systems"] == ["echo / long (monday)", "echo / long (tuesday)"]
    assert same["estimands"]["micro"]["estimate"] == 0


def test_a_folder_of_single_file_runs_compares_by_system(tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    for name in ("bm25.json", "dense.json", "expected.json"):
        shutil.copy(ROOT / "deepeval" / name, folder / name)
    source = ragstat.read_source(folder, "deepeval")
    assert sorted(source.frame["system"].unique()) == ["bm25", "dense"]
    assert any("expected.json" in n for n in source.info.notes)
    common = ["--score", "pass", *FAST]
    by_folder = _json(capsys, "compare", folder, "--from", "deepeval", "--systems", "bm25,dense",
                      *common)  # fmt: skip
    by_files = _json(capsys, "compare", folder / "bm25.json", folder / "dense.json",
                     "--from", "deepeval", *common)  # fmt: skip
    assert _ci(by_folder) == pytest.approx(_ci(by_files), abs=1e-12)
    shutil.copy(ROOT / "deepeval" / "bm25.json", folder / "bm25-again.json")
    code, _out, err = cli(capsys, "interval", folder, "--from", "deepeval", "--score", "pass")
    assert code == 2 and "system 'bm25' is in two files" in err


# ---------------------------------------------------------------------------- --task


def test_lm_eval_folder_with_two_tasks(capsys):
    folder = ROOT / "lm_eval"
    code, _out, err = cli(capsys, "interval", folder, "--from", "lm-eval", "--system", "dummy-a")
    assert code == 2 and "2 lm-eval tasks (passages_gen, passages_mc)" in err
    code, _out, err = cli(
        capsys, "interval", folder, "--from", "lm-eval", "--system", "dummy-a", "--score", "acc"
    )
    assert code == 2 and "only passages_mc has the score acc: add --task passages_mc" in err
    result = _json(
        capsys, "interval", folder, "--from", "lm-eval", "--task", "passages_mc",
        "--system", "dummy-a", "--score", "acc", "--cluster-by", "doc.source_doc", *FAST[:2],
        "--seed", "3",
    )  # fmt: skip
    results = json.loads(next((folder / "dummy-a").glob("results_*.json")).read_text())["results"]
    assert result["estimands"]["micro"]["estimate"] == pytest.approx(
        results["passages_mc"]["acc,none"], abs=1e-12
    )
    code, _out, err = cli(capsys, "interval", EVAL, "--from", "inspect", "--task", "x")
    assert code == 2 and "--task applies to helm, lm-eval files, not to inspect" in err


# ---------------------------------------------------------------------------- reruns


def _rerun(tmp_path: Path) -> Path:
    """alpha.json and a later rerun of the same task and model (new eval id, time, scores)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    log = json.loads((ROOT / "inspect" / "json" / "alpha.json").read_text())
    (folder / "2026-12-01_alpha.json").write_text(json.dumps(log))
    log["eval"]["eval_id"] = "rerun-0000000000000001"
    log["eval"]["created"] = "2026-12-02T09:00:00+00:00"
    for sample in log["samples"]:
        sample["scores"]["grade"]["value"] = "C"
    (folder / "2026-12-02_alpha.json").write_text(json.dumps(log))
    return folder


def test_inspect_reruns_latest_by_default_all_runs_pools_them(tmp_path, capsys):
    folder = _rerun(tmp_path)
    latest = ragstat.read_source(folder, "inspect")
    assert latest.frame["grade"].eq(1.0).all()  # the rerun, where every grade is C
    note = next(n for n in latest.info.notes if "2 runs" in n)
    assert "2026-12-02_alpha.json" in note and "left out 2026-12-01_alpha.json" in note
    pooled = ragstat.read_source(folder, "inspect", all_runs=True)
    first = ragstat.read_source(ROOT / "inspect" / "json" / "alpha.json", "inspect")
    assert (pooled.frame["meta_n_repeats"] == 2 * first.frame["meta_n_repeats"]).all()
    by_hand = (first.frame.set_index("query_id")["grade"] + 1.0) / 2
    assert pooled.frame.set_index("query_id")["grade"].to_dict() == pytest.approx(
        by_hand.to_dict(), abs=1e-12
    )
    code, out, err = cli(capsys, "interval", folder, "--from", "inspect", "--score", "grade",
                         "--all-runs", *FAST[:2], "--seed", "3")  # fmt: skip
    assert code == 0 and "pooled as repeats" in out, err


# ---------------------------------------------------------------------------- bookkeeping


def test_pandas_index_and_n_repeats_are_never_scores(tmp_path, capsys):
    frame = pd.read_csv(ROOT / "ragas" / "bm25.csv")
    keep = [*[c for c in frame.columns if c != "exact_match"][:7], "id_based_context_recall"]
    path = tmp_path / "bm25.csv"
    frame[keep].to_csv(path)  # pandas' default: the row index as an unnamed first column
    assert pd.read_csv(path).columns[0] == "Unnamed: 0"
    source = ragstat.read_source(path, "ragas")
    assert source.scores == ("id_based_context_recall",)
    assert "Unnamed: 0" not in " ".join(source.frame.columns)
    result = _json(capsys, "interval", path, "--from", "ragas", *FAST[:2], "--seed", "3")
    assert result["score"] == "id_based_context_recall"
    assert result["estimands"]["micro"]["estimate"] == pytest.approx(
        frame["id_based_context_recall"].mean(), abs=1e-12
    )
    log = EVAL / "alpha.eval"  # several scores and repeats: n_repeats is not among them
    code, _out, err = cli(capsys, "interval", log, "--from", "inspect")
    assert code == 2 and "several score columns" in err and "n_repeats" not in err


# ---------------------------------------------------------------------------- promptfoo


def test_promptfoo_test_metadata_is_a_field(tmp_path):
    data = json.loads((ROOT / "promptfoo" / "results.json").read_text())
    for result in data["results"]["results"]:
        result["testCase"]["metadata"] = {"source_doc": result["vars"]["source_doc"]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    by_meta = ragstat.read_source(path, "promptfoo", cluster_by="metadata.source_doc")
    by_vars = ragstat.read_source(path, "promptfoo", cluster_by="vars.source_doc")
    assert by_meta.frame["doc_id"].tolist() == by_vars.frame["doc_id"].tolist()
    assert "meta_metadata.source_doc" in by_meta.frame.columns


# ---------------------------------------------------------------------------- runs


def test_interval_on_a_ranx_run_points_to_evaluate(capsys):
    code, _out, err = cli(capsys, "interval", ROOT / "ranx" / "run", "--from", "ranx")
    assert code == 2 and "not per-item scores" in err and "ragstat evaluate" in err
    assert "no rows" not in err


def test_evaluate_with_a_cluster_mapping_says_how_it_clustered(tmp_path, capsys):
    runs = ROOT / "ranx" / "run"
    qrels = json.loads((runs / "qrels.json").read_text())
    mapping = tmp_path / "clusters.csv"
    rows = [(q, f"topic-{i % 5}") for i, q in enumerate(sorted(qrels))]
    mapping.write_text("query_id,cluster\n" + "".join(f"{q},{c}\n" for q, c in rows))
    result = _json(capsys, "evaluate", runs, "--from", "ranx", "--cluster-by", mapping,
                   "--metrics", "ndcg@10", *FAST[:2], "--seed", "3")  # fmt: skip
    source = result["source"]
    assert source["independent"] is False and source["documents"] == 5
    code, out, err = cli(capsys, "evaluate", runs, "--from", "ranx", "--cluster-by", mapping,
                         "--metrics", "ndcg@10", *FAST[:2], "--seed", "3")  # fmt: skip
    assert code == 0 and "independent" not in out.splitlines()[0] and "5 clusters" in out, err


def test_evaluate_names_ranx_files_explicitly(tmp_path, capsys):
    folder = tmp_path / "eval"
    folder.mkdir()
    runs = ROOT / "ranx" / "run"
    shutil.copy(runs / "qrels.json", folder / "gold.json")
    shutil.copy(runs / "bm25.json", folder / "bm25.json")
    (folder / "settings.json").write_text('{"k": 10}')
    result = _json(capsys, "evaluate", folder, "--from", "ranx", "--qrels", "gold.json",
                   "--run", "bm25.json", "--metrics", "ndcg@10", *FAST[:2], "--seed", "3")  # fmt: skip
    plain = _json(capsys, "evaluate", runs, "--from", "ranx", "--metrics", "ndcg@10",
                  *FAST[:2], "--seed", "3")  # fmt: skip
    ours = result["metrics"]["ndcg@10"]["mean"]  # one run: its metrics at the top level
    theirs = plain["runs"]["bm25"]["metrics"]["ndcg@10"]["mean"]
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert any("settings.json" in n for n in result["source"]["notes"])


def test_mteb_results_json_that_is_not_one_is_named(tmp_path):
    folder = tmp_path / "tiny"
    shutil.copytree(ROOT / "mteb" / "tiny", folder)
    (folder / "hash-bow" / "TinyRetrieval.json").write_text('{"something": "else"}')
    source = ragstat.read_source(folder, "mteb")
    assert any("TinyRetrieval.json" in n and "not MTEB's results" in n for n in source.info.notes)


def test_inspect_eval_fixture_is_a_zip():  # the two-file tests read real .eval archives
    assert zipfile.is_zipfile(EVAL / "alpha.eval") and zipfile.is_zipfile(EVAL / "beta.eval")
