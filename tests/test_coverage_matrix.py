"""The coverage matrix (``ragstat coverage``): cells, empty cells, and per-cell sizing that
equals ``ragstat plan`` on the same cell data."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import typer

import ragstat.cli as cli
from ragstat.api.verbs.coverage import coverage
from ragstat.api.verbs.plan import plan
from ragstat.cli import coverage as coverage_cli
from ragstat.inference.planning import half_width
from ragstat.report import load_report

INTENTS, TYPES = ("define", "compare", "procedure"), ("law", "decree", "manual")
#: Empty by construction.
EMPTY = {("define", "manual"), ("procedure", "law")}
#: Documents per filled cell (one cell with a single document: it uses the pooled S).
DOCS = {("define", "law"): 6, ("define", "decree"): 5, ("compare", "law"): 7,
        ("compare", "decree"): 1, ("compare", "manual"): 4, ("procedure", "decree"): 8,
        ("procedure", "manual"): 3}  # fmt: skip
H = 0.1


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    rng = np.random.default_rng(16)
    rows = []
    for (intent, kind), K in DOCS.items():
        for d in range(K):
            doc = f"{kind}-{intent}-{d}"
            p = rng.uniform(0.2, 0.95)
            for q in range(int(rng.integers(1, 6))):
                rows.append({"query_id": f"{doc}-q{q}", "doc_id": doc, "intent": intent,
                             "doc_type": kind, "hit1": int(rng.random() < p)})  # fmt: skip
    return pd.DataFrame(rows)


def test_empty_cells_are_listed_exactly(table):
    m = coverage(table, dims=["intent", "doc_type"])
    assert set(m.empty_cells) == EMPTY and len(m.empty_cells) == 2
    assert len(m.cells) == 9
    assert m.to_dict()["empty_cells"] == [{"intent": i, "doc_type": t} for i, t in sorted(EMPTY)]
    frame = m.to_frame().set_index(["intent", "doc_type"])
    truth = table.groupby(["intent", "doc_type"]).agg(q=("query_id", "size"),
                                                      d=("doc_id", "nunique"))  # fmt: skip
    for key, row in truth.iterrows():
        assert frame.loc[key, "queries"] == row["q"] and frame.loc[key, "documents"] == row["d"]
    for key in EMPTY:
        assert frame.loc[key, "queries"] == 0 and bool(frame.loc[key, "empty"])


def test_declared_levels_add_empty_cells_and_refuse_unknown_values(table):
    levels = {"doc_type": ["law", "decree", "manual", "guide"]}
    m = coverage(table, dims="intent,doc_type", levels=levels)
    assert set(m.empty_cells) == EMPTY | {(i, "guide") for i in INTENTS}
    with pytest.raises(ValueError, match="outside its declared levels: manual"):
        coverage(table, dims="intent,doc_type", levels={"doc_type": ["law", "decree"]})


@pytest.mark.parametrize("estimand", ["macro", "micro"])
def test_needed_documents_equal_plan_on_the_same_cell_data(table, estimand):
    m = coverage(table, dims=["intent", "doc_type"], score="hit1", target_half_width=H,
                 estimand=estimand)  # fmt: skip
    for c in m.cells:
        if c.empty:
            assert c.documents_needed is None and c.half_width is None
            continue
        rows = table[(table.intent == c.values[0]) & (table.doc_type == c.values[1])]
        same = plan(half_width_target=H, sd=c.sd, estimand=estimand)
        assert c.documents_needed == same.documents
        if c.documents >= 2:  # the cell's own S: plan's pilot gives the same S and K
            assert c.sd_source == "cell"
            piloted = plan(half_width_target=H, pilot=rows, score="hit1", estimand=estimand)
            assert c.sd == pytest.approx(piloted.sd, rel=1e-12)
            assert c.documents_needed == piloted.documents
            assert c.half_width == pytest.approx(half_width(c.documents, c.sd))
        else:
            assert c.sd_source == "pooled_few" and c.sd == m.matrix.pooled_sd
            assert c.half_width is None


def test_pooled_sd_is_the_df_weighted_within_cell_sd(table):
    m = coverage(table, dims=["intent", "doc_type"], score="hit1", target_half_width=H)
    own = [c for c in m.cells if c.documents >= 2]
    df = np.array([c.documents - 1 for c in own], dtype=float)
    sd = np.array([c.sd for c in own])
    assert m.matrix.pooled_sd == pytest.approx(np.sqrt((df * sd**2).sum() / df.sum()))
    assert m.matrix.pooled_cells == len(own) == 6


def main(args: list[str], monkeypatch) -> int:
    """``ragstat ARGS``; through a local app while the verb is not registered yet."""
    if not any(c.name == "coverage" for c in cli.app.registered_commands):
        app = typer.Typer(pretty_exceptions_enable=False)
        app.callback()(lambda: None)
        app.command("coverage")(coverage_cli.coverage)
        monkeypatch.setattr(cli, "app", app)
    return cli.main(["coverage", *args])


def test_cli_json_equals_the_twin_and_out_writes_the_report(tmp_path, table, capsys,
                                                             monkeypatch):  # fmt: skip
    path = tmp_path / "queries.csv"
    table.to_csv(path, index=False)
    args = [str(path), "--dims", "intent,doc_type", "--score", "hit1",
            "--target-half-width", str(H)]  # fmt: skip
    out = tmp_path / "out"
    assert main([*args, "--json", "--out", str(out)], monkeypatch) == 0
    printed = json.loads(capsys.readouterr().out)
    twin = coverage(path, dims=["intent", "doc_type"], score="hit1", target_half_width=H)
    assert printed == twin.to_dict()
    assert json.loads((out / "result.json").read_text(encoding="utf-8")) == printed
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<svg" in page and 'id="M1"' in page and "Coverage matrix" in page
    assert "procedure × law" in (out / "report.md").read_text(encoding="utf-8")
    assert load_report(out) == twin.report(created=load_report(out).created)
    assert main(args, monkeypatch) == 0
    assert "empty cells (2): define × manual; procedure × law" in capsys.readouterr().out


def test_three_dimensions_draw_small_multiples(tmp_path, table, monkeypatch):
    three = table.assign(branch=np.where(table.index % 2 == 0, "tariffs", "grid"))
    path = tmp_path / "q.parquet"
    three.to_parquet(path)
    out = tmp_path / "out"
    assert main([str(path), "--dims", "intent,doc_type,branch", "--out", str(out)],
                monkeypatch) == 0  # fmt: skip
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<svg" in page and "branch = grid" in page and "One panel per combination" in page


def test_other_reports_do_not_gain_matrix_fields(table):
    report = coverage(table, dims=["intent"]).report(created="2024-01-01T00:00:00Z")
    assert report.to_dict()["dims"] == ["intent"]
    from ragstat.report.model import Report

    gate = Report(kind="gate", title="t", source="s", created="c", level=0.95, score="x",
                  design="d", estimands=("micro",), checklist=())  # fmt: skip
    assert not {"dims", "matrix", "target_half_width"} & set(gate.to_dict())
    assert Report.from_dict(gate.to_dict()) == gate


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--dims", "intent,colour"], "--dims 'colour' is not a column"),
        (["--dims", "intent", "--target-half-width", "0.1"], "needs a score column"),
        (["--dims", "intent", "--score", "hit1", "--estimand", "mode"], "micro or macro"),
        (["--dims", "intent", "--score", "hit1", "--target-half-width", "-1"], "positive"),
        (["--dims", "intent,gap"], "'gap' has 2 null values (rows 0, 3"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, table, capsys, monkeypatch, extra, message):
    bad = table.assign(gap=["x"] * len(table))
    bad.loc[[0, 3], "gap"] = None
    path = tmp_path / "q.csv"
    bad.to_csv(path, index=False)
    assert main([str(path), *extra], monkeypatch) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
