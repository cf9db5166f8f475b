"""The decision core: gate outcomes, family corrections (against statsmodels), results, CI output."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest
from scipy import stats

from ragstat.decisions.gates import (
    KINDS,
    Decision,
    GateReport,
    GateResult,
    GateSpec,
    adjust_pvalues,
    decide,
    decide_family,
    family_level,
    outcome,
)
from ragstat.errors import InputError
from ragstat.inference.results import Interval
from ragstat.report.gate_summary import gates_junit, gates_markdown

try:
    from statsmodels.stats import multitest
except ImportError:  # a dev dependency; only the reference comparisons need it
    multitest = None
needs_statsmodels = pytest.mark.skipif(multitest is None, reason="statsmodels not installed")
SM = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


@pytest.fixture
def fast_multitest(monkeypatch):
    """statsmodels' Holm branch calls gc.collect() on every call (≈0.2 s in a large test
    process); the comparison does not need it."""
    monkeypatch.setattr("gc.collect", lambda *args: 0)


def spec(kind: str = "at_least", name: str = "g", **kw) -> GateSpec:
    defaults = {
        "at_least": {"threshold": 0.5},
        "at_most": {"threshold": 0.5},
        "not_worse_than_baseline": {"margin": 0.25},
        "better_than_baseline": {},
        "equivalent": {"margin": 0.25},
    }[kind]
    return GateSpec(name=name, kind=kind, metric="hit1", **{**defaults, **kw})


def interval(lower: float | None, upper: float | None, level: float = 0.95) -> Interval:
    mid = None if lower is None or upper is None else (lower + upper) / 2
    return Interval("cr2_bm", "micro", mid or 0.0, lower, upper, level, "test")


# ---------------------------------------------------------------- outcome at the boundaries

BOUNDARIES = [
    # at_least 0.5: lower ≥ t passes (inclusive), upper < t fails (exclusive)
    ("at_least", {}, 0.5, 0.75, "pass"),
    ("at_least", {}, 0.25, 0.5, "inconclusive"),
    ("at_least", {}, 0.25, 0.4999, "fail"),
    ("at_least", {}, 0.4999, 0.75, "inconclusive"),
    # at_most 0.5: upper ≤ t passes, lower > t fails
    ("at_most", {}, 0.25, 0.5, "pass"),
    ("at_most", {}, 0.5, 0.75, "inconclusive"),
    ("at_most", {}, 0.5001, 0.75, "fail"),
    # non-inferiority, margin 0.25: lower ≥ −0.25 passes, upper < −0.25 fails
    ("not_worse_than_baseline", {}, -0.25, 0.5, "pass"),
    ("not_worse_than_baseline", {}, -0.5, -0.25, "inconclusive"),
    ("not_worse_than_baseline", {}, -0.5, -0.2501, "fail"),
    # superiority, min_delta 0: lower > 0 passes (strict), upper ≤ 0 fails
    ("better_than_baseline", {}, 0.0, 0.5, "inconclusive"),
    ("better_than_baseline", {}, 1e-12, 0.5, "pass"),
    ("better_than_baseline", {}, -0.5, 0.0, "fail"),
    ("better_than_baseline", {}, -0.5, 1e-12, "inconclusive"),
    # superiority, min_delta 0.125: lower ≥ 0.125 passes (inclusive), upper ≤ 0.125 fails
    ("better_than_baseline", {"min_delta": 0.125}, 0.125, 0.5, "pass"),
    ("better_than_baseline", {"min_delta": 0.125}, 0.0, 0.125, "fail"),
    ("better_than_baseline", {"min_delta": 0.125}, 0.0, 0.25, "inconclusive"),
    # equivalence, margin 0.25: −m < lower and upper < m passes (strict); lower ≥ m or upper ≤ −m fails
    ("equivalent", {}, -0.125, 0.125, "pass"),
    ("equivalent", {}, -0.25, 0.125, "inconclusive"),
    ("equivalent", {}, -0.125, 0.25, "inconclusive"),
    ("equivalent", {}, 0.25, 0.5, "fail"),
    ("equivalent", {}, -0.5, -0.25, "fail"),
    ("equivalent", {}, -0.5, 0.5, "inconclusive"),
]


@pytest.mark.parametrize("kind, extra, lower, upper, expected", BOUNDARIES)
def test_outcome_at_the_boundaries(kind, extra, lower, upper, expected):
    assert outcome(spec(kind, **extra), lower, upper) == expected


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bounds", [(None, None), (None, 0.5), (0.1, None), (np.nan, 0.5)])
def test_missing_interval_is_a_failure(kind, bounds):
    assert outcome(spec(kind), *bounds) == "fail"


def test_decide_with_missing_evidence_keeps_the_reason():
    d = decide(spec(), None, 0.95, "no rows in slice law = L8078")
    assert (d.outcome, d.reason, d.interval) == ("fail", "no rows in slice law = L8078", None)
    iv = Interval.unavailable("cr2_bm", "micro", 0.5, 0.95, "t", "fewer than 2 documents")
    assert decide(spec(), iv, 0.95).reason == "fewer than 2 documents"
    assert decide(spec(), interval(0.6, 0.7), 0.95).outcome == "pass"


def test_tost_equals_two_one_sided_tests_at_the_same_level():
    """Equivalent passes iff both one-sided t tests reject at (1 − L)/2 (Schuirmann 1987)."""
    rng = np.random.default_rng(7)
    margin, level = 0.05, 0.95
    g = spec("equivalent", margin=margin)
    for _ in range(2000):
        est, se, df = rng.normal(0, 0.05), rng.uniform(0.005, 0.04), int(rng.integers(3, 80))
        half = stats.t.ppf((1 + level) / 2, df) * se
        p_low = stats.t.sf((est + margin) / se, df)  # H0: δ ≤ −margin
        p_high = stats.t.cdf((est - margin) / se, df)  # H0: δ ≥ margin
        tost = max(p_low, p_high) <= (1 - level) / 2
        assert (outcome(g, est - half, est + half) == "pass") == tost


# ---------------------------------------------------------------- GateSpec declarations


def test_paired_kinds():
    assert [spec(k).paired() for k in KINDS] == [False, False, True, True, True]


def test_from_mapping_reads_a_toml_table():
    g = GateSpec.from_mapping(
        {
            "name": "law",
            "kind": "at_least",
            "metric": "hit1",
            "threshold": 1,
            "slice": {"law": ["a", "b"]},
        },
        "gates.toml, gate 2",
    )
    assert g.threshold == 1.0 and isinstance(g.threshold, float)
    assert g.slice_values() == {"law": ("a", "b")}
    assert "law in {a, b}" in g.slice_text()


@pytest.mark.parametrize(
    "table, words",
    [
        ({"kind": "at_least", "metric": "m", "threshold": 0.5, "thresold": 1}, ["'thresold'"]),
        ({"kind": "at_least", "metric": "m"}, ["needs a threshold"]),
        ({"kind": "at_least", "metric": "m", "threshold": 0.5, "margin": 0.1}, ["no margin"]),
        ({"kind": "equivalent", "metric": "m"}, ["needs a margin"]),
        ({"kind": "equivalent", "metric": "m", "margin": 0}, ["margin must be > 0"]),
        ({"kind": "not_worse_than_baseline", "metric": "m", "margin": -0.1}, ["margin"]),
        ({"kind": "equivalent", "metric": "m", "margin": 0.1, "threshold": 0.5}, ["no threshold"]),
        ({"kind": "at_least", "metric": "m", "threshold": "high"}, ["threshold", "number"]),
        ({"kind": "at_least", "metric": "m", "threshold": True}, ["threshold", "number"]),
        ({"kind": "at_leest", "metric": "m", "threshold": 0.5}, ["unknown kind", "'at_leest'"]),
        ({"kind": "at_least", "metric": "m", "threshold": 0.5, "estimand": "mean"}, ["estimand"]),
        ({"kind": "at_least", "threshold": 0.5}, ["missing metric"]),
        ({"kind": "at_least", "metric": "m", "threshold": 0.5, "min_delta": 0.1}, ["min_delta"]),
        ({"kind": "better_than_baseline", "metric": "m", "min_delta": -0.1}, ["min_delta"]),
        ({"kind": "at_least", "metric": "m", "threshold": 0.5, "slice": {"law": []}}, ["slice"]),
        ({"kind": "at_least", "metric": "m", "threshold": 0.5, "slice": "law"}, ["slice"]),
        ({"kind": "at_least", "metric": "m", "threshold": 0.5, "blocking": "yes"}, ["blocking"]),
    ],
)
def test_from_mapping_errors_name_the_gate_and_the_key(table, words):
    with pytest.raises(InputError) as err:
        GateSpec.from_mapping({"name": "hit_floor", **table}, "gates.toml, gate 3")
    message = str(err.value)
    assert message.startswith("gates.toml, gate 3: gate 'hit_floor'")
    for word in words:
        assert word in message


def test_from_mapping_needs_a_name_and_a_table():
    with pytest.raises(InputError, match="gate 1: a gate needs a name"):
        GateSpec.from_mapping({"kind": "at_least", "metric": "m", "threshold": 0.5}, "gate 1")
    with pytest.raises(InputError, match="must be a table"):
        GateSpec.from_mapping(["x"], "gate 1")  # type: ignore[arg-type]


def test_validate_catches_a_direct_construction():
    with pytest.raises(InputError, match="gate 'g': kind at_most needs a threshold"):
        GateSpec("g", "at_most", "latency_p95").validate()
    spec("equivalent").validate()


# ---------------------------------------------------------------- p-value adjustment


@needs_statsmodels
@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh", "fdr_bh"])
def test_adjust_pvalues_equals_statsmodels(method, fast_multitest):
    rng = np.random.default_rng(11)
    cases = [rng.uniform(size=m) for m in (1, 2, 3, 5, 12, 40)]
    cases += [rng.uniform(size=20) ** 4 for _ in range(20)]
    cases += [
        np.array([0.01, 0.01, 0.02, 0.02, 0.02, 0.5, 0.5]),
        np.array([0.0, 1.0, 0.0, 0.3, 1.0]),
        np.array([0.0]),
        np.array([1.0]),
        np.array([0.04]),
        np.round(rng.uniform(size=30), 1),  # many ties
    ]
    sm = "fdr_bh" if method == "bh" else method
    for p in cases:
        expected = multitest.multipletests(p, method=sm)[1]
        np.testing.assert_allclose(adjust_pvalues(p, method), expected, rtol=0, atol=1e-12)


def test_adjust_pvalues_none_and_bad_input():
    p = [0.2, 0.01]
    np.testing.assert_array_equal(adjust_pvalues(p, "none"), p)
    assert adjust_pvalues([], "holm").size == 0
    for bad in ([0.1, np.nan], [1.2], [-0.1], [[0.1, 0.2]]):
        with pytest.raises(InputError):
            adjust_pvalues(bad, "holm")
    with pytest.raises(InputError, match="unknown correction"):
        adjust_pvalues(p, "sidak")


# ---------------------------------------------------------------- families decided on intervals


class TDecider:
    """decide_at for gates with known estimate, se, df: estimate ± t_{(1+L)/2, df}·se."""

    def __init__(self, specs, est, se, df):
        self.specs, self.est, self.se, self.df = specs, est, se, df
        self.calls: list[tuple[int, float]] = []

    def __call__(self, i: int, level: float) -> Decision:
        self.calls.append((i, level))
        half = stats.t.ppf((1 + level) / 2, self.df[i]) * self.se[i]
        iv = Interval(
            "cr2_bm", "micro", self.est[i], self.est[i] - half, self.est[i] + half, level, "t"
        )
        return decide(self.specs[i], iv, level)

    def p_values(self) -> np.ndarray:
        """p2 = 2·(1 − T_df(z)), z the distance to the threshold in the passing direction."""
        z = [
            (e - s.threshold) / se if s.kind == "at_least" else (s.threshold - e) / se
            for s, e, se in zip(self.specs, self.est, self.se, strict=True)
        ]
        return 2 * stats.t.sf(np.array(z), self.df)


def random_family(rng, m):
    kinds = rng.choice(["at_least", "at_most"], size=m)
    thresholds = rng.uniform(0.3, 0.8, size=m)
    se = rng.uniform(0.01, 0.05, size=m)
    df = rng.integers(4, 60, size=m)
    z = rng.normal(2.0, 1.5, size=m)
    sign = np.where(kinds == "at_least", 1.0, -1.0)
    est = thresholds + sign * z * se
    specs = [
        GateSpec(f"g{i}", str(k), "hit1", threshold=float(t))
        for i, (k, t) in enumerate(zip(kinds, thresholds, strict=True))
    ]
    return TDecider(specs, est, se, df)


@needs_statsmodels
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh"])
def test_decide_family_passes_exactly_what_multipletests_rejects(correction, fast_multitest):
    rng = np.random.default_rng({"holm": 1, "bonferroni": 2, "bh": 3}[correction])
    passes_seen = 0
    for _ in range(400):
        m = int(rng.integers(1, 13))
        level = float(rng.choice([0.9, 0.95, 0.99]))
        decider = random_family(rng, m)
        decisions = decide_family(decider.specs, decider, level, correction)
        reject = multitest.multipletests(
            decider.p_values(), alpha=1 - level, method=SM[correction]
        )[0]
        assert [d.outcome == "pass" for d in decisions] == list(reject)
        assert len(decider.calls) == len(set(decider.calls))  # each (i, L) computed once
        assert all(
            d.level == c
            for d, c in zip(decisions, [d.interval.level for d in decisions], strict=True)
        )
        passes_seen += int(reject.sum())
    assert passes_seen > 100  # the families exercise passes, not only failures


def test_decide_family_levels():
    decider = random_family(np.random.default_rng(5), 4)
    assert {d.level for d in decide_family(decider.specs, decider, 0.95, "none")} == {0.95}
    bonf = decide_family(decider.specs, decider, 0.95, "bonferroni")
    assert {d.level for d in bonf} == {family_level(0.95, 1, 4)} == {1 - 0.05 / 4}
    assert decide_family([], decider, 0.95, "holm") == []
    with pytest.raises(InputError, match="unknown correction"):
        decide_family(decider.specs, decider, 0.95, "hochberg")
    with pytest.raises(InputError, match="level"):
        decide_family(decider.specs, decider, 95, "holm")


def test_holm_steps_down():
    """Two clear passes free the third gate's level: 1 − α/3, then 1 − α/1."""
    specs = [GateSpec(f"g{i}", "at_least", "m", threshold=0.0) for i in range(3)]
    # z = 4 passes at 1 − 0.05/3; z = 2.2 passes only at 0.95 (t with 1000 df ≈ normal).
    decider = TDecider(specs, np.array([4.0, 4.0, 2.2]), np.ones(3), np.full(3, 1000))
    d = decide_family(specs, decider, 0.95, "holm")
    assert [x.outcome for x in d] == ["pass"] * 3
    assert [x.level for x in d] == [1 - 0.05 / 3, 1 - 0.05 / 3, 1 - 0.05 / 1]
    assert decide_family(specs, decider, 0.95, "bonferroni")[2].outcome == "inconclusive"


