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
from ragstat.api.verbs.study import summarize
from ragstat.cli.report import report as report_command
from ragstat.corpus.document import Corpus, Document
from ragstat.errors import InputError
from ragstat.inference import analyze
from ragstat.inference.diagnostics import compute_diagnostics
from ragstat.inference.paired import compare
from ragstat.inference.results import Interval
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
from ragstat.report.model import UNRECORDED
from ragstat.report.parts import acf_by_lag
from ragstat.selfretrieval import StudyConfig, run_study, write_study
from ragstat.simulation import Census, simulate_coverage, study_census

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
    write_study(study, out, summarize(study, reps=199, strata="kind").to_dict())
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


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def _md(rep: Report) -> str:
    """The Markdown with its backslash escapes removed: the text a reader sees."""
    return _ESCAPED.sub(r"\1", render_markdown(rep))


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


#: The keys of an interval row in a report.json written before reports held `Interval`s.
OLD_ROW = ("method", "estimand", "estimate", "lower", "upper", "level", "df", "se", "naive",
           "available", "reason", "replicates", "discarded")  # fmt: skip


def test_report_intervals_are_the_inference_interval_type():
    stats, *_ = _interval_inputs()
    res = analyze(stats, seed=1, bootstrap_reps=199)
    rep = report_from_interval(res, stats, source="x", created=CREATED)
    for block in rep.results:
        computed = res.estimands[block.estimand]
        assert all(isinstance(iv, Interval) for iv in block.intervals)
        assert [iv.reference for iv in block.intervals] == [
            iv.reference for iv in computed.intervals
        ]
    assert Report.from_dict(json.loads(json.dumps(rep.to_dict()))) == rep


def test_report_json_with_old_interval_rows_still_renders(tmp_path):
    stats, *_ = _interval_inputs()
    rep = report_from_interval(
        analyze(stats, seed=1, bootstrap_reps=199), stats, source="x", created=CREATED
    )
    run = tmp_path / "run"
    paths = write_report(rep, run)
    before = {k: p.read_bytes() for k, p in paths.items() if k != "json"}
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    for block in data["results"]:
        block["intervals"] = [{k: iv[k] for k in OLD_ROW} for iv in block["intervals"]]
    paths["json"].write_text(json.dumps(data), encoding="utf-8")
    old = load_report(paths["json"])
    assert all(iv.reference == UNRECORDED for b in old.results for iv in b.intervals)
    assert old == replace(
        rep,
        results=tuple(
            replace(b, intervals=tuple(replace(iv, reference=UNRECORDED) for iv in b.intervals))
            for b in rep.results
        ),
    )
    again = render_folder(run)  # what `ragstat report OLD_FOLDER` does
    assert {k: p.read_bytes() for k, p in again.items() if k != "json"} == before


# --- interval ------------------------------------------------------------------------------


def test_interval_report_numbers_match_the_result():
    stats, rows, _, _, pos = _interval_inputs()
    guide = {"micro": "cr2_bm", "macro": "t_rates"}  # explicit: the default is data-driven
    res = analyze(stats, seed=1, bootstrap_reps=199, recommended=guide)
    rep = report_from_interval(
        res, stats, source="runs.parquet", query_scores=rows, positions=pos, created=CREATED
    )
    md = _md(rep)
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
    md = _md(rep)
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
    assert specs["T5"].available  # Korn–Graubard's explicit interval at 0 and at 1
    assert not specs["T6"].available and "undefined" in specs["T6"].note
    html = render_html(rep)
    assert html.count("<svg") == 3  # T1, T2 and the widths (T5)
    assert "not available — " in _md(rep)


# --- comparison ----------------------------------------------------------------------------


def test_comparison_report_shows_ties_pairing_and_drops():
    rng = np.random.default_rng(11)
    doc, ya, _ = unequal_design(rng, 25)
    yb = np.where(rng.random(ya.size) < 0.2, 1 - ya, ya)
    diff = aggregate_arrays(doc, ya - yb, score="hit A - B")
    pairing = Pairing(("bm25", "tfidf"), matched=ya.size, only_a=3, only_b=1, on_missing="drop")
    res = compare(diff, pairing=pairing, seed=2, bootstrap_reps=99, permutation_reps=199)
    rep = report_from_comparison(res, diff, source="a.parquet", created=CREATED)
    md = _md(rep)
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
    assert "documents where the two systems tie (difference 0): 100.0 %" in _md(rep)
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
    md = _md(rep)
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
    assert block.honest.method == first["estimands"]["micro"]["recommended"]
    assert block.naive_interval.method == "wald_iid"
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
    md = _md(rep)
    assert "single chunk: 1" in md and "MRR@10" in md


