"""The lm-evaluation-harness reader on files lm-eval wrote (scripts/adapters/make_lm_eval_fixture.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragstat.adapters import lm_eval
from ragstat.adapters.base import ReadOptions
from ragstat.adapters.registry import detect, read_source
from ragstat.adapters.units import to_units
from ragstat.errors import InputError

ROOT = Path(__file__).parent / "fixtures" / "adapters"
HERE = ROOT / "lm_eval"
DATE = "2026-01-01T00-00-00.000000"
MC = HERE / "dummy-a" / f"samples_passages_mc_{DATE}.jsonl"
GEN = HERE / "dummy-b" / f"samples_passages_gen_{DATE}.jsonl"


def _results(model: str) -> dict:
    return json.loads((HERE / model / f"results_{DATE}.json").read_text())


def _one_line(excinfo, *words: str) -> None:
    message = str(excinfo.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message


def test_reads_one_samples_file():
    table = read_source(MC, "lm-eval")
    assert table.tool == "lm-evaluation-harness" and table.version == "0.4.13"
    assert table.scores == ("acc", "acc_norm")
    frame = table.frame
    assert len(frame) == 12 and set(frame["system"]) == {"dummy-a"}
    assert list(frame["item_id"]) == [str(i) for i in range(12)]
    assert set(frame["repeat"]) == {0}
    assert frame["meta_doc.source_doc"].nunique() == 4
    assert frame["meta_doc.qid"].iloc[0] == "q01" and frame["meta_doc_hash"].notna().all()


def test_filters_become_their_own_scores():
    table = read_source(GEN, "lm-eval")
    assert table.scores == ("exact_match", "exact_match,upper")
    lines = [json.loads(line) for line in GEN.read_text().splitlines()]
    upper = {str(r["doc_id"]): r["exact_match"] for r in lines if r["filter"] == "upper"}
    assert table.frame.set_index("item_id")["exact_match,upper"].to_dict() == upper
    assert not table.frame["exact_match"].equals(table.frame["exact_match,upper"])


@pytest.mark.parametrize(
    ("path", "task"),
    [(HERE, "passages_mc"), (HERE, "passages_gen"), (MC, None), (GEN, None),
     (HERE / "dummy-b", "passages_mc")],
)  # fmt: skip
def test_mean_equals_lm_evals_reported_metric(path, task):
    table = read_source(path, "lm-eval", ReadOptions(task=task))
    units = to_units(table, cluster_by="doc.source_doc")
    assert table.aggregates
    for key, reported in table.aggregates.items():
        system = next(s for s in ("dummy-a", "dummy-b") if key.startswith(f"{s}/"))
        score = key[len(system) + 1 :]
        ours = units.frame.loc[units.frame["system"] == system, score].mean()
        assert abs(ours - reported) <= 1e-12, key
    # the folder gives every model of the task, and the values are the results file's own
    if path == HERE:
        results = _results("dummy-b")["results"]
        if task == "passages_mc":
            assert len(table.aggregates) == 4
            assert table.aggregates["dummy-b/acc"] == results["passages_mc"]["acc,none"]
        else:
            upper = results["passages_gen"]["exact_match,upper"]
            assert table.aggregates["dummy-b/exact_match,upper"] == upper


def test_several_tasks_need_task():
    with pytest.raises(InputError) as err:
        read_source(HERE, "lm-eval")
    assert str(err.value).endswith(
        "2 lm-eval tasks (passages_gen, passages_mc); choose one with --task NAME"
    )
    with pytest.raises(
        InputError, match="only passages_mc has the score acc: add --task passages_mc"
    ):
        read_source(HERE, "lm-eval", ReadOptions(score="acc"))
    with pytest.raises(InputError, match=r"--task nope: .* tasks: passages_gen, passages_mc"):
        read_source(HERE, "lm-eval", ReadOptions(task="nope"))
    mc = read_source(HERE, "lm-eval", ReadOptions(task="passages_mc"))
    assert set(mc.frame["meta_task"]) == {"passages_mc"} and len(mc.frame) == 24
    one = read_source(MC, "lm-eval")  # a model's own file: the same rows as in the folder
    ours = mc.frame[mc.frame["system"] == "dummy-a"].reset_index(drop=True)
    assert ours[list(one.scores)].equals(one.frame[list(one.scores)])


def test_system_falls_back_to_the_folder_name(tmp_path):
    folder = tmp_path / "my-model"
    folder.mkdir()
    shutil.copy(MC, folder / MC.name)
    table = read_source(folder / MC.name, "lm-eval")
    assert set(table.frame["system"]) == {"my-model"}
    assert table.version is None and table.aggregates == {}


def test_sniff():
    for path in (MC, GEN, HERE, HERE / "dummy-a"):
        assert lm_eval.sniff(path)
        assert detect(path) == "lm-eval"
    assert not lm_eval.sniff(HERE / "dummy-a" / f"results_{DATE}.json")
    others = [p for p in ROOT.rglob("*") if p.is_file() and HERE not in p.parents]
    for path in others:
        assert not lm_eval.sniff(path), path


def test_sniff_false_on_csv_and_never_raises(tmp_path):
    csv = tmp_path / "scores.csv"
    csv.write_text("item_id,score\nq1,1\n")
    assert not lm_eval.sniff(csv)
    (tmp_path / "x.jsonl").write_bytes(b"\xff\xfe not json")
    assert not lm_eval.sniff(tmp_path / "x.jsonl")
    assert not lm_eval.sniff(tmp_path / "absent.jsonl")


def test_other_format_is_an_input_error(tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"question": "q", "answer": "a"}) + "\n")
    with pytest.raises(InputError) as excinfo:
        read_source(other, "lm-eval")
    _one_line(excinfo, "other.jsonl", "not an lm-eval sample")
    csv = tmp_path / "scores.csv"
    csv.write_text("item_id,score\nq1,1\n")
    with pytest.raises(InputError) as excinfo:
        read_source(csv, "lm-eval")
    _one_line(excinfo, "scores.csv")


def test_no_scores(tmp_path):
    lines = [json.loads(line) for line in MC.read_text().splitlines()]
    for line in lines:
        line["metrics"] = []
    bare = tmp_path / MC.name
    bare.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(InputError) as excinfo:
        read_source(bare, "lm-eval")
    _one_line(excinfo, MC.name, "no per-document scores")


def test_unsupported_version(tmp_path):
    folder = tmp_path / "dummy-a"
    shutil.copytree(HERE / "dummy-a", folder)
    results = _results("dummy-a")
    results["lm_eval_version"] = "0.3.0"
    (folder / f"results_{DATE}.json").write_text(json.dumps(results))
    with pytest.raises(InputError) as excinfo:
        read_source(folder / MC.name, "lm-eval")
    _one_line(excinfo, "results_", "version 0.3.0")


def test_corpus_level_metric_is_left_out_with_a_note(tmp_path):
    lines = [json.loads(line) for line in MC.read_text().splitlines()]
    for line in lines:
        line["metrics"].append("bleu")
        line["bleu"] = [["ref"], ["pred"]]
    path = tmp_path / MC.name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    table = read_source(path, "lm-eval")
    assert table.scores == ("acc", "acc_norm")
    assert any("bleu" in note for note in table.notes)
