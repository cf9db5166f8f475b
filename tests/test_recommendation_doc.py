"""docs/recommendation.md is generated from the packaged coverage table and cannot drift."""

from __future__ import annotations

import importlib.util
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


def test_paired_section_is_the_contest_s_differences():
    section = d.table_section("paired")
    assert section is not None
    assert set(section["corpora"]) == {f"{c}-paired" for c in ("planalto-leis", "aneel-ren1000",
                                                            "demo")}  # fmt: skip
    for family in section["corpora"].values():
        assert family["census"]["kind"] == "paired"
        for k in section["settings"]["ks"]:
            for est in ("micro", "macro"):
                cell = family["by_k"][str(k)][est]
                assert {"logit", "korn_graubard", "wcr", "cr3_bm"} <= set(cell)
                assert "beta_binomial" not in cell  # a model of 0/1 scores


def test_readme_states_the_small_k_defaults_from_the_table():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert _script().readme_block() in text, (
        "README's small-K block is stale: run python scripts/make_recommendation_doc.py"
    )
