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


def test_page_marks_the_rule_s_pick_in_every_section():
    text = DOC.read_text(encoding="utf-8")
    for kind in d.SECTIONS:
        section = d.table_section(kind)
        assert section is not None, kind
        for k in section["settings"]["ks"]:
            for est in ("micro", "macro"):
                row, _ = d.pick_row(d.family_rows(est, k, kind), d.TABLE_LEVEL)
                assert f"| **{row.method}** |" in text
                assert f"{row.method} {row.coverage * 100:.1f} %" in text


def test_page_states_the_seed_and_the_run_time_of_the_contest():
    table = d.contest_table()
    assert table is not None
    text = DOC.read_text(encoding="utf-8")
    assert f"seed {table['settings']['seed']}" in text
    minutes = sum(r["seconds"] for r in table["runs"]) / 60
    assert f"The contest ran in {minutes:.1f} minutes" in text


def test_paired_section_keeps_its_own_settings():
    path = resources.files("ragstat.inference").joinpath("data/coverage_table.json")
    table = json.loads(path.read_text(encoding="utf-8"))
    paired = table["paired"]["settings"]
    assert paired["bounds"] == [-1.0, 1.0] and paired["ks"] == [5, 10, 20, 40, 80]
    assert paired["reps_per_k"] == 2000 and paired["bootstrap_reps"] == 499
    assert "15 minutes" in paired["sizing"]
    for corpus in table["paired"]["corpora"].values():
        for k in paired["ks"]:
            for est in ("micro", "macro"):
                assert {"logit", "korn_graubard"} <= set(corpus["by_k"][str(k)][est])
