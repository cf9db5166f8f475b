"""`ragstat chunking`: boundary rules on hand-worked chunks, TF-IDF coherence against a
brute-force computation, the document as the unit, the paired chunker comparison."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragstat.api.verbs.chunking import chunking
from ragstat.errors import InputError
from ragstat.metrics.chunking import (
    boundary_checks,
    is_heading,
    is_list_item,
    lexical_coherence,
    list_cut,
    sentence_cut,
    split_sentences,
    table_cut,
)

FIXTURE = Path(__file__).parent / "fixtures" / "formats" / "chunking" / "chunks.jsonl"
REPS = 199


def test_sentence_cut_rule():
    assert sentence_cut("The tenant pays", "rent on time.")
    assert sentence_cut("a list (see", ") below")  # a continuation mark
    assert not sentence_cut("The tenant pays.", "rent on time.")  # terminal mark
    assert not sentence_cut("nos termos seguintes:", "homens e mulheres")  # ':' is terminal
    assert not sentence_cut('He said "stop."', "then left")  # closing quote skipped
    assert not sentence_cut("The tenant pays", "Rent on time.")  # capital: not counted
    assert not sentence_cut("", "rent")


def test_table_list_and_heading_rules():
    assert table_cut("text\n| a | b |", "| c | d |\nmore")
    assert not table_cut("| a | b |\ntext", "| c | d |")
    assert table_cut("x", "y", html_open=True)
    assert is_list_item("- a fee") and is_list_item("2) a photo") and is_list_item("IV - o voto")
    assert not is_list_item("2019 was a year")
    assert list_cut("needs:\n- a form", "- a photo\nthen")
    assert not list_cut("- a form\nThe end.", "- a photo")
    for line in ("# Lease", "Art. 5º", "CAPÍTULO I", "DAS DISPOSIÇÕES GERAIS", "3.2 Results"):
        assert is_heading(line), line
    for line in ("Art. 5º É livre a manifestação do pensamento.", "the end", "TOTAL: 5;", ""):
        assert not is_heading(line), line


def test_boundary_checks_hand_worked():
    docs = {
        "d1": [("a", "# Lease\nThe tenant pays"), ("b", "rent.\n## Deposit"), ("c", "Paid.")],
        "d2": [("x", "- one\n- two"), ("y", "- three\nEnd.")],
    }
    b = boundary_checks(docs)
    # boundary a|b is in a sentence → a and b flagged; b ends on a heading; d2 cuts a list
    assert b.cut_in_sentence.tolist() == [True, True, False, False, False]
    assert b.orphan_heading.tolist() == [False, True, False, False, False]
    assert b.cut_in_list.tolist() == [False, False, False, True, True]
    assert b.cut_in_table.tolist() == [False] * 5
    assert b.problem.tolist() == [True, True, False, True, True]
    assert b.words.tolist() == [5, 3, 1, 4, 3] and b.boundaries == 3
    html = {"d": [("p", "<table><tr><td>1"), ("q", "</td></tr></table>"), ("r", "After.")]}
    assert boundary_checks(html).cut_in_table.tolist() == [True, True, False]
    with pytest.raises(InputError, match="empty denominator"):
        boundary_checks({})


def test_coherence_against_brute_force():
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [
        "Energy tariffs rise. Energy tariffs fall. Cats sleep all day.",
        "Cats sleep all day. Dogs bark at night.",
        "One sentence only.",
    ]
    docs = {"d": [(f"c{i}", t) for i, t in enumerate(texts)]}
    got = lexical_coherence(docs)
    vec = TfidfVectorizer().fit(texts)

    def cos(s: str, t: str) -> float:
        u, v = vec.transform([s]).toarray()[0], vec.transform([t]).toarray()[0]
        return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))

    s0, s1 = split_sentences(texts[0]), split_sentences(texts[1])
    assert s0 == ["Energy tariffs rise.", "Energy tariffs fall.", "Cats sleep all day."]
    want0 = (cos(s0[0], s0[1]) + cos(s0[1], s0[2])) / 2
    assert got.coherence[0] == pytest.approx(want0)
    assert got.coherence[1] == pytest.approx(cos(s1[0], s1[1]))
    assert np.isnan(got.coherence[2]) and got.pairs.tolist() == [2, 1, 0]
    assert got.boundary_similarity[0] == pytest.approx(1.0)  # same sentence across the cut
    assert got.boundary_similarity[1] == pytest.approx(cos(s1[1], texts[2]))
    assert np.isnan(got.boundary_similarity[2])  # the document's last chunk


def test_two_documents_are_the_unit():
    rows = [
        {"doc_id": "A", "chunk_id": i, "text": t}
        for i, t in enumerate(["The rent is", "due monthly.", "Fees apply.", "Late fees"])
    ] + [{"doc_id": "B", "chunk_id": 0, "text": "One chunk only."}]
    r = chunking(rows, seed=1, bootstrap_reps=REPS)
    s = r.chunkers["all"].scores["cut_in_sentence"]
    assert s.clusters == 2 and s.n == 5  # K = documents, not chunks
    assert s.mean == pytest.approx(2 / 5)
    assert r.comparison is None and r.sizes["all"]["documents"] == 2


def test_chunk_order_is_natural():
    rows = [
        {"doc_id": "A", "chunk_id": "10", "text": "end."},
        {"doc_id": "A", "chunk_id": "2", "text": "The start of"},
    ]
    r = chunking(rows, seed=1, bootstrap_reps=REPS)
    # "2" then "10" (text order "10" first would read "end." | "The start of": no cut)
    assert r.chunkers["all"].scores["cut_in_sentence"].mean == 1.0


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"doc_id": "A", "text": "x"}], "no 'chunk_id'"),
        ([{"doc_id": "A", "chunk_id": 1, "text": 5}], "must be a string"),
        ([{"doc_id": "A", "chunk_id": 1, "text": "x"}] * 2, "appears twice"),
        (
            [{"doc_id": "A", "chunk_id": 1, "text": "x", "chunker": "f"},
             {"doc_id": "A", "chunk_id": 2, "text": "y"}],
            "no 'chunker'",
        ),
    ],
)  # fmt: skip
def test_bad_records(rows, message):
    with pytest.raises(InputError, match=message):
        chunking(rows, seed=1, bootstrap_reps=REPS)


def test_paired_chunkers_on_the_fixture():
    r = chunking(FIXTURE, seed=7, bootstrap_reps=REPS)
    assert r.comparison is not None and r.comparison.systems == ("fixed", "sections")
    # per document: fixed 3/4, 3/4, 2/3, 2/3 chunks with a problem; sections none
    est = r.comparison.report.estimands["macro"].estimate
    assert est == pytest.approx(np.mean([3 / 4, 3 / 4, 2 / 3, 2 / 3]))
    assert r.sentence is not None and "sections cuts badly less often than fixed" in r.sentence
    assert "4 documents" in r.sentence
    flipped = chunking(FIXTURE, systems="sections,fixed", seed=7, bootstrap_reps=REPS)
    assert flipped.comparison.report.estimands["macro"].estimate == pytest.approx(-est)
    with pytest.raises(InputError, match="no chunker"):
        chunking(FIXTURE, systems="fixed,semantic", seed=7, bootstrap_reps=REPS)
    frame = r.to_frame()
    assert {"chunker", "score", "estimate"} <= set(frame.columns)


def test_cli_json_matches_the_twin():
    import typer
    from typer.testing import CliRunner

    from ragstat.cli.chunking import chunking as command

    app = typer.Typer()
    app.command()(command)
    args = [str(FIXTURE), "--seed", "7", "--bootstrap-reps", "199", "--json"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    printed = json.loads(out.stdout)
    twin = chunking(FIXTURE, seed=7, bootstrap_reps=199).to_dict()
    assert printed == json.loads(json.dumps(twin))


def test_cli_table():
    import typer
    from typer.testing import CliRunner

    from ragstat.cli.chunking import chunking as command

    app = typer.Typer()
    app.command()(command)
    out = CliRunner().invoke(app, [str(FIXTURE), "--seed", "7", "--bootstrap-reps", "199"])
    assert out.exit_code == 0, out.output
    assert "chunker fixed" in out.stdout and "cuts badly less often" in out.stdout