def test_study_with_sampled_queries_matches_its_weighted_summary(tmp_path):
    if "sample_queries" not in StudyConfig.__dataclass_fields__:
        pytest.skip("this ragstat has no sampled-query studies")
    config = StudyConfig(
        retrievers=("bm25", "tfidf"), chunk_words=50, query_words=10, sample_queries=0.5
    )
    sampled = run_study(_corpus(), config)
    write_study(sampled, tmp_path, summarize(sampled, reps=99).to_dict())
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    rep = report_from_study(tmp_path, created=CREATED)
    hit1 = summary["retrievers"]["bm25"]["hit1"]
    smp = summary["sampling"]
    assert rep.histograms[0].micro == pytest.approx(hit1["estimands"]["micro"]["estimate"])
    assert rep.histograms[0].macro == pytest.approx(hit1["estimands"]["macro"]["estimate"])
    assert rep.docs[0].N == hit1["N"] == smp["queries_eligible"]
    assert rep.docs[0].scored == smp["queries_sampled"] < rep.docs[0].N
    md = _md(rep)
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
    assert "| &lt;script&gt;alert\\(1\\)&lt;/script&gt;-1 | — | 1 | single chunk |" in md
    rep = report_from_interval(*_hostile_interval(), source="x", created=CREATED)
    md = render_markdown(rep)
    row = next(line for line in md.splitlines() if "a\\|b" in line)
    assert row.count(" | ") == 6  # 7 columns: the pipe inside the stratum is escaped
    assert "| hit | &lt;script&gt;alert\\(1\\)&lt;/script&gt; |" in md


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


# --- regressions: review of the report package ---------------------------------------------


def _items(rep: Report) -> dict[str, str]:
    return {c.key: c.text for c in rep.checklist}


def _summary_row(md: str, subject: str, est: str) -> str:
    return next(line for line in md.splitlines() if line.startswith(f"| {subject} | {est} |"))


def test_summary_shows_no_other_method_when_the_recommended_one_was_not_run():
    """The headline rule (inference.headline): the recommended interval or none, with the
    reason; never another method in its place."""
    stats, *_ = _interval_inputs()
    res = analyze(
        stats,
        seed=1,
        bootstrap_reps=99,
        methods=["doc_bootstrap_t", "wald_iid"],
        recommended={"micro": "cr2_bm", "macro": "t_rates"},  # the default picks among those run
    )
    rep = report_from_interval(res, stats, source="x", created=CREATED)
    md = _md(rep)
    for est, rec in (("micro", "cr2_bm"), ("macro", "t_rates")):
        row = _summary_row(md, "hit", est)
        shown = res.estimands[est].get("doc_bootstrap_t")
        assert _ci(shown) not in row
        assert f"none: the recommended method {rec} was not computed | none |" in row
    assert "CR2 cluster-robust" not in md.split("## What to report")[0]
    method = _items(rep)["method"]
    assert "no interval shown (the recommended method cr2_bm was not computed)" in method
    assert "computed: doc_bootstrap_t, wald_iid" in method
    assert rep.verdicts[0].startswith("For a random query, hit is 28.6 points, but no interval")
    # only the recommended micro method, macro requested: nothing applies to macro
    res = analyze(stats, seed=1, methods=["cr2_bm"], estimands=["macro"])
    rep = report_from_interval(res, stats, source="x", created=CREATED)
    row = _summary_row(_md(rep), "hit", "macro")
    assert "none: the recommended method t_rates was not computed" in row
    assert "t on document rates" not in row
    assert (
        "no interval shown" in _items(rep)["method"] and "computed: none" in _items(rep)["method"]
    )


