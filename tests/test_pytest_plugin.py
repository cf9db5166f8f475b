"""The pytest plugin (ragstat.integrations.pytest_plugin), run inside pytest with pytester.

References: every outcome is held to what ``ragstat.gate`` decides on the same file (its
sentences, its exit code, its own JUnit file), and the fixture's numbers to
``ragstat.interval`` and to pandas on the same table."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import ragstat
import ragstat.api.verbs.gate as gate_verb
from ragstat.report.gate_summary import gates_junit

pytest_plugins = ["pytester"]

FIXTURES = Path(__file__).parent / "fixtures" / "pytest_plugin"


@pytest.fixture(scope="module", autouse=True)
def loaded_before_pytester(tmp_path_factory: pytest.TempPathFactory) -> None:
    """pytester restores ``sys.modules`` after each test to what it was when the test began,
    and duckdb aborts the process when imported a second time. Every module the gates, the
    fixture and the references load is loaded here, before the first pytester snapshot."""
    import pandas as pd

    ragstat.gate(FIXTURES / "gates.toml")
    table = pd.read_csv(FIXTURES / "scores.csv")
    path = tmp_path_factory.mktemp("warm") / "scores.parquet"
    table.to_parquet(path, index=False)
    ragstat.interval(path, score="correct", seed=0, bootstrap_reps=99)


@pytest.fixture
def gates_dir(pytester: pytest.Pytester) -> Path:
    for name in ("scores.csv", "gates.toml", "gates-pass.toml", "gates-typo.toml"):
        shutil.copy(FIXTURES / name, pytester.path / name)
    return pytester.path


def _cases(junit: str) -> dict[str, str]:
    """JUnit test case name → "failure", "skipped" or "passed"."""
    out = {}
    for case in ET.fromstring(junit).iter("testcase"):
        kinds = [c.tag for c in case if c.tag in ("failure", "skipped", "error")]
        out[case.get("name") or ""] = kinds[0] if kinds else "passed"
    return out


def test_pass_fail_and_inconclusive_advisory_gate(
    pytester: pytest.Pytester, gates_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Must-show: one passing, one failing and one inconclusive (advisory) gate."""
    expected = ragstat.gate(gates_dir / "gates.toml")
    assert [g.outcome for g in expected.gates] == ["pass", "fail", "inconclusive"]
    assert [g.spec.blocking for g in expected.gates] == [True, True, False]
    calls = []
    real = gate_verb.gate
    monkeypatch.setattr(gate_verb, "gate", lambda *a, **k: calls.append(a) or real(*a, **k))

    result = pytester.runpytest("--ragstat-gates", "gates.toml", "--junitxml", "pytest.xml", "-rx")

    result.assert_outcomes(passed=1, failed=1, xfailed=1)
    assert len(calls) == 1  # decided once, not per test
    assert result.ret == expected.exit_code() == 1
    failing, advisory = expected.gates[1], expected.gates[2]
    out = result.stdout.str()
    assert failing.summary() in out  # the gate's own sentence is the failure message
    assert "correct ≥ 0.95 fails: the 97.5 % interval [0.7084, 0.9416] lies below 0.95" in out
    assert expected.verdict() in out  # the terminal summary
    result.stdout.fnmatch_lines(["*XFAIL gates.toml::accuracy at least 0.80 (advisory)*"])
    assert advisory.summary(" (advisory gate, does not block)") in out
    # pytest's JUnit file agrees with `ragstat gate --junit`, gate by gate
    ours = _cases((gates_dir / "pytest.xml").read_text(encoding="utf-8"))
    theirs = _cases(gates_junit(expected))
    assert (
        ours
        == theirs
        == {
            "accuracy at least 0.60": "passed",
            "accuracy at least 0.95": "failure",
            "accuracy at least 0.80 (advisory)": "skipped",
        }
    )


