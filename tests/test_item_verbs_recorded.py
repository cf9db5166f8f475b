"""The item verbs and `plan` are recorded like every other verb (a registry row with the verb
and its status, an --out folder with result.json and summary.md), say one plain sentence per
score first, and never show an impossible number: with three documents or fewer there is no
headline interval, and every flag an interval's JSON carries is named in the terminal."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from ragstat.cli import main
from ragstat.registry import Registry

FORMATS = Path(__file__).parent / "fixtures" / "formats"
FAST = ["--seed", "7", "--bootstrap-reps", "99"]
REASON = "the data cannot support an interval"

#: Each verb's documented example (its fixture and options), as `ragstat VERB …`.
EXAMPLES = {
    "extraction": [str(FORMATS / "extraction" / "items.jsonl"), "--cluster-by", "doc"],
    "ingestion": [str(FORMATS / "ingestion" / "pages.jsonl"), "--cluster-by", "file"],
    "latency": [str(FORMATS / "latency" / "trace.jsonl")],
    "routing": [str(FORMATS / "routing" / "queries.jsonl"), "--cluster-by", "doc_id"],
    "nuggets": [str(FORMATS / "nuggets" / "answers.jsonl"), "--cluster-by", "topic"],
    "chunking": [str(FORMATS / "chunking" / "chunks.jsonl")],
    "rewriting": [str(FORMATS / "rewriting" / "queries.jsonl"), "--score", "recall@10"],
    "generation": [str(FORMATS / "generation" / "answers.jsonl")],
    "ontology": [
        str(FORMATS / "ontology" / "items.jsonl"),
        "--taxonomy",
        str(FORMATS / "ontology" / "taxonomy.csv"),
    ],
}


def _runs() -> list:
    return Registry(Path(os.environ["RAGSTAT_REGISTRY"])).list()


def _two_document_routing(path: Path) -> Path:
    """Two documents (K = 2): A's four items all right, B's one right of four."""
    a = [("x", "x"), ("y", "y"), ("x", "x"), ("y", "y")]
    b = [("x", "y"), ("y", "x"), ("x", "x"), ("y", "x")]
    rows = [
        {"id": f"{doc}{k}", "doc": doc, "label": t, "predicted": p}
        for doc, pairs in (("A", a), ("B", b))
        for k, (t, p) in enumerate(pairs)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def _two_document_extraction(path: Path) -> Path:
    """Two documents of entity spans: corpus F1 2/3 whatever the documents resampled."""
    rows = [
        {"id": "p1", "doc": "A", "text": "Ana went to Rio",
         "entities_pred": [[0, 3, "PER"], [12, 15, "LOC"]], "entities_ref": [[0, 3, "PER"]]},
        {"id": "p2", "doc": "B", "text": "Bo met Cy",
         "entities_pred": [[0, 2, "PER"]], "entities_ref": [[0, 2, "PER"], [7, 9, "PER"]]},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("verb", sorted(EXAMPLES))
def test_every_item_verb_is_recorded_with_its_out_folder(verb, tmp_path, capsys):
    out = tmp_path / "out"
    assert main([verb, *EXAMPLES[verb], *FAST, "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    runs = _runs()
    assert [(r.command, r.status) for r in runs] == [(verb, "ok")]
    run = runs[0]
    assert run.seed == 7 and run.results and set(run.inputs) >= {"file"}
    for name in ("result.json", "summary.md", "manifest.json"):
        assert (out / name).is_file(), name
        assert str(out / name) in run.outputs
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["run_id"] == run.run_id
    summary = (out / "summary.md").read_text()
    first = next(line for line in shown.splitlines() if line.strip())
    assert first.startswith("For ") or verb in ("rewriting", "chunking"), first
    assert first in summary  # the same sentence opens the terminal and the summary


def test_json_is_unchanged_by_recording(tmp_path, capsys):
    args = [*EXAMPLES["nuggets"], *FAST]
    assert main(["nuggets", *args, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["nuggets", *args, "--json", "--out", str(tmp_path / "o")]) == 0
    assert json.loads(capsys.readouterr().out) == plain
    assert json.loads((tmp_path / "o" / "result.json").read_text()) == plain


def test_a_failed_item_run_is_recorded_as_failed(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n', encoding="utf-8")
    assert main(["routing", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert [(r.command, r.status) for r in _runs()] == [("routing", "failed")]
    assert not (tmp_path / "o").exists()


def test_plan_is_recorded_and_leads_with_one_sentence(tmp_path, capsys):
    out = tmp_path / "p"
    assert main(["plan", "--documents", "40", "--sd", "0.2", "--out", str(out)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("40 documents give a ±0.0640 interval (95 %) on the mean score")
    assert "may go unseen (power 80 %)" in first
    (run,) = _runs()
    assert (run.command, run.status) == ("plan", "ok")
    assert run.results["plan"]["documents"] == 40 and run.results["sentence"] == first
    assert first in (out / "summary.md").read_text()
    assert json.loads((out / "result.json").read_text())["documents"] == 40


def test_plan_in_points_for_a_rate_and_for_ab(capsys):
    assert main(["plan", "--queries-per-doc", "5", "--icc", "0.1", "--rate", "0.3",
                 "--queries", "400"]) == 0  # fmt: skip
    first = capsys.readouterr().out.splitlines()[0]
    assert re.match(r"400 queries from 80 documents give a ±\d+\.\d-point interval", first)
    assert main(["plan", "--ab", "--mde", "0.02", "--rate", "0.3"]) == 0
    assert re.match(r"[\d,]+ users per arm detect a difference of 0.02", capsys.readouterr().out)
    assert [r.command for r in _runs()] == ["plan", "plan"]


def _intervals_shown(text: str) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in re.findall(r"\[(-?\d+\.\d+), (-?\d+\.\d+)\]", text)]


def test_two_document_routing_shows_no_interval_and_names_every_flag(tmp_path, capsys):
    path = _two_document_routing(tmp_path / "r.jsonl")
    assert main(["routing", str(path), "--cluster-by", "doc", *FAST]) == 0
    shown = capsys.readouterr().out
    lines = shown.splitlines()
    assert lines[0].startswith("For a random labelled item, accuracy is 62.5 points")
    assert REASON in lines[0]
    assert any(line.startswith("For the whole corpus, macro F1") and REASON in line
               for line in lines)  # fmt: skip
    for lo, hi in _intervals_shown(shown):  # no interval at all in the table at K = 2
        pytest.fail(f"an interval [{lo}, {hi}] is shown from two documents")
    assert main(["routing", str(path), "--cluster-by", "doc", *FAST, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    flagged = 0
    for name, score in data["scores"].items():
        for iv in score["intervals"]:
            if iv.get("outside_range"):  # e.g. cr2_bm leaves [0, 1] at K = 2
                flagged += 1
                line = next(x for x in lines if x.startswith(f"flag: {name}:"))
                assert "leaves the score's range [0, 1]" in line and iv["method"] in line
            if iv.get("discarded"):
                assert f"{iv['discarded']} of {iv['replicates']}" in shown
    assert flagged > 0  # the JSON does carry impossible intervals: the terminal names them
    assert data["macro_f1"]["reason"].startswith("only 2 documents")


def test_two_document_extraction_f1_has_no_interval(tmp_path, capsys):
    path = _two_document_extraction(tmp_path / "e.jsonl")
    assert main(["extraction", str(path), "--cluster-by", "doc", *FAST, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    f1 = data["f1"]["entity_f1"]
    assert f1["clusters"] == 2 and f1["estimate"] == pytest.approx(2 / 3)
    assert f1["reason"].startswith("only 2 documents")
    assert main(["extraction", str(path), "--cluster-by", "doc", *FAST]) == 0
    shown = capsys.readouterr().out
    line = next(x for x in shown.splitlines() if "entity_f1 is" in x)
    assert line.startswith("For the whole corpus, entity_f1 is 66.7 points, but no interval")
    assert REASON in line
    assert "0.6667, 0.6667" not in shown and not _intervals_shown(shown)


def test_repr_opens_with_the_sentences():
    from ragstat.api.verbs.nuggets import nuggets

    r = nuggets(FORMATS / "nuggets" / "answers.jsonl", cluster_by="topic", seed=7,
                bootstrap_reps=99)  # fmt: skip
    text = repr(r)
    assert text.splitlines()[: len(r.sentences())] == r.sentences()
    assert r.sentences()[0].startswith("For a random item, V_strict is")


def test_units_come_from_values_not_the_name(tmp_path):
    """A score named like a rate whose values are not in [0, 1] stays in its own units."""
    import pandas as pd

    from ragstat.api.verbs.rewriting import rewriting

    rows = [
        {"query_id": f"q{d}{i}", "doc_id": f"d{d}", "baseline": float(d + i),
         "hyde": float(d + i) + 1.5 + 0.1 * i}
        for d in range(6) for i in range(3)
    ]  # fmt: skip
    r = rewriting(pd.DataFrame(rows), score="recall@10", seed=1, bootstrap_reps=99)
    assert r.unit_scale == 1.0 and "points" not in r.sentences()[0]
