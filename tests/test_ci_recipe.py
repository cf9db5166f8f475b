"""The CI recipe: scripts/ci/ragstat-gate.sh run for real, and action.yml's steps run through it.

References: the exit status, the Markdown summary and the JUnit file are held to what
``ragstat.gate`` decides on the same gates file (``exit_code()``, ``gates_markdown``,
``gates_junit``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

import ragstat
from ragstat.report.gate_summary import gates_junit, gates_markdown

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "ci" / "ragstat-gate.sh"
ACTION = ROOT / "action.yml"
FIXTURES = ROOT / "tests" / "fixtures" / "pytest_plugin"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A job's working folder with the gates files, and `ragstat` on PATH as this Python's."""
    for name in ("scores.csv", "gates.toml", "gates-pass.toml", "gates-typo.toml"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "ragstat"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ragstat "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "RAGSTAT", "RAGSTAT_GATES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _bash(
    script: str | Path, env: dict[str, str], cwd: Path, *args: str
) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(script), *args], env={**os.environ, **env}, cwd=cwd,
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def _outcomes(junit: str) -> dict[str, str]:
    out = {}
    for case in ET.fromstring(junit).iter("testcase"):
        kinds = [c.tag for c in case if c.tag in ("failure", "skipped", "error")]
        out[case.get("name") or ""] = kinds[0] if kinds else "passed"
    return out


@pytest.mark.parametrize(("gates", "code"), [("gates-pass.toml", 0), ("gates.toml", 1)])
def test_the_script_keeps_the_exit_code_and_writes_the_reports(
    work: Path, gates: str, code: int
) -> None:
    report = ragstat.gate(gates)  # the reference, from the working folder as the job runs
    assert report.exit_code() == code
    step_summary = work / "step-summary.md"
    step_summary.write_text("earlier step\n", encoding="utf-8")
    env = {
        "RAGSTAT_GATES": gates,
        "RAGSTAT_JUNIT": "reports/gates.xml",  # folders are made
        "RAGSTAT_SUMMARY": "reports/gates.md",
        "GITHUB_STEP_SUMMARY": str(step_summary),
    }
    done = _bash(SCRIPT, env, work)
    assert done.returncode == code, done.stderr
    assert report.verdict() in done.stdout
    summary = (work / "reports" / "gates.md").read_text(encoding="utf-8")
    assert summary == gates_markdown(report)
    assert f"(exit code {code})" in summary.splitlines()[0]
    junit = (work / "reports" / "gates.xml").read_text(encoding="utf-8")
    assert _outcomes(junit) == _outcomes(gates_junit(report))
    assert step_summary.read_text(encoding="utf-8") == "earlier step\n" + summary  # appended


def test_the_script_without_github_and_with_defaults(work: Path) -> None:
    done = _bash(
        SCRIPT, {"RAGSTAT_GATES": "gates.toml", "RAGSTAT": f"{sys.executable} -m ragstat"}, work
    )
    assert done.returncode == 1
    assert _outcomes((work / "ragstat-gates.xml").read_text(encoding="utf-8")) == {
        "accuracy at least 0.60": "passed",
        "accuracy at least 0.95": "failure",
        "accuracy at least 0.80 (advisory)": "skipped",
    }
    assert (
        (work / "ragstat-gates.md")
        .read_text(encoding="utf-8")
        .startswith("### ragstat gate: failed (exit code 1)")
    )


def test_the_script_on_bad_input(work: Path) -> None:
    """Exit 2 with ragstat's one line; no report files (an old one is removed, never shown as
    this run's); the job summary says the gates were not decided."""
    (work / "ragstat-gates.md").write_text("an old run\n", encoding="utf-8")
    step_summary = work / "step-summary.md"
    env = {"RAGSTAT_GATES": "gates-typo.toml", "GITHUB_STEP_SUMMARY": str(step_summary)}
    done = _bash(SCRIPT, env, work)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "ragstat: error: gate 'accuracy at least 0.60': metric 'accuracy' is not a column "
        "(columns: query_id, doc_id, correct)"
    ]
    assert not (work / "ragstat-gates.md").exists() and not (work / "ragstat-gates.xml").exists()
    assert step_summary.read_text(encoding="utf-8").startswith(
        "### ragstat gate: not decided (exit code 2)"
    )
    done = _bash(SCRIPT, {}, work)
    assert done.returncode == 2
    assert done.stderr.strip() == "ragstat-gate.sh: set RAGSTAT_GATES to the gates file"


