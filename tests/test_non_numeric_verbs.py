"""Issue 28 follow-ups (items 1 and 3) for ppi, coverage, simulate, plan and judge-bias.

* A score cell that is not a number stops ``ppi``, ``coverage``, ``simulate`` and
  ``plan`` with one line, unless ``--non-numeric missing`` (Python
  ``non_numeric="missing"``); then the rows are left out and counted apart from the
  missing cells in the JSON and the notes.
* ``ppi`` and ``judge-bias`` check ``RAGSTAT_MEMORY_BUDGET`` before they allocate (the
  verbosity CR2 builds an n × n matrix per document: one large document is the explosion).
* A Python caller's wrong types (``level="x"``) are one-line InputErrors, not TypeErrors.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ragstat
from cli_run import cli
from ragstat.api.verbs.judge_bias_checks import bias_bytes
from ragstat.api.verbs.ppi_checks import BYTES_PER_ITEM
from ragstat.errors import InputError

BAD = 9  # cells that are not numbers in each table below


def _hits(n: int = 120, seed: int = 28) -> pd.DataFrame:
    """n queries, 3 per document, a 0/1 hit as text; the first BAD hits are ERROR."""
    rng = np.random.default_rng(seed)
    hits = (rng.random(n) < 0.7).astype(int).astype(str).astype(object)
    hits[:BAD] = "ERROR"
    return pd.DataFrame({
        "query_id": [f"q{i}" for i in range(n)], "doc_id": [f"d{i // 3}" for i in range(n)],
        "intent": np.where(np.arange(n) % 2 == 0, "define", "compare"), "hit1": hits,
    })  # fmt: skip


@pytest.fixture
def hits_csv(tmp_path: Path) -> Path:
    path = tmp_path / "hits.csv"
    _hits().to_csv(path, index=False)
    return path


def _items(judge_errors: int = BAD, human_errors: int = 0) -> pd.DataFrame:
    """150 items in 50 documents: a judge score on every one, a human label on ~40 %."""
    rng = np.random.default_rng(5)
    n = 150
    truth = rng.random(n) < 0.6
    judge = np.clip(truth * 0.6 + rng.random(n) * 0.4, 0, 1).round(3).astype(object)
    human = np.where(rng.random(n) < 0.4, truth.astype(float), np.nan).astype(object)
    judge[:judge_errors] = "ERROR"
    labelled = np.flatnonzero(~pd.isna(human))
    human[labelled[:human_errors]] = "n/a"
    return pd.DataFrame({"doc_id": [f"d{i // 3}" for i in range(n)], "judge": judge,
                         "human": human})  # fmt: skip


# -- ppi -----------------------------------------------------------------------------------


def test_ppi_judge_cells_that_are_not_numbers_stop_then_are_left_out(capsys, tmp_path):
    path = tmp_path / "items.csv"
    _items().to_csv(path, index=False)
    base = ["ppi", path, "--judge", "judge", "--human", "human"]
    rc, out, err = cli(capsys, *base)
    assert rc == 2 and out == ""
    assert f"{BAD} of 150 cells of score column 'judge' are not numbers" in err
    assert "'ERROR'" in err and "--non-numeric missing" in err and str(path) in err
    rc, out, _ = cli(capsys, *base, "--non-numeric", "missing", "--json")
    assert rc == 0
    result = json.loads(out)
    assert result["counts"]["cells"]["judge"] == {"missing": 0, "non_numeric": BAD}
    assert result["counts"]["labelled"] + result["counts"]["unlabelled"] == 150 - BAD
    (note,) = [n for n in result["notes"] if "not a number" in n]
    assert f"judge 'judge': {BAD} not a number, 0 missing" in note and "left out" in note
    rc, out, _ = cli(capsys, *base, "--non-numeric", "missing")
    assert rc == 0 and f"{BAD} not a number, 0 missing" in out


def test_ppi_human_cells_that_are_not_numbers_count_as_unlabelled():
    clean = ragstat.ppi(_items(0, 0), judge="judge", human="human")
    table = _items(0, 4)
    with pytest.raises(InputError, match="4 of 150 cells of score column 'human'"):
        ragstat.ppi(table, judge="judge", human="human")
    r = ragstat.ppi(table, judge="judge", human="human", non_numeric="missing")
    p, missing = r.analysis.ppi, int(pd.isna(table["human"]).sum())
    assert r.to_dict()["counts"]["cells"]["human"] == {"missing": missing, "non_numeric": 4}
    assert p.n_labelled == clean.analysis.ppi.n_labelled - 4
    assert p.n_unlabelled == clean.analysis.ppi.n_unlabelled + 4
    assert any("count as unlabelled" in n for n in r.notes)
    clean_counts = clean.to_dict()["counts"]["cells"]
    assert clean_counts["human"]["non_numeric"] == 0 and len(clean.notes) == len(r.notes) - 1


def test_ppi_missing_judge_scores_are_still_an_error():
    table = _items(0).assign(judge=lambda t: t.judge.where(t.index != 3, None))
    with pytest.raises(InputError, match="missing on 1 item"):
        ragstat.ppi(table, judge="judge", human="human", non_numeric="missing")


def test_ppi_paired_pairs_lose_a_side_left_out(tmp_path):
    a = _items(0).assign(system="A", query_id=lambda t: [f"q{i}" for i in t.index])
    b = a.assign(system="B", judge=a.judge.astype(object))
    b.loc[:2, "judge"] = "timeout"
    both = pd.concat([a, b], ignore_index=True)
    with pytest.raises(InputError, match="3 of 300 cells"):
        ragstat.ppi(both, judge="judge", human="human", systems=("A", "B"))
    r = ragstat.ppi(both, judge="judge", human="human", systems=("A", "B"),
                    non_numeric="missing")  # fmt: skip
    p = r.analysis.ppi
    assert p.n_labelled + p.n_unlabelled == 150 - 3


def test_ppi_checks_the_memory_budget_before_it_works(capsys, tmp_path, monkeypatch):
    path = tmp_path / "items.csv"
    _items(0).to_csv(path, index=False)
    monkeypatch.setenv("RAGSTAT_MEMORY_BUDGET", "16K")  # 150 rows × 512 B = 75 KiB
    rc, _, err = cli(capsys, "ppi", path, "--judge", "judge", "--human", "human")
    assert rc == 2 and "ppi over 150 rows" in err and "RAGSTAT_MEMORY_BUDGET" in err
    monkeypatch.setenv("RAGSTAT_MEMORY_BUDGET", "1M")
    assert cli(capsys, "ppi", path, "--judge", "judge", "--human", "human")[0] == 0


def test_ppi_memory_estimate_bounds_the_measured_peak():
    rng = np.random.default_rng(1)
    n = 20_000
    table = pd.DataFrame({"doc_id": [f"d{i // 10}" for i in range(n)], "judge": rng.random(n)})
    table["human"] = np.where(rng.random(n) < 0.1, (rng.random(n) < table.judge) * 1.0, np.nan)
    ragstat.ppi(table.head(300), judge="judge", human="human")  # imports outside the trace
    tracemalloc.start()
    try:
        ragstat.ppi(table, judge="judge", human="human")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < BYTES_PER_ITEM * n


# -- coverage ------------------------------------------------------------------------------


def test_coverage_pilot_score_that_is_not_a_number(capsys, hits_csv):
    base = ["coverage", hits_csv, "--dims", "intent", "--score", "hit1"]
    rc, out, err = cli(capsys, *base)
    assert rc == 2 and f"{BAD} of 120 cells of score column 'hit1'" in err and out == ""
    rc, out, _ = cli(capsys, *base, "--non-numeric", "missing", "--json")
    assert rc == 0
    result = json.loads(out)
    assert result["counts"]["queries"] == 120 - BAD
    assert result["counts"]["score_cells"] == {"missing": 0, "non_numeric": BAD}
    assert any(f"hit1: {BAD} not a number, 0 missing" in n for n in result["notes"])
    rc, out, _ = cli(capsys, *base, "--non-numeric", "missing")
    assert rc == 0 and f"{BAD} not a number, 0 missing" in out


def test_coverage_without_a_score_ignores_the_cells_and_missing_stays_an_error():
    table = _hits()
    counts = ragstat.coverage(table, dims="intent").to_dict()["counts"]
    assert counts["queries"] == 120 and counts["score_cells"] is None
    table.loc[BAD, "hit1"] = ""
    with pytest.raises(InputError, match="1 null value"):
        ragstat.coverage(table, dims="intent", score="hit1", non_numeric="missing")
    clean = _hits().assign(hit1=lambda t: t.hit1.where(t.index >= BAD, "1"))
    m = ragstat.coverage(clean, dims="intent", score="hit1")
    assert m.to_dict()["counts"]["score_cells"] == {"missing": 0, "non_numeric": 0}
    assert not any("not a number" in n for n in m.notes)


# -- simulate ------------------------------------------------------------------------------


def test_simulate_census_cells_that_are_not_numbers(capsys, hits_csv):
    base = ["simulate", hits_csv, "--score", "hit1", "--k", "5", "--reps", "20",
            "--bootstrap-reps", "19", "--methods", "cr1"]  # fmt: skip
    rc, out, err = cli(capsys, *base)
    assert rc == 2 and f"{BAD} of 120 cells of score column 'hit1'" in err
    assert "--non-numeric missing" in err
    rc, out, _ = cli(capsys, *base, "--non-numeric", "missing", "--json")
    assert rc == 0
    result = json.loads(out)
    assert result["census"]["N"] == 120 - BAD
    assert any(f"hit1: {BAD} not a number, 0 missing" in n for n in result["notes"])
    rc, out, _ = cli(capsys, *base, "--non-numeric", "missing")
    assert rc == 0 and f"note: hit1: {BAD} not a number, 0 missing" in out  # the terminal too


def test_simulate_per_document_census_cells_are_one_line_errors(capsys, tmp_path):
    """Was an internal error (ValueError: could not convert string to float: 'ERROR')."""
    path = tmp_path / "census_docs.csv"
    path.write_text("doc_id,n,s\nd1,3,1\nd2,2,ERROR\nd3,4,2\nd4,3,3\nd5,2,0\nd6,5,true\n"
                    "d7,2,1\n", encoding="utf-8")  # fmt: skip
    base = ["simulate", path, "--k", "3", "--reps", "10", "--bootstrap-reps", "19",
            "--methods", "cr1"]  # fmt: skip
    rc, _, err = cli(capsys, *base)
    assert rc == 2 and "2 of 7 cells of score column 's' are not numbers" in err
    assert "row 2: 'ERROR', row 6: 'true'" in err
    rc, out, _ = cli(capsys, *base, "--non-numeric", "missing", "--json")
    result = json.loads(out)
    assert rc == 0 and result["census"]["K"] == 5 and result["census"]["N"] == 14
    assert any("per-document totals: 2 not a number" in n for n in result["notes"])
    path.write_text("doc_id,n,s\nd1,3,1\nd2,,1\nd3,4,2\n", encoding="utf-8")
    rc, _, err = cli(capsys, *base, "--non-numeric", "missing")
    assert rc == 2 and "column 'n' of the per-document table is missing in 1 row(s)" in err


def test_simulate_from_a_study_folder_passes_the_choice_through(tmp_path):
    folder = tmp_path / "study"
    folder.mkdir()
    summary = {"config": {"retrievers": ["bm25"], "chunk_words": 100}, "counts": {"documents": 40}}
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    table = _hits().assign(system="bm25", position=lambda t: t.index % 3)
    table.drop(columns="intent").to_parquet(folder / "records.parquet")
    opts = {"k": 5, "reps": 20, "bootstrap_reps": 19, "methods": ["cr1"]}
    with pytest.raises(InputError, match=f"{BAD} of 120 cells"):
        ragstat.simulate(from_study=folder, **opts)
    out = ragstat.simulate(from_study=folder, non_numeric="missing", **opts)
    (study,) = out.studies
    assert study.report.census.N == 120 - BAD
    assert any("not a number" in n for n in study.report.notes)


# -- plan ----------------------------------------------------------------------------------


def test_plan_pilot_cells_that_are_not_numbers(capsys, hits_csv):
    base = ["plan", "--pilot", hits_csv, "--score", "hit1", "--half-width", "0.1"]
    rc, _, err = cli(capsys, *base)
    assert rc == 2 and f"{BAD} of 120 cells of score column 'hit1'" in err
    rc, out, _ = cli(capsys, *base, "--non-numeric", "missing", "--json")
    assert rc == 0
    result = json.loads(out)
    assert (
        f"N = {120 - BAD} queries; {BAD} row(s) whose score is not a number left out"
        in (result["sd_source"])
    )
    rc, _, err = cli(capsys, *base, "--non-numeric", "zero")
    assert rc == 2 and "non_numeric must be one of error, missing" in err


def test_plan_paired_pilot_and_ab_pilot(tmp_path):
    a = _hits().assign(system="a")
    b = _hits(seed=3).assign(system="b")
    b.loc[:, "hit1"] = b["hit1"].where(b.index >= BAD, "1")  # only A has ERROR cells
    path = tmp_path / "two.csv"
    pd.concat([a, b]).to_csv(path, index=False)
    with pytest.raises(InputError, match=f"{BAD} of 120 cells"):
        ragstat.plan(pilot=path, systems="a,b", score="hit1", half_width_target=0.1)
    r = ragstat.plan(pilot=path, systems="a,b", score="hit1", half_width_target=0.1,
                     non_numeric="missing")  # fmt: skip
    assert r.paired and f"{BAD} row(s) whose score is not a number left out" in r.sd_source
    assert f"N = {120 - BAD} queries" in r.sd_source
    lone = pd.concat([a, b.iloc[:-1]])  # q119 has no B row: still an error
    lone.to_csv(path, index=False)
    with pytest.raises(InputError, match="1 query"):
        ragstat.plan(pilot=path, systems="a,b", score="hit1", half_width_target=0.1,
                     non_numeric="missing")  # fmt: skip
    from ragstat.api.verbs.plan import ABDesign, power

    single = tmp_path / "one.csv"
    a.to_csv(single, index=False)
    design = ABDesign(mde=0.1)
    with pytest.raises(InputError, match=f"{BAD} of 120 cells"):
        power(design, pilot=single, cluster="doc_id", score="hit1")
    got = power(design, pilot=single, cluster="doc_id", score="hit1", non_numeric="missing")
    assert f"{BAD} row(s) whose score is not a number left out" in got.source


# -- judge-bias memory ---------------------------------------------------------------------


def _judgments(big: int, small: int = 60) -> list[dict[str, object]]:
    """``big`` judgments in one document, then ``small`` documents of one judgment."""
    rng = np.random.default_rng(2)
    rows = []
    for i in range(big + small):
        rows.append({"doc_id": "big" if i < big else f"d{i}",
                     "winner": str(rng.choice(["A", "B", "tie"])),
                     "length_a": int(rng.integers(10, 300)),
                     "length_b": int(rng.integers(10, 300))})  # fmt: skip
    return rows


def test_judge_bias_verbosity_one_huge_document_stops_before_allocating(
    capsys, tmp_path, monkeypatch
):
    path = tmp_path / "judgments.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _judgments(20_000)), "utf-8")
    monkeypatch.setenv("RAGSTAT_MEMORY_BUDGET", "2G")  # the CR2 would need ≈ 13 GB
    start = time.perf_counter()
    rc, _, err = cli(capsys, "judge-bias", path, "--kind", "verbosity", "--seed", "1")
    assert rc == 2 and time.perf_counter() - start < 5
    assert "the largest has 20,000" in err and "RAGSTAT_MEMORY_BUDGET" in err
    assert "GiB" in err


def test_judge_bias_position_checks_replicates_against_the_budget(monkeypatch):
    rows = [{"doc_id": f"d{i // 4}", "verdict_ab": "first", "verdict_ba": "second"}
            for i in range(40)]  # fmt: skip
    monkeypatch.setenv("RAGSTAT_MEMORY_BUDGET", "1M")
    with pytest.raises(InputError, match=r"1,000,000 replicates.*--bootstrap-reps"):
        ragstat.judge_bias(rows, kind="position", bootstrap_reps=1_000_000, seed=1)
    assert ragstat.judge_bias(rows, kind="position", bootstrap_reps=99, seed=1).units == 40


def test_judge_bias_verbosity_estimate_bounds_the_measured_peak():
    rows = _judgments(400)
    ragstat.judge_bias(_judgments(5), kind="verbosity", bootstrap_reps=99, seed=1)  # imports
    tracemalloc.start()
    try:
        ragstat.judge_bias(rows, kind="verbosity", bootstrap_reps=99, seed=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = bias_bytes("verbosity", [r["doc_id"] for r in rows], 99)
    assert peak < estimate < 4 * peak  # an upper bound, not a wild one


# -- wrong types through the Python API ----------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"level": "x"}, "level must be a number between 0 and 1"),
        ({"level": None}, "level must be a number between 0 and 1"),
        ({"level": True}, "level must be a number between 0 and 1"),
        ({"k": 5.5}, "k \\(documents per sample\\) must be a whole number ≥ 2"),
        ({"k": "5"}, "k \\(documents per sample\\) must be a whole number"),
        ({"k": [5, "a"]}, "got 'a'"),
        ({"reps": "10"}, "reps must be a whole number"),
        ({"bootstrap_reps": "x"}, "bootstrap_reps must be a whole number"),
        ({"fpc": "x"}, "fpc must be True or False"),
        ({"types": "x"}, "types must be a whole number"),
    ],
)
def test_simulate_wrong_types_are_input_errors(kwargs, message):
    census = _hits().assign(hit1=lambda t: t.hit1.where(t.index >= BAD, "1").astype(int))
    opts = {"k": 5, "reps": 10, "score": "hit1", "bootstrap_reps": 19, "methods": ["cr1"]}
    with pytest.raises(InputError, match=message):
        ragstat.simulate(census, **(opts | kwargs))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"level": "x"}, "level must be a number between 0 and 1"),
        ({"half_width_target": "x"}, "half_width_target must be a number"),
        ({"sd": "x"}, "sd must be a number"),
        ({"documents": "x", "half_width_target": None}, "documents must be a whole number"),
        ({"documents": 5.5, "half_width_target": None}, "documents must be a whole number"),
        ({"power": "x"}, "power must be a number between 0 and 1 \\(e.g. 0.8\\)"),
    ],
)
def test_plan_wrong_types_are_input_errors(kwargs, message):
    with pytest.raises(InputError, match=message):
        ragstat.plan(**({"half_width_target": 0.1, "sd": 0.3} | kwargs))


@pytest.mark.parametrize(
    "verb, kwargs, message",
    [
        ("ppi", {"level": "x"}, "level must be a number between 0 and 1"),
        ("ppi", {"target_half_width": "x"}, "target_half_width must be a finite number > 0"),
        ("ppi", {"target_half_width": float("inf")}, "target_half_width must be a finite"),
        ("coverage", {"level": "x"}, "level must be a number between 0 and 1"),
        ("coverage", {"target_half_width": "x"}, "target_half_width must be a number"),
    ],
)
def test_ppi_and_coverage_wrong_types_are_input_errors(verb, kwargs, message):
    with pytest.raises(InputError, match=message):
        if verb == "ppi":
            ragstat.ppi(_items(0), judge="judge", human="human", **kwargs)
        else:
            ragstat.coverage(_hits(), dims="intent", score="hit1", non_numeric="missing",
                             **kwargs)  # fmt: skip
