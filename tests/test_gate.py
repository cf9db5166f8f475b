"""`ragstat gate`: gates decided on interval bounds, exit codes 0/1/2, CI outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ragstat
from ragstat.cli import main


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    """Two systems on the same 600 queries of 60 documents in 3 laws (A better than B)."""
    rng = np.random.default_rng(11)
    K = 60
    n = rng.integers(5, 16, K)
    doc = np.repeat(np.arange(K), n)
    law = np.repeat(np.array(["civil", "penal", "tax"])[np.arange(K) % 3], n)
    base = np.repeat(rng.beta(6, 3, K), n)  # document difficulty
    rows = []
    for system, shift in (("bm25", 0.08), ("tfidf", 0.0)):
        p = np.clip(base + shift, 0, 1)
        hit = (rng.random(doc.size) < p).astype(int)
        rows.append(
            pd.DataFrame(
                {
                    "query_id": np.arange(doc.size),
                    "doc_id": doc,
                    "retriever": system,
                    "meta_law": law,
                    "hit1": hit,
                }
            )
        )
    path = tmp_path_factory.mktemp("gate") / "records.parquet"
    pd.concat(rows).to_parquet(path)
    return path


def _gates(folder: Path, records: Path, gates: str, top: str = "") -> Path:
    text = f"""{top}
seed = 1
bootstrap_reps = 199

[inputs.candidate]
path = "{records}"
system = "bm25"

[inputs.baseline]
path = "{records}"
system = "tfidf"

{gates}
"""
    path = folder / "gates.toml"
    path.write_text(text, encoding="utf-8")
    return path


PASSING = """
[[gates]]
name = "hit1 at least 0.5"
kind = "at_least"
metric = "hit1"
threshold = 0.5

