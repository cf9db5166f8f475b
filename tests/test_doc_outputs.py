"""The output the docs show is the product's output.

Every block of README.md and docs/**/*.md marked ``<!-- ragstat-output: … -->`` equals a fresh
run of its command on the demo's records (``scripts/make_doc_outputs.py`` regenerates them:
``python scripts/make_doc_outputs.py``), every ``<!-- ragstat-file: … -->`` block equals its
file, and no unmarked block shows ragstat output, so none can be added by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from doc_outputs import generator, workdir

GEN = generator()
PAGES = GEN.documents()
BLOCKS = [b for page in PAGES for b in GEN.blocks(page)]
FENCE = re.compile(r"^```(.*)$")
# Text only ragstat's output contains: verdict sentences, rich tables, messages, gate lines.
TELLTALES = ("For a random query", "For a typical document", "ragstat: ", "┏", "┃",
             "blocking gate", " · hit", "documents, N = ")  # fmt: skip


def _name(block) -> str:
    return f"{block.page.relative_to(GEN.ROOT)}:{block.line + 1}"


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    return GEN.Runner(workdir(tmp_path_factory))


def test_the_docs_have_marked_blocks_of_each_kind():
    markers = [b.marker for b in BLOCKS]
    assert len(markers) >= 7
    assert any("ragstat-file:" in m for m in markers)
    assert any("exit=" in m and "2>&1" in m for m in markers)
    assert any("json-keys" in m for m in markers)
    readme = [b.marker for b in BLOCKS if b.page.name == "README.md"]
    assert any("ragstat demo" in m for m in readme)  # the README is one screen: the demo
    for verb in ("ragstat interval", "ragstat compare", "ragstat gate"):
        assert any(verb in m for m in markers), verb  # the rest lives in docs/


@pytest.mark.parametrize("block", BLOCKS, ids=[_name(b) for b in BLOCKS])
def test_marked_block_equals_a_fresh_run(runner, block):
    fresh = runner.render(block.marker)
    assert block.body == fresh, (
        f"{_name(block)} differs from a fresh run: python scripts/make_doc_outputs.py\n"
        f"--- shown\n{block.body}\n--- fresh\n{fresh}"
    )


def _unmarked_blocks(page: Path):
    """(line, info, body) of every fenced block of ``page`` without an output marker."""
    lines = page.read_text(encoding="utf-8").split("\n")
    marked = {b.start - 1 for b in GEN.blocks(page)}
    # a python block's output block: checked by tests/test_tutorials.py
    marked |= {b.out_start - 1 for b in GEN.python_blocks(page) if b.out_start is not None}
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        end = lines.index("```", i + 1)
        if i not in marked:
            previous = lines[i - 1].strip() if i else ""
            yield i + 1, m.group(1).strip(), previous, lines[i + 1 : end]
        i = end + 1


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(GEN.ROOT)) for p in PAGES])
def test_no_unmarked_block_shows_ragstat_output(page):
    for line, info, previous, body in _unmarked_blocks(page):
        where = f"{page.name}:{line}"
        if info != "python":
            text = "\n".join(body)
            assert not any(t in text for t in TELLTALES), f"{where}: output without a marker"
        if info in ("", "console", "json", "output"):  # `text`: listings, never output
            if previous.startswith("<!-- file: "):  # an input file (tests/test_formats.py)
                continue
            commands = all(not s.strip() or s.startswith("$ ragstat ") for s in body)
            assert commands, f"{where}: a {info or 'plain'} block that is not a command"


# ---------------------------------------------------------------- the generator itself


def test_markers_parse_into_a_command_and_stages():
    cmd = GEN.parse(
        '<!-- ragstat-output exit=2: ragstat gate g.toml 2>&1 | grep "a b" | head -3 -->'
    )
    assert cmd.argv == ("ragstat", "gate", "g.toml")
    assert cmd.stderr and cmd.status == 2
    assert cmd.stages == (("grep", "a b"), ("head", "-3"))
    with pytest.raises(ValueError):
        GEN.parse("<!-- ragstat-output: python -c 1 -->")


def test_stages_select_lines_and_json_keys():
    text = "one\ntwo words\nthree words"
    assert GEN.apply_stage(text, ["head", "-1"]) == "one"
    assert GEN.apply_stage(text, ["tail", "-2"]) == "two words\nthree words"
    assert GEN.apply_stage(text, ["grep", "words"]) == "two words\nthree words"
    doc = json.dumps({"a": 1, "b": {"c": [10, 20], "d": 3}, "e": 4})
    kept = json.loads(GEN.apply_stage(doc, ["json-keys", "b.c.1,a"]))
    assert kept == {"a": 1, "b": {"c": [20]}}
    with pytest.raises(ValueError, match=r"b\.x is not in the output"):
        GEN.apply_stage(doc, ["json-keys", "b.x"])
    with pytest.raises(ValueError, match="unknown stage"):
        GEN.apply_stage(text, ["sed", "s/a/b/"])


def test_a_command_with_another_exit_status_is_refused(runner):
    typo = next(b.marker for b in BLOCKS if "exit=2" in b.marker)
    with pytest.raises(RuntimeError, match="exit 2, not 0"):
        runner.render(typo.replace(" exit=2:", ":"))


def test_regenerating_restores_an_edited_block(runner, tmp_path):
    page = tmp_path / "page.md"
    marker = next(b.marker for b in BLOCKS if "ragstat compare" in b.marker)
    page.write_text(f"Intro\n\n{marker}\n```console\nan invented verdict\n```\nEnd\n", "utf-8")
    new = GEN.regenerate(page, runner.render)
    assert "an invented verdict" not in new
    assert new == f"Intro\n\n{marker}\n```console\n{runner.render(marker)}\n```\nEnd\n"


def test_pages_are_read_recursively(tmp_path):
    (tmp_path / "docs" / "guide").mkdir(parents=True)
    for name in ("README.md", "docs/a.md", "docs/guide/b.md"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    found = [p.relative_to(tmp_path).as_posix() for p in GEN.documents(tmp_path)]
    assert found == ["README.md", "docs/a.md", "docs/guide/b.md"]


def test_run_and_python_markers_parse(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- ragstat-run -->\n```bash\nragstat study c --out s  # writes s/\nls s\n```\n"
        "<!-- ragstat-python: one -->\n```python\nprint(1)\n```\n\n"
        "<!-- ragstat-python-output -->\n```text\n1\n```\n"
        "<!-- ragstat-python: one -->\n```python\nx = 2\n```\n",
        encoding="utf-8",
    )
    (run,) = GEN.run_blocks(page)
    assert GEN.command_lines(run.body) == ["ragstat study c --out s"]
    assert GEN.setup_commands([page, page]) == ["ragstat study c --out s"]
    first, second = GEN.python_blocks(page)
    assert (first.session, first.code, first.shown) == ("one", "print(1)\n", "1")
    assert second.out_start is None and second.shown is None
    text = page.read_text(encoding="utf-8")
    fresh = GEN.regenerate(page, lambda marker: "", lambda p: ["1 changed", ""])
    assert fresh == text.replace("```text\n1\n```", "```text\n1 changed\n```")
    with pytest.raises(RuntimeError, match="no output block follows"):
        GEN.regenerate(page, lambda marker: "", lambda p: ["1", "2"])
    with pytest.raises(RuntimeError, match="the output block is empty"):
        GEN.regenerate(page, lambda marker: "", lambda p: ["", ""])


def test_python_blocks_share_one_namespace_and_fail_loudly(tmp_path):
    outputs = GEN.run_python(["x = 20\nprint('a')\n", "print(x + 1)\n", "pass\n"], tmp_path)
    assert outputs == ["a", "21", ""]
    with pytest.raises(RuntimeError, match="python block 2 failed"):
        GEN.run_python(["y = 1\n", "print(undefined_name)\n"], tmp_path)


# ---------------------------------------------------------------- the shared working folder


def test_the_working_folder_is_shared_by_xdist_workers(tmp_path, monkeypatch):
    import doc_outputs

    class Factory:
        def getbasetemp(self):
            return tmp_path / "popen-gw1"

    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    assert doc_outputs.location(Factory()) == tmp_path / "popen-gw1" / "docs-work"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert doc_outputs.location(Factory()) == tmp_path / "docs-work"


def test_a_half_built_demo_is_rebuilt(tmp_path, monkeypatch):
    (tmp_path / "ragstat-demo").mkdir()
    (tmp_path / "ragstat-demo" / "records.parquet").write_text("half written", "utf-8")
    seen = []

    def fake_run(argv, work, stderr):
        seen.append(
            sorted(p.name for p in (work / "ragstat-demo").glob("*"))
            if (work / "ragstat-demo").exists()
            else None
        )
        (work / "ragstat-demo").mkdir()
        (work / "ragstat-demo" / "records.parquet").write_text("complete", "utf-8")
        return 0, "the demo's answer", ""

    monkeypatch.setattr(GEN, "run", fake_run)
    GEN._build_demo(tmp_path)  # no demo output file: the crashed build is not reused
    assert seen == [None]  # the half-built folder was removed before the new build
    assert (tmp_path / GEN.DEMO_OUTPUT).read_text("utf-8") == "the demo's answer\n"
    GEN._build_demo(tmp_path)  # complete now: reused
    assert len(seen) == 1


def test_run_blocks_run_once_again_after_a_change_and_never_half(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    command = "ragstat plan --queries 100 --rate 0.5 --queries-per-doc 2 --icc 0.1"
    page.write_text(f"<!-- ragstat-run -->\n```bash\n{command}\n```\n", "utf-8")
    monkeypatch.setattr(GEN, "documents", lambda root=GEN.ROOT: [page])
    GEN._run_setup(tmp_path, {})
    outputs = json.loads((tmp_path / GEN.SETUP_OUTPUT).read_text("utf-8"))["outputs"]
    assert outputs[command].startswith("100 queries from 50 documents give")
    calls = []

    def fake_run(argv, work, stderr):
        calls.append(argv)
        return (0, "ok", "") if argv[1] == "plan" else (2, "", "ragstat: error: no")

    monkeypatch.setattr(GEN, "run", fake_run)
    GEN._run_setup(tmp_path, {})  # same commands and files: nothing runs
    assert calls == []
    page.write_text(page.read_text("utf-8").replace("--icc 0.1", "--icc 0.2"), "utf-8")
    GEN._run_setup(tmp_path, {})
    assert len(calls) == 1
    page.write_text(page.read_text("utf-8") + "<!-- ragstat-run -->\n```bash\nragstat bad\n```\n")
    with pytest.raises(SystemExit, match="ragstat bad"):
        GEN._run_setup(tmp_path, {})
    assert not (tmp_path / GEN.SETUP_OUTPUT).exists()  # a failed setup is not marked done
