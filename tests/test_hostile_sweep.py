"""The hostile corpus in CI (issue 28, item 6).

Generated hostile inputs for every verb and every ``--from`` reader (``tests/hostile/``):
non-numeric and non-finite cells, escapes, lone surrogates and other hostile strings in ids,
non-UTF-8 bytes, truncated and empty files, deep nesting, duplicate ids, one document, gzip
and zip bombs, FIFOs, symlinks to /etc/passwd and /dev/zero, extreme option values. Each
case runs in a forked child (address-space and CPU limits); a case fails on an internal
error, a hang, a peak over 1 GB, an exit-2 error of more than one line, ``--json`` that a
strict parser refuses, or a raw escape in the output.

The quick subset runs here; the full sweep (≥ 1,500 cases) is ``slow``. Cases that fail
today are listed in ``tests/hostile/known.py`` and marked ``xfail(strict=True)``.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from hostile.cases import Case
from hostile.checks import problems_of
from hostile.known import KNOWN_FULL, KNOWN_QUICK
from hostile.runner import Limits
from hostile.sweep import build, sweep

VERBS = {
    "interval",
    "compare",
    "evaluate",
    "gate",
    "simulate",
    "plan",
    "ppi",
    "agreement",
    "judge-bias",
    "coverage",
    "filter-rule",
    "split",
    "generation",
    "ontology",
    "ingestion",
    "latency",
    "extraction",
    "routing",
    "nuggets",
    "chunking",
    "rewriting",
    "study",
    "report",
    "runs",
}
READERS = {
    "inspect",
    "lm-eval",
    "helm",
    "ragas",
    "deepeval",
    "promptfoo",
    "ragchecker",
    "ranx",
    "beir",
    "mteb",
}


def _case(
    verb: str = "interval",
    argv: tuple[str, ...] = ("interval", "x.csv", "--json"),
    case_id: str = "t/x",
) -> Case:
    return Case(case_id, "t", verb, None, "cells", argv, Path("."))


def _problems(
    case: Case,
    code: int | None,
    out: bytes = b"",
    err: bytes = b"",
    sig: int | None = None,
    peak: int = 0,
    killed: str | None = None,
) -> list[str]:
    return problems_of(case, Path("/nonexistent"), code, sig, out, err, peak, killed, 0.1)[0]


def test_a_run_is_judged_by_the_issue_rules():
    ok = _case()
    assert _problems(ok, 0, b'{"a": 1}') == []
    assert _problems(ok, 2, err=b"ragstat: error: one line\n") == []
    assert _problems(ok, 1, b"{}") == ["internal error (exit 1)"]  # 1 is a failed gate only
    assert _problems(_case("gate", ("gate", "g.toml", "--json")), 1, b"{}") == []
    assert _problems(ok, 3, err=b"ragstat: internal error: X\n")[0] == "internal error (exit 3)"
    assert _problems(ok, 2, err=b"Usage: ragstat\nTry\nError: x\n") == [
        "exit 2 with 3 stderr lines"
    ]
    assert _problems(ok, 0, b'{"a": NaN}')[0].startswith("--json not strict JSON")
    assert _problems(ok, 0, b'{"a": Infinity}')[0].startswith("--json not strict JSON")
    assert _problems(ok, 0, b'{"a": 1}', err=b"\x1b[31m\n") == ["raw escape on stdout/stderr"]
    assert _problems(ok, None, sig=signal.SIGXCPU) == ["hang: CPU limit"]
    assert _problems(ok, None, sig=signal.SIGKILL, killed="hang: blocked") == ["hang: blocked"]
    assert _problems(ok, 0, b"{}", peak=2 << 30) == ["memory: peak 2.00 GiB"]
    assert _problems(ok, None, sig=signal.SIGSEGV) == ["crash: signal SIGSEGV"]


@pytest.fixture(scope="module")
def full_cases(tmp_path_factory):
    return build(tmp_path_factory.mktemp("hostile-build"))


@pytest.mark.slow  # a sweep of hostile inputs
def test_the_full_sweep_is_seeded_and_covers_every_verb_and_reader(full_cases, tmp_path):
    again = build(tmp_path)
    assert [c.id for c in again] == [c.id for c in full_cases]
    # the same bytes, except where the input is a fresh run's folder or registry (run ids)
    fixed = [(c.argv, c.ops) for c in full_cases if c.verb not in ("report", "runs")]
    assert [(c.argv, c.ops) for c in again if c.verb not in ("report", "runs")] == fixed
    assert len(full_cases) >= 1_500
    assert {c.verb for c in full_cases} >= VERBS
    assert {c.reader for c in full_cases if c.reader} == READERS
    groups = {c.group for c in full_cases}
    assert groups >= {
        "valid",
        "bytes",
        "special",
        "bomb",
        "cells",
        "strings",
        "shape",
        "options",
        "toml",
        "registry",
    }
    named = (
        "cell-ERROR",
        "cell-huge-int",
        "string-ansi",
        "string-lone-surrogate",
        "non-utf8",
        "truncated-half",
        "empty",
        "deep-nesting",
        "dup-id",
        "one-doc",
        "gzip-bomb",
        "fifo",
        "symlink-passwd",
        "--k=0",
        "--level=1",
        "--bootstrap-reps=1000000000",
        "--population=1e308",
    )
    assert all(any(n in c.id for c in full_cases) for n in named)


@pytest.fixture(scope="module")
def quick_outcomes(tmp_path_factory):
    limits = Limits(cpu_s=10, idle_s=5.0)  # a known hang costs 10 s, not 20
    _, outcomes, _ = sweep(tmp_path_factory.mktemp("hostile-quick"), quick=True, limits=limits)
    return {o.id: o for o in outcomes}


@pytest.mark.slow  # a sweep of hostile inputs
def test_the_quick_sweep_has_no_failure_beyond_the_known(quick_outcomes):
    new = [
        f"{o.id}: {'; '.join(o.problems)} | {o.stderr_first}"
        for o in quick_outcomes.values()
        if o.problems and o.id not in KNOWN_QUICK
    ]
    assert len(quick_outcomes) >= 60
    assert not new, "\n".join(new)


@pytest.mark.parametrize(
    "case_id",
    [
        pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=v))
        for k, v in sorted(KNOWN_QUICK.items())
    ],
)
def test_known_quick_failure_is_still_there(case_id, quick_outcomes):
    assert case_id in quick_outcomes, "no longer generated: remove it from known.py"
    assert not quick_outcomes[case_id].problems


@pytest.fixture(scope="module")
def full_outcomes(tmp_path_factory):
    _, outcomes, _ = sweep(tmp_path_factory.mktemp("hostile-full"))
    return {o.id: o for o in outcomes}


@pytest.mark.slow
def test_the_full_sweep_has_no_failure_beyond_the_known(full_outcomes):
    assert len(full_outcomes) >= 1_500
    new = [
        f"{o.id}: {'; '.join(o.problems)} | {o.stderr_first}"
        for o in full_outcomes.values()
        if o.problems and o.id not in KNOWN_FULL
    ]
    assert not new, "\n".join(new)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case_id",
    [
        pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=v))
        for k, v in sorted(KNOWN_FULL.items())
    ],
)
def test_known_full_failure_is_still_there(case_id, full_outcomes):
    assert case_id in full_outcomes, "no longer generated: remove it from known.py"
    assert not full_outcomes[case_id].problems


def test_known_lists_are_strings():
    assert all(isinstance(v, str) and v for v in {**KNOWN_QUICK, **KNOWN_FULL}.values())
