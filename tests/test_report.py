"""Reports: model round trip, numbers in the Markdown, every kind, escaping, re-rendering."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from conftest import unequal_design
from ragstat.cli.report import report as report_command
from ragstat.corpus.document import Corpus, Document
from ragstat.errors import InputError
from ragstat.inference import analyze
from ragstat.inference.diagnostics import compute_diagnostics
from ragstat.inference.paired import compare
from ragstat.records import QueryScores, aggregate_arrays
from ragstat.records.paired import Pairing
from ragstat.report import (
    SCHEMA_VERSION,
    Report,
    load_report,
    render_folder,
    render_html,
    render_markdown,
    report_from_comparison,
    report_from_interval,
    report_from_simulation,
    report_from_study,
    write_report,
)
from ragstat.report.figures import figure_specs, render_svg
from ragstat.report.parts import acf_by_lag
from ragstat.simulation import Census, simulate_coverage, study_census
from ragstat.study import StudyConfig, run_study, write_study

BAD = "<script>alert(1)</script>"
BOLD = "<b>x</b>"
CHECKLIST_KEYS = [
    "population_design",
    "estimand",
    "k_n",
    "chunks",
    "method",
    "df",
    "icc_deff",
    "shares",
    "left_out",
]
CREATED = "2026-01-02T03:04:05+00:00"


def _corpus() -> Corpus:
    """16 documents with their own words (so hits happen); hostile ids, strata and metadata."""
    rng = np.random.default_rng(7)
    docs = []
    for i in range(16):
        vocab = [f"t{i}w{j}" for j in range(40)] + [f"c{j}" for j in range(200)]
        n = 30 if i == 1 else int(rng.integers(120, 700))  # document 1: one chunk, excluded
        doc_id = {1: f"{BAD}-1", 2: f"{BOLD}|2"}.get(i, f"doc{i:02d}")
        kind = [BAD, BOLD, "plain $\\frac$ kind"][i % 3]
        docs.append(Document(doc_id, " ".join(rng.choice(vocab, n)), {"kind": kind, "note": BAD}))
    return Corpus(tuple(docs), source=f"synthetic {BAD}")


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory) -> Path:
    study = run_study(
        _corpus(), StudyConfig(retrievers=("bm25", "tfidf"), chunk_words=50, query_words=10)
    )
    out = tmp_path_factory.mktemp("study")
    write_study(study, out, reps=199, strata="kind")
    return out


@pytest.fixture(scope="module")
def study_report(study_dir) -> Report:
    return report_from_study(study_dir, title=f"T {BAD} {BOLD}", created=CREATED)


def _interval_inputs(seed: int = 3, K: int = 30):
    doc, y, pos = unequal_design(np.random.default_rng(seed), K)
    stats = aggregate_arrays(doc, y, position=pos, score="hit")
    rows = QueryScores(doc_index=np.searchsorted(stats.doc_id, doc), y=y)
    return stats, rows, doc, y, pos


def _ci(iv) -> str:
    return f"[{iv.lower:.4f}, {iv.upper:.4f}]"


# --- model ---------------------------------------------------------------------------------


def test_round_trip_and_schema_version(study_report, tmp_path):
    paths = write_report(study_report, tmp_path)
    assert set(paths) == {"json", "markdown", "html"}
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data["schema_version"] == SCHEMA_VERSION == 1
    assert data["kind"] == "study"
    assert load_report(paths["json"]) == study_report
    assert Report.from_dict(study_report.to_dict()) == study_report


def test_load_refuses_newer_corrupt_and_incomplete(study_report, tmp_path):
    data = study_report.to_dict()
    path = tmp_path / "report.json"
    path.write_text(json.dumps({**data, "schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(InputError, match="newer"):
        load_report(path)
    path.write_text('{"schema_version": 1, "kind": ')
    with pytest.raises(InputError, match="corrupt"):
        load_report(path)
    broken = {k: v for k, v in data.items() if k != "checklist"}
    path.write_text(json.dumps(broken))
    with pytest.raises(InputError, match="checklist"):
        load_report(path)
    data["results"][0]["estimate"] = "high"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"results\[0\]\.estimate"):
        load_report(path)


# --- interval ------------------------------------------------------------------------------


def test_interval_report_numbers_match_the_result():
    stats, rows, _, _, pos = _interval_inputs()
    res = analyze(stats, seed=1, bootstrap_reps=199)
    rep = report_from_interval(
        res, stats, source="runs.parquet", query_scores=rows, positions=pos, created=CREATED
    )
    md = render_markdown(rep)
    assert [c.key for c in rep.checklist] == CHECKLIST_KEYS
    assert all(c.text for c in rep.checklist)
    for est, method in (("micro", "cr2_bm"), ("macro", "t_rates")):
        r = res.estimands[est]
        assert r.recommended == method
        honest, naive = r.get(method), r.get("wald_iid")
        row = next(line for line in md.splitlines() if line.startswith(f"| hit | {est} |"))
        assert _ci(honest) in row and _ci(naive) in row  # naive beside honest
        assert f"{honest.df:.1f}" in row
        assert f"×{honest.width / naive.width:.2f}" in row
    assert f"K = {stats.K:,} documents, N = {round(stats.N):,} queries" in md
    d = res.diagnostics
    assert f"ICC {d.icc:.3f}, DEFF {d.deff:.2f}" in md
    assert f"median {np.median(stats.n):g}" in md and f"max {int(stats.n.max())}" in md
    assert f"rate 0: {100 * d.share_rate0:.1f} %" in md
    assert "documents excluded before this table was made are not known" in md
    # T6: lags 1..5 from the rows; lag 1 is the diagnostic
    (acf,) = rep.autocorrelation
    assert acf.lags == (1, 2, 3, 4, 5)
    assert acf.values[0] == pytest.approx(d.lag1_autocorrelation, rel=1e-9)


def test_acf_is_invariant_to_row_order():
    _, _, doc, y, pos = _interval_inputs(seed=5)
    perm = np.random.default_rng(0).permutation(y.size)
    a = acf_by_lag("s", doc, pos, y)
    b = acf_by_lag("s", doc[perm], pos[perm], y[perm])
    assert a.values == pytest.approx(b.values)
    assert a.pairs == b.pairs


def test_items_without_data_say_why():
    _, _, doc, y, _ = _interval_inputs()
    stats = aggregate_arrays(doc, y, score="hit")  # no positions: no autocorrelation
    res = analyze(stats, seed=1, bootstrap_reps=99, methods=["wald_iid"])
    rep = report_from_interval(res, stats, source="x", created=CREATED)
    df_item = next(c for c in rep.checklist if c.key == "df")
    assert not df_item.available and df_item.text.startswith("not available — ")
    specs = {s.key: s for s in figure_specs(rep)}
    assert not specs["T3"].available and "simulate" in specs["T3"].note
    assert not specs["T6"].available and "position" in specs["T6"].note
    md = render_markdown(rep)
    assert "T3 Coverage by method vs nominal**: not available — coverage needs" in md


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_degenerate_scores_render_with_reasons(value):
    doc, pos = np.repeat(list("abcd"), 10), np.tile(np.arange(10), 4)
    stats = aggregate_arrays(
        doc, np.full(40, value), position=pos, stratum=np.repeat(list("xy"), 20)
    )
    rep = report_from_interval(
        analyze(stats, seed=0, bootstrap_reps=49), stats, source="flat", created=CREATED
    )
    specs = {s.key: s for s in figure_specs(rep)}
    assert not specs["T5"].available and "unavailable" in specs["T5"].note
    assert not specs["T6"].available and "undefined" in specs["T6"].note
    html = render_html(rep)
    assert html.count("<svg") == 2  # T1 and T2 still drawn
    assert "not available — " in render_markdown(rep)


# --- comparison ----------------------------------------------------------------------------


def test_comparison_report_shows_ties_pairing_and_drops():
    rng = np.random.default_rng(11)
    doc, ya, _ = unequal_design(rng, 25)
    yb = np.where(rng.random(ya.size) < 0.2, 1 - ya, ya)
    diff = aggregate_arrays(doc, ya - yb, score="hit A - B")
    pairing = Pairing(("bm25", "tfidf"), matched=ya.size, only_a=3, only_b=1, on_missing="drop")
    res = compare(diff, pairing=pairing, seed=2, bootstrap_reps=99, permutation_reps=199)
    rep = report_from_comparison(res, diff, source="a.parquet", created=CREATED)
    md = render_markdown(rep)
    assert rep.kind == "comparison" and rep.paired.systems == ("bm25", "tfidf")
    assert rep.results[0].subject == "bm25 − tfidf"
    micro = res.report.estimands["micro"].get("cr2_bm")
    assert _ci(micro) in md
    assert f"tie (difference 0): {100 * res.paired.ties_share:.1f} %" in md
    assert "dropped: 3 only in bm25, 1 only in tfidf" in md
    assert rep.histograms[0].edges[0] == -1.0 and rep.histograms[0].edges[-1] == 1.0


def test_comparison_of_identical_systems():
    doc, y, _ = unequal_design(np.random.default_rng(1), 12)
    diff = aggregate_arrays(doc, y - y, score="hit A - B")
    res = compare(diff, seed=0, bootstrap_reps=49, permutation_reps=99)
    rep = report_from_comparison(res, diff, source="same", created=CREATED)
    assert rep.paired.ties_share == 1.0
    assert "documents where the two systems tie (difference 0): 100.0 %" in render_markdown(rep)
    assert "T5" in render_html(rep)


# --- simulation ----------------------------------------------------------------------------


def _census(seed: int = 4) -> Census:
    stats, *_ = _interval_inputs(seed, K=60)
    return Census.from_docstats(stats)


def test_simulation_report_coverage_and_checklist(tmp_path):
    result = simulate_coverage(_census(), [5], reps=60, bootstrap_reps=49, seed=3).to_dict()
    rep = report_from_simulation(result, source="census.parquet", created=CREATED)
    assert rep.kind == "simulation"
    assert len(rep.coverage) == len(result["results"])
    for row, raw in zip(rep.coverage, result["results"], strict=True):
        assert (row.method, row.coverage, row.coverage_se) == (
            raw["method"],
            raw["coverage"],
            raw["coverage_se"],
        )
    md = render_markdown(rep)
    cr2 = next(r for r in result["results"] if r["method"] == "cr2_bm")
    assert f"{100 * cr2['coverage']:.1f} % ± {100 * cr2['coverage_se']:.1f} %" in md
    items = {c.key: c for c in rep.checklist}
    assert not items["icc_deff"].available and not items["df"].available
    specs = {s.key: s.available for s in figure_specs(rep)}
    assert specs == {"T1": False, "T2": False, "T3": True, "T4": False, "T5": True, "T6": False}
    assert load_report(write_report(rep, tmp_path)["json"]) == rep


def test_simulation_with_census_and_two_stage():
    stats, *_ = _interval_inputs(8, K=60)
    census = Census.from_docstats(replace(stats, stratum=np.array(list("abcdef") * 10)))
    result = simulate_coverage(
        census, [3], reps=40, design="two-stage", types=3, seed=1, bootstrap_reps=49
    ).to_dict()
    rep = report_from_simulation(result, source="c", census=census, created=CREATED)
    assert rep.two_stage is not None and len(rep.two_stage.types) == 6
    assert rep.two_stage.target == pytest.approx(result["census"]["type_mean"])
    assert all(c.available for c in rep.checklist if c.key != "df")
    assert "T4" in render_html(rep)


def test_simulation_from_studies_form(study_dir):
    census, info = study_census(study_dir)
    rep_one = simulate_coverage(census, [4], reps=30, bootstrap_reps=29, seed=0).to_dict()
    rep = report_from_simulation({"studies": [{**info, **rep_one}]}, source="s", created=CREATED)
    assert rep.simulations[0].chunk_words == 50 and rep.coverage[0].group == "bm25, 50 words"


# --- study ---------------------------------------------------------------------------------


def test_study_report_matches_summary(study_dir, study_report):
    summary = json.loads((study_dir / "summary.json").read_text(encoding="utf-8"))
    rep = study_report
    first = summary["retrievers"]["bm25"]["hit1"]
    block = next(b for b in rep.results if b.subject == "bm25" and b.estimand == "micro")
    assert block.estimate == first["estimands"]["micro"]["estimate"]
    assert block.honest.method == "cr2_bm" and block.naive_interval.method == "wald_iid"
    assert [b.subject for b in rep.results].count("bm25 − tfidf") == 2  # paired first − second
    assert first["K"] == rep.docs[0].K and first["N"] == rep.docs[0].N
    assert rep.excluded_counts == {"single chunk": 1}
    assert [e.doc_id for e in rep.excluded] == [f"{BAD}-1"]
    assert {r.stratum for r in rep.strata} == {BAD, BOLD, "plain $\\frac$ kind"}
    diag = compute_diagnostics(
        aggregate_arrays(*_rows(study_dir, "bm25"), score="hit1", position=_rows_pos(study_dir))
    )
    assert rep.autocorrelation[0].values[0] == pytest.approx(diag.lag1_autocorrelation)
    specs = {s.key: s.available for s in figure_specs(rep)}
    assert specs == {"T1": True, "T2": True, "T3": False, "T4": False, "T5": True, "T6": True}
    md = render_markdown(rep)
    assert "single chunk: 1" in md and "MRR@10" in md


def test_study_with_sampled_queries_matches_its_weighted_summary(tmp_path):
    if "sample_queries" not in StudyConfig.__dataclass_fields__:
        pytest.skip("this ragstat has no sampled-query studies")
    config = StudyConfig(
        retrievers=("bm25", "tfidf"), chunk_words=50, query_words=10, sample_queries=0.5
    )
    write_study(run_study(_corpus(), config), tmp_path, reps=99)
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    rep = report_from_study(tmp_path, created=CREATED)
    hit1 = summary["retrievers"]["bm25"]["hit1"]
    smp = summary["sampling"]
    assert rep.histograms[0].micro == pytest.approx(hit1["estimands"]["micro"]["estimate"])
    assert rep.histograms[0].macro == pytest.approx(hit1["estimands"]["macro"]["estimate"])
    assert rep.docs[0].N == hit1["N"] == smp["queries_eligible"]
    assert rep.docs[0].scored == smp["queries_sampled"] < rep.docs[0].N
    md = render_markdown(rep)
    assert f"{smp['queries_sampled']} of {smp['queries_eligible']} eligible chunks" in md
    left = smp["queries_eligible"] - smp["queries_sampled"]
    assert f"unsampled queries: {left} eligible chunks issued no query" in md


def _rows(folder: Path, retriever: str):
    import pandas as pd

    rec = pd.read_parquet(folder / "records.parquet")
    g = rec[rec["retriever"] == retriever]
    return g["doc_id"].to_numpy(), g["hit1"].to_numpy(float)


def _rows_pos(folder: Path):
    import pandas as pd

    rec = pd.read_parquet(folder / "records.parquet")
    return rec.loc[rec["retriever"] == "bm25", "position"].to_numpy()


# --- escaping and self-containment ---------------------------------------------------------


def _svgs(html: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", html, flags=re.S)


def test_user_text_is_escaped_in_html_and_svg(study_report):
    html = render_html(study_report)
    assert "<script" not in html.lower()
    assert BOLD not in html and "alert(1)" in html  # present, but only escaped
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    svgs = _svgs(html)
    assert len(svgs) == 4  # T1, T2, T5, T6
    t2 = next(s for s in svgs if 'aria-label="figure T2"' in s)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in t2 and "&lt;b&gt;x&lt;/b&gt;" in t2
    for svg in svgs:
        assert "<script" not in svg and "<b>" not in svg and "onload" not in svg


def test_matplotlib_svg_escapes_text():
    rep = report_from_interval(
        *_hostile_interval(), source=BAD, title=BAD, created=CREATED
    )  # strata named with markup
    svg = render_svg("T2", rep)
    assert "<script" not in svg and "&lt;script&gt;" in svg


def _hostile_interval():
    stats, *_ = _interval_inputs()
    strata = np.array([BAD, BOLD, "a|b"] * stats.K)[: stats.K]
    stats = replace(stats, stratum=strata)
    return analyze(stats, seed=0, bootstrap_reps=49), stats


def test_markdown_escapes_cells_and_html(study_report):
    md = render_markdown(study_report)
    assert "<script" not in md and BOLD not in md
    assert "| &lt;script&gt;alert(1)&lt;/script&gt;-1 | — | 1 | single chunk |" in md
    rep = report_from_interval(*_hostile_interval(), source="x", created=CREATED)
    md = render_markdown(rep)
    row = next(line for line in md.splitlines() if "a\\|b" in line)
    assert row.count(" | ") == 6  # 7 columns: the pipe inside the stratum is escaped
    assert "| hit | &lt;script&gt;alert(1)&lt;/script&gt; |" in md


def test_html_is_self_contained_and_deterministic(study_report):
    html = render_html(study_report)
    assert html == render_html(study_report)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, flags=re.I)
    assert "<link" not in html and "@import" not in html
    assert "Content-Security-Policy" in html
    for key in CHECKLIST_KEYS:
        assert f'data-key="{key}"' in html
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids))  # figure ids are prefixed, never clash


# --- writing and re-rendering --------------------------------------------------------------


def test_render_folder_from_report_json_and_from_study(study_dir, study_report, tmp_path):
    run = tmp_path / "run"
    paths = write_report(study_report, run)
    before = {k: p.read_bytes() for k, p in paths.items()}
    paths["html"].unlink()
    paths["markdown"].write_text("stale")
    again = render_folder(run)
    assert {k: p.read_bytes() for k, p in again.items()} == before
    # a study folder from an older version: no report.json
    old = tmp_path / "old"
    old.mkdir()
    for name in ("summary.json", "records.parquet", "documents.parquet"):
        (old / name).write_bytes((study_dir / name).read_bytes())
    made = render_folder(old)
    assert all(p.is_file() for p in made.values())
    assert load_report(made["json"]).kind == "study"


def test_render_folder_errors(study_report, tmp_path):
    with pytest.raises(InputError, match="no such folder"):
        render_folder(tmp_path / "missing")
    with pytest.raises(InputError, match=r"no report\.json and no summary\.json"):
        render_folder(tmp_path)
    (tmp_path / "report.json").write_text("{not json")
    with pytest.raises(InputError, match="corrupt"):
        render_folder(tmp_path)
    data = {**study_report.to_dict(), "schema_version": 99}
    (tmp_path / "report.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match="schema_version 99 is newer"):
        render_folder(tmp_path)


def test_cli_report_command(study_report, tmp_path):
    app = typer.Typer()
    app.command("report")(report_command)
    app.command("noop")(lambda: None)  # keep `report` a sub-command, as in the real app
    write_report(study_report, tmp_path)
    (tmp_path / "report.html").unlink()
    result = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert str(tmp_path / "report.html") in result.output
    assert (tmp_path / "report.html").is_file()
    bad = CliRunner().invoke(app, ["report", str(tmp_path / "nope")])
    assert isinstance(bad.exception, InputError)
