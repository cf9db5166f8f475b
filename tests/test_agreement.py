"""Judge–human agreement: κ and α against scikit-learn and the krippendorff package
(committed fixtures), the vectorised document bootstrap, intervals on an easy case,
slices, hand counts, bad input and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import typer

import ragstat.cli as cli
from ragstat.api.verbs.agreement import agreement
from ragstat.cli import agreement as agreement_cli
from ragstat.errors import InputError
from ragstat.metrics.judging import agreement as k

REFERENCE = Path(__file__).parent / "reference" / "agreement_reference.json"
CASES = json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]
TOL = 1e-12


def codes(case: dict) -> tuple[np.ndarray, int]:
    """The labelled items' confusion table (judge × human) on the case's scale."""
    order = case["labels"]
    pairs = [(j, h) for j, h in zip(case["judge"], case["human"], strict=True) if h is not None]
    j = np.array([order.index(p[0]) for p in pairs])
    h = np.array([order.index(p[1]) for p in pairs])
    return k.confusion_tables(j, h, np.zeros(j.size, int), len(order), 1)[0], len(pairs)


def frame(case: dict) -> pd.DataFrame:
    return pd.DataFrame({c: case[c] for c in ("doc_id", "judge", "human")})


# ------------------------------------------------------------------ reference values


@pytest.mark.parametrize("name", sorted(CASES))
def test_kappa_equals_scikit_learn(name):
    case = CASES[name]
    C, _ = codes(case)
    for weights in (None, "linear", "quadratic"):
        want = case["expected"]["kappa"][str(weights)]
        assert abs(float(k.cohen_kappa(C, weights)) - want) < TOL


@pytest.mark.parametrize("name", sorted(CASES))
def test_alpha_equals_krippendorff(name):
    case = CASES[name]
    C, _ = codes(case)
    values = np.asarray(case["labels"], float) if case["numeric"] else None
    for level, want in case["expected"]["alpha"].items():
        assert abs(float(k.krippendorff_alpha(C, level, values)) - want) < TOL


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("scale", ["nominal", "ordinal", "interval"])
def test_the_verb_reports_the_reference_values(name, scale):
    case = CASES[name]
    if scale == "interval" and not case["numeric"]:
        pytest.skip("the interval scale needs numbers")
    r = agreement(frame(case), judge="judge", human="human", scale=scale,
                  labels=case["labels"], bootstrap_reps=20, seed=1)  # fmt: skip
    got = {s.statistic: s.estimate for s in r.overall.statistics}
    want = case["expected"]
    assert abs(got["cohen_kappa"] - want["kappa"]["None"]) < TOL
    assert abs(got["krippendorff_alpha"] - want["alpha"][scale]) < TOL
    if scale != "nominal":
        assert abs(got["cohen_kappa_linear"] - want["kappa"]["linear"]) < TOL
        assert abs(got["cohen_kappa_quadratic"] - want["kappa"]["quadratic"]) < TOL
    assert r.overall.labelled == codes(case)[1]
    assert r.labels == tuple(case["labels"])


# ------------------------------------------------------------------ the bootstrap


def test_all_ones_weights_give_the_point_estimate():
    case = CASES["grades_1_5"]
    order = case["labels"]
    lab = [i for i, h in enumerate(case["human"]) if h is not None]
    j = np.array([order.index(case["judge"][i]) for i in lab])
    h = np.array([order.index(case["human"][i]) for i in lab])
    docs, d = np.unique([case["doc_id"][i] for i in lab], return_inverse=True)
    per_doc = k.confusion_tables(j, h, d, len(order), docs.size)
    ones = (np.ones((1, docs.size)) @ per_doc.reshape(docs.size, -1)).reshape(1, 5, 5)
    r = agreement(frame(case), judge="judge", human="human", scale="interval",
                  bootstrap_reps=20, seed=1)  # fmt: skip
    got = {s.statistic: s.estimate for s in r.overall.statistics}
    values = np.asarray(order, float)
    assert float(k.cohen_kappa(ones, "quadratic")[0]) == pytest.approx(
        got["cohen_kappa_quadratic"], abs=TOL
    )
    assert float(k.krippendorff_alpha(ones, "interval", values)[0]) == pytest.approx(
        got["krippendorff_alpha"], abs=TOL
    )
    assert float(k.gwet_ac1(ones)[0]) == pytest.approx(got["gwet_ac1"], abs=TOL)
    assert float(k.accuracy(ones)[0]) == pytest.approx(got["accuracy"], abs=TOL)


def test_bootstrap_replicates_are_weighted_sums_of_document_tables():
    rng = np.random.default_rng(5)
    per_doc = rng.integers(0, 4, size=(7, 3, 3)).astype(float)
    tables = k.bootstrap_tables(per_doc, 11, np.random.default_rng(9))
    w = np.random.default_rng(9).multinomial(7, np.full(7, 1 / 7), size=11)
    assert np.array_equal(tables, np.einsum("bk,kij->bij", w, per_doc))
    assert np.array_equal(w.sum(axis=1), np.full(11, 7))  # K documents redrawn each time


def easy(K: int = 120, m: int = 5, agree: float = 0.8, seed: int = 0) -> pd.DataFrame:
    """Balanced pass/fail humans, a judge right with probability ``agree`` independently:
    accuracy 0.8, κ = AC1 = (0.8 − 0.5)/0.5 = 0.6, no bias."""
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 2, K * m)
    judge = np.where(rng.random(K * m) < agree, human, 1 - human)
    return pd.DataFrame({"doc_id": np.repeat([f"d{i}" for i in range(K)], m),
                         "judge": judge, "human": human})  # fmt: skip


def test_intervals_cover_the_truth_on_an_easy_case():
    r = agreement(easy(), judge="judge", human="human", bootstrap_reps=999, seed=4)
    truth = {"accuracy": 0.8, "cohen_kappa": 0.6, "gwet_ac1": 0.6, "krippendorff_alpha": 0.6,
             "precision": 0.8, "recall": 0.8, "mean_bias": 0.0}  # fmt: skip
    got = {s.statistic: s for s in r.overall.statistics}
    assert set(got) == set(truth)
    for name, value in truth.items():
        s = got[name]
        assert s.lower is not None and s.upper is not None
        assert s.lower < s.estimate < s.upper and s.lower <= value <= s.upper, name
        assert s.upper - s.lower < 0.25
    assert r.positive == 1 and got["mean_bias"].method == "cr2_bm"
    assert got["cohen_kappa"].method == "doc_bootstrap_percentile"


def test_the_seed_is_recorded_and_reproduces():
    a = agreement(easy(K=20), judge="judge", human="human", bootstrap_reps=99, seed=11)
    b = agreement(easy(K=20), judge="judge", human="human", bootstrap_reps=99, seed=11)
    assert a.to_dict() == b.to_dict() and a.seed == 11 and a.to_dict()["seed"] == 11
    drawn = agreement(easy(K=20), judge="judge", human="human", bootstrap_reps=99)
    assert isinstance(drawn.seed, int)


# ------------------------------------------------------------------ hand counts, slices


def small() -> list[dict]:
    rows = [("a", "pass", "pass"), ("a", "pass", "fail"), ("a", "fail", "fail"),
            ("b", "pass", "pass"), ("b", "fail", "pass"), ("b", "pass", None),
            ("c", "pass", "pass"), ("c", "fail", "fail")]  # fmt: skip
    out = [{"doc_id": d, "judge": j, "topic": "x" if d == "c" else "y"} for d, j, _ in rows]
    for r, (_, _, h) in zip(out, rows, strict=True):
        if h is not None:
            r["human"] = h
    return out


def test_confusion_precision_recall_by_hand():
    r = agreement(small(), judge="judge", human="human", positive="pass", seed=2, bootstrap_reps=50)
    d = r.to_dict()
    # labels fail, pass; rows judge, columns human: judge fail/human fail 2, fail/pass 1, …
    assert d["confusion"] == {"labels": ["fail", "pass"], "rows": "judge", "columns": "human",
                              "counts": [[2, 1], [1, 3]]}  # fmt: skip
    got = {s["statistic"]: s["estimate"] for s in d["statistics"]}
    assert got["precision"] == pytest.approx(3 / 4) and got["recall"] == pytest.approx(3 / 4)
    assert got["accuracy"] == pytest.approx(5 / 7)
    assert "mean_bias" not in got and d["items"] == 8 and d["labelled"] == 7
    assert json.loads(json.dumps(d)) == d


def test_agreement_by_slice_equals_the_subset():
    df = easy(K=40, seed=3)
    df["topic"] = np.where(df["doc_id"].str[1:].astype(int) % 3 == 0, "law", "rule")
    r = agreement(df, judge="judge", human="human", slice_by="topic", bootstrap_reps=99, seed=8)
    assert [g.slice for g in r.slices] == ["law", "rule"]
    for g in r.slices:
        alone = agreement(df[df.topic == g.slice], judge="judge", human="human",
                          bootstrap_reps=99, seed=8)  # fmt: skip
        assert [s.estimate for s in g.statistics] == pytest.approx(
            [s.estimate for s in alone.overall.statistics], abs=1e-12
        )
        assert g.confusion == alone.overall.confusion and g.documents == alone.overall.documents
    summed = np.sum([np.array(g.confusion) for g in r.slices], axis=0)
    assert np.array_equal(summed, np.array(r.overall.confusion))
    rows = r.to_frame()
    assert set(rows["slice"]) == {"all", "law", "rule"}


def test_a_slice_in_one_document_says_why_it_has_no_interval():
    r = agreement(small(), judge="judge", human="human", slice_by="topic", seed=1,
                  bootstrap_reps=50)  # fmt: skip
    x = next(g for g in r.slices if g.slice == "x")
    assert x.documents == 1
    assert all(
        s.lower is None and "at least two documents" in (s.reason or "") for s in x.statistics
    )


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "change, kwargs, message",
    [
        (lambda rows: rows[0].update(human="maybe"), {"labels": ["pass", "fail"]},
         "human ('human') label 'maybe' (row 1) is outside the judge's scale (pass, fail)"),
        (lambda rows: rows[2].update(judge="meh"), {"labels": ["pass", "fail"]},
         "judge ('judge') label 'meh' (row 3) is outside the judge's scale"),
        (lambda rows: [r.pop("human", None) for r in rows], {}, "no column 'human'"),
        (lambda rows: [r.update(human=None) for r in rows], {}, "no human labels"),
        (lambda rows: [r.update(doc_id="a") for r in rows], {},
         "all 7 labelled items are in one document; only one document"),
        (lambda rows: rows[3].update(human=1), {}, "label column 'human' mixes types"),
        (lambda rows: [r.update(judge=1) for r in rows], {}, "the label columns mix types"),
        (lambda rows: None, {"scale": "interval"}, "the interval scale needs numeric labels"),
        (lambda rows: None, {"scale": "ordinal"}, "needs their order"),
        (lambda rows: None, {"positive": "yes"}, "positive label 'yes' is not a label"),
    ],
)  # fmt: skip
def test_bad_input_is_an_input_error(change, kwargs, message):
    rows = small()
    change(rows)
    with pytest.raises(InputError, match=None) as err:
        agreement(rows, judge="judge", human="human", seed=1, bootstrap_reps=20, **kwargs)
    assert message in str(err.value)


# ------------------------------------------------------------------ command line


def main(args: list[str], monkeypatch) -> int:
    """``ragstat agreement ARGS``; through a local app while the verb is not registered."""
    if not any(c.name == "agreement" for c in cli.app.registered_commands):
        app = typer.Typer(pretty_exceptions_enable=False)
        app.callback()(lambda: None)
        app.command("agreement")(agreement_cli.agreement)
        monkeypatch.setattr(cli, "app", app)
    return cli.main(["agreement", *args])


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_cli_json_equals_the_twin_and_writes_its_folder(tmp_path, capsys, monkeypatch):
    table = tmp_path / "items.csv"
    easy(K=15).to_csv(table, index=False)
    args = [str(table), "--judge", "judge", "--human", "human", "--seed", "3",
            "--bootstrap-reps", "99", "--scale", "ordinal"]  # fmt: skip
    assert main([*args, "--json", "--out", str(tmp_path / "out")], monkeypatch) == 0
    printed = json.loads(capsys.readouterr().out)
    twin = agreement(
        table, judge="judge", human="human", scale="ordinal", bootstrap_reps=99, seed=3
    )
    assert printed == twin.to_dict()
    assert json.loads((tmp_path / "out" / "result.json").read_text(encoding="utf-8")) == printed
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["command"] == "agreement" and manifest["config"]["seed"] == 3
    assert "cohen_kappa_quadratic" in manifest["results"]
    assert main(args, monkeypatch) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]  # the verdict first: one sentence per statistic
    assert first.startswith("For judge against human, accuracy is ") and " points (95 % " in first
    assert "judge agreement: " in out and "confusion matrix" in out


def test_cli_reads_jsonl_parquet_and_text_positive(tmp_path, capsys, monkeypatch):
    rows = small()
    src = write_jsonl(tmp_path / "items.jsonl", rows)
    pq = tmp_path / "items.parquet"
    pd.DataFrame(rows).to_parquet(pq)
    outs = []
    for path in (src, pq):
        args = [str(path), "--judge", "judge", "--human", "human", "--positive", "pass",
                "--slice-by", "topic", "--seed", "1", "--bootstrap-reps", "50", "--json"]  # fmt: skip
        assert main(args, monkeypatch) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0]["statistics"] == outs[1]["statistics"] and outs[0]["positive"] == "pass"
    assert [s["slice"] for s in outs[0]["slices"]] == ["x", "y"]


@pytest.mark.parametrize(
    "rows_change, extra, message",
    [
        (lambda rows: rows[0].update(human="maybe"), ["--labels", "pass,fail"],
         "is outside the judge's scale"),
        (lambda rows: [r.pop("human", None) for r in rows], [], "no column 'human'"),
        (lambda rows: [r.update(doc_id="a") for r in rows], [], "in one document"),
        (lambda rows: rows[3].update(human=1), [], "mixes types"),
    ],
)  # fmt: skip
def test_cli_bad_input_exits_2_with_one_line(
    tmp_path, capsys, monkeypatch, rows_change, extra, message
):
    rows = small()
    rows_change(rows)
    src = write_jsonl(tmp_path / "items.jsonl", rows)
    assert main([str(src), "--judge", "judge", "--human", "human", *extra], monkeypatch) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
