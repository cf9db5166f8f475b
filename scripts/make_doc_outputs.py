"""Regenerate every piece of ragstat output shown in README.md and docs/*.md from real runs.

Markers (an HTML comment on the line before a fenced block; the block's body is replaced):

* ``<!-- ragstat-output: COMMAND [2>&1] [| STAGE]... -->`` — the block is what COMMAND prints.
  COMMAND is a ``ragstat …`` command line; it runs as ``python -m ragstat …`` in the working
  folder, with ``COLUMNS=100``, ``NO_COLOR=1``, ``TERM=dumb`` and ``RAGSTAT_REGISTRY=off``.
  ``2>&1`` shows stderr with stdout (interleaved, as a terminal would). No shell runs: the
  stages are applied here, in order:

  - ``head -N`` / ``tail -N``: the first / last N lines;
  - ``grep TEXT``: the lines that contain TEXT (a plain string; quote it when it has spaces);
  - ``json-keys PATH[,PATH…]``: parse the output as JSON and keep only the given dotted paths
    (``estimands.micro.intervals.0`` keeps the first interval of that list), printed with an
    indent of 2.

  ``<!-- ragstat-output exit=N: … -->`` expects exit status N (default 0); any other status is
  an error, so a failing command never lands in the docs as if it were the answer.
* ``<!-- ragstat-file: NAME -->`` — the block is ``tests/fixtures/docs/NAME`` (else
  ``tests/fixtures/tutorials/NAME``), byte for byte (an input file the examples use).
* ``<!-- ragstat-run -->`` before a ```` ```bash ```` block: its ``ragstat …`` lines (comments
  after ``  #`` dropped) are run once, in page order, while the working folder is prepared;
  they make the files later commands read (``ragstat study … --out my-study``). A status other
  than 0 is an error. A ``ragstat-output`` marker with the same command shows what that run
  printed instead of running it again.
* ``<!-- ragstat-python: SESSION -->`` before a ```` ```python ```` block: the blocks of one
  page and session run in order, in one namespace, in one ``python`` process started in the
  working folder. ``<!-- ragstat-python-output -->`` before a ```` ```text ```` block right
  after it (a blank line between is allowed): the block is what that python block printed.
  A python block that prints something must be followed by its output block, and an output
  block must not be empty.

The working folder holds ``ragstat-demo/`` (``ragstat demo --out ragstat-demo``, run once;
its own output is the output of that command), a copy of ``tests/fixtures/docs/`` and of
``tests/fixtures/tutorials/`` (subfolders kept), other tools' result files copied from
``tests/fixtures/adapters/`` into ``from-tools/`` (``ADAPTER_FILES``), and what the
``ragstat-run`` blocks wrote. The working folder's path is removed from outputs, trailing
spaces are stripped, and an empty output is an error.

Usage (from the repository root)::

    python scripts/make_doc_outputs.py            # rewrite the marked blocks in place
    python scripts/make_doc_outputs.py --check    # exit 1 and print a diff if any block differs
    python scripts/make_doc_outputs.py --work DIR # reuse (or build) the working folder DIR
    python scripts/make_doc_outputs.py docs/tutorials/gates.md  # only this page

Without ``--work`` the demo is built afresh in a temporary folder (about 30 s); with it, a
demo already in DIR is reused as it is, so drop ``--work`` after changing what the demo or
the study prints. The ``ragstat-run`` commands run again whenever they or the fixture files
change (a fingerprint of both is kept in the working folder).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "docs"
TUTORIAL_FIXTURES = ROOT / "tests" / "fixtures" / "tutorials"
ADAPTERS = ROOT / "tests" / "fixtures" / "adapters"
# Other tools' result files the tutorials read: working-folder name <- (adapter fixture
# folder, the glob patterns of its files to copy).
ADAPTER_FILES = {
    "from-tools/inspect-logs": ("inspect/eval", ("*.eval",)),
    "from-tools/promptfoo": ("promptfoo", ("results.json",)),
    "from-tools/lm-eval": ("lm_eval", ("*/*",)),
    "from-tools/inspect-metrics": ("../integrations/inspect", ("*.eval",)),
}
DEMO_COMMAND = "ragstat demo --out ragstat-demo"
DEMO_OUTPUT = ".demo-output.txt"  # the demo's terminal output, kept in the working folder
SETUP_OUTPUT = ".setup-output.json"  # the ragstat-run commands' outputs and their fingerprint
OUTPUT = re.compile(r"<!-- ragstat-output(?: exit=(\d+))?: (.+?) -->")
FILE = re.compile(r"<!-- ragstat-file: (\S+) -->")
RUN = "<!-- ragstat-run -->"
PYTHON = re.compile(r"<!-- ragstat-python: ([\w.-]+) -->")
PYTHON_OUTPUT = "<!-- ragstat-python-output -->"
LANGUAGES = {"console", "text", "json", "toml", ""}


def documents(root: Path = ROOT) -> list[Path]:
    """The pages whose marked blocks are generated: README.md and docs/**/*.md."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


