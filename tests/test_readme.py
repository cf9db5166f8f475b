"""The README is what a newcomer needs on one screen, and the examples it and the user guide
show run as written on the demo's records: the Python page (docs/guide/python.md) top to
bottom as a script, and every `ragstat …` line of README.md and docs/guide/*.md that reads
`ragstat-demo/`."""

from __future__ import annotations

import html.parser
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from doc_outputs import workdir

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "guide"
PYTHON = GUIDE / "python.md"
PAGES = [README, *sorted(GUIDE.glob("*.md"))]


def _blocks(page: Path, language: str) -> list[str]:
    """Fenced ``language`` blocks of ``page``."""
    return re.findall(rf"```{language}\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """A folder holding ``ragstat-demo/`` as ``ragstat demo`` writes it (one per session,
    shared with tests/test_doc_outputs.py)."""
    where = workdir(tmp_path_factory)
    assert (where / "ragstat-demo" / "records.parquet").is_file()
    return where


def _demo_commands() -> list[str]:
    """Every command line of the README and the guide that reads the demo's folder
    (comments dropped)."""
    lines = []
    for page in PAGES:
        for block in _blocks(page, "bash"):
            for line in block.splitlines():
                command = line.split("  #", 1)[0].strip()
                if command.startswith("ragstat ") and "ragstat-demo/" in command:
                    lines.append(command)
    return lines


def test_the_docs_have_demo_commands_and_a_python_page():
    assert len(_demo_commands()) >= 8
    assert len(_blocks(PYTHON, "python")) == 1


def test_the_readme_fits_on_a_screen_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 80
    (setup,) = _blocks(README, "bash")[:1]
    commands = [line.split("#", 1)[0].strip() for line in setup.splitlines()]
    assert commands == ['pip install -e ".[dev]" && ragstat demo', "python -m pytest"]
    assert "<!-- ragstat-output: ragstat demo --out ragstat-demo" in text  # what it prints
    development = text[text.index("## Development") :]
    assert "python -m pytest -m slow" in development  # both tiers, with their times
    assert "mkdocs serve" in text


def test_ci_installs_and_tests_exactly_as_the_readme_says():
    """.ci/run proves the README: a fresh venv, exactly ``pip install -e ".[dev]"``, then
    the README's fast tier (0 errors with nothing else installed), the site, then the slow
    tier (only the torch-based extra is added before it)."""
    lines = [
        line.split("#", 1)[0].strip()
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    ]
    steps = [line for line in lines if line]
    install = steps.index('python -m pip install --quiet -e ".[dev]"')
    fast = steps.index("python -m pytest")
    site = next(i for i, s in enumerate(steps) if "mkdocs build --strict" in s)
    dense = steps.index('python -m pip install --quiet -e ".[dense]"')
    slow = steps.index("python -m pytest -m slow")
    assert install < fast < dense < slow and fast < site
    assert not any("pip install" in s for s in steps[install + 1 : fast])  # nothing added
    assert "python3 -m venv .venv-ci" in steps[:install]


def test_every_benchmark_the_docs_name_exists():
    named = set()
    for page in [README, ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        named |= set(re.findall(r"\b(bench_\w+|hostile_sweep)\.py", page.read_text("utf-8")))
    assert "bench_aggregate" in named
    missing = sorted(n for n in named if not (ROOT / "benchmarks" / f"{n}.py").is_file())
    assert not missing, missing


@pytest.mark.parametrize("command", _demo_commands())
def test_demo_commands_run_as_written(demo, command):
    argv = shlex.split(command)
    res = subprocess.run(
        [sys.executable, "-m", "ragstat", *argv[1:]],
        cwd=demo,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    if "--json" in argv:
        json.loads(res.stdout)  # exactly one JSON object
    else:
        assert res.stdout.strip()


def test_python_page_runs_top_to_bottom(demo, monkeypatch, capsys):
    (code,) = _blocks(PYTHON, "python")
    monkeypatch.chdir(demo)
    scope: dict = {}
    exec(compile(code, str(PYTHON), "exec"), scope)
    out = capsys.readouterr().out
    report, frame = scope["report"], scope["frame"]
    assert len(frame) == len(report.rows()) >= 2  # one row per estimand × method
    assert {"estimand", "method", "estimate", "lower", "upper", "recommended"} <= set(frame.columns)
    assert set(frame["estimand"]) == {"micro", "macro"}
    assert frame["recommended"].sum() == 2  # one recommended interval per estimand
    assert len(repr(report)) < 2_000 and "np.float64" not in repr(report)
    assert "bm25" in out and "documents" in out
    parser = html.parser.HTMLParser()
    parser.feed(report._repr_html_())  # well-formed enough to parse
    parser.close()
    page = report._repr_html_()
    assert "<table>" in page and page.index("For a random query") < page.index("<table>")
    comparison = scope["comparison"]
    compared = comparison.to_frame()
    assert {"a", "b", "permutation_p"} <= set(compared.columns)
    assert set(compared["a"]) == {"bm25"} and set(compared["b"]) == {"tfidf"}
