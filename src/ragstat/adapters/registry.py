"""Which reader reads which file: ``--from FORMAT`` or detection from the file.

Each format's module defines ``TOOL`` (the writer's name as users know it),
``sniff(path) -> bool`` (True when the file is unmistakably of this format; never
raises), ``read(path, options) -> SourceTable | RunSource`` (raises
:class:`~ragstat.errors.InputError` with one line naming the file and what is wrong) and
``OPTIONS``, the :class:`~ragstat.adapters.base.ReadOptions` it takes. A folder given to
a reader of single files (DeepEval, ragas, RAGChecker, promptfoo) is read file by file
(:mod:`ragstat.adapters.folders`). Modules are imported only when used.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from ragstat.adapters.base import ReadOptions, RunSource, SourceTable
from ragstat.errors import InputError
from ragstat.records.textio import regular_file

__all__ = ["FORMATS", "detect", "read_source", "resolve_format"]

#: ``--from`` name → module.
FORMATS: dict[str, str] = {
    "inspect": "ragstat.adapters.inspect_ai",
    "lm-eval": "ragstat.adapters.lm_eval",
    "helm": "ragstat.adapters.helm",
    "ragas": "ragstat.adapters.ragas",
    "deepeval": "ragstat.adapters.deepeval",
    "promptfoo": "ragstat.adapters.promptfoo",
    "ragchecker": "ragstat.adapters.ragchecker",
    "ranx": "ragstat.adapters.ranx",
    "beir": "ragstat.adapters.beir",
    "mteb": "ragstat.adapters.mteb",
}


def _module(name: str) -> ModuleType:
    if name not in FORMATS:
        known = ", ".join(sorted(FORMATS))
        raise InputError(f"--from {name}: unknown format; known formats: {known}")
    return importlib.import_module(FORMATS[name])


def detect(path: Path) -> str | None:
    """The one format whose reader recognises ``path``, or None (zero or several)."""
    found = []
    for name in FORMATS:
        try:
            module = _module(name)
        except ImportError:  # a reader not written yet
            continue
        if module.sniff(path):
            found.append(name)
    return found[0] if len(found) == 1 else None


def resolve_format(path: Path, fmt: str | None) -> str:
    """``fmt``, or the format detected from the file (an error when none or several match)."""
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if not path.is_dir():
        regular_file(path, "input")  # a FIFO or device is refused before anything opens it
    found = fmt if fmt is not None else detect(path)
    if found is None:
        raise InputError(
            f"{path}: cannot tell which tool wrote this file; name it with --from "
            f"({', '.join(sorted(FORMATS))})"
        )
    return found


def read_source(
    path: str | Path, fmt: str | None = None, options: ReadOptions | None = None
) -> SourceTable | RunSource:
    """Read ``path`` as ``fmt`` (detected from the file when None) with ``options``."""
    path = Path(path)
    options = options or ReadOptions()
    fmt = resolve_format(path, fmt)
    module = _module(fmt)
    taken = set(getattr(module, "OPTIONS", ()))
    for name, option in options.given().items():
        if name not in taken:
            takers = sorted(f for f in FORMATS if name in getattr(_module(f), "OPTIONS", ()))
            raise InputError(f"{option} applies to {', '.join(takers)} files, not to {fmt}")
    if path.is_dir() and getattr(module, "FOLDERS", True) is False:
        from ragstat.adapters.folders import read_folder

        result: SourceTable | RunSource = read_folder(path, module, options)
    else:
        result = module.read(path, options)
    if not isinstance(result, (SourceTable, RunSource)):  # a reader's contract
        raise TypeError(f"reader {fmt} returned {type(result).__name__}")
    return result
