"""Reader of ranx's saved qrels and runs (``--from ranx``; ranx ≥ 0.3).

ranx saves ``Qrels`` and ``Run`` with ``.save(path)``; the kind follows the extension:
``.json`` (``{qid: {doc: value}}``, no run name), ``.trec`` / ``.txt`` (TREC lines; a
run's name is its tag column), ``.parquet`` / ``.parq`` (columns ``q_id``, ``doc_id``,
``score``) and ``.lz4`` (CBOR compressed with LZ4: not read, it needs the ``lz4`` and
``cbor2`` packages — save JSON instead). ``ranx.compare(...).save("report.json")``
writes each run's scores.

``read(path)`` accepts

* a folder holding the qrels, saved as ``qrels.json`` (or ``qrels.trec``,
  ``qrels.txt``, ``qrels.parquet``, first found in that order), and one file per run
  (every other ``.json`` / ``.trec`` / ``.txt`` / ``.parquet`` / ``.parq`` file);
* one run file: that run and the ``qrels.*`` beside it;
* the ``qrels.*`` file: as its folder.

A run read from JSON or Parquet is named by its file's stem, from TREC by its tag.
A JSON file in the folder that is a ranx ``Report`` (keys ``metrics``,
``model_names``) is not a run: its scores become the aggregates
(``<run>/<metric>``, ranx's metric names; ``precision@k`` → ``p@k``,
``hit_rate@k`` → ``hit@k``, ``r-precision`` → ``rprec``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from ragstat.adapters.base import ReadOptions, RunSource
from ragstat.adapters.beir import read_trec_run
from ragstat.adapters.values import json_file
from ragstat.errors import InputError
from ragstat.records.textio import iter_lines, open_regular

__all__ = ["TOOL", "read", "sniff"]

TOOL = "ranx"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ("qrels", "runs")

QRELS_NAMES = ("qrels.json", "qrels.trec", "qrels.txt", "qrels.parquet", "qrels.parq")
RUN_SUFFIXES = (".json", ".trec", ".txt", ".parquet", ".parq", ".lz4")
_ID = r'"(?:[^"\\]|\\.)*"'
#: The head of a ranx JSON file: ``{"q": {"d": <number>`` (qrels: an integer grade).
_RUN_HEAD = re.compile(r"\s*\{\s*" + _ID + r"\s*:\s*\{\s*" + _ID + r"\s*:\s*-?\d")
_QRELS_HEAD = re.compile(r"\s*\{\s*" + _ID + r"\s*:\s*\{\s*" + _ID + r"\s*:\s*-?\d+\s*[,}]")
_METRIC_NAMES = {"precision": "p", "hit_rate": "hit", "r-precision": "rprec"}


def _head(path: Path, pattern: re.Pattern[str]) -> bool:
    try:
        with open_regular(path) as f:
            return pattern.match(f.read(4096).decode("utf-8", errors="replace")) is not None
    except (OSError, InputError):
        return False


def sniff(path: Path) -> bool:
    """A folder with ranx's ``qrels.json`` and a JSON run, or a JSON run beside one."""
    try:
        if path.is_dir():
            folder = path
        elif path.is_file() and path.suffix == ".json":
            folder = path.parent
            if path.name != "qrels.json" and not _head(path, _RUN_HEAD):
                return False
        else:
            return False
        if not _head(folder / "qrels.json", _QRELS_HEAD):
            return False
        runs = [p for p in folder.glob("*.json") if p.name != "qrels.json"]
        return any(_head(p, _RUN_HEAD) for p in runs)
    except OSError:
        return False


def _load_json(path: Path) -> Any:
    return json_file(path, "not a ranx JSON file")


def _is_report(data: Any) -> bool:
    return isinstance(data, dict) and "model_names" in data and "metrics" in data


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: {value!r} is not a number")
    if not math.isfinite(value):
        raise InputError(f"{where}: {value!r} is not finite")
    return float(value)


def _nested(data: Any, path: Path, what: str) -> dict[str, dict[str, float]]:
    """``{qid: {doc: number}}`` checked, as floats."""
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise InputError(f"{path}: not a ranx {what} (expected {{query_id: {{doc_id: value}}}})")
    out = {}
    for qid, docs in data.items():
        out[str(qid)] = {str(d): _number(v, f"{path}: {qid!r} {d!r}") for d, v in docs.items()}
    if not any(out.values()):
        raise InputError(f"{path}: the {what} is empty")
    return out


def _grades(table: dict[str, dict[str, float]], path: Path) -> dict[str, dict[str, int]]:
    for qid, docs in table.items():
        for doc, value in docs.items():
            if not value.is_integer():
                raise InputError(f"{path}: {qid!r} {doc!r}: relevance {value!r} is not an integer")
    return {q: {d: int(v) for d, v in docs.items()} for q, docs in table.items()}


def _parquet(path: Path, value: str) -> dict[str, dict[str, float]]:
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError, ImportError) as err:
        raise InputError(f"{path}: cannot read this Parquet file ({err})") from None
    missing = {"q_id", "doc_id", "score"} - set(frame.columns)
    if missing:
        raise InputError(f"{path}: not a ranx Parquet file (no column {sorted(missing)[0]})")
    out: dict[str, dict[str, float]] = {}
    for qid, doc, score in zip(frame["q_id"], frame["doc_id"], frame["score"], strict=True):
        out.setdefault(str(qid), {})[str(doc)] = _number(score, f"{path}: {qid!r} {doc!r}")
    if not out:
        raise InputError(f"{path}: the {value} is empty")
    return out