def test_missing_evidence_stays_in_the_family():
    """A gate without an interval fails and still counts in m (conservative)."""
    specs = [GateSpec(f"g{i}", "at_least", "m", threshold=0.0) for i in range(3)]
    t = TDecider(specs, np.array([4.0, 2.2, 0.0]), np.ones(3), np.full(3, 1000))

    def decide_at(i: int, level: float) -> Decision:
        return decide(specs[i], None, level, "no rows in slice") if i == 2 else t(i, level)

    for correction in ("holm", "bh"):
        d = decide_family(specs, decide_at, 0.95, correction)
        assert d[2].outcome == "fail" and d[2].reason == "no rows in slice"
        assert d[0].outcome == "pass"
    holm = decide_family(specs, decide_at, 0.95, "holm")
    assert holm[1].level == 1 - 0.05 / 2 and holm[1].outcome == "inconclusive"  # not 1 − α/1


# ---------------------------------------------------------------- results, exit codes, CI output


def result(g: GateSpec, lower, upper, level=0.95, reason=None, **kw) -> GateResult:
    iv = None if lower is None else interval(lower, upper, level)
    d = decide(g, iv, level, reason)
    est = None if iv is None else iv.estimate
    return GateResult(g, d, est, 40, 800, "cr2_bm", "K = 40 documents, N = 800 queries", None, **kw)


