"""Write the MTEB fixture with MTEB's own writers: tests/fixtures/adapters/mteb/.

Run (mteb is not a ragstat dependency; a venv that reuses the system torch):

    python3 -m venv --system-site-packages /tmp/venv-mteb
    /tmp/venv-mteb/bin/pip install mteb       # used: mteb 2.26.24, pytrec-eval-terrier 0.5.11
    HF_HUB_OFFLINE=1 /tmp/venv-mteb/bin/python scripts/adapters/make_mteb_fixture.py

Nothing is downloaded: ``TinyRetrieval`` is a retrieval task defined here with an
in-memory corpus (40 passages ``d<k>#<p>`` of 10 source documents), 12 queries and
graded qrels; the two models are deterministic encoders without weights: MTEB's own
``mteb/baseline-random-encoder`` (vectors seeded by a hash of the text) and a hashed
bag-of-words encoder defined here (``ragstat/hash-bow``).

``mteb.evaluate(model, task, prediction_folder=…, cache=ResultCache(tmp))`` per model
writes ``tiny/<model>/TinyRetrieval_predictions.json`` (MTEB's predictions:
``{"mteb_model_meta": …, subset: {split: {qid: {doc: score}}}}``); the script copies
MTEB's results JSON (``TinyRetrieval.json``, from the cache) beside it and writes the
task's qrels, which MTEB does not save, as ``tiny/qrels/test.tsv`` in BEIR's format
(``query-id corpus-id score``, header line): the layout ``ragstat`` reads.

``expected.json``: MTEB's reported ``ndcg_at_10``, ``recall_at_10``, ``map_at_10``,
``precision_at_10`` (rounded by MTEB to 5 decimals) and, unrounded, the mean of the
per-query values of MTEB's own ``calculate_retrieval_scores`` (its ``pytrec_eval``
call) on the saved predictions.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import mteb
import numpy as np
from datasets import Dataset
from mteb._evaluators.retrieval_metrics import calculate_retrieval_scores
from mteb.abstasks.retrieval import AbsTaskRetrieval
from mteb.abstasks.retrieval_dataset_loaders import RetrievalSplitData
from mteb.abstasks.task_metadata import TaskMetadata
from mteb.models.model_implementations.random_baseline import RandomEncoderBaseline

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "mteb"
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


def collection(seed: int = 5) -> tuple[dict, dict, dict]:
    rng = np.random.default_rng(seed)
    corpus = {}
    for k in range(10):
        topic = list(rng.choice(WORDS, 6, replace=False))
        for p in range(4):
            corpus[f"d{k}#{p}"] = " ".join(topic[:3] + list(rng.choice(WORDS, 5)) + [f"w{k}{p}"])
    queries, qrels = {}, {}
    for i in range(1, 13):
        qid, home = f"q{i:02d}", int(rng.integers(10))
        rel = rng.choice(4, 2, replace=False)
        words = corpus[f"d{home}#{rel[0]}"].split()
        queries[qid] = " ".join([*rng.choice(words[:8], 3, replace=False), f"x{i}"])
        qrels[qid] = {f"d{home}#{p}": int(rng.integers(1, 3)) for p in rel}
        qrels[qid][f"d{(home + 1) % 10}#{int(rng.integers(4))}"] = 0
    return corpus, queries, qrels


CORPUS, QUERIES, QRELS = collection()


class TinyRetrieval(AbsTaskRetrieval):
    metadata = TaskMetadata(
        name="TinyRetrieval",
        description="A tiny in-memory retrieval task (ragstat adapter fixture).",
        reference="https://example.org/ragstat",
        dataset={"path": "NA", "revision": "NA"},
        type="Retrieval",
        category="t2t",
        modalities=["text"],
        eval_splits=["test"],
        eval_langs=["eng-Latn"],
        main_score="ndcg_at_10",
        date=("2024-01-01", "2024-01-01"),
        domains=[],
        task_subtypes=[],
        license="cc-by-4.0",
        annotations_creators="derived",
        dialect=["Written"],
        sample_creation="found",
        bibtex_citation="",
    )

    def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
        split = RetrievalSplitData(
            queries=Dataset.from_list([{"id": q, "text": t} for q, t in QUERIES.items()]),
            corpus=Dataset.from_list(
                [{"id": d, "text": t, "title": ""} for d, t in CORPUS.items()]
            ),
            relevant_docs={q: dict(r) for q, r in QRELS.items()},
            top_ranked=None,
        )
        self.dataset = {"default": {"test": split}}
        self.data_loaded = True


class HashBow(RandomEncoderBaseline):
    """Hashed bag of words (64 dims) plus a small text-seeded jitter against ties."""

    def encode(self, inputs: Any, **kwargs: Any) -> np.ndarray:
        rows = []
        for batch in inputs:
            for text in batch["text"]:
                vec = np.zeros(64, dtype=np.float32)
                for word in text.lower().split():
                    vec[_hash(word) % 64] += 1.0
                jitter = np.random.default_rng(_hash(text)).random(64).astype(np.float32)
                rows.append(vec + 0.05 * jitter)
        return np.stack(rows)


def _models() -> list[Any]:
    random_model = mteb.get_model("mteb/baseline-random-encoder")
    meta = mteb.get_model_meta("mteb/baseline-random-encoder")
    bow_meta = meta.model_copy(update={"name": "ragstat/hash-bow", "revision": "1",
                                       "loader": HashBow})  # fmt: skip
    bow = HashBow("ragstat/hash-bow", "1")
    bow.mteb_model_meta = bow_meta
    return [random_model, bow]


def _write_qrels(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.writer(f, delimiter="\t")
        writer.writerow(["query-id", "corpus-id", "score"])
        for qid, docs in QRELS.items():
            for doc, rel in docs.items():
                writer.writerow([qid, doc, rel])


def _run_one(model: Any, data: Path, cache_dir: Path) -> dict[str, Any]:
    name = model.mteb_model_meta.name
    folder = data / name.split("/")[-1]
    folder.mkdir(parents=True)
    cache = mteb.ResultCache(cache_path=cache_dir)
    result = mteb.evaluate(model, TinyRetrieval(), cache=cache, prediction_folder=folder,
                           overwrite_strategy="always", show_progress_bar=False)  # fmt: skip
    saved = list(cache_dir.rglob("TinyRetrieval.json"))
    found = [p for p in saved if name.replace("/", "__") in str(p)]
    shutil.copy(found[0], folder / "TinyRetrieval.json")
    scores = result.task_results[0].scores["test"][0]
    preds = json.loads((folder / "TinyRetrieval_predictions.json").read_text())["default"]["test"]
    for qid, docs in preds.items():  # tie-free, as the test's 1e-12 check needs
        if len(set(docs.values())) != len(docs):
            raise SystemExit(f"tie in {name} {qid}; change the seed")
    per_query = calculate_retrieval_scores(preds, QRELS, [1, 10]).all_scores
    keys = {"ndcg@10": "ndcg_cut_10", "recall@10": "recall_10", "map@10": "map_cut_10",
            "p@10": "P_10"}  # fmt: skip
    return {
        "reported": {"ndcg@10": scores["ndcg_at_10"], "recall@10": scores["recall_at_10"],
                     "map@10": scores["map_at_10"], "p@10": scores["precision_at_10"]},
        "unrounded": {m: float(np.mean([s[k] for s in per_query.values()]))
                      for m, k in keys.items()},
    }  # fmt: skip


def main() -> None:
    data = OUT / "tiny"
    shutil.rmtree(data, ignore_errors=True)
    _write_qrels(data / "qrels" / "test.tsv")
    expected: dict[str, Any] = {"tool": "mteb", "version": version("mteb")}
    with tempfile.TemporaryDirectory() as tmp:
        for model in _models():
            expected[model.mteb_model_meta.name] = _run_one(model, data, Path(tmp))
    (OUT / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(json.dumps(expected, indent=2))


if __name__ == "__main__":
    main()
