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
* ``<!-- ragstat-file: NAME -->`` — the block is ``tests/fixtures/docs/NAME``, byte for byte
  (an input file the examples use).

The working folder holds ``ragstat-demo/`` (``ragstat demo --out ragstat-demo``, run once;
its own output is the output of that command) and a copy of ``tests/fixtures/docs/``. The
working folder's path is removed from outputs, trailing spaces are stripped, and an empty
output is an error.

Usage (from the repository root)::

    python scripts/make_doc_outputs.py            # rewrite the marked blocks in place
    python scripts/make_doc_outputs.py --check    # exit 1 and print a diff if any block differs
    python scripts/make_doc_outputs.py --work DIR # reuse (or build) the working folder DIR

Without ``--work`` the demo is built afresh in a temporary folder (about 30 s); with it, a
demo already in DIR is reused as it is, so drop ``--work`` after changing what the demo or
the study prints.
"""

from __future__ import annotations

import argparse
import difflib
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
DEMO_COMMAND = "ragstat demo --out ragstat-demo"
DEMO_OUTPUT = ".demo-output.txt"  # the demo's terminal output, kept in the working folder
OUTPUT = re.compile(r"<!-- ragstat-output(?: exit=(\d+))?: (.+?) -->")
FILE = re.compile(r"<!-- ragstat-file: (\S+) -->")
LANGUAGES = {"console", "text", "json", "toml", ""}


def documents(root: Path = ROOT) -> list[Path]:
    """The pages whose marked blocks are generated: README.md and docs/*.md."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Block:
    """One marked block: the page, the marker's line (0-based), the body's lines [start, end)."""

    page: Path
    line: int
    marker: str
    start: int
    end: int
    body: str


def _fence_after(lines: list[str], i: int, page: Path) -> tuple[int, int]:
    """(first body line, closing fence line) of the fenced block right after line ``i``."""
    j = i + 1
    fence = lines[j] if j < len(lines) else ""
    if not fence.startswith("```") or fence[3:].strip() not in LANGUAGES:
        raise SystemExit(f"{page.name}:{i + 1}: a marker must be followed by a fenced block")
    end = lines.index("```", j + 1)
    return j + 1, end


def blocks(page: Path) -> list[Block]:
    """The marked blocks of ``page``, in order."""
    lines = page.read_text(encoding="utf-8").split("\n")
    found = []
    for i, line in enumerate(lines):
        if OUTPUT.fullmatch(line) or FILE.fullmatch(line):  # at column 0 (not quoted)
            start, end = _fence_after(lines, i, page)
            body = "\n".join(lines[start:end])
            found.append(Block(page, i, line, start, end, body))
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


def prepare(work: Path) -> Path:
    """Make ``work`` the working folder: the demo (built once) and the docs' fixture files."""
    work.mkdir(parents=True, exist_ok=True)
    for path in sorted(FIXTURES.glob("*")):
        if path.is_file():
            shutil.copyfile(path, work / path.name)
    done = work / "ragstat-demo" / "records.parquet"
    if not (done.is_file() and (work / DEMO_OUTPUT).is_file()):
        status, out, err = run(tuple(shlex.split(DEMO_COMMAND)), work, stderr=False)
        if status != 0 or not done.is_file():
            raise SystemExit(f"`{DEMO_COMMAND}` failed ({status}):\n{out}\n{err}")
        (work / DEMO_OUTPUT).write_text(out + "\n", encoding="utf-8")
    return work


class Runner:
    """Runs markers' commands in a prepared working folder, each command line once."""

    def __init__(self, work: Path) -> None:
        self.work = prepare(work)
        self.cache: dict[tuple[tuple[str, ...], bool], tuple[int, str, str]] = {}

    def output(self, command: Command) -> tuple[int, str, str]:
        key = (command.argv, command.stderr)
        if key not in self.cache:
            if shlex.join(command.argv) == DEMO_COMMAND:
                text = (self.work / DEMO_OUTPUT).read_text(encoding="utf-8").rstrip("\n")
                self.cache[key] = (0, text, "")
            else:
                self.cache[key] = run(command.argv, self.work, command.stderr)
        return self.cache[key]

    def render(self, marker: str) -> str:
        """The body a marked block must have."""
        if m := FILE.fullmatch(marker):
            return (FIXTURES / m.group(1)).read_text(encoding="utf-8").rstrip("\n")
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


def regenerate(page: Path, render: Callable[[str], str]) -> str:
    """The text of ``page`` with every marked block's body replaced by its fresh output."""
    lines = page.read_text(encoding="utf-8").split("\n")
    for block in reversed(blocks(page)):
        lines[block.start : block.end] = render(block.marker).split("\n")
    return "\n".join(lines)


def _diffs(pages: list[Path], runner: Runner) -> Iterator[tuple[Path, str, str]]:
    for page in pages:
        old = page.read_text(encoding="utf-8")
        new = regenerate(page, runner.render)
        if new != old:
            yield page, old, new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="print a diff, change nothing")
    parser.add_argument(
        "--work", type=Path, help="working folder (kept; a demo already there is reused)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ragstat-docs-") as tmp:
        runner = Runner(args.work or Path(tmp))
        changed = 0
        for page, old, new in _diffs(documents(), runner):
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
