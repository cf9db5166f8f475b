"""The package's shape: no upward imports (DESIGN.md's layer table), small modules and
functions, no private names imported across modules. See docs/architecture.md."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "ragstat"

#: Leaf utilities every layer may use (they import nothing above errors).
BASE = {"errors", "atomic", "resources", "signals", "tidy", "arrays", "outfolder", "__init__"}
#: Layer → the layers it may import (besides itself and BASE). ``*`` = any lower layer.
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "engine": set(),
    "records": {"engine"},
    "inference": {"records"},
    "corpus": set(),
    "retrieval": {"corpus"},
    "selfretrieval": {"corpus", "retrieval", "records", "engine"},
    "metrics": {"records"},
    "simulation": {"inference", "records", "engine"},
    "report": {"inference", "simulation", "records", "metrics", "decisions"},
    "registry": {"records"},
    "adapters": {"records"},
    "decisions": {"records", "inference", "metrics"},
    "testsets": {"records", "inference"},
    "api": {
        "records",
        "inference",
        "corpus",
        "retrieval",
        "selfretrieval",
        "metrics",
        "simulation",
        "engine",
        "report",
        "registry",
        "adapters",
        "decisions",
        "testsets",
    },
}
#: Above the library: they may import any layer, and nothing imports them (but each other).
TOP = {"cli", "ui", "integrations", "_entry", "__main__"}


def _layer(path: Path, root: Path) -> str:
    parts = path.relative_to(root).parts
    return parts[0].removesuffix(".py")


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return out


def layer_violations(root: Path) -> list[str]:
    """``file:line imports X`` for every import that breaks the layer table."""
    found = []
    for path in sorted(root.rglob("*.py")):
        here = _layer(path, root)
        for line, module in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            parts = module.split(".")
            if parts[0] != "ragstat":
                continue
            there = parts[1] if len(parts) > 1 else "__init__"
            if there == here or there in BASE:
                continue
            if here in TOP or here == "__init__":
                continue
            if there in TOP or there not in ALLOWED.get(here, set()):
                found.append(f"{path.relative_to(root)}:{line} imports {module}")
    return found


def test_no_upward_imports():
    assert layer_violations(SRC) == []


def test_a_planted_upward_import_is_caught(tmp_path):
    root = tmp_path / "ragstat"
    shutil.copytree(SRC, root, ignore=shutil.ignore_patterns("__pycache__", "data", "templates"))
    planted = root / "inference" / "planted.py"
    planted.write_text("from ragstat.corpus import chunking\n", encoding="utf-8")
    (root / "records" / "planted.py").write_text("import ragstat.cli\n", encoding="utf-8")
    assert [v for v in layer_violations(root) if "planted" in v] == [
        "inference/planted.py:1 imports ragstat.corpus",
        "records/planted.py:1 imports ragstat.cli",
    ]


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


@pytest.mark.parametrize("limit_module, limit_function", [(400, 60)])
def test_modules_and_functions_stay_small(limit_module, limit_function):
    long_modules, long_functions = [], []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(SRC)
        if text.count("\n") > limit_module:
            long_modules.append(f"{rel} ({text.count(chr(10))} lines)")
        for fn in _functions(ast.parse(text)):
            size = (fn.end_lineno or fn.lineno) - fn.lineno + 1
            if size > limit_function:
                long_functions.append(f"{rel}:{fn.lineno} {fn.name} ({size} lines)")
    assert long_modules == [] and long_functions == []


def test_no_private_names_imported_across_modules():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ragstat"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                if private and node.module != "ragstat":
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} {node.module} {private}")
    assert found == []
