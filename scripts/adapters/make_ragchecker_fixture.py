"""Write tests/fixtures/adapters/ragchecker/ with RAGChecker's own code.

Run (RAGChecker 0.1.9, Python 3.11; no LLM, no network):

    python3 -m venv --system-site-packages /tmp/venv-ragchecker
    /tmp/venv-ragchecker/bin/pip install ragchecker
    /tmp/venv-ragchecker/bin/python scripts/adapters/make_ragchecker_fixture.py

RAGChecker's scoring needs an LLM to extract claims and to check them. The script fills
the extracted claims and the four checking results (``answer2response``,
``response2answer``, ``retrieved2answer``, ``retrieved2response``) by hand, then runs
``RAGChecker.evaluate``: it skips extraction and checking for results that already have
them, computes every per-query metric with RAGChecker's own functions and aggregates them
(mean over queries × 100, rounded to 0.1). ``RAGResults.to_json`` writes one file per
system (``bm25.json``, ``dense.json``); ``expected.json`` records, per system, the
top-level metrics and the unrounded means of the per-query metrics from the objects.
"""

from __future__ import annotations

import json
import os
from importlib.metadata import version
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no cost-map download

import numpy as np
from ragchecker import RAGChecker, RAGResult, RAGResults
from ragchecker.container import RetrievedDoc
from ragchecker.metrics import all_metrics

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "ragchecker"
E, N = "Entailment", "Neutral"
# query id → (question, the source document it was written from)
QUERIES = {
    "q1": ("When was the bridge opened?", "doc-bridge"),
    "q2": ("Who designed the bridge?", "doc-bridge"),
    "q3": ("How long is the river?", "doc-river"),
    "q4": ("Where does the river rise?", "doc-river"),
    "q5": ("What grows in the valley?", "doc-valley"),
    "q6": ("Who farms the valley?", "doc-valley"),
}


def _checks(seed: int, n_resp: int, n_gt: int, n_psg: int) -> dict[str, list]:
    rng = np.random.default_rng(seed)

    def label(p: float) -> str:
        return E if rng.random() < p else N

    return {
        "answer2response": [label(0.6) for _ in range(n_resp)],
        "response2answer": [label(0.6) for _ in range(n_gt)],
        "retrieved2answer": [[label(0.4) for _ in range(n_psg)] for _ in range(n_gt)],
        "retrieved2response": [[label(0.4) for _ in range(n_psg)] for _ in range(n_resp)],
    }


def _result(system: int, i: int, qid: str) -> RAGResult:
    question, doc = QUERIES[qid]
    other = sorted({d for _, d in QUERIES.values()} - {doc})[(i + system) % 2]
    n_resp, n_gt = 2 + (i + system) % 3, 2 + i % 2
    docs = [RetrievedDoc(doc_id=doc, text=f"Passage from {doc}."),
            RetrievedDoc(doc_id=other, text=f"Passage from {other}.")]  # fmt: skip
    return RAGResult(
        query_id=qid,
        query=question,
        gt_answer=f"Reference answer to {qid}.",
        response=f"System {system} answer to {qid}.",
        retrieved_context=docs,
        response_claims=[[f"response claim {k}"] for k in range(n_resp)],
        gt_answer_claims=[[f"answer claim {k}"] for k in range(n_gt)],
        **_checks(100 * system + i, n_resp, n_gt, len(docs)),
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    # Never called: every result already has its claims and checking results.
    checker = RAGChecker(extractor_name="openai/unused", checker_name="openai/unused")
    expected: dict = {"ragchecker_version": version("ragchecker"), "systems": {}}
    for system, name in enumerate(("bm25", "dense")):
        results = RAGResults(results=[_result(system, i, q) for i, q in enumerate(QUERIES)])
        checker.evaluate(results, all_metrics)
        (OUT / f"{name}.json").write_text(results.to_json(indent=2), encoding="utf-8")
        names = sorted(results.results[0].metrics)
        means = {m: float(np.mean([r.metrics[m] for r in results.results])) for m in names}
        expected["systems"][name] = {"metrics": results.metrics, "means": means}
    (OUT / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
