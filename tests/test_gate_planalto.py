"""The README's release-gates example on the real planalto study: exit codes 0, 1 and 2.

The gates file is ``tests/fixtures/gates/planalto.toml``, the very file the README shows;
each test copies it next to a self-retrieval study of ../shared/data/planalto-leis.jsonl
(bm25 and tfidf, run once per module; skipped when ../shared is absent).
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pandas as pd
import pytest

import ragstat
from conftest import SHARED
from ragstat.cli import main

pytestmark = pytest.mark.slow  # real corpora

CORPUS = SHARED / "data" / "planalto-leis.jsonl"
GATES = Path(__file__).parent / "fixtures" / "gates" / "planalto.toml"
STUDY = "planalto-study"  # the folder the fixture's relative paths name


@pytest.fixture(scope="module")
def study_folder(tmp_path_factory) -> Path:
    """The planalto self-retrieval study of bm25 and tfidf, written once for the module."""
    if not CORPUS.is_file():
        pytest.skip("../shared/data/planalto-leis.jsonl is absent")
    folder = tmp_path_factory.mktemp("planalto-gates")
    result = ragstat.study(
        CORPUS, retrievers="bm25,tfidf", stopwords="pt", stemmer="pt", bootstrap_reps=999
    )
    result.write(folder / STUDY)
    return folder


@pytest.fixture(scope="module")
def records(study_folder) -> pd.DataFrame:
    return pd.read_parquet(study_folder / STUDY / "records.parquet")


def _spec() -> dict:
    return tomllib.loads(GATES.read_text(encoding="utf-8"))


def _here(folder: Path, text: str | None = None) -> Path:
    """The README's gates file (or a variant ``text``) next to the study folder."""
    path = folder / "gates.toml"
    if text is None:
        shutil.copyfile(GATES, path)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _variant(old: str, new: str) -> str:
    text = GATES.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} should occur once in {GATES.name}"
    return text.replace(old, new)


def _json(argv: list[str], capsys) -> tuple[int, dict]:
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def test_the_fixture_is_the_readme_example():
    spec = _spec()
    kinds = [g["kind"] for g in spec["gates"]]
    laws = [g["slice"]["law"] for g in spec["gates"] if "slice" in g]
    assert spec["correction"] == "holm" and spec["level"] == 0.95
    assert {i["path"] for i in spec["inputs"].values()} == {f"{STUDY}/records.parquet"}
    assert kinds.count("not_worse_than_baseline") == 1 and len(laws) >= 3
    assert kinds[0] == "at_least" and "slice" not in spec["gates"][0]


def test_readme_gates_pass_exit_0(study_folder, records, capsys):
    path = _here(study_folder)
    code, out = _json(["gate", str(path), "--json"], capsys)
    assert code == 0, out["verdict"]
    assert out["exit_code"] == 0 and out["passed"] and out["correction"] == "holm"
    assert out == json.loads(json.dumps(ragstat.gate(path).to_dict()))  # CLI = Python twin
    spec = _spec()
    assert [g["name"] for g in out["gates"]] == [g["name"] for g in spec["gates"]]
    m = len(spec["gates"])
    bm25 = records[records["retriever"] == "bm25"]
    tfidf = records[records["retriever"] == "tfidf"]
    for declared, got in zip(spec["gates"], out["gates"], strict=True):
        assert got["outcome"] == "pass", got["why"]
        # a pass is decided on the bound, never on the point estimate
        bar = declared.get("threshold", -declared.get("margin", 0.0))
        assert got["lower"] >= bar and got["lower"] <= got["estimate"] <= got["upper"]
        # Holm: every gate of the family is first tested at 1 − α/m (all pass at step one)
        assert got["level"] == pytest.approx(1 - 0.05 / m)
        rows = bm25
        if "slice" in declared:
            rows = bm25[bm25["meta_law"] == declared["slice"]["law"]]
        assert got["K"] == rows["doc_id"].nunique() and got["N"] == len(rows)
        if declared["kind"] == "not_worse_than_baseline":
            diff = bm25["hit1"].mean() - tfidf["hit1"].mean()
            assert got["estimate"] == pytest.approx(diff, abs=1e-12)
        else:
            assert got["estimate"] == pytest.approx(rows["hit1"].mean(), abs=1e-12)
    # the text output: one line per gate with its interval and its level
    assert main(["gate", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"All {m} blocking gates pass." in text
    assert text.count("pass ·") == m and "K = " in text


def test_a_threshold_above_the_interval_exits_1(study_folder, capsys):
    first = ragstat.gate(_here(study_folder)).gates[0]  # hit@1 at least 0.30, passing
    upper = first.decision.interval.upper
    too_high = round(upper + 0.05, 2)  # above the whole interval: a failure, not inconclusive
    text = _variant("threshold = 0.30\n", f"threshold = {too_high}\n")
    code, out = _json(["gate", str(_here(study_folder, text)), "--json"], capsys)
    assert code == 1 and out["exit_code"] == 1 and not out["passed"]
    outcomes = [g["outcome"] for g in out["gates"]]
    assert outcomes[0] == "fail" and out["gates"][0]["upper"] < too_high
    assert outcomes[1:] == ["pass"] * (len(outcomes) - 1)


def test_tfidf_is_not_non_inferior_to_bm25_exit_1(study_folder, capsys):
    """Swap the systems: tfidf as the candidate is worse than bm25 by more than 0.02."""
    text = _variant('system = "bm25"', 'system = "TMP"')
    text = text.replace('system = "tfidf"', 'system = "bm25"').replace('"TMP"', '"tfidf"')
    code, out = _json(["gate", str(_here(study_folder, text)), "--json"], capsys)
    assert code == 1
    paired = next(g for g in out["gates"] if g["kind"] == "not_worse_than_baseline")
    assert paired["outcome"] == "fail" and paired["upper"] < -0.02, paired["why"]


@pytest.mark.parametrize(
    "old, new, message",
    [
        ('metric = "hit1"\nthreshold = 0.30', 'metric = "hit3"\nthreshold = 0.30', "hit3"),
        ('slice = { law = "ccivil" }', 'slice = { lei = "ccivil" }', "lei"),
        ("threshold = 0.30\n", "\n", "needs a threshold"),
        ("[inputs.baseline]", "[inputs.other]", "baseline"),
    ],
    ids=["unknown-metric", "unknown-slice-column", "no-threshold", "no-baseline"],
)
def test_bad_input_exits_2_with_one_line_naming_the_gate(study_folder, capsys, old, new, message):
    path = _here(study_folder, _variant(old, new))
    assert main(["gate", str(path)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "gate" in err[0], err
    assert "PASS" not in captured.out and "FAIL" not in captured.out