def _trec_qrels(path: Path) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line, text in iter_lines(path, "TREC qrels file"):
        fields = text.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise InputError(f"{path}:{line}: expected a TREC qrels line (qid 0 doc rel)")
        out.setdefault(fields[0], {})[fields[2]] = _number(
            _float(fields[3], f"{path}:{line}"), f"{path}:{line}"
        )
    if not out:
        raise InputError(f"{path}: the qrels file is empty")
    return out


def _float(text: str, where: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{where}: {text!r} is not a number") from None


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    if path.suffix == ".json":
        table = _nested(_load_json(path), path, "qrels")
    elif path.suffix in (".parquet", ".parq"):
        table = _parquet(path, "qrels")
    else:
        table = _trec_qrels(path)
    return _grades(table, path)


def _read_run(path: Path, data: Any) -> tuple[str, dict[str, dict[str, float]]]:
    """(name, run) of one run file; ``data`` is the parsed JSON of a ``.json`` file."""
    if path.suffix == ".lz4":
        raise InputError(
            f"{path}: ranx .lz4 files need the lz4 and cbor2 packages; save the run as JSON "
            "(run.save('name.json'))"
        )
    if path.suffix == ".json":
        return path.stem, _nested(data, path, "run")
    if path.suffix in (".parquet", ".parq"):
        return path.stem, _parquet(path, "run")
    run, tags = read_trec_run(path)
    return (tags.pop() if len(tags) == 1 else path.stem), run


def _layout(path: Path, options: ReadOptions) -> tuple[Path, list[Path], list[str]]:
    """The qrels file, the candidate run files that ``path`` names, and notes."""
    from ragstat.adapters.folders import chosen, named_file

    folder = path if path.is_dir() else path.parent
    if options.qrels is not None:
        qrels: Path | None = named_file(folder, options.qrels, "--qrels")
    else:
        qrels = next((folder / n for n in QRELS_NAMES if (folder / n).is_file()), None)
    if qrels is None:
        raise InputError(
            f"{path}: no ranx qrels beside the runs (expected qrels.json, saved by Qrels.save; "
            "or name it with --qrels)"
        )
    if path.is_dir() or path.stem == "qrels" or options.runs:
        found = sorted(
            p for p in folder.iterdir()
            if p.is_file() and p.suffix in RUN_SUFFIXES and p.stem != "qrels"
            and p.resolve() != qrels.resolve()
        )  # fmt: skip
        runs, notes = chosen(folder, options, found, qrels)
    else:
        runs, notes = [path], []
    return qrels, runs, notes


def _report_scores(data: dict[str, Any], path: Path) -> dict[str, float]:
    out = {}
    for model in data.get("model_names") or []:
        scores = data.get(model, {}).get("scores", {}) if isinstance(data.get(model), dict) else {}
        for metric, value in scores.items():
            kind, _, k = str(metric).partition("@")
            name = _METRIC_NAMES.get(kind, kind) + (f"@{k}" if k else "")
            out[f"{model}/{name}"] = _number(value, f"{path}: {model} {metric}")
    return out


def read(path: Path, options: ReadOptions | None = None) -> RunSource:
    """Qrels and runs saved by ranx (see the module docstring)."""
    path = Path(path)
    options = options or ReadOptions()
    qrels_path, run_paths, notes = _layout(path, options)
    qrels = _read_qrels(qrels_path)
    runs: dict[str, dict[str, dict[str, float]]] = {}
    aggregates: dict[str, float] = {}
    other: list[str] = []
    named = bool(options.runs) or not (path.is_dir() or path.stem == "qrels")
    for run_path in run_paths:
        data = _load_json(run_path) if run_path.suffix == ".json" else None
        if isinstance(data, dict) and _is_report(data):
            aggregates.update(_report_scores(data, run_path))
            continue
        if not named and data is not None and not _is_run(data):
            other.append(run_path.name)  # any other JSON in the folder: named, not read
            continue
        name, run = _read_run(run_path, data)
        if name in runs:
            raise InputError(f"{run_path}: a second run named {name!r}; rename one")
        runs[name] = run
    if not runs:
        raise InputError(f"{path}: no ranx run file beside {qrels_path.name}")
    notes = [f"qrels: {qrels_path}", "runs named by their file stems (TREC: by their tag)", *notes]
    if other:
        notes.append(f"not ranx runs, left out: {', '.join(other)} (name runs with --run)")
    if aggregates:
        notes.append("aggregates from a ranx Report (ranx.compare(...).save)")
    return RunSource(qrels, runs, TOOL, None, str(path), aggregates, tuple(notes))


def _is_run(data: Any) -> bool:
    """Shaped like what ``Run.save`` writes, ``{qid: {doc: …}}`` (its values are checked
    when it is read): any other JSON in a folder is not taken for a run."""
    return isinstance(data, dict) and all(isinstance(docs, dict) for docs in data.values())
