"""The inspect_ai reader on logs written by inspect itself (scripts/adapters/make_inspect_fixture.py).

inspect's clustered ``stderr(cluster=...)`` (``inspect_ai/scorer/_metrics/std.py``,
``_clustered_stderr``) is

    sqrt(C/(C−1) · Σ_c (Σ_{i∈c} (x_i − x̄))²) / n

over the epoch-reduced sample values x_i (n samples, C clusters). That is ragstat's
CR1, ``se_cr1(u, N)`` with u_d = s_d − R n_d: the same finite-cluster factor K/(K−1)
and no (N−1)/(N−p) factor (with only an intercept p = 1 it would be 1 anyway). The
difference between the two tools is the interval, not the SE: ragstat recommends CR2
with Bell–McCaffrey degrees of freedom, which is also checked to be finite here.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from ragstat.adapters import inspect_ai
from ragstat.adapters.registry import detect, read_source
from ragstat.adapters.units import to_units
from ragstat.errors import InputError
from ragstat.inference.variance import df_bell_mccaffrey, se_cr1, se_cr2

ROOT = Path(__file__).parent / "fixtures" / "adapters"
HERE = ROOT / "inspect"
EVAL, JSON = HERE / "eval", HERE / "json"
SCORES = ("includes_doc", "grade", "closeness", "parts.recall", "parts.precision")


def _other_fixtures() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*") if p.is_file() and HERE not in p.parents)


def _log(name: str) -> dict:
    return json.loads((JSON / f"{name}.json").read_text())


def test_reads_both_formats_alike():
    a = read_source(EVAL / "alpha.eval", "inspect")
    b = read_source(JSON / "alpha.json", "inspect")
    assert a.tool == "inspect_ai" and a.version == "0.3.285"
    assert a.scores == SCORES == b.scores
    cols = ["system", "item_id", "repeat", "meta_source_doc", *SCORES]
    left = a.frame[cols].sort_values(["item_id", "repeat"]).reset_index(drop=True)
    right = b.frame[cols].sort_values(["item_id", "repeat"]).reset_index(drop=True)
    assert left.equals(right)
    assert len(left) == 36 and set(left["repeat"]) == {1, 2, 3}
    assert left["item_id"].nunique() == 12 and left["meta_source_doc"].nunique() == 4


def test_folder_gives_one_system_per_model():
    table = read_source(EVAL)
    assert sorted(table.frame["system"].unique()) == ["mockllm/alpha", "mockllm/beta"]
    assert len(table.frame) == 72


def test_letter_grades_map_as_inspect_does():
    assert [inspect_ai.value_to_float(v) for v in "CIPN"] == [1.0, 0.0, 0.5, 0.0]
    assert inspect_ai.value_to_float(True) == 1.0 and inspect_ai.value_to_float("yes") == 1.0
    assert inspect_ai.value_to_float("0.25") == 0.25 and inspect_ai.value_to_float("x") == 0.0
    table = read_source(JSON / "alpha.json", "inspect")
    raw = {
        (str(s["id"]), s["epoch"]): s["scores"]["grade"]["value"] for s in _log("alpha")["samples"]
    }
    mapped = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
    assert set(raw.values()) == set(mapped)
    for row in table.frame.itertuples():
        assert row.grade == mapped[raw[(row.item_id, row.repeat)]]


@pytest.mark.parametrize("path", [EVAL, JSON])
def test_mean_equals_inspects_reported_metric(path):
    table = read_source(path, "inspect")
    units = to_units(table, cluster_by="source_doc")
    assert len(table.aggregates) == 10
    for key, reported in table.aggregates.items():
        system, score = key.rsplit("/", 1)
        ours = units.frame.loc[units.frame["system"] == system, score].mean()
        assert abs(ours - reported) <= 1e-12, key
    # and against the file itself, not only the reader's copy
    reported = _log("beta")["results"]["scores"]
    accuracy = next(s for s in reported if s["name"] == "includes_doc")["metrics"]["accuracy"]
    assert table.aggregates["mockllm/beta/includes_doc"] == accuracy["value"]


def _documents(units, system: str, score: str) -> tuple[np.ndarray, np.ndarray]:
    rows = units.frame[units.frame["system"] == system]
    grouped = rows.groupby("doc_id")[score]
    return grouped.count().to_numpy(float), grouped.sum().to_numpy(float)


def test_inspects_clustered_stderr_is_cr1():
    units = to_units(read_source(JSON, "inspect"), cluster_by="source_doc")
    checked = 0
    for name in ("alpha", "beta"):
        for entry in _log(name)["results"]["scores"]:
            stderr = entry["metrics"].get("stderr")
            if not stderr or stderr["params"].get("cluster") != "source_doc":
                continue
            n, s = _documents(units, f"mockllm/{name}", entry["name"])
            u = s - s.sum() / n.sum() * n
            assert abs(se_cr1(u, n.sum()) - stderr["value"]) <= 1e-12, (name, entry["name"])
            # unequal documents (5, 3, 2, 2 samples): CR2 is not CR1 here
            assert abs(se_cr2(u, n) - stderr["value"]) > 1e-6
            assert 1 < df_bell_mccaffrey(n) < len(n) - 1
            checked += 1
    assert checked == 6


def test_sniff():
    for path in (EVAL / "alpha.eval", JSON / "beta.json", EVAL):
        assert inspect_ai.sniff(path)
        assert detect(path) == "inspect"
    for path in _other_fixtures():
        assert not inspect_ai.sniff(path), path


def test_sniff_false_on_csv_and_never_raises(tmp_path):
    csv = tmp_path / "scores.csv"
    csv.write_text("item_id,score\nq1,1\n")
    assert not inspect_ai.sniff(csv)
    assert not inspect_ai.sniff(tmp_path / "absent.eval")
    (tmp_path / "bad.eval").write_bytes(b"PK\x03\x04 not really")
    assert not inspect_ai.sniff(tmp_path / "bad.eval")


def _one_line(excinfo, *words: str) -> None:
    message = str(excinfo.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message


def test_other_format_is_an_input_error(tmp_path):
    csv = tmp_path / "scores.csv"
    csv.write_text("item_id,score\nq1,1\n")
    with pytest.raises(InputError) as excinfo:
        read_source(csv, "inspect")
    _one_line(excinfo, "scores.csv")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"results": {"acc": 1.0}}))
    with pytest.raises(InputError) as excinfo:
        read_source(other, "inspect")
    _one_line(excinfo, "other.json", "not an inspect_ai log")


def test_no_scores_and_no_samples(tmp_path):
    log = _log("alpha")
    for sample in log["samples"]:
        sample["scores"] = {}
    (tmp_path / "unscored.json").write_text(json.dumps(log))
    with pytest.raises(InputError) as excinfo:
        read_source(tmp_path / "unscored.json", "inspect")
    _one_line(excinfo, "unscored.json", "no scores")
    log["samples"] = []
    (tmp_path / "empty.json").write_text(json.dumps(log))
    with pytest.raises(InputError) as excinfo:
        read_source(tmp_path / "empty.json", "inspect")
    _one_line(excinfo, "empty.json", "no samples")


def test_unsupported_version(tmp_path):
    log = _log("alpha")
    log["version"] = 99
    (tmp_path / "future.json").write_text(json.dumps(log))
    with pytest.raises(InputError) as excinfo:
        read_source(tmp_path / "future.json", "inspect")
    _one_line(excinfo, "future.json", "version 99")


def test_eval_archive_without_header(tmp_path):
    bad = tmp_path / "bad.eval"
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(InputError) as excinfo:
        read_source(bad, "inspect")
    _one_line(excinfo, "bad.eval", "header.json")


def test_same_log_twice_in_a_folder_is_read_once(tmp_path):
    shutil.copy(EVAL / "alpha.eval", tmp_path / "a.eval")
    shutil.copy(JSON / "alpha.json", tmp_path / "a.json")
    table = read_source(tmp_path, "inspect")
    assert len(table.frame) == 36
    assert any("skipped" in note for note in table.notes)