def _strata_inputs(seed: int = 3, K: int = 40):
    """Documents in 4 strata/types, unequally sampled from unequal populations."""
    stats, *_ = _interval_inputs(seed, K)
    labels = np.array(["a"] * 4 + ["b"] * 6 + ["c"] * 10 + ["d"] * (K - 20))
    return replace(stats, stratum=labels), {"a": 40, "b": 18, "c": 200, "d": 25}


def test_stratified_report_states_the_design_estimand_and_draws_its_estimates():
    from ragstat.inference.design_analysis import analyze_design

    stats, counts = _strata_inputs()
    res = analyze_design(stats, design="stratified", population_counts=counts)
    rep = report_from_interval(res, stats, source="x", design="stratified", created=CREATED)
    items = _items(rep)
    assert "combined ratio R̂ = Σ w_d s_d / Σ w_d n_d with w_d = M_h / K_h" in items["estimand"]
    assert "stratified mean of rates Σ_h (M_h / M) r̄_h" in items["estimand"]
    assert "R = Σ s_d / Σ n_d, the rate of a random query (chunk)" not in items["estimand"]
    assert "per-stratum finite correction (1 − K_h/M_h)" in items["population_design"]
    assert "a: 4 of 40" in items["population_design"]
    assert "Satterthwaite" in items["method"] and "Satterthwaite" in items["df"]
    assert "in H = 4 strata" in items["k_n"]
    h = rep.histograms[0]
    micro, macro = res.estimands["micro"].estimate, res.estimands["macro"].estimate
    assert h.weighted and h.micro == pytest.approx(micro) and h.macro == pytest.approx(macro)
    assert h.micro != pytest.approx(stats.s.sum() / stats.N)  # not the unweighted value
    spec = next(s for s in figure_specs(rep) if s.key == "T1")
    assert "combined ratio" in spec.caption
    assert "combined ratio" in render_svg("T1", rep)


def test_design_reports_add_a_labelled_naive_interval_for_contrast(tmp_path):
    from ragstat.inference.design_analysis import analyze_design

    stats, counts = _strata_inputs()
    srs = analyze(stats, seed=0, methods=["wald_iid"])
    for design in ("stratified", "two-stage"):
        res = analyze_design(stats, design=design, population_counts=counts)
        rep = report_from_interval(res, stats, source="x", design=design, created=CREATED)
        md = _md(rep)
        for b in rep.results:
            naive = b.naive_interval
            assert naive is not None and naive.naive
            assert naive.reason.startswith("naive iid (queries as independent, unweighted)")
            ref = srs.estimands["macro" if b.estimand == "macro" else "micro"].get("wald_iid")
            assert (naive.lower, naive.upper) == pytest.approx((ref.lower, ref.upper))
            row = _summary_row(md, "hit", b.estimand)
            assert _ci(ref) in row and "unweighted; added for contrast" in row
            assert "not computed" not in row and b.width_ratio is not None
        assert any("computes no naive interval" in n for n in rep.notes)
        assert load_report(write_report(rep, tmp_path / design)["json"]) == rep


def test_two_stage_checklist_names_the_type_as_primary_unit():
    from ragstat.inference.design_analysis import analyze_design

    stats, counts = _strata_inputs()
    counts = {**counts, "e": 30, "f": 12}  # T = 6 types in the population, t = 4 sampled
    res = analyze_design(stats, design="two-stage", population_counts=counts)
    rep = report_from_interval(res, stats, source="x", design="two-stage", created=CREATED)
    items = _items(rep)
    assert "Resampling and clustering unit: the document" not in items["method"]
    assert "Primary sampling unit: the type — t = 4 of T = 6 types sampled" in items["method"]
    assert "df = t − 1 = 3" in items["method"]
    assert "(1 − t/T) between types and (1 − k_i/M_i) within" in items["method"]
    assert items["k_n"].startswith("t = 4 of T = 6 types, K = 40 documents")
    assert "the sample size is K, not N" not in items["k_n"]
    assert "t = 4 of T = 6 types sampled" in items["population_design"]
    assert "e: 0 of" not in items["population_design"]  # unsampled types are not listed
    assert "mean over all T types" in items["estimand"]
    assert "t − 1 (sampled types)" in items["df"]