@pytest.fixture
def mixed():
    return (
        result(spec(name="hit_floor", threshold=0.7), 0.72, 0.8, system="bm25"),
        result(spec("at_most", name="latency", threshold=2.0), 1.2, 1.8),
        result(spec(name="law_a", threshold=0.7, slice={"law": "a"}), 0.66, 0.74, system="bm25"),
        result(spec("not_worse_than_baseline", name="ni", margin=0.02), -0.01, 0.03),
    )


def report(gates, inconclusive_blocks=True, level=0.95) -> GateReport:
    return GateReport(tuple(gates), level, "holm", inconclusive_blocks, "gates.toml")


def test_exit_code_with_and_without_inconclusive_blocks(mixed):
    assert report(mixed, True).exit_code() == 1
    assert report(mixed, False).exit_code() == 0
    assert report(mixed[:2] + mixed[3:]).exit_code() == 0
    failing = result(spec(name="bad", threshold=0.9), 0.5, 0.6)
    assert report([*mixed[:2], failing], False).exit_code() == 1
    advisory = result(spec(name="adv", threshold=0.9, blocking=False), 0.5, 0.6)
    assert report([*mixed[:2], advisory]).exit_code() == 0
    missing = result(spec(name="empty"), None, None, reason="no rows in slice law = z")
    rep = report([mixed[0], missing], False)
    assert rep.exit_code() == 1 and missing.outcome == "fail"
    assert "no rows in slice law = z" in rep.verdict()


