"""The formats reference (docs/formats/*.md, one page per verb or small group) tells the
truth: its example files are the fixtures, byte for byte, and every example runs through the
command line and through its Python twin with the same JSON.

Conventions of the pages (parsed here):

* ``<!-- file: DIR/NAME -->`` before a fenced block: the block is the file
  ``tests/fixtures/formats/DIR/NAME`` (its content plus one final newline);
* ``<!-- example: DIR -->`` before a ``console`` block and a ``python`` block: the ``$ ragstat …``
  lines run in a copy of ``tests/fixtures/formats/DIR``, in order; the last one prints JSON
  (``--json``). The python block (imports, then one expression) runs in the same folder and
  its result's ``to_dict()`` must read back as that JSON. Nothing is removed from either side:
  both carry the same seed.

The output schema is held to the pages too: every top-level key of an example's JSON must be
named in backticks in the prose of the example's own page, of its verb's page (``--from``
examples live on other-tools.md) or of the pages that describe shapes shared by many verbs
(index.md, interval-object.md, item-scores.md); every file of an ``--out`` folder and every key
of its manifest on those pages or on output-folders.md; every column of the study's tables on
study.md.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ragstat.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "formats"
PAGES = sorted(DOCS.glob("*.md"))
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "formats"
VERBS = {"interval", "compare", "plan", "simulate", "study", "evaluate", "generation",
         "ontology", "ingestion", "latency", "gate", "filter-rule", "agreement",
         "ppi", "judge-bias", "split", "coverage", "extraction", "routing", "nuggets",
         "chunking", "rewriting"}  # fmt: skip
# Pages that describe what many verbs share: their names count for every example.
SHARED = ("index.md", "interval-object.md", "item-scores.md")
FILE = re.compile(r"<!-- file: (\S+) -->")
EXAMPLE = re.compile(r"<!-- example: ([\w-]+) -->")


@dataclass(frozen=True)
class Example:
    """One example of a page: its page, where it runs, its commands and its Python twin."""

    name: str
    page: str
    folder: str
    commands: tuple[tuple[str, ...], ...]
    python: str

    @property
    def verb(self) -> str:
        return self.commands[-1][1]


def _fence(where: str, lines: list[str], start: int) -> tuple[str, list[str], int]:
    """The fenced block that starts at the first non-blank line from ``start``: its info
    string, its lines and the index after its closing fence."""
    i = start
    while not lines[i].strip():
        i += 1
    assert lines[i].startswith("```"), f"{where}:{i + 1}: a fenced block must follow"
    info = lines[i][3:].strip()
    end = lines.index("```", i + 1)
    return info, lines[i + 1 : end], end + 1


def _parse() -> tuple[dict[str, str], list[Example]]:
    """(fixture path → the block's text, the examples) in page order."""
    files: dict[str, str] = {}
    examples: list[Example] = []
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            where = f"formats/{page.name}:{i + 1}"
            if m := FILE.fullmatch(line.strip()):
                assert m.group(1) not in files, f"{where}: {m.group(1)} is shown twice"
                _, body, _ = _fence(where, lines, i + 1)
                files[m.group(1)] = "\n".join(body) + "\n"
            elif m := EXAMPLE.fullmatch(line.strip()):
                info, console, after = _fence(where, lines, i + 1)
                lang, python, _ = _fence(where, lines, after)
                assert (info, lang) == ("console", "python"), where
                commands = tuple(tuple(shlex.split(c[2:])) for c in console if c.startswith("$ "))
                assert commands and all(c[0] == "ragstat" for c in commands), where
                name = f"{page.stem}:{commands[-1][1]}:{i + 1}"
                examples.append(Example(name, page.name, m.group(1), commands, "\n".join(python)))
    return files, examples


FILES, EXAMPLES = _parse()


def _backticked(page: str) -> set[str]:
    """Every name a page's prose shows in backticks (``a``, and each word of ``{a, b}``)."""
    text = (DOCS / page).read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```$", "", text, flags=re.M | re.S)
    names = set()
    for code in re.findall(r"`([^`\n]+)`", prose):
        names.add(code)
        names.update(re.findall(r"[\w@<>.-]+", code))
    return names


NAMED = {page.name: _backticked(page.name) for page in PAGES}


def _documented(*pages: str) -> set[str]:
    """The names shown on ``pages`` and on the shared pages."""
    return set().union(*(NAMED[p] for p in (*pages, *SHARED) if p in NAMED))


def _loads(text: str) -> Any:
    """JSON as read back, with NaN/Infinity kept as their names (NaN != NaN in Python)."""
    return json.loads(text, parse_constant=str)


def _twin(source: str) -> Any:
    """Run the example's Python block: the statements, then its last expression's value."""
    tree = ast.parse(source)
    last = tree.body.pop()
    assert isinstance(last, ast.Expr), "an example's Python block ends with one expression"
    namespace: dict[str, Any] = {}
    exec(compile(tree, str(DOCS), "exec"), namespace)
    return eval(compile(ast.Expression(last.value), str(DOCS), "eval"), namespace)


def _undocumented(names: object, documented: set[str]) -> list[str]:
    """Names not in ``documented`` (``meta_x`` counts as ``meta_<field>``)."""
    return sorted(n for n in map(str, names) if n not in documented and not n.startswith("meta_"))


def test_the_reference_is_split_by_verb():
    assert not (ROOT / "docs" / "formats.md").exists()
    assert {f"{verb}.md" for verb in VERBS} | {"index.md", *SHARED} <= {p.name for p in PAGES}
    for verb in VERBS:  # each verb's page is titled by its verb and shows its examples
        assert (DOCS / f"{verb}.md").read_text(encoding="utf-8").startswith(f"# `{verb}`\n")
        pages = {e.page for e in EXAMPLES if e.verb == verb}
        assert f"{verb}.md" in pages, verb


# ------------------------------------------------------------------------ (a) the files


def test_every_example_file_is_its_fixture_byte_for_byte():
    for rel, text in FILES.items():
        path = FIXTURES / rel
        assert path.is_file(), f"docs/formats shows {rel}, which is not a fixture"
        assert path.read_bytes() == text.encode("utf-8"), f"{rel} differs from docs/formats"


def test_every_fixture_is_shown():
    fixtures = {p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.is_file()}
    assert fixtures == set(FILES)


def test_every_verb_has_an_example_run_in_its_fixture_folder():
    assert {e.commands[-1][1] for e in EXAMPLES} >= VERBS
    assert {e.folder for e in EXAMPLES} == {rel.split("/")[0] for rel in FILES}


# ------------------------------------------------------- (b) command line = Python twin


def _outs(commands: tuple[tuple[str, ...], ...]) -> list[tuple[str, str, bool]]:
    """(folder, verb, whether the command printed the JSON) of each ``--out`` folder."""
    return [
        (argv[argv.index("--out") + 1], argv[1], i == len(commands) - 1)
        for i, argv in enumerate(commands)
        if "--out" in argv
    ]


def _check_folder(folder: Path, verb: str, printed: Any | None, page: str) -> None:
    """The output folder holds the documented files; its JSON is what ``--json`` printed."""
    documented = _documented(page, f"{verb}.md", "output-folders.md")
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert "manifest.json" in files and not _undocumented(files, documented), files
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "ok" and not _undocumented(manifest, documented)
    main_file = "summary.json" if verb == "study" else "result.json"
    if printed is not None:
        assert _loads((folder / main_file).read_text(encoding="utf-8")) == printed
    if verb == "study":
        for table in ("records", "candidates", "documents"):
            columns = pd.read_parquet(folder / f"{table}.parquet").columns
            assert not _undocumented(columns, NAMED["study.md"]), table
    else:
        assert {"result.json", "report.json", "report.md", "report.html"} <= set(files)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example_runs_the_same_on_the_command_line_and_in_python(
    example, tmp_path, monkeypatch, capsys
):
    work = tmp_path / example.folder
    shutil.copytree(FIXTURES / example.folder, work)
    monkeypatch.chdir(work)
    for argv in example.commands:
        code = main(list(argv[1:]))
        out = capsys.readouterr()
        assert code == 0, out.err
    cli = _loads(out.out)
    twin = _loads(json.dumps(_twin(example.python).to_dict(), ensure_ascii=False))
    assert cli == twin
    shown = cli["studies"][0] if "studies" in cli else cli
    missing = _undocumented(shown, _documented(example.page, f"{example.verb}.md"))
    assert not missing, f"top-level keys not named on {example.page}: {missing}"
    for folder, verb, printed in _outs(example.commands):
        _check_folder(work / folder, verb, cli if printed else None, example.page)
