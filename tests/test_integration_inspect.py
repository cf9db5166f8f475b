"""ragstat's inspect_ai metrics (``ragstat.integrations.inspect``).

The logs under tests/fixtures/integrations/inspect/ come from a real ``inspect eval`` run
with the metrics attached (scripts/adapters/make_inspect_metric_fixture.py, inspect-ai
0.3.285, mockllm). The values inspect stored in each log's results must equal what
``ragstat interval LOG --from inspect --cluster-by source_doc`` reports for cr2_bm, and
the paired difference what ``ragstat compare A B --from inspect`` reports on the two logs,
to 1e-12; both are also checked against a dense-matrix CR2 / Bell–McCaffrey computation
written here from the definitions. None of this needs inspect_ai; the tests that do skip
without it.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.stats as sps

import ragstat
from cli_run import cli
from ragstat.api.sources import read_source
from ragstat.errors import InputError
from ragstat.integrations import inspect as ri
from ragstat.resources.archives import open_zip, read_member

HERE = Path(__file__).parent / "fixtures" / "integrations" / "inspect"
BASELINE, CANDIDATE = HERE / "baseline.eval", HERE / "candidate.eval"
SCORERS = ("includes_doc", "grade", "closeness")
TOL = 1e-12
LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
needs_inspect = pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None,
    reason="inspect_ai is not installed (pip install inspect-ai)",
)


# ---------------------------------------------------------------------------- the logs


def _members(path: Path) -> dict[str, dict]:
    with open_zip(path) as archive:
        return {
            name: json.loads(read_member(archive, name, str(path)))
            for name in archive.namelist()
            if name == "header.json" or name.startswith("samples/")
        }


def _results(path: Path) -> dict[str, dict[str, dict]]:
    """Scorer → metric key → {value, params} as inspect stored them in the log."""
    header = _members(path)["header.json"]
    assert header["status"] == "success"
    assert header["eval"]["packages"]["inspect_ai"] == "0.3.285"
    return {s["name"]: s["metrics"] for s in header["results"]["scores"]}


def _samples(path: Path, scorer: str) -> tuple[list[str], list[str], np.ndarray]:
    """(sample ids, documents, epoch means of the scorer's values) read from the log's
    sample records, values mapped by hand (C 1, P 0.5, I/N 0, numbers as they are)."""
    by_id: dict[str, list[float]] = {}
    doc: dict[str, str] = {}
    for name, sample in _members(path).items():
        if name.startswith("samples/"):
            value = sample["scores"][scorer]["value"]
            by_id.setdefault(sample["id"], []).append(LETTERS.get(value, value))
            doc[sample["id"]] = sample["metadata"]["source_doc"]
    ids = sorted(by_id)
    return ids, [doc[i] for i in ids], np.array([np.mean(by_id[i]) for i in ids])


def _dense_cr2(docs: list[str], y: np.ndarray, level: float) -> dict[str, float]:
    """CR2 and Bell–McCaffrey df of the mean from their definitions (N × N matrices):
    A_g = (I − H_gg)^(−1/2); V = Σ_g (A_g e_g)ᵀ 1 1ᵀ (A_g e_g) / N²; with G the N × K matrix
    whose column g is (I − H)ᵀ_g A_g 1 / N, ν = tr(GᵀG)² / tr((GᵀG)²)."""
    n = y.size
    hat = np.full((n, n), 1.0 / n)
    resid = y - y.mean()
    groups = [np.flatnonzero(np.array(docs) == d) for d in sorted(set(docs))]
    meat, cols = 0.0, []
    for g in groups:
        w, v = np.linalg.eigh(np.eye(g.size) - hat[np.ix_(g, g)])
        a = v @ np.diag(w**-0.5) @ v.T
        meat += float(np.sum(a @ resid[g]) ** 2)
        cols.append((np.eye(n) - hat)[:, g] @ a @ np.ones(g.size) / n)
    g_mat = np.array(cols).T  # N × K
    gtg = g_mat.T @ g_mat
    df = np.trace(gtg) ** 2 / np.trace(gtg @ gtg)
    se = math.sqrt(meat) / n
    half = sps.t.ppf(0.5 + level / 2, df) * se
    return {"mean": float(y.mean()), "se": se, "df": float(df), "half": float(half)}


def _cr2_row(report: dict) -> dict:
    (row,) = [r for r in report["estimands"]["micro"]["intervals"] if r["method"] == "cr2_bm"]
    return row


def _interval_json(capsys, path: Path, scorer: str, level: float, *more: str) -> dict:
    rc, out, _ = cli(
        capsys, "interval", path, "--from", "inspect", "--cluster-by", "source_doc",
        "--score", scorer, "--level", level, "--seed", 1, "--json", *more,
    )  # fmt: skip
    assert rc == 0
    return json.loads(out)


# ---------------------------------------------------------------------------- the real run


@pytest.mark.parametrize("path", [BASELINE, CANDIDATE], ids=["baseline", "candidate"])
def test_logged_interval_equals_ragstat_interval(capsys, path):
    results = _results(path)
    for scorer in SCORERS:
        logged = {k: m["value"] for k, m in results[scorer].items()}
        level = results[scorer]["ci_lower"]["params"].get("level", 0.95)
        assert results[scorer]["ci_lower"]["params"]["cluster"] == "source_doc"
        full = scorer == "includes_doc"  # every method once; cr2_bm alone elsewhere (faster)
        report = _interval_json(
            capsys, path, scorer, level, *(() if full else ("--methods", "cr2_bm"))
        )
        row = _cr2_row(report)
        assert report["level"] == level and report["K"] == logged["documents"] == 8
        pairs = [("clustered_mean", "estimate"), ("clustered_se", "se"), ("clustered_df", "df"),
                 ("ci_lower", "lower"), ("ci_upper", "upper")]  # fmt: skip
        for key, field in pairs:
            assert abs(logged[key] - row[field]) <= TOL, (scorer, key, logged[key], row[field])
        if "clustered_stderr" in logged:  # the scalar metric: the same CR2 standard error
            assert abs(logged["clustered_stderr"] - row["se"]) <= TOL
        # inspect's own accuracy/mean is the same mean
        own = logged.get("accuracy", logged.get("mean"))
        assert abs(own - row["estimate"]) <= TOL


@pytest.mark.parametrize("path", [BASELINE, CANDIDATE], ids=["baseline", "candidate"])
def test_logged_interval_equals_the_definitions(path):
    results = _results(path)
    for scorer in SCORERS:
        logged = {k: m["value"] for k, m in results[scorer].items()}
        level = results[scorer]["ci_lower"]["params"].get("level", 0.95)
        _, docs, y = _samples(path, scorer)
        ref = _dense_cr2(docs, y, level)
        assert abs(logged["clustered_mean"] - ref["mean"]) <= TOL
        assert abs(logged["clustered_se"] - ref["se"]) <= TOL
        assert abs(logged["clustered_df"] - ref["df"]) <= 1e-9
        assert abs(logged["ci_lower"] - (ref["mean"] - ref["half"])) <= 1e-9
        assert abs(logged["ci_upper"] - (ref["mean"] + ref["half"])) <= 1e-9


def test_inspect_own_stderr_is_cr1_and_differs():
    """The scorer also carries inspect's stderr(cluster=...): CR1, a different number."""
    logged = {k: m["value"] for k, m in _results(CANDIDATE)["includes_doc"].items()}
    _, docs, y = _samples(CANDIDATE, "includes_doc")
    u = np.array([np.sum(y[np.array(docs) == d] - y.mean()) for d in sorted(set(docs))])
    cr1 = math.sqrt(len(u) / (len(u) - 1) * np.sum(u * u)) / y.size
    assert abs(logged["stderr"] - cr1) <= TOL
    assert abs(logged["stderr"] - logged["clustered_se"]) > 1e-4


def test_logged_difference_equals_ragstat_compare(capsys):
    """``ragstat compare candidate.eval baseline.eval --from inspect``, and the same in Python."""
    results = _results(CANDIDATE)
    cand = read_source(CANDIDATE, "inspect", cluster_by="source_doc")
    base = read_source(BASELINE, "inspect", cluster_by="source_doc")
    for scorer in SCORERS:
        logged = {k: m["value"] for k, m in results[scorer].items()}
        params = results[scorer]["difference"]["params"]
        assert params == {"baseline": "baseline.eval", "cluster": "source_doc", "score": scorer}
        full = scorer == "includes_doc"  # every method once; cr2_bm alone elsewhere (faster)
        rc, out, _ = cli(
            capsys, "compare", CANDIDATE, BASELINE, "--from", "inspect", "--cluster-by",
            "source_doc", "--score", scorer, "--seed", 1, "--json",
            *(() if full else ("--methods", "cr2_bm")),
        )  # fmt: skip
        assert rc == 0
        report = json.loads(out)
        assert report["paired"]["systems"] == ["mockllm/candidate", "mockllm/baseline"]
        python = ragstat.compare(cand, base, score=scorer, methods=["cr2_bm"], seed=1).to_dict()
        assert report["paired"]["pairing"]["matched"] == logged["pairs"] == 24
        assert logged["unpaired"] == 0
        pairs = [("difference", "estimate"), ("difference_se", "se"), ("difference_df", "df"),
                 ("difference_lower", "lower"), ("difference_upper", "upper")]  # fmt: skip
        for row in (_cr2_row(report), _cr2_row(python)):
            for key, field in pairs:
                assert abs(logged[key] - row[field]) <= TOL, (scorer, key, logged[key], row[field])
        # and from the definitions: the per-sample differences, clustered
        ids_a, docs, ya = _samples(CANDIDATE, scorer)
        ids_b, _, yb = _samples(BASELINE, scorer)
        assert ids_a == ids_b
        ref = _dense_cr2(docs, ya - yb, 0.95)
        assert abs(logged["difference"] - ref["mean"]) <= TOL
        assert abs(logged["difference_se"] - ref["se"]) <= TOL
        assert abs(logged["difference_upper"] - (ref["mean"] + ref["half"])) <= 1e-9


# ---------------------------------------------------------------------------- the metrics


def _scores(values, docs, ids=None, field="source_doc"):
    ids = ids or [f"q{k:02d}" for k in range(len(values))]
    return [
        SimpleNamespace(score=SimpleNamespace(value=v), sample_id=i, sample_metadata={field: d})
        for v, d, i in zip(values, docs, ids, strict=True)
    ]


DOCS = ["a", "a", "a", "b", "b", "c", "d", "d"]
VALUES = ["C", "I", "C", 0.25, "P", 1, "N", True]
FLOATS = np.array([1, 0, 1, 0.25, 0.5, 1, 0, 1.0])


def test_clustered_ci_on_sample_scores():
    out = ri.clustered_ci(cluster="source_doc", level=0.9)(_scores(VALUES, DOCS))
    assert set(out) == set(ri.CI_KEYS)
    ref = _dense_cr2(DOCS, FLOATS, 0.9)
    assert abs(out["clustered_mean"] - ref["mean"]) <= TOL
    assert abs(out["clustered_se"] - ref["se"]) <= TOL
    assert abs(out["ci_upper"] - out["ci_lower"] - 2 * ref["half"]) <= 1e-9
    assert out["documents"] == 4
    se = ri.clustered_stderr(cluster="source_doc")(_scores(VALUES, DOCS))
    assert abs(se - ref["se"]) <= TOL


def test_nested_metadata_and_empty_and_single_document():
    nested = [
        SimpleNamespace(score=s.score, sample_id=s.sample_id, sample_metadata={"src": {"doc": d}})
        for s, d in zip(_scores(VALUES, DOCS), DOCS, strict=True)
    ]
    flat = ri.clustered_ci(cluster="source_doc")(_scores(VALUES, DOCS))
    assert ri.clustered_ci(cluster="src.doc")(nested) == flat
    empty = ri.clustered_ci()([])
    assert set(empty) == set(ri.CI_KEYS) and all(math.isnan(v) for v in empty.values())
    assert math.isnan(ri.clustered_stderr()([]))
    one = ri.clustered_ci()(_scores([1, 0, 1], ["a", "a", "a"]))  # a running eval's start
    assert one["clustered_mean"] == pytest.approx(2 / 3) and one["documents"] == 1
    assert math.isnan(one["ci_lower"]) and math.isnan(one["clustered_se"])


def test_metric_errors_are_one_line():
    with pytest.raises(InputError, match="sample 'q00' has no metadata field 'source_doc'"):
        ri.clustered_ci()(_scores([1, 0], ["a", "b"], field="doc"))
    with pytest.raises(InputError, match="sample 'x' has more than one score"):
        ri.clustered_ci()(_scores([1, 0], ["a", "b"], ids=["x", "x"]))
    with pytest.raises(InputError, match="level must lie strictly between 0 and 1"):
        ri.clustered_ci(level=95)
    with pytest.raises(InputError, match="on_missing must be one of error, drop"):
        ri.paired_difference(baseline=str(BASELINE), on_missing="skip")


def _candidate_scores(scorer: str) -> list:
    ids, docs, y = _samples(CANDIDATE, scorer)
    return _scores(list(y), docs, ids)


def test_paired_difference_on_sample_scores_pairs_like_compare():
    metric = ri.paired_difference(baseline=str(BASELINE), score="closeness")
    out = metric(_candidate_scores("closeness"))
    logged = {k: m["value"] for k, m in _results(CANDIDATE)["closeness"].items()}
    assert {k: out[k] for k in ri.DIFF_KEYS} == pytest.approx(
        {k: logged[k] for k in ri.DIFF_KEYS}, abs=TOL
    )


def test_paired_difference_unpaired_samples():
    scores = _candidate_scores("grade")
    extra = _scores([1.0], ["doc-a"], ids=["new"])
    metric = ri.paired_difference(baseline=str(BASELINE), score="grade")
    with pytest.raises(InputError, match=r"1 sample\(s\) of this run are not scored in"):
        metric(scores + extra)
    dropped = ri.paired_difference(baseline=str(BASELINE), score="grade", on_missing="drop")
    full = metric(scores)
    out = dropped(scores + extra)
    assert out["pairs"] == 24 and out["unpaired"] == 1 and out["difference"] == full["difference"]
    # part of the baseline not scored yet (inspect computes metrics while the eval runs)
    part = metric(scores[:10])
    assert part["pairs"] == 10 and part["unpaired"] == 14
    _, _, ya = _samples(CANDIDATE, "grade")
    _, _, yb = _samples(BASELINE, "grade")
    assert part["difference"] == pytest.approx(float(np.mean(ya[:10] - yb[:10])), abs=TOL)


def test_paired_difference_refuses_what_cannot_be_paired(tmp_path):
    scores = _candidate_scores("grade")
    moved = [
        SimpleNamespace(score=s.score, sample_id=s.sample_id, sample_metadata={"source_doc": "z"})
        for s in scores
    ]
    with pytest.raises(InputError, match="comes from document 'z' here and 'doc-a' in"):
        ri.paired_difference(baseline=str(BASELINE), score="grade")(moved)
    with pytest.raises(InputError, match=r"which score to pair .*includes_doc, grade, closeness"):
        ri.paired_difference(baseline=str(BASELINE))(scores)
    with pytest.raises(InputError, match="no score 'nope'"):
        ri.paired_difference(baseline=str(BASELINE), score="nope")(scores)
    with pytest.raises(InputError, match="no such file or folder"):
        ri.paired_difference(baseline=str(tmp_path / "gone.eval"), score="grade")(scores)


# ---------------------------------------------------------------------------- with inspect_ai


@needs_inspect
def test_registered_as_inspect_metrics():
    from inspect_ai._util.registry import registry_info
    from inspect_ai.scorer import SampleScore, Score
    from inspect_ai.scorer._metric import metric_create

    assert registry_info(ri.clustered_ci()).name == "ragstat/clustered_ci"
    assert registry_info(ri.clustered_stderr()).name == "ragstat/clustered_stderr"
    made = metric_create("ragstat/clustered_ci", cluster="source_doc", level=0.9)
    real = [
        SampleScore(score=Score(value=v), sample_id=i, sample_metadata={"source_doc": d})
        for v, d, i in zip(VALUES, DOCS, range(len(DOCS)), strict=True)
    ]
    assert made(real) == ri.clustered_ci(level=0.9)(_scores(VALUES, DOCS))
