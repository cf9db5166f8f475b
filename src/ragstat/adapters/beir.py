"""Reader of a BEIR dataset folder with result runs (``--from beir``).

BEIR keeps a dataset as a folder: ``corpus.jsonl``, ``queries.jsonl`` and
``qrels/<split>.tsv`` (tab-separated, header ``query-id corpus-id score``, written by
``beir.util.write_to_tsv``). BEIR saves retrieval results only as TREC run files
(``beir.util.save_runfile``: ``qid Q0 doc 0 score run_name``) and its aggregates as
JSON (``beir.util.save_results``: ``{"ndcg": {"NDCG@10": …}, "map": …, "recall": …,
"precision": …}``, rounded by BEIR to 5 decimals).

``read(path)`` accepts

* the dataset folder: qrels ``qrels/test.tsv`` (or the folder's only ``qrels/*.tsv``),
  runs: every ``*.trec`` / ``*.run`` / ``*.txt`` file directly in the folder;
* a ``qrels/<split>.tsv`` file: that split's qrels, the runs of the dataset folder
  above it;
* one run file: that run, the qrels ``qrels/test.tsv`` of the run's folder.

A run is named by its file's stem (``save_runfile``'s default tag is ``beir`` for
every run). ``<stem>.json`` beside a run, when it is ``save_results`` output, gives
the run's aggregates (``NDCG@10`` → ``<run>/ndcg@10``, ``Recall@k`` → ``recall@k``,
``MAP@k`` → ``map@k``, ``P@k`` → ``p@k``, ``MRR@k`` → ``mrr@k``).
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragstat.adapters.base import ReadOptions, RunSource
from ragstat.adapters.values import json_file
from ragstat.errors import InputError
from ragstat.records.textio import iter_lines, open_regular

__all__ = ["TOOL", "read", "read_qrels_tsv", "read_trec_run", "sniff"]

TOOL = "beir"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ("qrels", "runs")

QRELS_HEADER = ("query-id", "corpus-id", "score")
RUN_SUFFIXES = (".trec", ".run", ".txt")
_AGGREGATES = {"NDCG": "ndcg", "MAP": "map", "Recall": "recall", "P": "p", "MRR": "mrr"}
_KEY = re.compile(r"^([A-Za-z]+)@(\d+)$")


def _first_line(path: Path) -> str:
    with open_regular(path) as f:
        return f.read(4096).decode("utf-8", errors="replace").split("\n", 1)[0]


def is_qrels_tsv(path: Path) -> bool:
    """True when ``path`` is a TSV whose header is BEIR's ``query-id corpus-id score``."""
    try:
        if not path.is_file() or path.suffix != ".tsv":
            return False
        return tuple(_first_line(path).rstrip("\r\n").split("\t")) == QRELS_HEADER
    except (OSError, UnicodeError):
        return False


def _looks_like_run(path: Path) -> bool:
    try:
        fields = _first_line(path).split()
    except (OSError, UnicodeError):
        return False
    return len(fields) == 6 and fields[1] == "Q0"


def _run_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in RUN_SUFFIXES)


def sniff(path: Path) -> bool:
    """A BEIR dataset folder with TREC runs, its ``qrels/*.tsv``, or one of its runs."""
    try:
        if path.is_dir():
            qrels = path / "qrels"
            tsvs = sorted(qrels.glob("*.tsv")) if qrels.is_dir() else []
            return any(is_qrels_tsv(p) for p in tsvs) and any(
                _looks_like_run(p) for p in _run_files(path)
            )
        if path.suffix == ".tsv":
            runs = _run_files(path.parent.parent) if path.parent.name == "qrels" else []
            return is_qrels_tsv(path) and any(_looks_like_run(p) for p in runs)
        return (
            path.suffix in RUN_SUFFIXES
            and _looks_like_run(path)
            and is_qrels_tsv(path.parent / "qrels" / "test.tsv")
        )
    except OSError:
        return False


