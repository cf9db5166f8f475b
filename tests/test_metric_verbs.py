"""The item-level metric verbs: JSONL in, per-item scores with clustered intervals out."""

import json

import pytest

from ragstat.cli import main


def _judgment(ext, sup):
    return {
        "extracted_claims": ext,
        "supported_claims": sup,
        "unsupported_claims": [c for c in ext if c not in sup],
        "outcome": "scored" if ext else "no_claims",
        "failure_mode": "none",
        "rationale": "r",
    }


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_generation_verb(tmp_path, capsys):
    rows = [
        {
            "id": "a1",
            "doc": "d1",
            "judgment": _judgment(["x", "y"], ["x"]),
            "answer": "Paris",
            "gold": "paris",
            "context": "Paris was not founded in 1994.",
        },
        {
            "id": "a2",
            "doc": "d1",
            "judgment": _judgment([], []),
            "answer": "Rome",
            "gold": "Paris",
            "context": "Paris",
        },
        {
            "id": "a3",
            "doc": "d2",
            "judgment": _judgment(["z"], ["z"]),
            "answer": "the Paris",
            "gold": "Paris",
            "context": "Paris",
        },
    ]
    path = _write(tmp_path / "g.jsonl", rows)
    assert main(["generation", str(path), "--cluster-by", "doc", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    f = out["scores"]["faithfulness"]
    assert f["mean"] == pytest.approx(0.75) and f["n"] == 2 and f["not_scored"] == 1
    assert out["scores"]["exact_match"]["mean"] == pytest.approx(2 / 3)
    assert out["scores"]["unseen_entity_flag"]["mean"] == pytest.approx(1 / 3)  # Rome only
    assert any("not a grounding check" in n for n in out["notes"])
    bad = _write(tmp_path / "b.jsonl", [{"id": "a", "judgment": {"extracted_claims": ["x"]}}])
    assert main(["generation", str(bad)]) == 2
    assert "invalid judgment" in capsys.readouterr().err


def test_ontology_verb_reproduces_the_seed_hierarchy(tmp_path, capsys):
    tax = tmp_path / "tax.csv"
    tax.write_text(
        "parent,child\nVehicle,Car\nVehicle,Watercraft\nCar,Sedan\nCar,Hatchback\n"
        "Watercraft,Submarine\n"
    )
    rows = [
        {"id": "i1", "gold": "Hatchback", "predicted": "Sedan"},
        {"id": "i2", "gold": "Hatchback", "predicted": "Submarine"},
    ]
    path = _write(tmp_path / "o.jsonl", rows)
    assert main(["ontology", str(path), "--taxonomy", str(tax), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"]["hf1"]["mean"] == pytest.approx(0.5)  # (2/3 + 1/3) / 2
    assert out["scores"]["wu_palmer"]["mean"] == pytest.approx(0.5)
    path2 = _write(tmp_path / "o2.jsonl", [{"id": "i1", "gold": "Bicycle", "predicted": "Sedan"}])
    assert main(["ontology", str(path2), "--taxonomy", str(tax)]) == 2
    assert "Bicycle" in capsys.readouterr().err


def test_ingestion_and_latency_verbs(tmp_path, capsys):
    pytest.importorskip("jiwer")
    rows = [
        {"id": "m1", "reference": "abcd efgh", "extracted": "abcd efgx", "text": "ﬁle\u200b"},
        {"id": "m2", "reference": "same text", "extracted": "same text", "text": "plain"},
    ]
    path = _write(tmp_path / "i.jsonl", rows)
    assert main(["ingestion", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"]["cer"]["mean"] == pytest.approx((1 / 9) / 2)
    assert out["scores"]["wer"]["mean"] == pytest.approx(0.25)
    assert out["scores"]["nfc_nfkc_differs"]["mean"] == 0.5
    assert any("U+200B" in n for n in out["notes"])
    spans = [
        {"trace_id": f"t{i}", "stage": "gen", "duration_ms": float(i), "tenant": f"c{i % 3}"}
        for i in range(1, 31)
    ]
    trace = _write(tmp_path / "t.jsonl", spans)
    assert main(["latency", str(trace), "--cluster-by", "tenant", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["percentiles"][0]["p50"] == pytest.approx(15.5)
    assert out["scores"]["gen ms"]["clusters"] == 3


def test_duplicate_ids_and_wrong_types_are_rejected(tmp_path, capsys):
    tax = tmp_path / "tax.csv"
    tax.write_text("parent,child\nV,Car\nCar,Sedan\nV,Boat\n")
    dup = _write(
        tmp_path / "d.jsonl",
        [
            {"id": 1, "gold": "Sedan", "predicted": "Sedan"},
            {"id": 1, "gold": "Sedan", "predicted": "Boat"},
        ],
    )
    assert main(["ontology", str(dup), "--taxonomy", str(tax)]) == 2
    assert "duplicate id '1'" in capsys.readouterr().err
    spans = _write(tmp_path / "s.jsonl", [{"trace_id": "t", "stage": "a", "duration_ms": True}])
    assert main(["latency", str(spans)]) == 2
    assert "boolean" in capsys.readouterr().err
    bad = _write(tmp_path / "j.jsonl", [{"id": "a", "judgment": {"extracted": ["x"]}}])
    assert main(["generation", str(bad)]) == 2
    assert "extracted_claims" in capsys.readouterr().err


def test_latency_cluster_comes_from_any_span_and_conflicts_fail(tmp_path, capsys):
    spans = [
        {"trace_id": "t1", "stage": "a", "duration_ms": 1.0},
        {"trace_id": "t1", "stage": "b", "duration_ms": 2.0, "tenant": "x"},
        {"trace_id": "t2", "stage": "a", "duration_ms": 3.0, "tenant": "y"},
        {"trace_id": "t3", "stage": "a", "duration_ms": 4.0, "tenant": "y"},
    ]
    path = _write(tmp_path / "s.jsonl", spans)
    assert main(["latency", str(path), "--cluster-by", "tenant", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"]["a ms"]["clusters"] == 2
    spans.append({"trace_id": "t1", "stage": "c", "duration_ms": 1.0, "tenant": "z"})
    path = _write(tmp_path / "s2.jsonl", spans)
    assert main(["latency", str(path), "--cluster-by", "tenant"]) == 2
    assert "disagree" in capsys.readouterr().err
