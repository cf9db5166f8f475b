"""Write tests/fixtures/adapters/promptfoo/results.json with promptfoo's own writer.

Run (promptfoo 0.121.20, Node 20; the echo provider: no model, no network):

    npm install --prefix /tmp/npm-promptfoo promptfoo
    python3 scripts/adapters/make_promptfoo_fixture.py [/tmp/npm-promptfoo/node_modules/.bin/promptfoo]

Two prompts × six tests (``vars.source_doc`` names each test's document) × ``--repeat 2``,
scored by a ``contains`` assertion and two ``javascript`` assertions returning numbers (one
with a random part and a threshold, so repeats and passes differ). Telemetry and update checks are off
(``PROMPTFOO_DISABLE_TELEMETRY``, ``PROMPTFOO_DISABLE_UPDATE``); promptfoo's database
goes to a temporary ``PROMPTFOO_CONFIG_DIR``. ``promptfoo eval -o`` writes the file,
whose ``results.prompts[].metrics`` carry promptfoo's own aggregates.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "adapters" / "promptfoo"
PROMPTFOO = sys.argv[1] if len(sys.argv) > 1 else "/tmp/npm-promptfoo/node_modules/.bin/promptfoo"
TESTS = [  # (description, topic, source document, question)
    ("bridge opening", "bridge", "doc-bridge", "When was the bridge opened?"),
    ("bridge designer", "bridge", "doc-bridge", "Who designed it?"),
    ("river length", "river", "doc-river", "How long is it?"),
    ("river source", "river", "doc-river", "Where does the river rise?"),
    ("valley crops", "valley", "doc-valley", "What grows there?"),
    ("valley farmers", "valley", "doc-valley", "Who farms the valley today?"),
]
ASSERTS = [
    {"type": "contains", "value": "{{topic}}", "metric": "mentions_topic"},
    {"type": "javascript", "value": "Math.min(1, output.length / 80)", "metric": "length_score"},
    {"type": "javascript", "metric": "noisy_judge", "threshold": 0.5,
     "value": "Math.min(1, Math.round(4 * (output.length / 200 + 0.75 * Math.random())) / 4)"},
]  # fmt: skip


def config() -> dict:
    return {
        "description": "ragstat promptfoo fixture (echo provider)",
        "prompts": [
            {"id": "short", "label": "short", "raw": "About {{topic}}: {{question}}"},
            {
                "id": "long",
                "label": "long",
                "raw": "You are a careful assistant. Using {{source_doc}}, answer: {{question}}",
            },
        ],
        "providers": [{"id": "echo"}],
        "tests": [
            {
                "description": d,
                "vars": {"topic": t, "source_doc": s, "question": q},
                "assert": ASSERTS,
            }
            for d, t, s, q in TESTS
        ],
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="promptfoo-fixture-"))
    (work / "promptfooconfig.json").write_text(json.dumps(config(), indent=2), encoding="utf-8")
    env = dict(os.environ, PROMPTFOO_DISABLE_TELEMETRY="1", PROMPTFOO_DISABLE_UPDATE="1",
               PROMPTFOO_CONFIG_DIR=str(work / ".promptfoo"))  # fmt: skip
    out = work / "results.json"
    cmd = [PROMPTFOO, "eval", "-c", "promptfooconfig.json", "--repeat", "2", "--no-cache",
           "--no-progress-bar", "--no-table", "-o", str(out)]  # fmt: skip
    done = subprocess.run(cmd, cwd=work, env=env, check=False)
    if done.returncode not in (0, 100):  # 100: some tests failed, as intended
        raise SystemExit(f"promptfoo eval exited {done.returncode}")
    (OUT / "results.json").write_text(out.read_text(encoding="utf-8"), encoding="utf-8")


if __name__ == "__main__":
    main()