# ---------------------------------------------------------------------------- action.yml


def _expand(text: str, values: dict[str, str]) -> str:
    """GitHub's ``${{ … }}`` expressions of a step replaced by ``values`` (all must be known)."""

    def one(match: re.Match[str]) -> str:
        return values[match.group(1)]

    out = re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", one, text)
    assert "${{" not in out, out
    return out


def _run_step(
    step: dict, values: dict[str, str], work: Path, env: dict[str, str]
) -> subprocess.CompletedProcess:
    assert step["shell"] == "bash"
    step_env = {k: _expand(str(v), values) for k, v in step.get("env", {}).items()}
    script = work / "step.sh"
    script.write_text(_expand(step["run"], values), encoding="utf-8")
    return _bash(script, {**env, **step_env}, work)


@pytest.mark.slow  # runs the action's steps
def test_action_yml_is_a_composite_action_running_the_script(work: Path, tmp_path: Path) -> None:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert action["inputs"]["gates"]["required"] is True
    assert set(action["inputs"]) >= {"gates", "python-version", "ragstat-version", "extras"}
    steps = action["runs"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/setup-python@") for u in uses)
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"].startswith("always()")
    assert "${{ inputs.junit }}" in upload["with"]["path"]
    gate_step = next(s for s in steps if s.get("id") == "gate")
    assert gate_step["env"]["RECIPE"] == "${{ github.action_path }}/scripts/ci/ragstat-gate.sh"
    assert action["outputs"]["exit-code"]["value"] == "${{ steps.gate.outputs.exit-code }}"
    defaults = {f"inputs.{k}": str(v.get("default", "")) for k, v in action["inputs"].items()}
    return_steps = [s for s in steps if "run" in s]
    assert [s["name"] for s in return_steps] == [
        "Install ragstat", "ragstat gate", "Exit with the status of ragstat gate",
    ]  # fmt: skip
    install, gate, finish = return_steps
    # the install step builds pip's requirement from the inputs (python here records it)
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    (fake / "python").write_text('#!/bin/sh\necho "$@" > pip-args.txt\n', encoding="utf-8")
    (fake / "python").chmod(0o755)
    values = defaults | {"inputs.extras": "fast", "inputs.ragstat-version": "0.1.0"}
    done = _run_step(install, values, work, {"PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    assert (work / "pip-args.txt").read_text().split() == [
        "-m",
        "pip",
        "install",
        "ragstat[fast]==0.1.0",
    ]
    # the gate step and the last step: the job ends with ragstat gate's own status
    for gates, code in (("gates-pass.toml", 0), ("gates.toml", 1), ("gates-typo.toml", 2)):
        output, step_summary = work / f"output-{code}", work / f"summary-{code}.md"
        env = {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(step_summary)}
        values = defaults | {"inputs.gates": gates, "github.action_path": str(ROOT)}
        done = _run_step(gate, values, work, env)
        assert done.returncode == 0, done.stderr  # the upload step still runs
        assert output.read_text(encoding="utf-8") == f"exit-code={code}\n"
        assert step_summary.read_text(encoding="utf-8").startswith("### ragstat gate: ")
        if code < 2:
            assert (work / "ragstat-gates.md").read_text(encoding="utf-8") == gates_markdown(
                ragstat.gate(gates)
            )
        values["steps.gate.outputs.exit-code"] = str(code)
        assert _run_step(finish, values, work, {}).returncode == code
