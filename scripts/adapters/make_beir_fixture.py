"""Write the BEIR fixture with BEIR's own writers: tests/fixtures/adapters/beir/.

Run (beir is not a ragstat dependency; a venv that reuses the system torch):

    python3 -m venv --system-site-packages /tmp/venv-beir
    /tmp/venv-beir/bin/pip install beir      # used: beir 2.2.0, pytrec-eval-terrier 0.5.11
    /tmp/venv-beir/bin/python scripts/adapters/make_beir_fixture.py

Nothing is downloaded: the collection (12 queries, 40 passages ``d<k>#<p>`` of 10
source documents, graded judgments) is written in this script, and the two "models"
are deterministic hashing encoders (bag of words, character trigrams) run through
BEIR's own exact search (``DenseRetrievalExactSearch`` + ``EvaluateRetrieval``).

Writes ``tiny/`` as a BEIR dataset folder:

* ``corpus.jsonl``, ``queries.jsonl`` (``beir.util.write_to_json``) and
  ``qrels/test.tsv`` (``beir.util.write_to_tsv``: ``query-id corpus-id score``);
* ``bow.trec``, ``trigram.trec`` — the results through ``beir.util.save_runfile``
  (``qid Q0 doc 0 score run_name``);
* ``bow.json``, ``trigram.json`` — ``beir.util.save_results`` of
  ``EvaluateRetrieval.evaluate(qrels, results, [1, 10])`` (BEIR rounds to 5 decimals);

and ``expected.json``: BEIR's reported NDCG@10 / Recall@10 / MAP@10 / P@10 (rounded)
and, unrounded, the mean of the per-query values of the same ``pytrec_eval`` call that
BEIR makes (BEIR's value before its ``round(…, 5)``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytrec_eval
from beir import util
from beir.datasets.data_loader import GenericDataLoader
from beir.retrieval.evaluation import EvaluateRetrieval
from beir.retrieval.search.dense import DenseRetrievalExactSearch

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "beir"
# fmt: off
WORDS = [
    "river", "bank", "loan", "money", "stream", "water", "fish", "boat", "credit",
    "rate", "bridge", "city", "tower", "stone", "garden", "light", "night", "train",
    "station", "ticket", "music", "piano", "violin", "score", "forest", "tree", "leaf",
    "root", "storm", "cloud", "rain", "snow", "glacier", "valley", "mountain",
]
# fmt: on


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def collection(seed: int = 11) -> tuple[dict, dict, dict]:
    """Corpus, queries and graded qrels, all in memory."""
    rng = np.random.default_rng(seed)
    corpus = {}
    for k in range(10):
        topic = list(rng.choice(WORDS, 6, replace=False))
        for p in range(4):
            words = topic[:3] + list(rng.choice(WORDS, 5)) + [f"w{k}{p}"]
            corpus[f"d{k}#{p}"] = {"title": f"doc {k}", "text": " ".join(words)}
    queries, qrels = {}, {}
    for i in range(1, 13):
        qid, home = f"q{i:02d}", int(rng.integers(10))
        rel = rng.choice(4, 2, replace=False)
        words = corpus[f"d{home}#{rel[0]}"]["text"].split()
        queries[qid] = " ".join([*rng.choice(words[:8], 3, replace=False), f"x{i}"])
        qrels[qid] = {f"d{home}#{p}": int(rng.integers(1, 3)) for p in rel}
        other = f"d{(home + 1) % 10}#{int(rng.integers(4))}"
        qrels[qid][other] = 0
    return corpus, queries, qrels


class HashEncoder:
    """A deterministic encoder (no model weights): hashed bag of words or trigrams."""

    def __init__(self, kind: str, dim: int = 64) -> None:
        self.kind, self.dim = kind, dim

    def _one(self, text: str) -> np.ndarray:
        text = text.lower()
        units = (
            text.split() if self.kind == "bow" else [text[i : i + 3] for i in range(len(text) - 2)]
        )
        vec = np.zeros(self.dim, dtype=np.float32)
        for unit in units:
            vec[_hash(unit) % self.dim] += 1.0
        noise = np.random.default_rng(_hash(self.kind + text)).random(self.dim)
        return vec + 0.05 * noise.astype(np.float32)  # breaks score ties

    def encode_queries(self, queries: list[str], **kwargs: object) -> np.ndarray:
        return np.stack([self._one(q) for q in queries])

    def encode_corpus(self, corpus: list[dict], **kwargs: object) -> np.ndarray:
        return np.stack([self._one(f"{d.get('title', '')} {d['text']}") for d in corpus])


def unrounded(qrels: dict, results: dict) -> dict[str, float]:
    """The mean of pytrec_eval's per-query values, measured as BEIR measures them."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.1,10", "recall.1,10",
                                                       "map_cut.1,10", "P.1,10"})  # fmt: skip
    scores = evaluator.evaluate(results)
    keys = {"ndcg@10": "ndcg_cut_10", "recall@10": "recall_10", "map@10": "map_cut_10",
            "p@10": "P_10"}  # fmt: skip
    return {m: float(np.mean([s[k] for s in scores.values()])) for m, k in keys.items()}


def main() -> None:
    corpus, queries, qrels = collection()
    data = OUT / "tiny"
    shutil.rmtree(data, ignore_errors=True)
    (data / "qrels").mkdir(parents=True)
    util.write_to_json(str(data / "corpus.jsonl"), corpus)
    util.write_to_json(str(data / "queries.jsonl"), queries)
    util.write_to_tsv(str(data / "qrels" / "test.tsv"), qrels)
    corpus, queries, qrels = GenericDataLoader(str(data)).load(split="test")  # BEIR's reader
    expected: dict[str, object] = {"tool": "beir", "version": version("beir")}
    for name in ("bow", "trigram"):
        retriever = EvaluateRetrieval(DenseRetrievalExactSearch(HashEncoder(name)),
                                      k_values=[1, 10, 20], score_function="cos_sim")  # fmt: skip
        results = retriever.retrieve(corpus, queries)
        for qid, docs in results.items():  # tie-free, as the test's 1e-12 check needs
            if len(set(docs.values())) != len(docs):
                raise SystemExit(f"tie in {name} {qid}; change the seed")
        util.save_runfile(str(data / f"{name}.trec"), results, run_name=name)
        exact = unrounded(qrels, results)
        ndcg, _map, recall, precision = retriever.evaluate(qrels, results, [1, 10])
        util.save_results(str(data / f"{name}.json"), ndcg, _map, recall, precision)
        reported = {"ndcg@10": ndcg["NDCG@10"], "recall@10": recall["Recall@10"],
                    "map@10": _map["MAP@10"], "p@10": precision["P@10"]}  # fmt: skip
        expected[name] = {"reported": reported, "unrounded": exact}
    (OUT / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(json.dumps(expected, indent=2))


if __name__ == "__main__":
    main()
