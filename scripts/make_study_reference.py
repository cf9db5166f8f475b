"""Rewrite tests/reference/study_summary_v1.json: the summary.json of the small studies that
``tests/test_api_study.py`` pins (its ``small_rows`` corpus and ``CASES``; seed 3, 99
bootstrap replicates). Run it from the repository root after a deliberate change of what
summary.json says, and read the diff before committing it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTE = (
    "tests/test_api_study.py::small_rows corpus, written by "
    "scripts/make_study_reference.py (ragstat.study(...).to_dict()); seed=3, reps=99; "
    "see test_summary_to_dict_is_the_v1_summary_json"
)


def main() -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from ragstat.api.verbs.study import study
    from test_api_study import CASES, REFERENCE, small_rows

    old = json.loads(REFERENCE.read_text(encoding="utf-8"))
    out: dict = {"_generated": NOTE}
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # the source recorded is "c.jsonl"
        try:
            rows = "\n".join(json.dumps(r) for r in small_rows()) + "\n"
            Path("c.jsonl").write_text(rows, encoding="utf-8")
            for case in CASES:
                got = study("c.jsonl", seed=3, bootstrap_reps=99, **CASES[case]).to_dict()
                got["versions"] = old.get(case, {}).get("versions", got["versions"])
                if got.get("by_stratum") and CASES[case].get("strata", "").startswith("meta_"):
                    got["by_stratum"]["field"] = CASES[case]["strata"]  # as v1 recorded it
                out[case] = got
        finally:
            os.chdir(here)
    REFERENCE.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
