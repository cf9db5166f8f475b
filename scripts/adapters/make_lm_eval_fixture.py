"""Write the lm-evaluation-harness fixture under tests/fixtures/adapters/lm_eval/.

Run (offline: a local JSON dataset, lm-eval's built-in ``dummy`` model)::

    python3 -m venv --system-site-packages /tmp/venv-lmeval
    /tmp/venv-lmeval/bin/pip install lm-eval
    /tmp/venv-lmeval/bin/python scripts/adapters/make_lm_eval_fixture.py

Written with lm_eval 0.4.13 (datasets 5.2.0, Python 3.11). The script writes two
custom task YAMLs over a 12-question JSON file (4 source documents, ``source_doc`` in
each doc) into a temporary folder and runs lm-eval's own command line,
``lm_eval --model dummy --tasks passages_mc,passages_gen --include_path <tmp>
--log_samples --output_path <tmp>/out --seed <s>``, with ``HF_DATASETS_OFFLINE=1``.
It runs twice, with ``--model_args pretrained=dummy-a`` / ``dummy-b`` (the dummy model
ignores its arguments; lm-eval's tracker takes the model's name from ``pretrained``)
and seeds 1 and 2, so the two "systems" score differently (the dummy model draws
random log-likelihoods). ``passages_mc`` (multiple choice) gives ``acc``/``acc_norm``;
``passages_gen`` (generate_until, the dummy model answers "lol") gives ``exact_match``
under two filters (``none`` and an ``upper`` filter that upper-cases the answer, so
the two filters are right on different questions). lm-eval's ``EvaluationTracker``
writes ``<model>/results_<date>.json`` and ``<model>/samples_<task>_<date>.jsonl``;
they are copied here with the date replaced by a fixed one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "lm_eval"
DATE = "2026-01-01T00-00-00.000000"
DOCS = ("doc-a", "doc-b", "doc-c", "doc-d")

MC = """task: passages_mc
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: label
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""

GEN = """task: passages_gen
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{question}}}}"
doc_to_target: answer
generation_kwargs:
  until: ["\\n"]
  max_gen_toks: 8
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
    ignore_case: false
filter_list:
  - name: none
    filter:
      - function: take_first
  - name: upper
    filter:
      - function: uppercase
      - function: take_first
metadata:
  version: 2.0
"""


def docs() -> list[dict]:
    rows = []
    for k in range(1, 13):
        rows.append(
            {
                "qid": f"q{k:02d}",
                "source_doc": DOCS[(k - 1) // 3],
                "question": f"Which word does passage {k} name?",
                "choices": [f"word{k}", f"word{k + 1}", f"other{k}"],
                "label": k % 3,
                "answer": "lol" if k % 4 == 0 else ("LOL" if k % 3 == 1 else f"word{k}"),
            }
        )
    return rows


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data = root / "passages.jsonl"
        data.write_text("".join(json.dumps(row) + "\n" for row in docs()))
        (root / "passages_mc.yaml").write_text(MC.format(data=data))
        (root / "passages_gen.yaml").write_text(GEN.format(data=data))
        env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
        lm_eval = Path(sys.executable).parent / "lm_eval"
        for name, seed in (("dummy-a", "1"), ("dummy-b", "2")):
            command = [
                str(lm_eval),
                "--model",
                "dummy",
                "--model_args",
                f"pretrained={name}",
                "--tasks",
                "passages_mc,passages_gen",
                "--include_path",
                str(root),
                "--log_samples",
                "--output_path",
                str(root / "out"),
                "--seed",
                seed,
            ]
            subprocess.run(command, check=True, env=env)
            written = root / "out" / name
            (OUT / name).mkdir()
            for path in sorted(written.iterdir()):
                target = re.sub(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d+", DATE, path.name)
                shutil.copyfile(path, OUT / name / target)


if __name__ == "__main__":
    main()
