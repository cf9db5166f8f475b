"""Write tests/fixtures/adapters/deepeval/ with DeepEval's own ``evaluate`` and its
local test-run file (``DEEPEVAL_RESULTS_FOLDER``: ``test_run_<timestamp>.json``).

Run (DeepEval 4.3.1, Python 3.11; no LLM, no network):

    python3 -m venv /tmp/venv-deepeval && /tmp/venv-deepeval/bin/pip install deepeval
    cd /tmp && /tmp/venv-deepeval/bin/python /work/main/scripts/adapters/make_deepeval_fixture.py

(run it outside the repository: DeepEval also writes a .deepeval/ cache in the working folder)

Two deterministic custom metrics (``BaseMetric`` subclasses that need no model) score six
``LLMTestCase``s (``metadata.source_doc`` names each case's document) for two systems
(``identifier`` ``bm25`` and ``dense``); a conversational metric scores three
``ConversationalTestCase``s. Each ``evaluate`` writes its test run; the script copies it to
``bm25.json``, ``dense.json`` and ``conversational.json`` and records in ``expected.json``
what DeepEval reports: the per-metric means of ``metricsScores`` and the pass rate
``testPassed / (testPassed + testFailed)``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from importlib.metadata import version
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "deepeval"
RESULTS = Path(tempfile.mkdtemp(prefix="deepeval-results-"))
os.environ.update(
    DEEPEVAL_TELEMETRY_OPT_OUT="YES",
    DEEPEVAL_RESULTS_FOLDER=str(RESULTS),
    DEEPEVAL_LOCAL_STORE="json",
    DEEPEVAL_DISABLE_PROGRESS_BAR="1",
)

from deepeval import evaluate  # noqa: E402
from deepeval.evaluate.configs import AsyncConfig, DisplayConfig  # noqa: E402
from deepeval.metrics import BaseConversationalMetric, BaseMetric  # noqa: E402
from deepeval.test_case import ConversationalTestCase, LLMTestCase, Turn  # noqa: E402

CASES = [  # (name, question, expected answer, source document)
    ("bridge-opened", "When was the bridge opened?", "The bridge opened in 1932", "doc-bridge"),
    ("bridge-designer", "Who designed the bridge?", "John Bradfield designed it", "doc-bridge"),
    ("river-length", "How long is the river?", "The river is 320 km long", "doc-river"),
    ("river-source", "Where does the river rise?", "It rises in the hills", "doc-river"),
    ("valley-crops", "What grows in the valley?", "Grapes and olives grow there", "doc-valley"),
    ("valley-farmers", "Who farms the valley?", "Family farms work the valley", "doc-valley"),
]
ANSWERS = {
    "bm25": ["The bridge opened in 1932", "Bradfield", "320 km long", "in the hills far away",
             "Grapes", "Family farms work the valley"],
    "dense": ["It opened in 1932", "John Bradfield designed it", "The river is long",
              "It rises in the hills", "Olives", "Farmers"],
}  # fmt: skip


def _words(text: str) -> set[str]:
    return {w.strip(".,?").lower() for w in text.split()}


class WordRecall(BaseMetric):
    """Share of the expected answer's words found in the output (no model)."""

    def __init__(self, threshold: float = 0.5):
        self.threshold = threshold

    def measure(self, test_case: LLMTestCase, *args, **kwargs) -> float:
        expected = _words(test_case.expected_output or "")
        self.score = len(expected & _words(test_case.actual_output or "")) / len(expected)
        self.success = self.score >= self.threshold
        self.reason = f"{self.score:.3f} of the expected words"
        return self.score

    async def a_measure(self, test_case: LLMTestCase, *args, **kwargs) -> float:
        return self.measure(test_case)

    def is_successful(self) -> bool:
        return bool(self.success)

    @property
    def __name__(self):
        return "Word Recall"


class Brevity(WordRecall):
    """1 for outputs of at most 4 words, falling as 4 / words (no model)."""

    def measure(self, test_case: LLMTestCase, *args, **kwargs) -> float:
        self.score = min(1.0, 4 / len((test_case.actual_output or "x").split()))
        self.success = self.score >= self.threshold
        self.reason = "4 / words"
        return self.score

    @property
    def __name__(self):
        return "Brevity"


class TurnShare(BaseConversationalMetric):
    """Share of assistant turns that end with a full stop (no model)."""

    def __init__(self, threshold: float = 0.5):
        self.threshold = threshold

    def measure(self, test_case: ConversationalTestCase, *args, **kwargs) -> float:
        said = [t.content for t in test_case.turns if t.role == "assistant"]
        self.score = sum(s.endswith(".") for s in said) / len(said)
        self.success = self.score >= self.threshold
        self.reason = "assistant turns ending with a full stop"
        return self.score

    async def a_measure(self, test_case: ConversationalTestCase, *args, **kwargs) -> float:
        return self.measure(test_case)

    def is_successful(self) -> bool:
        return bool(self.success)

    @property
    def __name__(self):
        return "Turn Share"


def _run(cases, metrics, identifier: str, target: str) -> dict:
    before = set(RESULTS.glob("test_run_*.json"))
    evaluate(
        cases,
        metrics,
        identifier=identifier,
        hyperparameters={"retriever": identifier},
        async_config=AsyncConfig(run_async=False),
        display_config=DisplayConfig(print_results=False, show_indicator=False),
    )
    (written,) = set(RESULTS.glob("test_run_*.json")) - before
    shutil.copyfile(written, OUT / target)
    run = json.loads(written.read_text(encoding="utf-8"))
    means = {m["metric"]: sum(m["scores"]) / len(m["scores"]) for m in run["metricsScores"]}
    passed, failed = run["testPassed"], run["testFailed"]
    return {"metric_means": means, "pass_rate": passed / (passed + failed)}


def _conversations() -> list[ConversationalTestCase]:
    out = []
    for k, (name, question, answer, doc) in enumerate(CASES[::2]):
        turns = [Turn(role="user", content=question), Turn(role="assistant", content=answer),
                 Turn(role="user", content="Thanks"),
                 Turn(role="assistant", content="You are welcome" + "." * (k % 2))]  # fmt: skip
        out.append(ConversationalTestCase(name=f"chat-{name}", turns=turns,
                                          metadata={"source_doc": doc}))  # fmt: skip
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    expected: dict = {"deepeval_version": version("deepeval"), "runs": {}}
    for system, answers in ANSWERS.items():
        cases = [
            LLMTestCase(name=name, input=q, actual_output=a, expected_output=exp,
                        retrieval_context=[f"Passage from {doc}."],
                        metadata={"source_doc": doc, "topic": doc.split("-")[1]})
            for (name, q, exp, doc), a in zip(CASES, answers, strict=True)
        ]  # fmt: skip
        expected["runs"][f"{system}.json"] = _run(
            cases, [WordRecall(0.5), Brevity(0.8)], system, f"{system}.json"
        )
    expected["runs"]["conversational.json"] = _run(
        _conversations(), [TurnShare(0.5)], "chat", "conversational.json"
    )
    (OUT / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
