"""The README's examples run as written on the demo's records: its Python section top
to bottom as a script, and every `ragstat …` line that reads `ragstat-demo/`."""

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

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(language: str, heading: str) -> list[str]:
    """Fenced ``language`` blocks of the README section that starts with ``heading``."""
    text = README.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    section = text[start : end if end > 0 else None]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.S)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """A folder holding ``ragstat-demo/`` as ``ragstat demo`` writes it (one per session,
    shared with tests/test_doc_outputs.py)."""
    where = workdir(tmp_path_factory)
    assert (where / "ragstat-demo" / "records.parquet").is_file()
    return where


def _demo_commands() -> list[str]:
    """Every README command line that reads the demo's folder (comments dropped)."""
    text = README.read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            command = line.split("  #", 1)[0].strip()
            if command.startswith("ragstat ") and "ragstat-demo/" in command:
                lines.append(command)
    return lines


def test_the_readme_has_demo_commands_and_a_python_section():
    assert len(_demo_commands()) >= 8
    assert len(_blocks("python", "## From Python")) == 1


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


def test_python_section_runs_top_to_bottom(demo, monkeypatch, capsys):
    (code,) = _blocks("python", "## From Python")
    monkeypatch.chdir(demo)
    scope: dict = {}
    exec(compile(code, str(README), "exec"), scope)
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