def test_simulation_summary_and_checklist_print_each_recommendation_basis():
    result = simulate_coverage(_census(), [5], reps=60, bootstrap_reps=49, seed=3).to_dict()
    closest = "closest to nominal (91.0% vs 95%); no method reached the nominal level here"
    result["recommendation"]["by_k_estimand"]["k=5 macro"] = {
        "methods": ["logit"],
        "basis": closest,
    }
    result["recommendation"]["by_k_estimand"]["k=5 micro"] = {
        "methods": ["cr2_bm", "cr1"],
        "basis": "within 2 Monte-Carlo SEs of nominal",
    }
    rep = report_from_simulation(result, source="c", created=CREATED)
    md = _md(rep)
    summary = md.split("## What to report")[0]
    assert "within 2 MC SE of nominal |" not in summary  # no longer a column title
    assert "recommended here (basis)" in summary
    assert "| logit (closest; nominal not reached) |" in _summary_row(md, "—", "5 | macro")
    assert "| cr2_bm, cr1 (within 2 MC SE of nominal) |" in _summary_row(md, "—", "5 | micro")
    method = _items(rep)["method"]
    assert f"k=5 macro: logit ({closest})" in method
    assert "Within 2 Monte-Carlo SEs of nominal:" not in method


def test_simulation_checklist_follows_the_design_and_every_study(study_dir):
    stats, *_ = _interval_inputs(8, K=60)
    census = Census.from_docstats(replace(stats, stratum=np.array(list("abcdef") * 10)))
    strat = simulate_coverage(
        census, [12], reps=20, design="stratified", seed=1, bootstrap_reps=49
    ).to_dict()
    items = _items(report_from_simulation(strat, source="c", census=census, created=CREATED))
    assert "type mean" not in items["estimand"] and "micro" in items["estimand"]
    assert "allocated proportionally to the strata" in items["population_design"]
    two = simulate_coverage(
        census, [2], reps=20, design="two-stage", types=3, seed=1, bootstrap_reps=49
    ).to_dict()
    for rep in (
        report_from_simulation(two, source="c", census=census, types=3, created=CREATED),
        report_from_simulation({**two, "types": 3}, source="c", created=CREATED),
    ):
        items = _items(rep)
        assert "samples of k = 2 documents" not in items["population_design"]
        assert "3 types drawn by SRS" in items["population_design"]
        assert "up to 6 documents per sample" in items["population_design"]
        assert "micro" not in items["estimand"] and "macro" not in items["estimand"]
        assert "type mean" in items["estimand"]
        assert "primary sample size is the 3 types drawn" in items["k_n"]
    # several studies: every study in items 1-4 (and 7, 8 with their censuses)
    pops, studies = [], []
    for retriever in ("bm25", "tfidf"):
        pop, info = study_census(study_dir, system=retriever)
        rep = simulate_coverage(pop, [4], reps=20, bootstrap_reps=29, seed=0).to_dict()
        pops.append(pop)
        studies.append({**info, **rep})
    for census_arg in (None, pops):
        rep = report_from_simulation(
            {"studies": studies}, source="s", census=census_arg, created=CREATED
        )
        items = _items(rep)
        for key in ("population_design", "estimand", "k_n", "chunks"):
            assert "bm25, 50 words" in items[key] and "tfidf, 50 words" in items[key], key
    assert [d.subject for d in rep.docs] == ["bm25, 50 words", "tfidf, 50 words"]
    assert "bm25, 50 words" in items["icc_deff"] and "tfidf, 50 words" in items["icc_deff"]
    with pytest.raises(InputError, match="one per study"):
        report_from_simulation({"studies": studies}, source="s", census=pops[:1])


def test_simulation_from_a_study_takes_its_score():
    census = _census()
    result = simulate_coverage(census, [5], reps=20, bootstrap_reps=29, seed=0).to_dict()
    info = {"retriever": "bm25", "chunk_words": 50, "score": "hit1"}
    rep = report_from_simulation({"studies": [{**info, **result}]}, source="s", created=CREATED)
    assert rep.score == "hit1"
    assert report_from_simulation(result, source="s", score="rr", created=CREATED).score == "rr"
    assert "not recorded" in report_from_simulation(result, source="s", created=CREATED).score


def test_study_checklist_covers_every_retriever(study_report):
    items = _items(study_report)
    assert "the same documents and queries for bm25, tfidf" in items["chunks"]
    for key in ("icc_deff", "shares"):
        assert "bm25: " in items[key] and "tfidf: " in items[key], key
    assert "at the extremes of the per-document difference bm25 − tfidf" in items["shares"]
    assert "−1 (tfidf right on every query, bm25 on none)" in items["shares"]


