"""Write the ranx fixture with ranx's own writers: tests/fixtures/adapters/ranx/.

Run (ranx is not a ragstat dependency; a venv that reuses the system packages):

    python3 -m venv --system-site-packages /tmp/venv-ranx
    /tmp/venv-ranx/bin/pip install ranx          # used: ranx 0.3.21 (numba 0.68, orjson)
    /tmp/venv-ranx/bin/python scripts/adapters/make_ranx_fixture.py

Writes, from a tiny in-script collection (12 queries, passages ``d<k>#<p>`` of 10
source documents, graded judgments, tie-free random scores):

* ``run/qrels.json``, ``run/bm25.json``, ``run/dense.json`` — ``Qrels.save`` /
  ``Run.save`` JSON (the layout ``ragstat`` reads: a folder with ``qrels.json`` and
  one JSON per run, named by the file stem);
* ``run/report.json`` — ``ranx.compare(...).save``: ranx's own scores per run;
* ``trec/qrels.trec``, ``trec/bm25.trec``, ``trec/dense.trec`` — the same through
  ranx's TREC writers (run name in the tag column);
* ``expected.json`` — ``ranx.evaluate(qrels, run, ["ndcg@10", "recall@10", "mrr"])``
  per run, as ranx reports it.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
from ranx import Qrels, Run, compare, evaluate

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "ranx"
METRICS = ["ndcg@10", "recall@10", "mrr"]


def collection(seed: int = 7) -> tuple[dict, dict]:
    """Qrels and two runs (``{qid: {doc: score}}``) with tie-free scores."""
    rng = np.random.default_rng(seed)
    passages = [f"d{k}#{p}" for k in range(10) for p in range(4)]
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {"bm25": {}, "dense": {}}
    for i in range(1, 13):
        qid = f"q{i:02d}"
        home = int(rng.integers(10))  # the query's source document
        rel = {f"d{home}#{p}": int(rng.integers(1, 3)) for p in rng.choice(4, 2, replace=False)}
        other = [p for p in passages if p not in rel]
        judged_zero = rng.choice(other, 2, replace=False)
        qrels[qid] = {**rel, **{str(d): 0 for d in judged_zero}}
        for name, boost in (("bm25", 0.6), ("dense", 0.3)):
            pool = list(rng.choice(other, 13, replace=False)) + list(rel)[: 1 + i % 2]
            scores = rng.random(len(pool))
            for j, d in enumerate(pool):
                if d in rel:
                    scores[j] += boost * rng.random()
            runs[name][qid] = {str(d): float(s) for d, s in zip(pool, scores, strict=True)}
    return qrels, runs


def main() -> None:
    qrels_dict, run_dicts = collection()
    for name, run in run_dicts.items():  # tie-free, as the test's 1e-12 check needs
        for qid, docs in run.items():
            if len(set(docs.values())) != len(docs):
                raise SystemExit(f"tie in {name} {qid}; change the seed")
    qrels = Qrels.from_dict(qrels_dict)
    runs = [Run.from_dict(r, name=name) for name, r in run_dicts.items()]
    (OUT / "run").mkdir(parents=True, exist_ok=True)
    (OUT / "trec").mkdir(parents=True, exist_ok=True)
    qrels.save(str(OUT / "run" / "qrels.json"))
    qrels.save(str(OUT / "trec" / "qrels.trec"))
    expected: dict[str, dict] = {"tool": "ranx", "version": version("ranx"), "metrics": METRICS}
    for run in runs:
        run.save(str(OUT / "run" / f"{run.name}.json"))
        run.save(str(OUT / "trec" / f"{run.name}.trec"))
        scores = evaluate(qrels, run, METRICS)
        expected[run.name] = {m: float(v) for m, v in scores.items()}
    compare(qrels, runs, METRICS, max_p=0.05).save(str(OUT / "run" / "report.json"))
    (OUT / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(json.dumps(expected, indent=2))


if __name__ == "__main__":
    main()