@dataclass(frozen=True)
class Block:
    """One marked block: the page, the marker's line (0-based), the body's lines [start, end)."""

    page: Path
    line: int
    marker: str
    start: int
    end: int
    body: str


def _fence_after(
    lines: list[str], i: int, page: Path, languages: set[str] = LANGUAGES
) -> tuple[int, int]:
    """(first body line, closing fence line) of the fenced block right after line ``i``."""
    j = i + 1
    fence = lines[j] if j < len(lines) else ""
    if not fence.startswith("```") or fence[3:].strip() not in languages:
        kinds = ", ".join(sorted(lang or "plain" for lang in languages))
        raise SystemExit(
            f"{page.name}:{i + 1}: a marker must be followed by a fenced block ({kinds})"
        )
    end = lines.index("```", j + 1)
    return j + 1, end


def blocks(page: Path) -> list[Block]:
    """The marked blocks of ``page`` (``ragstat-output`` and ``ragstat-file``), in order."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found = []
    for i, line in enumerate(lines):
        if OUTPUT.fullmatch(line) or FILE.fullmatch(line):  # at column 0 (not quoted)
            start, end = _fence_after(lines, i, page)
            body = "\n".join(lines[start:end])
            found.append(Block(page, i, line, start, end, body))
    return found


def command_lines(body: str) -> list[str]:
    """The ``ragstat …`` lines of a bash block's body (comments after ``  #`` dropped)."""
    lines = (line.split("  #", 1)[0].strip() for line in body.split("\n"))
    return [line for line in lines if line.startswith("ragstat ")]


