"""Write the HELM fixture run folders under tests/fixtures/adapters/helm/.

Run::

    python3 -m venv --system-site-packages /tmp/venv-helm
    /tmp/venv-helm/bin/pip install --no-deps crfm-helm   # the full resolve took >25 min here
    /tmp/venv-helm/bin/pip install cattrs dacite pyhocon retrying sqlitedict colorlog  # if absent
    /tmp/venv-helm/bin/python scripts/adapters/make_helm_fixture.py

Written with crfm-helm 0.5.16 (Python 3.11). No benchmark is run (no model, no
download): the script builds a HELM ``ScenarioState`` by hand (12 test instances from
4 source documents, ``source_doc`` in each instance's ``extra_data``, 3 train trials,
answers of two mock models) and scores it with HELM's own ``Metric.evaluate`` (a small
``Metric`` subclass giving ``exact_match`` and a numeric ``token_overlap`` per request):
HELM itself groups by trial, builds the ``PerInstanceStats``, merges the stats of each
trial and averages the trials. The files are written exactly as
``helm.benchmark.runner.Runner.run_one`` writes them (``asdict_without_nones``,
``json.dumps(..., indent=2)``, HELM's ``write``): ``run_spec.json``,
``scenario_state.json``, ``stats.json`` and ``per_instance_stats.json``, one folder
per model (``passages:model=mock_alpha``, ``passages:model=mock_beta``).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from helm.benchmark.adaptation.adapter_spec import AdapterSpec
from helm.benchmark.adaptation.request_state import RequestState
from helm.benchmark.adaptation.scenario_state import ScenarioState
from helm.benchmark.metrics.metric import Metric, MetricSpec
from helm.benchmark.metrics.metric_name import MetricName
from helm.benchmark.metrics.statistic import Stat
from helm.benchmark.run_spec import RunSpec
from helm.benchmark.scenarios.scenario import (
    CORRECT_TAG,
    TEST_SPLIT,
    Input,
    Instance,
    Output,
    Reference,
    ScenarioSpec,
)
from helm.common.general import asdict_without_nones, write
from helm.common.request import GeneratedOutput, Request, RequestResult

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "helm"
DOCS = ("doc-a", "doc-b", "doc-c", "doc-d")
TRIALS = 3


class PassageMetric(Metric):
    """exact_match (0/1) and token_overlap (a fraction) of one generation."""

    def evaluate_generation(self, adapter_spec, request_state, metric_service, eval_cache_path):
        gold = request_state.instance.references[0].output.text
        answer = request_state.result.completions[0].text
        words = set(answer.split())
        overlap = len(words & set(gold.split())) / max(len(words), 1)
        return [
            Stat(MetricName("exact_match")).add(float(answer.strip() == gold)),
            Stat(MetricName("token_overlap")).add(overlap),
        ]


def instances() -> list[Instance]:
    return [
        Instance(
            input=Input(text=f"Which word does passage {k} name?"),
            references=[Reference(Output(text=f"word{k}"), tags=[CORRECT_TAG])],
            split=TEST_SPLIT,
            id=f"id{k}",
            extra_data={"source_doc": DOCS[(k - 1) // 3]},
        )
        for k in range(1, 13)
    ]


def answer(k: int, trial: int, offset: int) -> str:
    step = (k * k + trial + offset * k) % 4
    return (f"word{k}", f"word{k} maybe", "no idea", f"the word{k} it is")[step]


def scenario_state(model: str, offset: int) -> tuple[ScenarioState, AdapterSpec]:
    adapter = AdapterSpec(
        method="generation",
        model=model,
        model_deployment=model,
        num_train_trials=TRIALS,
        max_tokens=8,
    )
    states = []
    for trial in range(TRIALS):
        for k, instance in enumerate(instances(), 1):
            text = answer(k, trial, offset)
            request = Request(model=model, model_deployment=model, prompt=instance.input.text)
            result = RequestResult(
                success=True,
                embedding=[],
                cached=False,
                completions=[GeneratedOutput(text=text, logprob=0.0, tokens=[])],
            )
            states.append(
                RequestState(
                    instance=instance,
                    reference_index=None,
                    request_mode=None,
                    train_trial_index=trial,
                    output_mapping=None,
                    request=request,
                    result=result,
                    num_train_instances=0,
                    prompt_truncated=False,
                )
            )
    return ScenarioState(adapter_spec=adapter, request_states=states), adapter


def write_run(folder: Path, model: str, offset: int) -> None:
    state, adapter = scenario_state(model, offset)
    with tempfile.TemporaryDirectory() as cache:
        result = PassageMetric().evaluate(state, None, cache, 1)
    run_spec = RunSpec(
        name=folder.name,
        scenario_spec=ScenarioSpec(class_name="passages.PassageScenario", args={}),
        adapter_spec=adapter,
        metric_specs=[MetricSpec(class_name="make_helm_fixture.PassageMetric", args={})],
        groups=["passages"],
    )
    folder.mkdir(parents=True)
    # as Runner.run_one writes them
    write(str(folder / "run_spec.json"), json.dumps(asdict_without_nones(run_spec), indent=2))
    write(str(folder / "scenario_state.json"), json.dumps(asdict_without_nones(state), indent=2))
    write(
        str(folder / "stats.json"),
        json.dumps([asdict_without_nones(s) for s in result.aggregated_stats], indent=2),
    )
    write(
        str(folder / "per_instance_stats.json"),
        json.dumps(list(map(asdict_without_nones, result.per_instance_stats)), indent=2),
    )


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    for name, offset in (("mock_alpha", 0), ("mock_beta", 1)):
        write_run(OUT / f"passages:model={name}", f"mock/{name.split('_')[1]}", offset)


if __name__ == "__main__":
    main()