def test_a_passing_file_exits_zero_and_selection_works(
    pytester: pytest.Pytester, gates_dir: Path
) -> None:
    assert ragstat.gate(gates_dir / "gates-pass.toml").exit_code() == 0
    pytester.makepyfile(test_other="def test_other():\n    assert True\n")
    result = pytester.runpytest("--ragstat-gates", "gates-pass.toml")
    result.assert_outcomes(passed=2)  # the project's own test and the gate
    assert result.ret == 0
    result = pytester.runpytest("--ragstat-gates", "gates.toml", "-m", "ragstat_gate", "-k", "0.60")
    result.assert_outcomes(passed=1, deselected=3)


def test_inconclusive_passes_setting_makes_an_xfail(
    pytester: pytest.Pytester, gates_dir: Path
) -> None:
    """A blocking inconclusive gate fails the run by default; with inconclusive = "passes"
    ragstat gate exits 0 and the test xfails."""
    text = (gates_dir / "gates.toml").read_text(encoding="utf-8")
    text = text.replace("blocking = false\n", "").replace("threshold = 0.95", "threshold = 0.5")
    (gates_dir / "blocks.toml").write_text(text, encoding="utf-8")
    passes = text.replace('inconclusive = "blocks"', 'inconclusive = "passes"')
    (gates_dir / "passes.toml").write_text(passes, encoding="utf-8")
    for name, code, outcomes in (
        ("blocks.toml", 1, {"passed": 2, "failed": 1}),
        ("passes.toml", 0, {"passed": 2, "xfailed": 1}),
    ):
        report = ragstat.gate(gates_dir / name)
        assert [g.outcome for g in report.gates] == ["pass", "pass", "inconclusive"]
        result = pytester.runpytest("--ragstat-gates", name)
        result.assert_outcomes(**outcomes)
        assert result.ret == report.exit_code() == code


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "gates-typo.toml",
            "ERROR: --ragstat-gates gates-typo.toml: gate 'accuracy at least 0.60': "
            "metric 'accuracy' is not a column (columns: query_id, doc_id, correct)",
        ),
        (
            "absent.toml",
            "ERROR: --ragstat-gates absent.toml: gates file *absent.toml does not exist*",
        ),
    ],
)
def test_a_bad_gates_file_is_a_usage_error(
    pytester: pytest.Pytester, gates_dir: Path, name: str, message: str
) -> None:
    result = pytester.runpytest("--ragstat-gates", name)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_the_fixture(pytester: pytest.Pytester, gates_dir: Path) -> None:
    """Pass (numbers equal ragstat.interval and pandas), fail, inconclusive as xfail, a paired
    gate, bad input as one line."""
    pytester.makepyfile(
        test_answers="""
import pandas as pd
import pytest
import ragstat

TABLE = pd.read_csv("scores.csv")


def test_passes(ragstat_gate):
    g = ragstat_gate(TABLE, metric="correct", at_least=0.6, bootstrap_reps=999)
    assert g.outcome == "pass"
    assert g.estimate == pytest.approx(TABLE["correct"].mean(), abs=1e-12)
    ref = ragstat.interval(TABLE, score="correct", seed=0, bootstrap_reps=999)
    micro = ref.estimands["micro"]
    best = micro.get(micro.recommended)
    assert (g.lower, g.upper) == pytest.approx((best.lower, best.upper), abs=1e-12)


def test_fails(ragstat_gate):
    ragstat_gate("scores.csv", metric="correct", at_least=0.95, bootstrap_reps=999)


def test_inconclusive(ragstat_gate):
    ragstat_gate(TABLE, metric="correct", at_least=0.8, inconclusive="xfail", bootstrap_reps=999)


def test_paired(ragstat_gate):
    worse = TABLE.assign(correct=TABLE["correct"].where(TABLE.index % 10 != 0, 0))
    g = ragstat_gate(TABLE, baseline=worse, metric="correct", not_worse_than=0.05,
                     bootstrap_reps=999)
    diff = (TABLE["correct"] - worse["correct"]).mean()
    assert g.outcome == "pass" and g.estimate == pytest.approx(diff, abs=1e-12) and diff > 0


def test_bad_metric(ragstat_gate):
    ragstat_gate(TABLE, metric="accuracy", at_least=0.6)


def test_two_conditions(ragstat_gate):
    ragstat_gate(TABLE, metric="correct", at_least=0.6, at_most=0.9)
"""
    )
    result = pytester.runpytest("-rfx")
    result.assert_outcomes(passed=2, failed=3, xfailed=1)
    reference = ragstat.interval(
        gates_dir / "scores.csv", score="correct", seed=0, bootstrap_reps=999
    )
    micro = reference.estimands["micro"]
    best = micro.get(micro.recommended)
    result.stdout.fnmatch_lines(
        [
            "*_ test_fails _*",
            f"correct ≥ 0.95 fails: the 95 % interval [{best.lower:.4g}, {best.upper:.4g}] "
            "lies below 0.95 (K = 24 documents, N = 120 queries)",
            "*_ test_bad_metric _*",
            "ragstat_gate: gate 'accuracy at least 0.6': metric 'accuracy' is not a column "
            "(columns: query_id, doc_id, correct)",
            "*_ test_two_conditions _*",
            "ragstat_gate: give exactly one condition of at_least, at_most, not_worse_than, "
            "better_than, equivalent_within (given: at_least, at_most)",
            "XFAIL test_answers.py::test_inconclusive - correct ≥ 0.80 is inconclusive: "
            f"the 95 % interval [{best.lower:.4g}, {best.upper:.4g}] contains 0.80",
        ],
        consecutive=False,
    )
    assert "During handling" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