def run_blocks(page: Path) -> list[Block]:
    """The ``ragstat-run`` bash blocks of ``page``, in order."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found = []
    for i, line in enumerate(lines):
        if line == RUN:
            start, end = _fence_after(lines, i, page, {"bash"})
            body = "\n".join(lines[start:end])
            if not command_lines(body):
                raise SystemExit(f"{page.name}:{i + 1}: a ragstat-run block without a command")
            found.append(Block(page, i, line, start, end, body))
    return found


def setup_commands(pages: list[Path]) -> list[str]:
    """Every ``ragstat-run`` command line of ``pages``, in page order, each once."""
    found: dict[str, None] = {}
    for page in pages:
        for block in run_blocks(page):
            found.update(dict.fromkeys(command_lines(block.body)))
    return list(found)


@dataclass(frozen=True)
class PythonBlock:
    """A ``ragstat-python`` block: its session, code, and the output block after it (the
    body's lines [out_start, out_end) and text; all None when it has none)."""

    page: Path
    line: int
    session: str
    code: str
    out_start: int | None
    out_end: int | None
    shown: str | None


def _output_block(lines: list[str], end: int, page: Path) -> tuple[int, int] | None:
    """The ``ragstat-python-output`` block after a python block closing at line ``end``."""
    for k in (end + 1, end + 2):
        if k < len(lines) and lines[k] == PYTHON_OUTPUT:
            if k == end + 2 and lines[end + 1].strip():
                return None
            return _fence_after(lines, k, page, {"text"})
    return None


def python_blocks(page: Path) -> list[PythonBlock]:
    """The ``ragstat-python`` blocks of ``page``, in order, with their output blocks."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found = []
    for i, line in enumerate(lines):
        if m := PYTHON.fullmatch(line):
            start, end = _fence_after(lines, i, page, {"python"})
            code = "\n".join(lines[start:end]) + "\n"
            out = _output_block(lines, end, page)
            shown = None if out is None else "\n".join(lines[out[0] : out[1]])
            o_start, o_end = out if out else (None, None)
            found.append(PythonBlock(page, i, m.group(1), code, o_start, o_end, shown))
        elif line == PYTHON_OUTPUT and not any(b.out_start == i + 2 for b in found):
            raise SystemExit(f"{page.name}:{i + 1}: an output block without a python block")
    return found


# ------------------------------------------------------------------------- the pipeline


def _prune(value: Any, paths: list[list[str]]) -> Any:
    """``value`` with only the given paths kept (an empty path keeps everything below)."""
    if any(not p for p in paths):
        return value
    if isinstance(value, dict):
        items = [(k, [p[1:] for p in paths if p[0] == k]) for k in value]
        return {k: _prune(value[k], sub) for k, sub in items if sub}
    if isinstance(value, list):
        items = [(i, [p[1:] for p in paths if p[0] == str(i)]) for i in range(len(value))]
        return [_prune(value[i], sub) for i, sub in items if sub]
    raise ValueError(f"json-keys: {'.'.join(paths[0])} goes below a plain value")


def _json_keys(text: str, spec: str) -> str:
    paths = [p.split(".") for p in spec.split(",")]
    value = json.loads(text)
    for path in paths:  # every path must exist: a renamed key is a change to see
        node = value
        for key in path:
            if isinstance(node, list):
                key = int(key)  # type: ignore[assignment]
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError, ValueError):
                raise ValueError(f"json-keys: {'.'.join(path)} is not in the output") from None
    return json.dumps(_prune(value, paths), indent=2, ensure_ascii=False)


def apply_stage(text: str, stage: list[str]) -> str:
    """Apply one pipeline stage to ``text``."""
    name, args = stage[0], stage[1:]
    lines = text.split("\n")
    if name in ("head", "tail") and len(args) == 1 and re.fullmatch(r"-\d+", args[0]):
        n = int(args[0][1:])
        return "\n".join(lines[:n] if name == "head" else lines[-n:])
    if name == "grep" and len(args) == 1:
        return "\n".join(line for line in lines if args[0] in line)
    if name == "json-keys" and len(args) == 1:
        return _json_keys(text, args[0])
    raise ValueError(f"unknown stage: {shlex.join(stage)} (head -N, tail -N, grep TEXT, json-keys)")


@dataclass(frozen=True)
class Command:
    """A parsed marker: the argv, whether stderr is shown, the stages, the expected status."""

    argv: tuple[str, ...]
    stderr: bool
    stages: tuple[tuple[str, ...], ...]
    status: int


def parse(marker: str) -> Command:
    """The command of a ``ragstat-output`` marker."""
    m = OUTPUT.fullmatch(marker)
    if m is None:
        raise ValueError(f"not an output marker: {marker}")
    parts: list[list[str]] = [[]]
    for token in shlex.split(m.group(2)):
        if token == "|":
            parts.append([])
        else:
            parts[-1].append(token)
    argv, stages = parts[0], parts[1:]
    stderr = argv[-1:] == ["2>&1"]
    argv = argv[:-1] if stderr else argv
    if not argv or argv[0] != "ragstat" or any(not s for s in stages):
        raise ValueError(f"a marker runs one `ragstat …` command: {marker}")
    return Command(tuple(argv), stderr, tuple(map(tuple, stages)), int(m.group(1) or 0))


# ------------------------------------------------------------------------- running


def environment() -> dict[str, str]:
    """The environment every command runs in: a fixed width, no colour, no registry."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(COLUMNS="100", LINES="50", NO_COLOR="1", TERM="dumb", RAGSTAT_REGISTRY="off")
    env.update(MPLBACKEND="Agg", PYTHONIOENCODING="utf-8")
    return env


def _tidy(text: str, work: Path) -> str:
    """Output as the docs show it: the working folder's path removed, no trailing spaces."""
    for folder in {str(work.resolve()), str(work)}:
        text = text.replace(folder + os.sep, "").replace(folder, ".")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")


def run(argv: tuple[str, ...], work: Path, stderr: bool) -> tuple[int, str, str]:
    """(exit status, output, stderr when not in the output) of one ragstat command in
    ``work``."""
    res = subprocess.run(
        [sys.executable, "-m", "ragstat", *argv[1:]],
        cwd=work,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if stderr else subprocess.PIPE,
        text=True,
        encoding="utf-8",
        timeout=900,
    )
    return res.returncode, _tidy(res.stdout, work), res.stderr or ""


def _install(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` unless it is there already, byte for byte; atomically,
    so a command reading ``target`` meanwhile never sees half a file."""
    data = source.read_bytes()
    if target.is_file() and target.read_bytes() == data:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def fixture_files() -> dict[str, Path]:
    """Working-folder path (relative) -> fixture file, for every file the docs read."""
    files = {p.name: p for p in sorted(FIXTURES.glob("*")) if p.is_file()}
    for path in sorted(TUTORIAL_FIXTURES.rglob("*")):
        if path.is_file():
            files[path.relative_to(TUTORIAL_FIXTURES).as_posix()] = path
    for name, (source, patterns) in ADAPTER_FILES.items():
        for pattern in patterns:
            for path in sorted((ADAPTERS / source).glob(pattern)):
                files[f"{name}/{path.relative_to(ADAPTERS / source).as_posix()}"] = path
    return files


def _write_atomic(target: Path, text: str) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)


def _build_demo(work: Path) -> None:
    """``ragstat demo`` in ``work``, unless a finished one is there (a half-built one is
    removed first: the demo's output file is written only after the demo finished)."""
    done = work / "ragstat-demo" / "records.parquet"
    if done.is_file() and (work / DEMO_OUTPUT).is_file():
        return
    shutil.rmtree(work / "ragstat-demo", ignore_errors=True)
    status, out, err = run(tuple(shlex.split(DEMO_COMMAND)), work, stderr=False)
    if status != 0 or not done.is_file():
        raise SystemExit(f"`{DEMO_COMMAND}` failed ({status}):\n{out}\n{err}")
    _write_atomic(work / DEMO_OUTPUT, out + "\n")


def _run_setup(work: Path, files: dict[str, Path]) -> None:
    """Run the ``ragstat-run`` commands in ``work`` unless their outputs are there for the
    same commands and fixture files (the fingerprint); written only after all of them ran."""
    commands = setup_commands(documents())
    digest = hashlib.sha256(json.dumps(commands).encode())
    for name, path in sorted(files.items()):
        digest.update(name.encode() + b"\0" + path.read_bytes())
    stamp = work / SETUP_OUTPUT
    if stamp.is_file():
        if json.loads(stamp.read_text(encoding="utf-8"))["fingerprint"] == digest.hexdigest():
            return
        stamp.unlink()
    outputs = {}
    for line in commands:
        status, out, err = run(tuple(shlex.split(line)), work, stderr=False)
        if status != 0:
            raise SystemExit(f"`{line}` (a ragstat-run command) failed ({status}):\n{out}\n{err}")
        outputs[line] = out
    _write_atomic(stamp, json.dumps({"fingerprint": digest.hexdigest(), "outputs": outputs}))


def prepare(work: Path) -> Path:
    """Make ``work`` the working folder: the fixture files, the demo (built once) and the
    ``ragstat-run`` commands' files. Not safe to run twice at once on one folder (the tests
    hold a lock: tests/doc_outputs.py)."""
    work.mkdir(parents=True, exist_ok=True)
    files = fixture_files()
    for name, path in files.items():
        _install(path, work / name)
    _build_demo(work)
    _run_setup(work, files)
    return work


# One python process per page and session: blocks separated by a line stdout cannot mistake.
SEPARATOR = "\x00ragstat-docs-block-end\x00"
DRIVER = f"""
import json, sys
codes = json.load(sys.stdin)
scope = {{"__name__": "__main__"}}
for i, code in enumerate(codes):
    exec(compile(code, f"<python block {{i + 1}}>", "exec"), scope)
    sys.stdout.flush()
    print({SEPARATOR!r}, flush=True)
"""


def run_python(codes: list[str], work: Path) -> list[str]:
    """What each of ``codes`` printed, run in order in one namespace and process in ``work``."""
    res = subprocess.run(
        [sys.executable, "-c", DRIVER],
        input=json.dumps(codes),
        cwd=work,
        env=environment(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=900,
    )
    parts = res.stdout.split(SEPARATOR + "\n")
    if res.returncode != 0:
        raise RuntimeError(f"python block {len(parts)} failed:\n{res.stdout}\n{res.stderr}")
    return [_tidy(part, work) for part in parts[:-1]]


class Runner:
    """Runs markers' commands in a prepared working folder, each command line once."""

    def __init__(self, work: Path) -> None:
        self.work = prepare(work)
        self.cache: dict[tuple[tuple[str, ...], bool], tuple[int, str, str]] = {}
        stamp = json.loads((self.work / SETUP_OUTPUT).read_text(encoding="utf-8"))
        self.setup: dict[str, str] = stamp["outputs"]

    def output(self, command: Command) -> tuple[int, str, str]:
        key = (command.argv, command.stderr)
        line = shlex.join(command.argv)
        if key not in self.cache:
            if line == DEMO_COMMAND:
                text = (self.work / DEMO_OUTPUT).read_text(encoding="utf-8").rstrip("\n")
                self.cache[key] = (0, text, "")
            elif line in self.setup and not command.stderr:
                self.cache[key] = (0, self.setup[line], "")
            else:
                self.cache[key] = run(command.argv, self.work, command.stderr)
        return self.cache[key]

    def render(self, marker: str) -> str:
        """The body a marked block must have."""
        if m := FILE.fullmatch(marker):
            path = FIXTURES / m.group(1)
            path = path if path.is_file() else TUTORIAL_FIXTURES / m.group(1)
            return path.read_text(encoding="utf-8").rstrip("\n")
        command = parse(marker)
        status, text, err = self.output(command)
        if status != command.status:
            raise RuntimeError(f"{marker}: exit {status}, not {command.status}:\n{text}\n{err}")
        for stage in command.stages:
            text = apply_stage(text, list(stage))
        text = _tidy(text, self.work)
        if not text.strip():
            raise RuntimeError(f"{marker}: the output is empty")
        return text

    def python_outputs(self, page: Path) -> list[str]:
        """What each ``ragstat-python`` block of ``page`` prints (sessions run separately)."""
        found = python_blocks(page)
        outputs: dict[int, str] = {}
        for session in dict.fromkeys(b.session for b in found):
            mine = [i for i, b in enumerate(found) if b.session == session]
            try:
                fresh = run_python([found[i].code for i in mine], self.work)
            except RuntimeError as exc:
                raise RuntimeError(f"{page.name}, session {session}: {exc}") from None
            outputs.update(zip(mine, fresh, strict=True))
        return [outputs[i] for i in range(len(found))]


def _python_edits(page: Path, fresh: list[str]) -> list[tuple[int, int, list[str]]]:
    """(start, end, new body lines) of each python output block of ``page``."""
    edits = []
    for block, text in zip(python_blocks(page), fresh, strict=True):
        where = f"{page.name}:{block.line + 1}"
        if block.out_start is None or block.out_end is None:
            if text.strip():
                raise RuntimeError(f"{where}: the block prints, and no output block follows")
            continue
        if not text.strip():
            raise RuntimeError(f"{where}: the output block is empty (the block prints nothing)")
        edits.append((block.out_start, block.out_end, text.split("\n")))
    return edits


def regenerate(
    page: Path,
    render: Callable[[str], str],
    python_outputs: Callable[[Path], list[str]] | None = None,
) -> str:
    """The text of ``page`` with every marked block's body replaced by its fresh output (the
    python output blocks too when ``python_outputs`` is given)."""
    lines = page.read_text(encoding="utf-8").split("\n")
    edits = [(b.start, b.end, render(b.marker).split("\n")) for b in blocks(page)]
    if python_outputs is not None and python_blocks(page):
        edits += _python_edits(page, python_outputs(page))
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = new
    return "\n".join(lines)


def _diffs(pages: list[Path], runner: Runner) -> Iterator[tuple[Path, str, str]]:
    for page in pages:
        old = page.read_text(encoding="utf-8")
        new = regenerate(page, runner.render, runner.python_outputs)
        if new != old:
            yield page, old, new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="print a diff, change nothing")
    parser.add_argument(
        "--work", type=Path, help="working folder (kept; a demo already there is reused)"
    )
    parser.add_argument(
        "pages", nargs="*", type=Path, help="only these pages (default: README.md, docs/**/*.md)"
    )
    args = parser.parse_args(argv)
    pages = [p.resolve() for p in args.pages] or documents()
    with tempfile.TemporaryDirectory(prefix="ragstat-docs-") as tmp:
        runner = Runner(args.work or Path(tmp))
        changed = 0
        for page, old, new in _diffs(pages, runner):
            changed += 1
            name = str(page.relative_to(ROOT))
            if args.check:
                diff = difflib.unified_diff(
                    old.splitlines(True), new.splitlines(True), name, name + " (fresh)"
                )
                sys.stdout.writelines(diff)
            else:
                page.write_text(new, encoding="utf-8")
                print(f"updated {name}")
    if args.check and changed:
        print(f"{changed} page(s) differ from fresh runs: python scripts/make_doc_outputs.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
