"""Designs through the CLI: the R-checked numbers end to end, and design errors exit 2."""

import json
from pathlib import Path

import pandas as pd
import pytest

from ragstat.cli import main

REF = Path(__file__).parent / "reference"
DATA = REF / "data_designs"
R = json.loads((REF / "r_designs.json").read_text())["datasets"]


def _run(capsys, *args):
    code = main([str(a) for a in args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_interval_stratified_equals_survey(capsys):
    ref = R["a_stratified_binary"]
    code, out, _ = _run(
        capsys,
        "interval",
        DATA / ref["file"],
        "--cluster",
        "doc",
        "--score",
        "y",
        "--design",
        "stratified",
        "--strata",
        "stratum",
        "--population-file",
        DATA / ref["population_file"],
        "--json",
    )
    assert code == 0
    res = json.loads(out)
    micro = res["estimands"]["micro"]["intervals"][0]
    macro = res["estimands"]["macro"]["intervals"][0]
    assert micro["method"] == "stratified_ratio" and macro["method"] == "stratified_mean"
    assert micro["se"] == pytest.approx(ref["micro_se_survey"], rel=1e-8)
    assert macro["se"] == pytest.approx(ref["macro_se_survey"], rel=1e-8)
    assert res["design"]["name"] == "stratified"
    assert [g["population"] for g in res["design"]["groups"]] == [30, 12, 200]


def test_interval_two_stage_equals_survey(capsys):
    ref = R["c_two_stage_binary"]
    code, out, _ = _run(
        capsys,
        "interval",
        DATA / ref["file"],
        "--cluster",
        "doc",
        "--score",
        "y",
        "--design",
        "two-stage",
        "--strata",
        "stratum",
        "--population-file",
        DATA / ref["population_file"],
        "--json",
    )
    assert code == 0, out
    iv = json.loads(out)["estimands"]["type_mean"]["intervals"][0]
    assert iv["estimate"] == pytest.approx(ref["estimate_survey"], rel=1e-8)
    assert iv["se"] == pytest.approx(ref["se_survey"], rel=1e-8)


def test_size_strata_from_the_command_line(tmp_path, capsys):
    ref = R["b_stratified_size_continuous"]
    code, out, err = _run(
        capsys,
        "interval",
        DATA / ref["file"],
        "--cluster",
        "doc",
        "--score",
        "y",
        "--design",
        "stratified",
        "--strata",
        "size:76",
        "--population-file",
        DATA / ref["population_file"],
        "--json",
    )
    assert code == 0, err
    iv = json.loads(out)["estimands"]["macro"]["intervals"][0]
    assert iv["se"] == pytest.approx(ref["macro_se_survey"], rel=1e-8)


@pytest.mark.parametrize(
    "rows, pop, match",
    [
        (
            {"doc": ["a", "a", "b", "c"], "stratum": ["x", "x", "x", "y"], "y": [1, 0, 1, 1]},
            {"stratum": ["x", "y"], "M": [10, 10]},
            "one sampled document",
        ),
        (
            {"doc": ["a", "b", "c", "d"], "stratum": ["x", "x", "y", "y"], "y": [1, 0, 1, 0]},
            {"stratum": ["x", "y"], "M": [1, 10]},
            "smaller than",
        ),
        (
            {"doc": ["a", "b", "c", "d"], "stratum": ["x", "x", "y", "y"], "y": [1, 0, 1, 0]},
            {"stratum": ["x"], "M": [10]},
            "population counts missing",
        ),
        (
            {"doc": ["a", "b", "c", "d"], "stratum": ["x", "x", "y", "y"], "y": [1, 0, 1, 0]},
            {"stratum": ["x", "y"], "M": [10, -3]},
            "positive whole number",
        ),
    ],
)
def test_design_errors_exit_2(tmp_path, capsys, rows, pop, match):
    data, popf = tmp_path / "d.csv", tmp_path / "p.csv"
    pd.DataFrame(rows).to_csv(data, index=False)
    pd.DataFrame(pop).to_csv(popf, index=False)
    code, _, err = _run(
        capsys,
        "interval",
        data,
        "--cluster",
        "doc",
        "--score",
        "y",
        "--design",
        "stratified",
        "--strata",
        "stratum",
        "--population-file",
        popf,
    )
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1


def test_srs_population_smaller_than_sample_exits_2(tmp_path, capsys):
    data = tmp_path / "d.csv"
    pd.DataFrame({"doc_id": list("abcd"), "hit": [1, 0, 1, 0]}).to_csv(data, index=False)
    code, _, err = _run(capsys, "interval", data, "--population", "3")
    assert code == 2 and "smaller than the sample" in err


def test_design_needs_its_inputs(tmp_path, capsys):
    data = tmp_path / "d.csv"
    pd.DataFrame({"doc_id": list("abcd"), "hit": [1, 0, 1, 0]}).to_csv(data, index=False)
    code, _, err = _run(capsys, "interval", data, "--design", "stratified")
    assert code == 2 and "--strata" in err
    code, _, err = _run(capsys, "interval", data, "--design", "nope")
    assert code == 2 and "--design" in err
