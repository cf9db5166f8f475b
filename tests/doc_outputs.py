"""One working folder per test run for the docs' examples: ``ragstat-demo/`` (built once by
``ragstat demo``), the docs' and tutorials' fixture files and what the tutorials'
``ragstat-run`` commands write, prepared by ``scripts/make_doc_outputs.py``. Used by
test_doc_outputs.py, test_tutorials.py, test_readme.py and conftest's ``demo_workdir``.

Under pytest-xdist every worker has its own session fixtures, so the folder is built once
for all workers: in the run's shared temporary folder, under an ``fcntl.flock`` on a lock
file next to it. ``prepare`` marks each part complete only after it finished, so a folder a
crashed worker left half built is rebuilt, not reused.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "make_doc_outputs.py"
_PREPARED: dict[Path, Path] = {}  # this process's prepared folders


def generator() -> ModuleType:
    """``scripts/make_doc_outputs.py`` as a module (loaded once)."""
    if "make_doc_outputs" not in sys.modules:
        spec = importlib.util.spec_from_file_location("make_doc_outputs", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["make_doc_outputs"] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules["make_doc_outputs"]


def location(tmp_path_factory) -> Path:
    """Where the working folder lives: the session's temporary folder, or under xdist the
    folder above the workers' own, which all workers of one run share."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    return base / "docs-work"


def workdir(tmp_path_factory) -> Path:
    """The working folder (built by the first caller of any worker, reused by the others)."""
    where = location(tmp_path_factory)
    if where not in _PREPARED:
        lock = where.with_name(where.name + ".lock")
        with lock.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
            _PREPARED[where] = generator().prepare(where)
    return _PREPARED[where]
