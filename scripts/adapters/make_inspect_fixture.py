"""Write the inspect_ai fixture logs under tests/fixtures/adapters/inspect/.

Run (offline, no provider keys; inspect's own ``mockllm`` provider answers)::

    python3 -m venv /tmp/venv-inspect && /tmp/venv-inspect/bin/pip install inspect-ai
    /tmp/venv-inspect/bin/python scripts/adapters/make_inspect_fixture.py

Written with inspect-ai 0.3.285 (Python 3.11). One tiny task: 12 samples from 4
source documents of unequal size (5, 3, 2, 2; ``source_doc`` in the sample metadata),
3 epochs (default ``mean`` reducer), two mock models (``mockllm/alpha``, ``mockllm/beta``) whose answers depend on
the question and the call, and four scorers:

* ``includes_doc``: inspect's ``includes()`` (C/I), metrics accuracy and
  ``stderr(cluster="source_doc")`` (inspect's clustered standard error);
* ``grade``: C/I/P/N letter grades, metrics accuracy and clustered stderr;
* ``closeness``: a number in [0, 1] that changes with the epoch, mean and clustered stderr;
* ``parts``: a dict value ``{"recall": x, "precision": y}``, mean of each key.

inspect writes one ``.eval`` log per model (``eval/<model>.eval``); each is read back
with ``read_eval_log`` and written again with ``write_eval_log(format="json")``
(``json/<model>.json``), inspect's own writer for both formats. The JSON copies
leave out each sample's transcript (``events`` emptied before writing): with it the
JSON logs would be 570 KB each; scores, metadata and results are untouched.
"""

from __future__ import annotations

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

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "inspect"
DOCS = ("doc-a", "doc-b", "doc-c", "doc-d")
#: Unequal document sizes (5, 3, 2, 2 samples), so CR1 and CR2 differ.
SIZES = (5, 3, 2, 2)
DOC_OF = [doc for doc, size in zip(DOCS, SIZES, strict=True) for _ in range(size)]


def samples() -> list[Sample]:
    return [
        Sample(
            id=f"q{k:02d}",
            input=f"Which word does passage {k} name?",
            target=f"word{k}",
            metadata={
                "source_doc": DOC_OF[k - 1],
                "position": DOC_OF[: k - 1].count(DOC_OF[k - 1]),
            },
        )
        for k in range(1, 13)
    ]


def answerer(offset: int):
    calls: Counter[str] = Counter()

    def answer(messages, tools, tool_choice, config) -> ModelOutput:
        text = messages[-1].text
        k = int(text.split("passage ")[1].split(" ")[0])
        calls[text] += 1
        right = (k * 5 + calls[text] + offset) % 4 != 0
        reply = f"The passage names word{k}." if right else "I am not sure."
        output = ModelOutput.from_content(model="mockllm", content=reply)
        # token usage given here: mockllm would otherwise count tokens with tiktoken,
        # which downloads its encoding (no network on the machine that made the fixture)
        output.usage = ModelUsage(input_tokens=12, output_tokens=6, total_tokens=18)
        return output

    return answer


@scorer(metrics=[accuracy(), stderr(cluster="source_doc")])
def includes_doc():
    return includes()


@scorer(metrics=[accuracy(), stderr(cluster="source_doc")])
def grade():
    letters = (CORRECT, INCORRECT, PARTIAL, NOANSWER, CORRECT)

    async def score(state: TaskState, target: Target) -> Score:
        k = int(str(state.sample_id)[1:])
        found = target.text in state.output.completion
        return Score(value=letters[(k + 2 * int(found)) % 5])

    return score


@scorer(metrics=[mean(), stderr(cluster="source_doc")])
def closeness():
    async def score(state: TaskState, target: Target) -> Score:
        k = int(str(state.sample_id)[1:])
        found = target.text in state.output.completion
        return Score(value=((k * 7 + state.epoch * 3) % 8) / 8 + 0.0625 * found)

    return score


@scorer(metrics={"*": [mean()]})
def parts():
    async def score(state: TaskState, target: Target) -> Score:
        k = int(str(state.sample_id)[1:])
        return Score(value={"recall": (k % 4) / 3, "precision": ((k + state.epoch) % 5) / 4})

    return score


def main() -> None:
    task = Task(
        dataset=samples(),
        solver=generate(),
        scorer=[includes_doc(), grade(), closeness(), parts()],
        epochs=3,
        name="passages",
    )
    models = [
        get_model(f"mockllm/{name}", custom_outputs=answerer(offset))
        for name, offset in (("alpha", 0), ("beta", 1))
    ]
    with tempfile.TemporaryDirectory() as tmp:
        logs = eval(
            task, model=models, log_dir=tmp, log_format="eval", max_samples=1, display="none"
        )
        for log in logs:
            name = log.eval.model.split("/")[-1]
            for fmt in ("eval", "json"):
                (OUT / fmt).mkdir(parents=True, exist_ok=True)
                full = read_eval_log(log.location)
                if fmt == "json":  # the transcripts alone would make it 570 KB
                    for sample in full.samples or []:
                        sample.events = []
                write_eval_log(full, str(OUT / fmt / f"{name}.{fmt}"), format=fmt)


if __name__ == "__main__":
    main()
