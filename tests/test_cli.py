"""The real entry point: JSON contract, readable table, one-line errors with exit code 2."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import unequal_design
from ragstat.cli import main
from ragstat.inference import APPLICABLE


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    doc, y, pos = unequal_design(np.random.default_rng(4), 25)
    path = tmp_path_factory.mktemp("cli") / "results.parquet"
    pd.DataFrame(
        {"query_id": np.arange(y.size), "doc_id": doc, "hit": y, "position": pos}
    ).to_parquet(path)
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ragstat", *args], capture_output=True, text=True, timeout=120
    )


def test_json_is_one_object_with_the_documented_shape(table, capsys):
    code = main(
        [
            "interval",
            str(table),
            "--cluster",
            "doc_id",
            "--score",
            "hit",
            "--json",
            "--seed",
            "3",
            "--bootstrap-reps",
            "499",
            "--position",
            "position",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert {"K", "N", "level", "seed", "estimands", "diagnostics", "warnings"} <= set(out)
    assert out["K"] == 25 and out["seed"] == 3 and out["level"] == 0.95
    for est in ("micro", "macro"):
        methods = [iv["method"] for iv in out["estimands"][est]["intervals"]]
        assert methods == list(APPLICABLE[est])
        for iv in out["estimands"][est]["intervals"]:
            assert {"method", "se", "df", "lower", "upper"} <= set(iv)
    assert {"icc", "deff", "n_eff", "lag1_autocorrelation"} <= set(out["diagnostics"])


def test_methods_population_and_level(table, capsys):
    code = main(
        [
            "interval",
            str(table),
            "--json",
            "--methods",
            "cr2_bm,t_rates",
            "--population",
            "100",
            "--level",
            "0.9",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert [iv["method"] for iv in out["estimands"]["micro"]["intervals"]] == ["cr2_bm"]
    assert out["estimands"]["macro"]["intervals"][0]["fpc"] == pytest.approx(0.75)
    assert out["level"] == 0.9


def test_table_on_the_terminal(table):
    res = run("interval", str(table), "--bootstrap-reps", "199", "--seed", "1")
    assert res.returncode == 0, res.stderr
    assert "cr2_bm" in res.stdout and "t_rates" in res.stdout and "ICC" in res.stdout


@pytest.mark.parametrize(
    "rows, args, match",
    [
        ({"doc_id": ["a", "b"], "hit": ["1.0", "NaN"]}, [], "NaN"),
        ({"doc_id": ["a", "b"], "hit": [1.0, None]}, [], "missing"),
        ({"doc_id": ["a", "b"], "hit": [1.0, float("inf")]}, [], "infinite"),
        ({"doc_id": ["a", "b"], "other": [1, 0]}, ["--score", "hit"], "not a column"),
        ({"doc_id": ["a", "b"], "x": [1, 0], "y": [0, 1]}, [], "several score columns"),
        ({"doc_id": ["a", "a"], "hit": [1, 0]}, [], "at least two documents"),
        ({"doc_id": ["a", "b"], "hit": ["x", "y"]}, [], "are not numbers"),
        ({"doc_id": ["a", "b"], "hit": [1, 0]}, ["--methods", "bogus"], "unknown"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, rows, args, match):
    path = tmp_path / "bad.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    res = run("interval", str(path), *args)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr
    assert match in lines[0]


def test_empty_file_exits_2(tmp_path):
    path = tmp_path / "empty.parquet"
    path.write_bytes(b"")
    res = run("interval", str(path))
    assert res.returncode == 2 and "empty" in res.stderr


@pytest.mark.slow
def test_demo_runs_the_study_on_the_built_in_corpus(demo_workdir):
    """``ragstat demo --out ragstat-demo`` as the README runs it (built once per session by
    the shared fixture, through the command line)."""
    demo = demo_workdir / "ragstat-demo"
    summary = json.loads((demo / "summary.json").read_text(encoding="utf-8"))
    assert summary["counts"]["documents"] == 249
    assert summary["counts"]["queries"] == summary["counts"]["chunks"] > 20_000
    assert set(summary["retrievers"]) == {"bm25", "tfidf"}
    assert (demo / "records.parquet").is_file() and (demo / "report.html").is_file()


def test_compare_takes_the_declared_score_range(tmp_path, capsys):
    """Graded scores in [0, 5]: nothing is known from the values; --score-range 0,5 gives
    A − B the range [−5, 5], on which the range-respecting intervals are computed."""
    rng = np.random.default_rng(7)
    rows = []
    for system, shift in (("a", 0.6), ("b", 0.0)):
        for q in range(60):
            value = float(np.clip(np.round(rng.normal(2.5 + shift, 1.0)), 0, 5))
            rows.append({"system": system, "query_id": q, "doc_id": f"d{q % 15}", "grade": value})
    path = tmp_path / "graded.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    base = ["compare", str(path), "--systems", "a,b", "--seed", "1", "--bootstrap-reps", "199",
            "--permutation-reps", "199", "--json"]  # fmt: skip
    assert main(base) == 0
    unknown = json.loads(capsys.readouterr().out)
    assert unknown["bounds"] is None
    assert "logit" not in [iv["method"] for iv in unknown["estimands"]["micro"]["intervals"]]
    assert main([*base, "--score-range", "0,5"]) == 0
    known = json.loads(capsys.readouterr().out)
    assert known["bounds"] == [-5.0, 5.0]
    micro = {iv["method"]: iv for iv in known["estimands"]["micro"]["intervals"]}
    assert micro["logit"]["lower"] is not None and micro["korn_graubard"]["lower"] is not None
    shown = micro[known["estimands"]["micro"]["recommended"]]
    assert -5.0 <= shown["lower"] <= shown["upper"] <= 5.0 and not shown["outside_range"]
    assert main([*base, "--score-range", "0,4"]) == 2  # a score of 5 lies outside it
    assert "outside the declared range" in capsys.readouterr().err
