"""A folder of single-file results (DeepEval, ragas, RAGChecker, promptfoo): one table.

Every regular file in the folder that the format's reader recognises is read (a ragas
Parquet file too, since Parquet is never sniffed) and the tables are stacked; each file
keeps its own systems (a ragas or RAGChecker file is named by its stem, a DeepEval run
by its identifier). Other files are left out and named in a note; a system found in two
files is an error naming both.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from ragstat.adapters.base import SYSTEM, ReadOptions, SourceTable
from ragstat.errors import InputError

__all__ = ["chosen", "named_file", "read_folder"]

#: Files a reader takes in a folder although its ``sniff`` does not recognise them.
_UNSNIFFED = {"ragas": (".parquet", ".pq")}


def _wanted(path: Path, module: ModuleType) -> bool:
    short = module.__name__.rsplit(".", 1)[-1]
    return path.suffix.lower() in _UNSNIFFED.get(short, ()) or bool(module.sniff(path))


def read_folder(path: Path, module: ModuleType, options: ReadOptions) -> SourceTable:
    """Every file of ``path`` that ``module`` reads, as one table (one system per run)."""
    import pandas as pd

    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    taken = [p for p in files if _wanted(p, module)]
    if not taken:
        raise InputError(f"{path}: the folder holds no {module.TOOL} result file")
    tables = [module.read(p, options) for p in taken]
    owner: dict[str, Path] = {}
    for file, table in zip(taken, tables, strict=True):
        for system in sorted(set(table.frame[SYSTEM].astype(str))):
            if system in owner:
                raise InputError(
                    f"{path}: system {system!r} is in two files ({owner[system].name}, "
                    f"{file.name}); keep one or move it to another folder"
                )
            owner[system] = file
    scores = tuple(dict.fromkeys(s for t in tables for s in t.scores))
    notes = [f"{f.name}: {note}" for f, t in zip(taken, tables, strict=True) for note in t.notes]
    skipped = [p.name for p in files if p not in taken]
    if skipped:
        notes.append(f"not {module.TOOL} results, left out: {', '.join(skipped)}")
    versions = sorted({t.version for t in tables if t.version})
    return SourceTable(
        frame=pd.concat([t.frame for t in tables], ignore_index=True),
        scores=scores,
        tool=tables[0].tool,
        version=", ".join(versions) or None,
        source=str(path),
        aggregates={k: v for t in tables for k, v in t.aggregates.items()},
        notes=tuple(notes),
    )


def named_file(folder: Path, name: str, option: str) -> Path:
    """The file ``name`` (``--qrels``/``--run``): relative to ``folder``, else as given."""
    for candidate in (folder / name, Path(name)):
        if candidate.is_file():
            return candidate
    raise InputError(f"{option} {name}: no such file in {folder}")


def chosen(
    folder: Path, options: ReadOptions, found: list[Path], qrels: Path | None = None
) -> tuple[list[Path], list[str]]:
    """The run files ``--run`` names (the others of ``found`` named in a note), or ``found``."""
    if not options.runs:
        return found, []
    runs = [named_file(folder, name, "--run") for name in options.runs]
    if qrels is not None and any(r.resolve() == qrels.resolve() for r in runs):
        raise InputError(f"--run {qrels.name}: that is the qrels file")
    rest = [p.name for p in found if p.resolve() not in {r.resolve() for r in runs}]
    return runs, ([f"not named by --run, left out: {', '.join(rest)}"] if rest else [])