def test_comparison_shares_report_both_extremes_of_the_difference():
    doc = np.repeat([f"d{i}" for i in range(10)], 4)
    ya = np.repeat([1, 1, 0, 0, 1, 0, 1, 0, 1, 1], 4).astype(float)
    yb = np.repeat([0, 0, 1, 1, 1, 0, 1, 1, 1, 0], 4).astype(float)
    ya[-1] = 0.0  # last document: 3 of 4 better, not an extreme
    diff = aggregate_arrays(doc, ya - yb, score="hit A - B")
    pairing = Pairing(("A", "B"), matched=40, only_a=0, only_b=0, on_missing="error")
    res = compare(diff, pairing=pairing, seed=0, bootstrap_reps=49, permutation_reps=99)
    rep = report_from_comparison(res, diff, source="x", created=CREATED)
    (doc_summary,) = rep.docs
    assert doc_summary.share_neg1 == pytest.approx(0.3)  # d2, d3, d7
    assert doc_summary.share1 == pytest.approx(0.2)  # d0, d1
    shares = _items(rep)["shares"]
    assert "−1 (B right on every query, A on none) 30.0 %" in shares
    assert "0 40.0 %" in shares and "+1 (A right on every query, B on none) 20.0 %" in shares
    assert "docs at −1" in _md(rep)


def test_markdown_user_text_cannot_make_links_emphasis_code_or_math():
    markdown_it = pytest.importorskip("markdown_it")
    link = "[l](javascript:alert(3))"
    hostile = [link, "![i](http://x/y.png)", "*em* _u_ `code` $x$ ~~s~~", "<b>x</b> &amp;"]
    doc = np.repeat(hostile, 6)
    y = np.tile([1.0, 0.0, 1.0, 0.0, 0.0, 1.0], len(hostile))
    y[:6] = [1, 1, 1, 0, 0, 0]
    stats = aggregate_arrays(doc, y, score="hit", stratum=doc)
    res = analyze(stats, seed=0, bootstrap_reps=49)
    rep = report_from_interval(res, stats, source=link, title=f"# {link}", created=CREATED)
    rep = replace(rep, warnings=("- nested " + link,), notes=("12. not a list",))
    md = render_markdown(rep)
    html = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough").render(md)
    assert "<a " not in html and "href" not in html and "<img" not in html
    assert "<code>" not in html and "<s>" not in html and "<b>" not in html
    assert "<em>em</em>" not in html and "<em>u</em>" not in html
    assert "[l](javascript:alert(3))" in html  # the text survives, inert
    assert "<b>x</b> &amp;amp;" in html.replace("&lt;", "<").replace("&gt;", ">")
    assert "\\$x\\$" in md  # no math on GitHub either
    assert html.count("<h1>") == 1 and "<h1># [l](javascript:alert(3))" in html
    assert "<li>- nested [l](javascript:alert(3))</li>" in html  # not a nested list
    assert "<li>12. not a list</li>" in html and '<ol start="12">' not in html


def test_every_builder_takes_created_and_a_study_report_is_reproducible(study_dir):
    first = report_from_study(study_dir, created=CREATED)
    again = report_from_study(study_dir, created=CREATED)
    assert first.created == CREATED and first.to_dict() == again.to_dict()
    assert render_markdown(first) == render_markdown(again)
    stats, *_ = _interval_inputs()
    res = analyze(stats, seed=1, bootstrap_reps=49, methods=["cr2_bm", "wald_iid"])
    assert report_from_interval(res, stats, source="x", created=CREATED).created == CREATED
    diff = aggregate_arrays(np.repeat(list("abcd"), 3), np.tile([1.0, 0.0, -1.0], 4))
    cmp = compare(diff, seed=0, bootstrap_reps=49, permutation_reps=49)
    assert report_from_comparison(cmp, diff, source="x", created=CREATED).created == CREATED
    sim = simulate_coverage(_census(), [5], reps=20, bootstrap_reps=29, seed=0).to_dict()
    assert report_from_simulation(sim, source="x", created=CREATED).created == CREATED
