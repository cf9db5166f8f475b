"""docs/recommendation.md is generated from the packaged coverage table and cannot drift."""

from __future__ import annotations

import importlib.util
import json
from importlib import resources
from pathlib import Path

from ragstat.inference import defaults as d

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "make_recommendation_doc.py"
DOC = ROOT / "docs" / "recommendation.md"


def _script():
    spec = importlib.util.spec_from_file_location("make_recommendation_doc", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_recommendation_page_is_the_generated_one():
    assert DOC.read_text(encoding="utf-8") == _script().render(), (
        "docs/recommendation.md is stale: run python scripts/make_recommendation_doc.py"
    )


def test_page_marks_the_rule_s_pick_in_both_tables():
    text = DOC.read_text(encoding="utf-8")
    for kind in d.SECTIONS:
        section = d.table_section(kind)
        assert section is not None, kind
        for k in section["settings"]["ks"]:
            for est in ("micro", "macro"):
                row, _ = d.pick_row(d.pooled_rows(est, k, kind), d.TABLE_LEVEL)
                assert f"| {k} | {est} | **{row.method}** |" in text


def test_paired_section_is_separate_and_the_rate_section_reads_as_before():
    path = resources.files("ragstat.inference").joinpath("data/coverage_table.json")
    table = json.loads(path.read_text(encoding="utf-8"))
    assert set(table["corpora"]) == set(table["paired"]["corpora"])
    assert table["settings"]["reps_per_k"] == 4000  # the rate section, unchanged
    paired = table["paired"]["settings"]
    assert paired["bounds"] == [-1.0, 1.0] and paired["ks"] == [5, 10, 20, 40, 80]
    assert paired["reps_per_k"] == 2000 and paired["bootstrap_reps"] == 499
    assert "15 minutes" in paired["sizing"]
    for corpus in table["paired"]["corpora"].values():
        for k in paired["ks"]:
            for est in ("micro", "macro"):
                assert {"logit", "korn_graubard"} <= set(corpus["by_k"][str(k)][est])
