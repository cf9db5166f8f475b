"""Write tests/fixtures/adapters/ragas/ with ragas' own ``evaluate`` and ``to_pandas``.

Run (ragas 0.4.3, Python 3.11; ragas 0.4.3 needs ``langchain-community<0.4``; metrics
that need no LLM, no network):

    python3 -m venv /tmp/venv-ragas
    /tmp/venv-ragas/bin/pip install ragas pyarrow "langchain-community<0.4" \
        "langchain<0.4" "langchain-core<0.4" "langchain-openai<0.4" rapidfuzz
    cd /tmp && RAGAS_DO_NOT_TRACK=true /tmp/venv-ragas/bin/python \
        /work/main/scripts/adapters/make_ragas_fixture.py

Six samples whose ``reference_context_ids`` name the source document of each question,
scored by ``IDBasedContextPrecision``, ``IDBasedContextRecall``, ``NonLLMContextRecall``,
``NonLLMContextPrecisionWithReference`` and ``ExactMatch``. ``result.to_pandas()`` is saved
as ``bm25.csv``, ``bm25.parquet`` and ``bm25.jsonl`` (pandas' own writers); a second system's
result as ``dense.csv``, and the same with an ``id`` and a ``source_doc`` column added as
``dense_with_ids.jsonl``. ``expected.json`` records ragas' own aggregate per system
(``result[metric]`` averaged as ragas reports it in ``repr(result)``). JSONL is written with
``double_precision=15``: pandas' default (10 digits) rounds the scores.
"""

from __future__ import annotations

import json
import os
from importlib.metadata import version
from pathlib import Path

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

from ragas import EvaluationDataset, SingleTurnSample, evaluate
from ragas.metrics import (
    ExactMatch,
    IDBasedContextPrecision,
    IDBasedContextRecall,
    NonLLMContextPrecisionWithReference,
    NonLLMContextRecall,
)

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "ragas"
DOCS = {
    "doc-bridge": "The bridge opened in 1932. John Bradfield designed the bridge.",
    "doc-river": "The river is 320 km long. It rises in the northern hills.",
    "doc-valley": "Grapes and olives grow in the valley. Family farms work the valley.",
}
QUESTIONS = [  # (question, reference answer, source document)
    ("When was the bridge opened?", "1932", "doc-bridge"),
    ("Who designed the bridge?", "John Bradfield", "doc-bridge"),
    ("How long is the river?", "320 km", "doc-river"),
    ("Where does the river rise?", "In the northern hills", "doc-river"),
    ("What grows in the valley?", "Grapes and olives", "doc-valley"),
    ("Who farms the valley?", "Family farms", "doc-valley"),
]
RETRIEVED = {  # system → per question: retrieved document ids, response
    "bm25": [(["doc-bridge", "doc-river"], "1932"), (["doc-river"], "Bradfield"),
             (["doc-river"], "320 km"), (["doc-valley", "doc-river"], "In the hills"),
             (["doc-valley"], "Grapes and olives"), (["doc-bridge", "doc-valley"], "Farmers")],
    "dense": [(["doc-bridge"], "1932"), (["doc-bridge"], "John Bradfield"),
              (["doc-river", "doc-bridge"], "320 km"), (["doc-river"], "In the northern hills"),
              (["doc-bridge"], "Olives"), (["doc-valley"], "Family farms")],
}  # fmt: skip
METRICS = [
    IDBasedContextPrecision(),
    IDBasedContextRecall(),
    NonLLMContextRecall(),
    NonLLMContextPrecisionWithReference(),
    ExactMatch(),
]


def _dataset(system: str) -> EvaluationDataset:
    samples = []
    for (question, answer, doc), (ids, response) in zip(QUESTIONS, RETRIEVED[system], strict=True):
        samples.append(
            SingleTurnSample(
                user_input=question,
                response=response,
                reference=answer,
                retrieved_contexts=[DOCS[i] for i in ids],
                reference_contexts=[DOCS[doc]],
                retrieved_context_ids=ids,
                reference_context_ids=[doc],
            )
        )
    return EvaluationDataset(samples=samples)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    expected: dict = {"ragas_version": version("ragas"), "systems": {}}
    for system in RETRIEVED:
        result = evaluate(_dataset(system), metrics=METRICS, show_progress=False)
        frame = result.to_pandas()
        means = {m.name: float(sum(result[m.name]) / len(result[m.name])) for m in METRICS}
        expected["systems"][system] = {"means": means, "repr": repr(result)}
        frame.to_csv(OUT / f"{system}.csv", index=False)
        if system == "bm25":
            frame.to_parquet(OUT / f"{system}.parquet", index=False)
            frame.to_json(
                OUT / f"{system}.jsonl", orient="records", lines=True, double_precision=15
            )
        else:
            ided = frame.assign(id=[f"q{i + 1}" for i in range(len(frame))])
            ided["source_doc"] = [doc for _, _, doc in QUESTIONS]
            ided.to_json(
                OUT / f"{system}_with_ids.jsonl", orient="records", lines=True, double_precision=15
            )
    (OUT / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
