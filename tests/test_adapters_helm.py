"""The HELM reader on files written with crfm-helm's own code (scripts/adapters/make_helm_fixture.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragstat.adapters import helm
from ragstat.adapters.base import ReadOptions
from ragstat.adapters.registry import detect, read_source
from ragstat.adapters.units import to_units
from ragstat.errors import InputError

ROOT = Path(__file__).parent / "fixtures" / "adapters"
HERE = ROOT / "helm"
ALPHA = HERE / "passages:model=mock_alpha"
BETA = HERE / "passages:model=mock_beta"


def _one_line(excinfo, *words: str) -> None:
    message = str(excinfo.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message


def test_reads_a_run():
    table = read_source(ALPHA / "per_instance_stats.json", "helm")
    assert table.tool == "HELM" and table.version is None
    assert table.scores == ("exact_match", "token_overlap")
    frame = table.frame
    assert len(frame) == 36 and set(frame["system"]) == {"mock/alpha"}
    assert set(frame["repeat"]) == {0, 1, 2} and frame["item_id"].nunique() == 12
    assert frame["meta_source_doc"].nunique() == 4 and set(frame["meta_split"]) == {"test"}


@pytest.mark.parametrize("path", [HERE, ALPHA, BETA / "per_instance_stats.json"])
def test_mean_equals_helms_reported_stat(path):
    table = read_source(path, "helm")
    units = to_units(table, cluster_by="source_doc")
    assert table.aggregates
    for key, reported in table.aggregates.items():
        system = next(s for s in ("mock/alpha", "mock/beta") if key.startswith(f"{s}/"))
        score = key[len(system) + 1 :]
        ours = units.frame.loc[units.frame["system"] == system, score].mean()
        assert abs(ours - reported) <= 1e-12, key
    if path == HERE:
        assert len(table.aggregates) == 4
        stats = json.loads((BETA / "stats.json").read_text())
        em = next(s for s in stats if s["name"] == {"name": "exact_match", "split": "test"})
        assert table.aggregates["mock/beta/exact_match"] == em["mean"]


def test_perturbations_and_splits_get_their_own_columns(tmp_path):
    entries = json.loads((ALPHA / "per_instance_stats.json").read_text())
    perturbed = []
    for entry in entries[:12]:
        copy = json.loads(json.dumps(entry))
        description = {"name": "typos", "robustness": True, "computed_on": "perturbed"}
        copy["perturbation"] = description
        for stat in copy["stats"]:
            stat["name"]["perturbation"] = description
        perturbed.append(copy)
    (tmp_path / "per_instance_stats.json").write_text(json.dumps(entries + perturbed))
    table = read_source(tmp_path / "per_instance_stats.json", "helm")
    assert table.scores == (
        "exact_match",
        "token_overlap",
        "exact_match#typos",
        "token_overlap#typos",
    )
    assert len(table.frame) == 36 and table.frame["exact_match#typos"].notna().sum() == 12
    assert set(table.frame["system"]) == {tmp_path.name}


def test_sniff():
    for path in (ALPHA / "per_instance_stats.json", ALPHA, HERE):
        assert helm.sniff(path)
        assert detect(path) == "helm"
    for name in ("stats.json", "run_spec.json", "scenario_state.json"):
        assert not helm.sniff(ALPHA / name)
    others = [p for p in ROOT.rglob("*") if p.is_file() and HERE not in p.parents]
    for path in others:
        assert not helm.sniff(path), path


def test_sniff_false_on_csv_and_never_raises(tmp_path):
    csv = tmp_path / "scores.csv"
    csv.write_text("item_id,score\nq1,1\n")
    assert not helm.sniff(csv)
    assert not helm.sniff(tmp_path / "absent.json")
    assert not helm.sniff(tmp_path)


def test_other_format_is_an_input_error(tmp_path):
    with pytest.raises(InputError) as excinfo:
        read_source(ALPHA / "stats.json", "helm")
    _one_line(excinfo, "stats.json", "not a HELM per_instance_stats.json")
    csv = tmp_path / "scores.csv"
    csv.write_text("item_id,score\nq1,1\n")
    with pytest.raises(InputError) as excinfo:
        read_source(csv, "helm")
    _one_line(excinfo, "scores.csv")
    with pytest.raises(InputError) as excinfo:
        read_source(tmp_path, "helm")
    _one_line(excinfo, "no HELM per_instance_stats.json")


def test_no_scores(tmp_path):
    entries = json.loads((ALPHA / "per_instance_stats.json").read_text())
    for entry in entries:
        entry["stats"] = []
    (tmp_path / "per_instance_stats.json").write_text(json.dumps(entries))
    with pytest.raises(InputError) as excinfo:
        read_source(tmp_path / "per_instance_stats.json", "helm")
    _one_line(excinfo, "per_instance_stats.json", "no scores")


def test_unknown_stat_shape(tmp_path):
    """HELM writes no version; a stat without ``name.name`` is a layout this reader does not know."""
    entries = json.loads((ALPHA / "per_instance_stats.json").read_text())
    entries[0]["stats"][0]["name"] = "exact_match"
    (tmp_path / "per_instance_stats.json").write_text(json.dumps(entries))
    with pytest.raises(InputError) as excinfo:
        read_source(tmp_path / "per_instance_stats.json", "helm")
    _one_line(excinfo, "per_instance_stats.json", "name.name")


def test_two_runs_of_one_model_are_named_by_run(tmp_path):
    shutil.copytree(ALPHA, tmp_path / "passages:model=mock_alpha")
    shutil.copytree(ALPHA, tmp_path / "passages:model=mock_alpha,seed=2")
    table = read_source(tmp_path, "helm")
    names = {"passages:model=mock_alpha", "passages:model=mock_alpha,seed=2"}
    assert set(table.frame["system"]) == names


def test_several_tasks_need_task(tmp_path):
    shutil.copytree(ALPHA, tmp_path / "passages:model=mock_alpha")
    shutil.copytree(
        ALPHA.parent / "passages:model=mock_beta", tmp_path / "passages:model=mock_beta"
    )
    shutil.copytree(ALPHA, tmp_path / "again:model=mock_alpha")
    with pytest.raises(
        InputError, match=r"2 HELM tasks \(again, passages\); choose one with --task"
    ):
        read_source(tmp_path, "helm")
    one = read_source(tmp_path, "helm", ReadOptions(task="passages"))
    both = read_source(ALPHA.parent, "helm")
    assert (
        one.frame.sort_values(["system", "item_id"])
        .reset_index(drop=True)
        .equals(both.frame.sort_values(["system", "item_id"]).reset_index(drop=True))
    )
    assert set(read_source(tmp_path, "helm", ReadOptions(task="again")).frame["system"]) == {
        "mock/alpha"
    }
    with pytest.raises(InputError, match=r"--task nope: .* tasks: again, passages"):
        read_source(tmp_path, "helm", ReadOptions(task="nope"))
