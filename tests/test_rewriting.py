"""`ragstat rewriting`: the three-way decision rule on constructed intervals, the paired
difference clustered by document on a two-document fixture, wide = long, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragstat.api.verbs.rewriting import RewriteDecision, decide, rewriting, sentence
from ragstat.errors import InputError

FIXTURE = Path(__file__).parent / "fixtures" / "formats" / "rewriting" / "queries.jsonl"
REPS = 199


@pytest.mark.parametrize(
    ("lower", "upper", "gain", "decision"),
    [
        (0.021, 0.103, 0.0, "default path"),  # entirely above 0
        (0.021, 0.103, 0.02, "default path"),  # entirely above the minimum gain
        (0.01, 0.103, 0.02, "fallback"),  # real gain, maybe below the minimum: l ≤ g < u
        (-0.02, 0.012, 0.0, "fallback"),  # contains 0, upper above the gain
        (-0.02, 0.012, 0.02, "neither"),  # contains 0, upper below the minimum gain
        (-0.05, -0.01, 0.0, "neither"),  # entirely below 0: it hurts
        (-0.02, 0.0, 0.0, "neither"),  # upper bound exactly 0: no gain
        (None, None, 0.0, "undecided"),
    ],
)
def test_decision_rule(lower, upper, gain, decision):
    assert decide(lower, upper, gain)[0] == decision


def test_sentence_wording():
    def cell(part, d, lo, hi, decision):
        return RewriteDecision("hyde", part, 10, 5, d, lo, hi, "cr2_bm", decision, "")

    cells = [cell("out-of-domain", 0.062, 0.021, 0.103, "default path"),
             cell("in-domain", -0.004, -0.02, 0.012, "neither")]  # fmt: skip
    assert sentence("hyde", cells, 100.0, 0.95) == (
        "hyde: default path for out-of-domain queries (+6.2 points, 95 % interval +2.1 to "
        "+10.3); neither for in-domain queries (\u22120.4, \u22122.0 to +1.2)"
    )


def _two_documents() -> pd.DataFrame:
    # doc A: gains +0.2, +0.2 (2 queries); doc B: gains 0, +0.1, -0.1, +0.2 (4 queries)
    base = [0.5, 0.4, 0.6, 0.3, 0.5, 0.4]
    gain = [0.2, 0.2, 0.0, 0.1, -0.1, 0.2]
    docs = ["A", "A", "B", "B", "B", "B"]
    return pd.DataFrame(
        {"query_id": [f"q{i}" for i in range(6)], "doc_id": docs, "baseline": base,
         "hyde": [round(b + g, 1) for b, g in zip(base, gain, strict=True)]}
    )  # fmt: skip


def test_two_documents_are_the_clusters():
    r = rewriting(_two_documents(), score="recall@10", seed=1, bootstrap_reps=REPS)
    (cell,) = r.decisions
    assert (cell.slice, cell.queries, cell.documents) == ("all", 6, 2)  # K = 2 documents
    assert cell.difference == pytest.approx(0.6 / 6)  # micro: mean gain per query
    assert cell.comparison is not None
    micro = cell.comparison.report.estimands["micro"]
    assert micro.estimate == pytest.approx(0.1)
    # the clustered interval is wider than the naive one (it counts 2 documents, not 6 queries)
    naive = next(iv for iv in micro.intervals if iv.naive)
    cr2 = next(iv for iv in micro.intervals if iv.method == "cr2_bm")
    assert cr2.upper - cr2.lower > naive.upper - naive.lower
    # but two documents cannot support a headline interval: no decision is made
    assert cell.lower is None and cell.upper is None and cell.decision == "undecided"
    assert cell.reason.startswith("only 2 documents: the data cannot support an interval")


def test_wide_equals_long_and_slices():
    wide = pd.read_json(FIXTURE, lines=True)
    long = wide.melt(
        id_vars=["query_id", "doc_id", "slice"], var_name="method", value_name="recall@10"
    )
    a = rewriting(wide, score="recall@10", seed=3, bootstrap_reps=REPS)
    b = rewriting(long, seed=3, bootstrap_reps=REPS)
    assert b.score == "recall@10"
    assert [d.decision for d in a.decisions] == [d.decision for d in b.decisions]
    assert [d.lower for d in a.decisions] == pytest.approx([d.lower for d in b.decisions])
    slices = [(d.method, d.slice) for d in a.decisions]
    assert slices[:3] == [("expansion", "in-domain"), ("expansion", "out-of-domain"),
                          ("expansion", "all")]  # fmt: skip
    assert len(a.sentences()) == 2 and a.sentences()[1].startswith("hyde: ")


def test_one_document_is_undecided():
    frame = _two_documents()
    frame["slice"] = ["solo", "solo", "pair", "pair", "pair", "pair"]
    frame.loc[frame["slice"] == "pair", "doc_id"] = ["B", "B", "C", "C"]
    r = rewriting(frame, seed=1, bootstrap_reps=REPS)
    solo = next(d for d in r.decisions if d.slice == "solo")
    assert solo.decision == "undecided" and "1 document" in solo.reason


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.drop(columns="doc_id"), "no 'doc_id'"),
        (lambda f: f.drop(columns="baseline"), "no 'baseline' column"),
        (lambda f: pd.concat([f, f.iloc[:1]]), "has two"),
        (lambda f: f.assign(doc_id=["A", "B", "B", "B", "B", "B"]).pipe(
            lambda g: pd.concat([g.melt(id_vars=["query_id", "doc_id"], var_name="method",
                                        value_name="s").assign(doc_id=lambda h: h["doc_id"].where(
                                            h["method"] == "hyde", "Z"))])), "several doc_id"),
    ],
)  # fmt: skip
def test_bad_tables(change, message):
    with pytest.raises(InputError, match=message):
        rewriting(change(_two_documents()), seed=1, bootstrap_reps=REPS)


def test_cli_json_matches_the_twin():
    import typer
    from typer.testing import CliRunner

    from ragstat.cli.rewriting import rewriting as command

    app = typer.Typer()
    app.command()(command)
    args = [str(FIXTURE), "--score", "recall@10", "--seed", "7", "--bootstrap-reps", "199"]
    out = CliRunner().invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    twin = rewriting(FIXTURE, score="recall@10", seed=7, bootstrap_reps=199).to_dict()
    assert json.loads(out.stdout) == json.loads(json.dumps(twin))
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0 and "hyde: " in shown.stdout
