"""A gate over an ``evaluate`` input: a query with no relevant document has no score because
no metric applies to it, not because scoring failed — it is counted in the evidence and does
not trip ``max_unscored`` (whose default of 0 guards per-query tables, where an empty or
unparseable cell is a lost score). A gate that sets ``max_unscored`` itself still applies it."""

from __future__ import annotations

from pathlib import Path

import ragstat


def _inputs(folder: Path) -> dict:
    """20 queries in 10 clusters, each with one relevant document ranked first or second;
    query q20 has judgments but none relevant."""
    qrels, run, topics = [], [], ["query_id,topic"]
    for q in range(1, 21):
        rel = 0 if q == 20 else 1
        qrels.append(f"q{q} 0 d{q} {rel}")
        first, second = (f"d{q}", "x") if q % 3 else ("x", f"d{q}")
        run += [f"q{q} Q0 {first} 1 2.0 sys", f"q{q} Q0 {second} 2 1.0 sys"]
        topics.append(f"q{q},t{(q - 1) // 2}")
    (folder / "qrels.trec").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (folder / "run.trec").write_text("\n".join(run) + "\n", encoding="utf-8")
    (folder / "topics.csv").write_text("\n".join(topics) + "\n", encoding="utf-8")
    return {
        "kind": "evaluate", "qrels": str(folder / "qrels.trec"), "run": str(folder / "run.trec"),
        "metrics": "mrr", "cluster_by": str(folder / "topics.csv"), "cluster_column": "topic",
    }  # fmt: skip


def _gate(folder: Path, **extra):
    spec = {
        "seed": 1, "correction": "none", "inputs": {"candidate": _inputs(folder)},
        "gates": [{"name": "mrr", "kind": "at_least", "metric": "mrr", "threshold": 0.3, **extra}],
    }  # fmt: skip
    return ragstat.gate(spec)


def test_a_query_with_no_relevant_document_does_not_trip_max_unscored(tmp_path):
    result = _gate(tmp_path)
    (g,) = result.gates
    assert g.decision.outcome == "pass", g.decision.reason
    assert g.N == 19  # the query with no relevant document is not scored


def test_a_gate_that_sets_max_unscored_still_applies_it(tmp_path):
    result = _gate(tmp_path, max_unscored=0.0)
    (g,) = result.gates
    assert g.decision.outcome == "fail"
    assert "exceed max_unscored" in (g.decision.reason or "")