def _grade(text: str, where: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: score {text!r} is not a number") from None
    if not value.is_integer():
        raise InputError(f"{where}: score {text!r} is not an integer relevance grade")
    return int(value)


def _tsv_rows(path: Path, what: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of each line of a TSV, one line at a time: a NUL byte or a
    field the csv module refuses (longer than its field limit, a stray quote) is one
    `InputError` naming the file and line, never the csv module's own error."""
    for line, text in iter_lines(path, what):
        if "\x00" in text:
            raise InputError(f"{path}:{line}: the {what} holds a NUL byte (not a text file?)")
        try:
            row = next(csv.reader([text], delimiter="\t", quoting=csv.QUOTE_MINIMAL), [])
        except csv.Error as exc:
            raise InputError(f"{path}:{line}: not a TSV line the {what} can hold: {exc}") from None
        yield line, row


def read_qrels_tsv(path: Path) -> dict[str, dict[str, int]]:
    """BEIR's qrels TSV (header ``query-id corpus-id score``) as ``{qid: {doc: grade}}``."""
    if not is_qrels_tsv(path):
        raise InputError(
            f"{path}: not a BEIR qrels file (a .tsv whose header is query-id, corpus-id, score)"
        )
    qrels: dict[str, dict[str, int]] = {}
    for line, row in _tsv_rows(path, "BEIR qrels file"):
        if line == 1 or not row:
            continue
        if len(row) != 3 or not row[0] or not row[1]:
            raise InputError(f"{path}:{line}: expected query-id, corpus-id, score")
        docs = qrels.setdefault(row[0], {})
        if row[1] in docs:
            raise InputError(f"{path}:{line}: {row[1]!r} is judged twice for {row[0]!r}")
        docs[row[1]] = _grade(row[2], f"{path}:{line}")
    if not qrels:
        raise InputError(f"{path}: the qrels file has no judgment")
    return qrels


def _score(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: score {text!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"{where}: score {text!r} is not finite")
    return value


def read_trec_run(path: Path) -> tuple[dict[str, dict[str, float]], set[str]]:
    """A TREC run (``qid Q0 doc rank score tag``) as ``{qid: {doc: score}}`` and its tags."""
    run: dict[str, dict[str, float]] = {}
    tags: set[str] = set()
    for line, text in iter_lines(path, "TREC run file"):
        fields = text.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise InputError(f"{path}:{line}: expected a TREC run line (qid Q0 doc rank score tag)")
        docs = run.setdefault(fields[0], {})
        if fields[2] in docs:
            raise InputError(f"{path}:{line}: {fields[2]!r} is ranked twice for {fields[0]!r}")
        docs[fields[2]] = _score(fields[4], f"{path}:{line}")
        tags.add(fields[5])
    if not run:
        raise InputError(f"{path}: the run is empty")
    return run, tags


def _qrels_in(folder: Path, where: Path) -> Path:
    test = folder / "qrels" / "test.tsv"
    if test.is_file():
        return test
    found = sorted((folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(p.name for p in found)
        raise InputError(
            f"{where}: qrels/ holds {names}; give the split's file (qrels/<split>.tsv)"
        )
    raise InputError(f"{where}: no BEIR qrels beside the runs (expected {test})")


def _layout(path: Path, options: ReadOptions) -> tuple[Path, list[Path], list[str]]:
    """The qrels file, the run files that ``path`` names, and notes on files left out."""
    from ragstat.adapters.folders import chosen, named_file

    folder = path if path.is_dir() else path.parent
    if path.suffix == ".tsv" and path.parent.name == "qrels":
        folder = path.parent.parent
    if options.qrels is not None:
        qrels = named_file(folder, options.qrels, "--qrels")
    elif path.is_dir() or folder != path.parent:
        qrels = path if not path.is_dir() else _qrels_in(path, path)
    else:
        qrels = _qrels_in(path.parent, path)
    notes: list[str] = []
    if path.is_dir() or folder != path.parent or options.runs:
        found = [p for p in _run_files(folder) if p.resolve() != qrels.resolve()]
        runs, notes = chosen(folder, options, found, qrels)
        if not options.runs:
            other = [p for p in runs if p.suffix == ".txt" and not _looks_like_run(p)]
            runs = [p for p in runs if p not in other]
            if other:
                names = ", ".join(p.name for p in other)
                notes.append(
                    f"text files that are not TREC runs, left out: {names} (name runs with --run)"
                )
    else:
        runs = [path]
    if not runs:
        suffixes = ", ".join(RUN_SUFFIXES)
        raise InputError(f"{path}: no BEIR run file ({suffixes}, from beir.util.save_runfile)")
    return qrels, runs, notes


def _aggregates(path: Path, run: str) -> dict[str, float]:
    """``save_results`` output beside a run, as ``<run>/<metric>``; empty when absent."""
    if not path.is_file():
        return {}
    data: Any = json_file(path, "not BEIR save_results JSON")
    if not isinstance(data, dict) or not isinstance(data.get("ndcg"), dict):
        return {}
    out = {}
    for group in data.values():
        for key, value in group.items() if isinstance(group, dict) else ():
            match = _KEY.match(str(key))
            name = _AGGREGATES.get(match.group(1)) if match else None
            if name and isinstance(value, int | float) and not isinstance(value, bool):
                out[f"{run}/{name}@{match.group(2)}"] = float(value)  # type: ignore[union-attr]
    return out


def read(path: Path, options: ReadOptions | None = None) -> RunSource:
    """Qrels and runs of a BEIR dataset folder (see the module docstring)."""
    path = Path(path)
    qrels_path, run_paths, left_out = _layout(path, options or ReadOptions())
    qrels = read_qrels_tsv(qrels_path)
    runs: dict[str, dict[str, dict[str, float]]] = {}
    aggregates: dict[str, float] = {}
    for run_path in run_paths:
        if run_path.stem in runs:
            raise InputError(f"{run_path}: a second run named {run_path.stem!r}; rename one")
        runs[run_path.stem], _ = read_trec_run(run_path)
        aggregates.update(_aggregates(run_path.with_suffix(".json"), run_path.stem))
    notes = [f"qrels: {qrels_path}", "runs named by their file stems", *left_out]
    if aggregates:
        notes.append("aggregates from beir.util.save_results JSON (BEIR rounds to 5 decimals)")
    return RunSource(qrels, runs, TOOL, None, str(path), aggregates, tuple(notes))
