"""The tutorials (docs/tutorials/*.md) run as written and show the product's output.

Every command a tutorial shows is executed: either its output is a ``ragstat-output``
block (checked by tests/test_doc_outputs.py) or it sits in a ``ragstat-run`` block, run
while the working folder is prepared (``scripts/make_doc_outputs.py``). Every python
block runs, in page order, one namespace per session, and prints exactly the ``text``
block shown after it. ``python scripts/make_doc_outputs.py`` regenerates what they show.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from doc_outputs import generator, workdir

GEN = generator()
TUTORIALS = GEN.ROOT / "docs" / "tutorials"
NAMES = ("self-retrieval", "compare", "gates", "ppi", "other-tools", "planning")
PAGES = [TUTORIALS / f"{name}.md" for name in NAMES]
FENCE = re.compile(r"^```(\S*)")
INLINE = re.compile(r"`(ragstat [^`]+)`")
PREFIXES = ("$ ", "- run: ", "run: ")  # a shell prompt, a CI step


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    return GEN.Runner(workdir(tmp_path_factory))


def test_the_six_tutorials_and_nothing_else():
    assert sorted(p.stem for p in TUTORIALS.glob("*.md")) == sorted(NAMES)
    assert all(p in GEN.documents() for p in PAGES)  # regenerated with the other pages


def _joined(lines: list[str]) -> list[str]:
    """Lines with shell continuations (a trailing backslash) joined."""
    out: list[str] = []
    carry = ""
    for line in lines:
        text = line.lstrip() if carry else line
        if text.rstrip().endswith("\\"):
            carry += text.rstrip()[:-1].rstrip() + " "
        else:
            out.append(carry + text)
            carry = ""
    return out


def shown_commands(page: Path) -> list[tuple[int, str]]:
    """(line, command) of every ``ragstat …`` command the page shows: in fenced blocks
    other than python code and output, and in inline code with an argument."""
    lines = page.read_text(encoding="utf-8").split("\n")
    outputs = {b.start - 1 for b in GEN.blocks(page)}
    outputs |= {b.out_start - 1 for b in GEN.python_blocks(page) if b.out_start is not None}
    found = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            found += [(i + 1, c) for c in INLINE.findall(lines[i]) if len(c.split()) > 2]
            i += 1
            continue
        end = lines.index("```", i + 1)
        if m.group(1) != "python" and i not in outputs:
            for line in _joined(lines[i + 1 : end]):
                text = line.strip()
                for prefix in PREFIXES:
                    text = text.removeprefix(prefix)
                text = text.split("  #", 1)[0].strip()
                if text.startswith("ragstat "):
                    found.append((i + 1, text))
        i = end + 1
    return found


def executed_commands(page: Path) -> set[tuple[str, ...]]:
    """The argv of every command of ``page`` that the tests run (the demo always runs: it
    makes the working folder)."""
    found = {GEN.parse(b.marker).argv for b in GEN.blocks(page) if GEN.OUTPUT.fullmatch(b.marker)}
    found.add(tuple(shlex.split(GEN.DEMO_COMMAND)))
    for block in GEN.run_blocks(page):
        found |= {tuple(shlex.split(line)) for line in GEN.command_lines(block.body)}
    return found


@pytest.mark.parametrize("page", PAGES, ids=NAMES)
def test_every_shown_command_is_executed(page):
    executed = executed_commands(page)
    for line, command in shown_commands(page):
        argv = tuple(shlex.split(command))
        assert argv in executed, f"{page.name}:{line}: `{command}` is shown but never run"


def test_an_unexecuted_command_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Run `ragstat gate gates.toml` or `ragstat compare`.\n\n"
        "<!-- ragstat-run -->\n```bash\nragstat study c.jsonl --out s  # writes s/\n```\n"
        "```yaml\n      - run: ragstat gate g.toml \\\n          --junit g.xml\n```\n"
        "<!-- ragstat-output: ragstat plan --rate 0.5 | head -1 -->\n```console\nragstat x y\n```\n",
        encoding="utf-8",
    )
    shown = [c for _, c in shown_commands(page)]
    assert shown == [
        "ragstat gate gates.toml",
        "ragstat study c.jsonl --out s",
        "ragstat gate g.toml --junit g.xml",
    ]
    executed = executed_commands(page)
    assert ("ragstat", "study", "c.jsonl", "--out", "s") in executed
    assert ("ragstat", "plan", "--rate", "0.5") in executed
    assert ("ragstat", "gate", "gates.toml") not in executed


@pytest.mark.parametrize("page", PAGES, ids=NAMES)
def test_every_tutorial_executes_commands_and_python(page):
    assert executed_commands(page), f"{page.name}: no executed command"
    assert GEN.python_blocks(page), f"{page.name}: no python block"
    assert any(b.shown for b in GEN.python_blocks(page)), f"{page.name}: no python output"


def test_the_run_blocks_ran(runner):
    lines = [
        line for page in PAGES for b in GEN.run_blocks(page) for line in GEN.command_lines(b.body)
    ]
    assert lines and set(lines) <= set(runner.setup)
    assert all(runner.setup[line].strip() for line in lines)  # each printed its answer


@pytest.mark.parametrize("page", PAGES, ids=NAMES)
def test_python_blocks_print_what_the_page_shows(runner, page):
    found = GEN.python_blocks(page)
    fresh = runner.python_outputs(page)  # raises when a block fails
    assert len(fresh) == len(found)
    for block, text in zip(found, fresh, strict=True):
        where = f"{page.name}:{block.line + 1}"
        if block.shown is None:
            assert not text.strip(), f"{where} prints, and the page shows no output block"
        else:
            assert block.shown == text, (
                f"{where} differs from a fresh run: python scripts/make_doc_outputs.py\n"
                f"--- shown\n{block.shown}\n--- fresh\n{text}"
            )