def test_inert_unless_asked(pytester: pytest.Pytester) -> None:
    """Registered by the entry point (a fresh process), it adds its option and nothing
    else: without --ragstat-gates no gate runs and the library is not even imported."""
    pytester.makepyfile(
        test_plain="import sys\n\ndef test_plain():\n    assert 'ragstat.api' not in sys.modules\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "ragstat" not in result.stdout.str().split("collected")[-1].split("\n")[0]
    help_text = pytester.runpytest_subprocess("--help").stdout.str()
    assert "release gates decided by ragstat" in help_text and "--ragstat-gates" in help_text
    off = pytester.runpytest_subprocess("-p", "no:ragstat", "--ragstat-gates", "x.toml")
    assert off.ret == pytest.ExitCode.USAGE_ERROR  # the option is the plugin's


def test_windows_are_one_test_each(pytester: pytest.Pytester, gates_dir: Path) -> None:
    """A file deciding per day: one test per gate and window, each with its window's outcome."""
    import pandas as pd

    table = pd.read_csv(gates_dir / "scores.csv")
    day = ["2026-01-01" if int(d[-2:]) < 12 else "2026-01-02" for d in table["doc_id"]]
    table.assign(time=day).to_csv(gates_dir / "daily.csv", index=False)
    text = (gates_dir / "gates.toml").read_text(encoding="utf-8")
    text = text.replace('path = "scores.csv"', 'path = "daily.csv"').replace("0.60", "0.40")
    text = text.replace(
        "bootstrap_reps = 999\n",
        'bootstrap_reps = 999\nwindow = { column = "time", every = "D" }\n',
    )
    (gates_dir / "daily.toml").write_text(text, encoding="utf-8")
    report = ragstat.gate(gates_dir / "daily.toml")
    assert len(report.gates) == 6
    result = pytester.runpytest("--ragstat-gates", "daily.toml", "--junitxml", "daily.xml")
    expected = {
        f"{g.name} [{g.window}]": "failure" if g.blocks(report.inconclusive_blocks)
        else "passed" if g.outcome == "pass" else "skipped"
        for g in report.gates
    }  # fmt: skip
    assert _cases((gates_dir / "daily.xml").read_text(encoding="utf-8")) == expected
    assert set(expected.values()) >= {"failure", "passed"}
    assert result.ret == report.exit_code()
