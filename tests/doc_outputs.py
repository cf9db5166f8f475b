"""One working folder per test session for the docs' examples: ``ragstat-demo/`` (built
once by ``ragstat demo``) and the files of ``tests/fixtures/docs/``, prepared by
``scripts/make_doc_outputs.py``. Used by test_doc_outputs.py and test_readme.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "make_doc_outputs.py"


def generator() -> ModuleType:
    """``scripts/make_doc_outputs.py`` as a module (loaded once)."""
    if "make_doc_outputs" not in sys.modules:
        spec = importlib.util.spec_from_file_location("make_doc_outputs", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["make_doc_outputs"] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules["make_doc_outputs"]


def workdir(tmp_path_factory) -> Path:
    """The session's working folder (built by the first caller, reused by the others)."""
    return generator().prepare(tmp_path_factory.getbasetemp() / "docs-work")