def test_verdict_and_to_dict(mixed):
    rep = report(mixed)
    v = rep.verdict()
    assert v.startswith("3 of 4 blocking gates pass; hit1 ≥ 0.70 [law = a] (bm25) is inconclusive:")
    assert "[0.66, 0.74]" in v and "contains 0.70" in v and "seed" not in v
    assert "is inconclusive (does not block):" in report(mixed, False).verdict()
    one = result(spec(name="x", threshold=0.9), 0.5, 0.6)
    assert report([one]).verdict() == (
        "The blocking gate does not pass; hit1 ≥ 0.90 fails: "
        "the 95 % interval [0.5, 0.6] lies below 0.90."
    )
    assert report(mixed[:2]).verdict() == "All 2 blocking gates pass."
    out = rep.to_dict()
    assert {
        k: out[k] for k in ("level", "correction", "inconclusive_blocks", "passed", "exit_code")
    } == {
        "level": 0.95,
        "correction": "holm",
        "inconclusive_blocks": True,
        "passed": False,
        "exit_code": 1,
    }
    assert [g["outcome"] for g in out["gates"]] == ["pass", "pass", "inconclusive", "pass"]
    assert out["gates"][2]["slice"] == {"law": ["a"]} and out["gates"][2]["lower"] == 0.66
    with pytest.raises(InputError):
        GateReport((), 0.95, "sidak", True, "x")


