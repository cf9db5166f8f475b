"""The memory-bounded study gives the same tables as the code before it (issue 20, part 2).

``tests/reference/study_fingerprint.json`` holds fingerprints (columns, dtypes, rows and a
SHA-256 of every value) of the records, candidates and documents of a full and a sampled
study (in process and batched) on the two shared corpora, written by
``scripts/make_study_fingerprint.py`` with the code before the change. Skips when
``../shared/data`` is absent.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # real corpora

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "reference" / "study_fingerprint.json"
SCRIPT = ROOT / "scripts" / "make_study_fingerprint.py"


def _script():
    spec = importlib.util.spec_from_file_location("make_study_fingerprint", SCRIPT)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


#: The fixture holds every corpus × case; these keep the test near a minute (the full
#: planalto study alone takes as long as the rest; regenerate-and-compare covers it).
CHECKED = [
    ("aneel-ren1000.jsonl", "full"),
    ("aneel-ren1000.jsonl", "sampled"),
    ("planalto-leis.jsonl", "sampled"),
    ("planalto-leis.jsonl", "sampled_batched"),
]


@pytest.mark.parametrize(("corpus", "case"), CHECKED)
def test_study_tables_match_the_fingerprint(shared, tmp_path, corpus, case):
    path = shared / "data" / corpus
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    expected = json.loads(REFERENCE.read_text(encoding="utf-8"))[corpus][case]
    got = _script().study_fingerprint(path, case, tmp_path)
    for table in ("records", "candidates", "documents"):
        assert got[table] == expected[table], f"{corpus} {case}: {table} changed"
    assert (got["n_chunks"], got["n_indexed"]) == (expected["n_chunks"], expected["n_indexed"])