[[gates]]
name = "not worse than tfidf"
kind = "not_worse_than_baseline"
metric = "hit1"
margin = 0.02
"""


def test_passing_gates_exit_0_and_the_json_is_the_twin(tmp_path, records, capsys):
    path = _gates(tmp_path, records, PASSING)
    assert main(["gate", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == json.loads(json.dumps(ragstat.gate(path).to_dict()))
    assert [g["outcome"] for g in out["gates"]] == ["pass", "pass"]
    assert out["exit_code"] == 0 and out["correction"] == "holm"


def test_a_failing_gate_exits_1(tmp_path, records, capsys):
    gates = (
        PASSING
        + '\n[[gates]]\nname = "too high"\nkind = "at_least"\nmetric = "hit1"\nthreshold = 0.97\n'
    )
    path = _gates(tmp_path, records, gates)
    assert main(["gate", str(path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [g["outcome"] for g in out["gates"]] == ["pass", "pass", "fail"]


def test_inconclusive_blocks_unless_the_file_says_it_passes(tmp_path, records, capsys):
    report = ragstat.gate(_gates(tmp_path, records, PASSING))
    est = report.gates[0].estimate  # a threshold at the estimate straddles the interval
    gates = (
        f'[[gates]]\nname = "at estimate"\nkind = "at_least"\nmetric = "hit1"\nthreshold = {est}\n'
    )
    assert main(["gate", str(_gates(tmp_path, records, gates))]) == 1
    assert "inconclusive ·" in capsys.readouterr().out
    path = _gates(tmp_path, records, gates, top='inconclusive = "passes"')
    assert main(["gate", str(path)]) == 0


def test_slices_with_holm_levels_and_missing_evidence_fails(tmp_path, records):
    gates = "".join(
        f'[[gates]]\nname = "{law}"\nkind = "at_least"\nmetric = "hit1"\nthreshold = 0.3\n'
        f'slice = {{ law = "{law}" }}\n\n'
        for law in ("civil", "penal", "tax", "labour")
    )
    report = ragstat.gate(_gates(tmp_path, records, gates))
    by = {g.spec.name: g for g in report.gates}
    assert by["labour"].decision.outcome == "fail"  # no rows in the slice: never a pass
    assert "no evidence" in (by["labour"].decision.reason or "") or by["labour"].K is None
    passed = [g for g in report.gates if g.decision.outcome == "pass"]
    assert {g.spec.name for g in passed} == {"civil", "penal", "tax"}
    # Holm: the first step tests every gate at 1 − 0.05/4, later steps at wider levels
    assert all(g.decision.level >= 1 - 0.05 / 4 - 1e-12 for g in passed)
    assert report.exit_code() == 1


@pytest.mark.parametrize(
    "gates, message",
    [
        (
            '[[gates]]\nname = "x"\nkind = "at_leest"\nmetric = "hit1"\nthreshold = 0.5\n',
            "unknown kind",
        ),
        (
            '[[gates]]\nname = "x"\nkind = "at_least"\nmetric = "hit"\nthreshold = 0.5\n',
            "did you mean hit1",
        ),
        ('[[gates]]\nname = "x"\nkind = "at_least"\nmetric = "hit1"\n', "needs a threshold"),
        ("[[gates]\n", "not a valid TOML"),
    ],
)
def test_bad_gates_files_exit_2_with_one_line(tmp_path, records, capsys, gates, message):
    path = _gates(tmp_path, records, gates)
    assert main(["gate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_junit_markdown_and_out_folder(tmp_path, records, capsys):
    junitparser = pytest.importorskip("junitparser")
    gates = (
        PASSING
        + '\n[[gates]]\nname = "too high"\nkind = "at_least"\nmetric = "hit1"\nthreshold = 0.97\n'
    )
    path = _gates(tmp_path, records, gates)
    junit, md, out = tmp_path / "gates.xml", tmp_path / "summary.md", tmp_path / "run"
    code = main(
        ["gate", str(path), "--junit", str(junit), "--markdown", str(md), "--out", str(out)]
    )
    assert code == 1
    cases = [c for suite in junitparser.JUnitXml.fromfile(str(junit)) for c in suite]
    assert [c.name for c in cases] == ["hit1 at least 0.5", "not worse than tfidf", "too high"]
    assert [bool(c.result) for c in cases] == [False, False, True]
    text = md.read_text(encoding="utf-8")
    assert "too high" in text and text.count("\n|") >= 4
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["command"] == "gate"
    assert {"gates_file", "candidate.path", "baseline.path"} <= set(manifest["inputs"])
    assert json.loads((out / "result.json").read_text(encoding="utf-8"))["exit_code"] == 1


def test_guard_rails_per_window_use_only_their_own_rows(tmp_path):
    """A monitoring sample over three days; quality drops on the last day only."""
    rng = np.random.default_rng(5)
    frames = []
    for day, p in (("2026-11-01", 0.85), ("2026-11-02", 0.85), ("2026-11-03", 0.35)):
        doc = np.repeat(np.arange(40), 6)
        hit = (rng.random(doc.size) < p).astype(int)
        frames.append(
            pd.DataFrame(
                {
                    "query_id": [f"{day}-{i}" for i in range(doc.size)],
                    "doc_id": doc,
                    "time": pd.Timestamp(day)
                    + pd.to_timedelta(rng.integers(0, 86_000, doc.size), "s"),
                    "faithful": hit,
                }
            )
        )
    path = tmp_path / "sample.parquet"
    pd.concat(frames).to_parquet(path)
    gates = tmp_path / "rails.toml"
    gates.write_text(
        'seed = 2\nbootstrap_reps = 199\nwindow = { column = "time", every = "D" }\n'
        f'[inputs.candidate]\npath = "{path}"\n'
        '[[gates]]\nname = "faithfulness"\nkind = "at_least"\nmetric = "faithful"\nthreshold = 0.7\n',
        encoding="utf-8",
    )
    report = ragstat.gate(gates)
    assert [(g.window, g.decision.outcome) for g in report.gates] == [
        ("2026-11-01", "pass"),
        ("2026-11-02", "pass"),
        ("2026-11-03", "fail"),
    ]
    assert all(g.K == 40 for g in report.gates)  # each window's own documents only
    assert report.exit_code() == 1


def test_too_many_unscored_rows_fail_a_gate_for_missing_evidence(tmp_path):
    """Unscorable judge answers are counted; above the stated share the gate fails."""
    rng = np.random.default_rng(8)
    doc = np.repeat(np.arange(30), 8)
    score = (rng.random(doc.size) < 0.9).astype(float)
    score[rng.random(doc.size) < 0.2] = np.nan  # ≈ 20 % unscorable
    path = tmp_path / "judged.csv"
    pd.DataFrame({"query_id": range(doc.size), "doc_id": doc, "faithful": score}).to_csv(
        path, index=False
    )
    for limit, expected in ((0.1, "fail"), (0.4, "pass")):
        gates = tmp_path / f"g{limit}.toml"
        gates.write_text(
            f'seed = 1\nbootstrap_reps = 199\n[inputs.candidate]\npath = "{path}"\n'
            '[[gates]]\nname = "faithful"\nkind = "at_least"\nmetric = "faithful"\n'
            f"threshold = 0.6\nmax_unscored = {limit}\n",
            encoding="utf-8",
        )
        (result,) = ragstat.gate(gates).gates
        assert result.decision.outcome == expected, result.decision.reason
        assert "left out" in result.evidence
        if expected == "fail":
            assert "max_unscored" in (result.decision.reason or "")


def test_queries_without_a_partner_are_counted_not_dropped_silently(tmp_path, records):
    """A baseline holding only part of the queries: the gate pairs what it can and says
    how many rows it left out."""
    frame = pd.read_parquet(records)
    base = frame[(frame["retriever"] == "tfidf") & (frame["query_id"] % 2 == 0)]
    half = tmp_path / "half.parquet"
    base.to_parquet(half)
    text = _gates(tmp_path, records, PASSING).read_text(encoding="utf-8")
    path = tmp_path / "gates.toml"
    path.write_text(
        text.replace(f'path = "{records}"\nsystem = "tfidf"', f'path = "{half}"'), encoding="utf-8"
    )
    paired = ragstat.gate(path).gates[1]
    n_candidate = int((frame["retriever"] == "bm25").sum())
    assert len(base) == paired.N
    assert f"{n_candidate - len(base)} query row(s) in one input only" in paired.evidence