def test_tidy_views(mixed):
    rep = report(mixed)
    frame = rep.to_frame()
    assert len(frame) == 4 and list(frame["gate"]) == ["hit_floor", "latency", "law_a", "ni"]
    assert "inconclusive" in repr(rep) and rep.title().startswith("4 gates from gates.toml")

    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows = 0

        def handle_starttag(self, tag, attrs):
            self.rows += tag == "tr"

    parser = Tags()
    parser.feed(rep._repr_html_())
    parser.close()
    assert parser.rows == 1 + 4
    assert len(mixed[0].to_frame()) == 1


def test_gates_markdown(mixed):
    rep = report(mixed)
    md = gates_markdown(rep)
    assert rep.verdict() in md
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + len(mixed)  # header + one per gate
    assert "interval (adjusted level)" in rows[0]
    assert "[0.66, 0.74] at 95 %" in md and "≥ −0.02 vs baseline" in md


def test_gates_junit_reads_back(mixed):
    junitparser = pytest.importorskip("junitparser")
    for blocks, failed, skipped in (
        (True, {"law_a (bm25)"}, set()),
        (False, set(), {"law_a (bm25)"}),
    ):
        rep = report(mixed, blocks)
        xml = junitparser.JUnitXml.fromstring(gates_junit(rep).encode("utf-8"))
        cases = [c for suite in xml for c in suite]
        assert len(cases) == len(mixed)
        assert {c.name for c in cases if c.is_failure} == failed
        assert {c.name for c in cases if c.is_skipped} == skipped
        assert bool(failed) == (rep.exit_code() == 1)
        for c in cases:
            if c.is_failure:
                assert "0.66" in c.result[0].message and "0.70" in c.result[0].message
    text = gates_junit(report(mixed))
    assert '<property name="level" value="0.95"' in text
    assert '<property name="interval" value="[0.66, 0.74]"' in text


def test_level_shown_is_the_adjusted_level():
    g = result(spec(name="x", threshold=0.5), 0.6, 0.7, level=family_level(0.95, 1, 4))
    assert "98.75 %" in g.why() and "98.75 %" in gates_markdown(report([g]))
