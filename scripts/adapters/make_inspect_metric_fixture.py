"""Write the logs of tests/fixtures/integrations/inspect/: ragstat's metrics in a real
``inspect eval`` run.

Run (offline, no provider keys; inspect's own ``mockllm`` provider answers)::

    python3 -m venv /tmp/venv-inspect && /tmp/venv-inspect/bin/pip install inspect-ai==0.3.285
    /tmp/venv-inspect/bin/pip install -e . --no-deps
    /tmp/venv-inspect/bin/pip install numpy scipy pandas pyarrow duckdb
    /tmp/venv-inspect/bin/python scripts/adapters/make_inspect_metric_fixture.py

Written with inspect-ai 0.3.285 (Python 3.11). One task: 24 samples from 8 source
documents of unequal size (6, 4, 4, 3, 2, 2, 1, 2; ``source_doc`` in the sample
metadata), 2 epochs (inspect's default ``mean`` reducer), three scorers whose metrics
include ragstat's (``ragstat.integrations.inspect``):

* ``includes_doc``: inspect's ``includes()`` (C/I): accuracy, inspect's
  ``stderr(cluster="source_doc")`` (CR1), ``clustered_stderr`` and ``clustered_ci``;
* ``grade``: C/I/P/N letter grades: accuracy and ``clustered_ci(level=0.9)``;
* ``closeness``: a number in [0, 1] that changes with the epoch: mean and ``clustered_ci``.

First ``mockllm/baseline`` runs it (``baseline.eval``); then ``mockllm/candidate`` runs
it with ``paired_difference(baseline="baseline.eval", score=…)`` added to every scorer
(``candidate.eval``; the path is relative to this folder, where the script runs).
Each log is read back with ``read_eval_log`` and written again with inspect's own
``write_eval_log`` without the samples' transcripts (``events`` emptied; scores,
metadata and the results inspect computed during the run are untouched).
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    NOANSWER,
    PARTIAL,
    Score,
    Target,
    accuracy,
    includes,
    mean,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState, generate

from ragstat.integrations.inspect import clustered_ci, clustered_stderr, paired_difference

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "integrations" / "inspect"
SIZES = (6, 4, 4, 3, 2, 2, 1, 2)
DOC_OF = [f"doc-{chr(97 + d)}" for d, size in enumerate(SIZES) for _ in range(size)]
CLUSTER = "source_doc"


def samples() -> list[Sample]:
    return [
        Sample(
            id=f"q{k:02d}",
            input=f"Which word does passage {k} name?",
            target=f"word{k}",
            metadata={CLUSTER: DOC_OF[k - 1]},
        )
        for k in range(1, len(DOC_OF) + 1)
    ]


def answerer(skill: int):
    """Right unless (k·5 + call + document · skill) % 4 == 0: skill shifts which fail."""
    calls: Counter[str] = Counter()

    def answer(messages, tools, tool_choice, config) -> ModelOutput:
        text = messages[-1].text
        k = int(text.split("passage ")[1].split(" ")[0])
        calls[text] += 1
        doc = ord(DOC_OF[k - 1][-1]) - 97
        right = (k * 5 + calls[text] + doc * skill) % 4 != 0
        reply = f"The passage names word{k}." if right else "I am not sure."
        output = ModelOutput.from_content(model="mockllm", content=reply)
        # token usage given here: mockllm would otherwise count tokens with tiktoken,
        # which downloads its encoding (no network on the machine that makes the fixture)
        output.usage = ModelUsage(input_tokens=12, output_tokens=6, total_tokens=18)
        return output

    return answer


def with_paired(metrics: list, baseline: str | None, score: str) -> list:
    if baseline is None:
        return metrics
    return [*metrics, paired_difference(baseline=baseline, cluster=CLUSTER, score=score)]


def scorers(baseline: str | None) -> list:
    @scorer(
        metrics=with_paired(
            [
                accuracy(),
                stderr(cluster=CLUSTER),
                clustered_stderr(cluster=CLUSTER),
                clustered_ci(cluster=CLUSTER),
            ],
            baseline,
            "includes_doc",
        )
    )
    def includes_doc():
        return includes()

    @scorer(
        metrics=with_paired(
            [accuracy(), clustered_ci(cluster=CLUSTER, level=0.9)], baseline, "grade"
        )
    )
    def grade():
        letters = (CORRECT, INCORRECT, PARTIAL, NOANSWER, CORRECT)

        async def score(state: TaskState, target: Target) -> Score:
            k = int(str(state.sample_id)[1:])
            found = target.text in state.output.completion
            return Score(value=letters[(k + 2 * int(found)) % 5])

        return score

    @scorer(metrics=with_paired([mean(), clustered_ci(cluster=CLUSTER)], baseline, "closeness"))
    def closeness():
        async def score(state: TaskState, target: Target) -> Score:
            k = int(str(state.sample_id)[1:])
            found = target.text in state.output.completion
            return Score(value=((k * 7 + state.epoch * 3) % 8) / 8 * 0.75 + 0.25 * found)

        return score

    return [includes_doc(), grade(), closeness()]


def run(name: str, skill: int, baseline: str | None, tmp: str) -> None:
    task = Task(
        dataset=samples(), solver=generate(), scorer=scorers(baseline), epochs=2, name="passages"
    )
    model = get_model(f"mockllm/{name}", custom_outputs=answerer(skill))
    (log,) = eval(task, model=model, log_dir=tmp, log_format="eval", max_samples=1, display="none")
    if log.status != "success":
        raise SystemExit(f"{name}: inspect eval ended with status {log.status}: {log.error}")
    full = read_eval_log(log.location)
    for sample in full.samples or []:
        sample.events = []  # the transcripts: most of the file, no score depends on them
    write_eval_log(full, str(OUT / f"{name}.eval"), format="eval")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    os.chdir(OUT)  # the candidate's paired_difference reads "baseline.eval" from here
    with tempfile.TemporaryDirectory() as tmp:
        run("baseline", 1, None, tmp)
        run("candidate", 2, "baseline.eval", tmp)


if __name__ == "__main__":
    main()
