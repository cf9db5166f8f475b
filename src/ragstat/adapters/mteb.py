"""Reader of MTEB retrieval predictions with the task's qrels (``--from mteb``).

``mteb.evaluate(model, task, prediction_folder=F)`` saves one model's rankings as
``F/<task>_predictions.json``: ``{"mteb_model_meta": {"model_name", "revision"},
<subset>: {<split>: {qid: {doc: score}}}}``. MTEB does not save the qrels, so they
go beside the predictions as BEIR's qrels TSV (header ``query-id corpus-id score``):
``qrels/<split>.tsv`` in the predictions' folder or in the folder above it.

``read(path)`` accepts

* one predictions file: one run;
* a folder: every ``*_predictions.json`` in it and in its direct subfolders (one
  folder per model, as ``prediction_folder`` needs), with ``qrels/<split>.tsv`` in
  the folder.

A run is named by its ``model_name`` (its folder's name when two runs share one). All
files must hold the same task and exactly one subset × split. MTEB's results JSON of
the task (``<task>.json``, as MTEB's cache stores it) beside a predictions file gives
the run's aggregates (``ndcg_at_10`` → ``<run>/ndcg@10``, ``recall_at_k`` →
``recall@k``, ``map_at_k`` → ``map@k``, ``precision_at_k`` → ``p@k``, ``mrr_at_k`` →
``mrr@k``, ``hit_rate_at_k`` → ``hit@k``; MTEB rounds them to 5 decimals) and the
MTEB version.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragstat.adapters.base import ReadOptions, RunSource
from ragstat.adapters.beir import read_qrels_tsv
from ragstat.adapters.values import json_file
from ragstat.errors import InputError
from ragstat.records.textio import open_regular

__all__ = ["TOOL", "read", "sniff"]

TOOL = "mteb"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ("qrels", "runs")

SUFFIX = "_predictions.json"
_HEAD = re.compile(r'\s*\{\s*"mteb_model_meta"\s*:\s*\{')
_SCORE = re.compile(r"^(ndcg|recall|map|precision|mrr|hit_rate)_at_(\d+)$")
_NAMES = {"precision": "p", "hit_rate": "hit"}


@dataclass(frozen=True)
class _Predictions:
    path: Path
    task: str
    model: str
    subset: str
    split: str
    run: dict[str, dict[str, float]]


def _looks_like_predictions(path: Path) -> bool:
    """Whether ``path`` starts like a predictions file; an unreadable one is an error."""
    try:
        with open_regular(path, "MTEB predictions file") as f:
            head = f.read(4096)
    except OSError as exc:
        raise InputError(f"cannot read MTEB predictions file {path}: {exc.strerror}") from None
    return _HEAD.match(head.decode("utf-8", errors="replace")) is not None


def _is_predictions(path: Path) -> bool:
    try:
        return path.is_file() and path.name.endswith(SUFFIX) and _looks_like_predictions(path)
    except (OSError, InputError):
        return False


def _candidates(folder: Path) -> list[Path]:
    return sorted(set(folder.glob(f"*{SUFFIX}")) | set(folder.glob(f"*/*{SUFFIX}")))


def _prediction_files(folder: Path) -> list[Path]:
    return [p for p in _candidates(folder) if _is_predictions(p)]


def _folder_files(folder: Path) -> tuple[list[Path], list[str]]:
    """The predictions files of a folder, and notes on the ``*_predictions.json`` files
    that are not (an unreadable one, a FIFO or a device is an error, never skipped)."""
    files: list[Path] = []
    other: list[Path] = []
    for p in _candidates(folder):
        (files if _looks_like_predictions(p) else other).append(p)
    note = [f"not MTEB predictions, left out: {', '.join(str(p) for p in other)}"]
    return files, note if other else []


def sniff(path: Path) -> bool:
    """An MTEB predictions file, or a folder holding some and ``qrels/*.tsv``."""
    try:
        if path.is_dir():
            return (path / "qrels").is_dir() and bool(_prediction_files(path))
        return _is_predictions(path)
    except OSError:
        return False


def _load(path: Path) -> Any:
    return json_file(path, "not MTEB JSON")


def _ranking(docs: Any, where: str) -> dict[str, float]:
    if not isinstance(docs, dict):
        raise InputError(f"{where}: expected {{doc_id: score}}, got {type(docs).__name__}")
    out = {}
    for doc, score in docs.items():
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise InputError(f"{where} {doc!r}: score {score!r} is not a number")
        if not math.isfinite(score):
            raise InputError(f"{where} {doc!r}: score {score!r} is not finite")
        out[str(doc)] = float(score)
    return out


def _read_predictions(path: Path) -> _Predictions:
    data = _load(path)
    meta = data.get("mteb_model_meta") if isinstance(data, dict) else None
    if not isinstance(meta, dict):
        raise InputError(f"{path}: not an MTEB predictions file (no mteb_model_meta)")
    pairs = [
        (subset, split)
        for subset, splits in data.items()
        if subset != "mteb_model_meta" and isinstance(splits, dict)
        for split in splits
    ]
    if len(pairs) != 1:
        found = ", ".join(f"{a}/{b}" for a, b in pairs) or "none"
        raise InputError(
            f"{path}: ragstat reads one subset/split per predictions file; found {found}"
        )
    subset, split = pairs[0]
    table = data[subset][split]
    if not isinstance(table, dict):
        raise InputError(f"{path}: {subset}/{split} is not a mapping query_id → ranking")
    run = {str(q): _ranking(docs, f"{path}: {q!r}") for q, docs in table.items()}
    if not any(run.values()):
        raise InputError(f"{path}: the predictions are empty")
    model = str(meta.get("model_name") or path.parent.name)
    task = path.name[: -len(SUFFIX)]
    return _Predictions(path, task, model, str(subset), str(split), run)


def _qrels_path(folder: Path, split: str, where: Path) -> Path:
    for base in (folder, folder.parent):
        candidate = base / "qrels" / f"{split}.tsv"
        if candidate.is_file():
            return candidate
    raise InputError(
        f"{where}: no qrels for split {split!r} (expected qrels/{split}.tsv in BEIR format "
        "beside the predictions or one folder up)"
    )


def _aggregates(preds: _Predictions, run: str) -> tuple[dict[str, float], str | None, list[str]]:
    """Scores and MTEB version from the task's results JSON beside the predictions (a
    file of that name that is not one is named in a note, never passed over silently)."""
    path = preds.path.with_name(f"{preds.task}.json")
    if not path.is_file():
        return {}, None, []
    data = _load(path)
    if not isinstance(data, dict) or not isinstance(data.get("scores"), dict):
        return {}, None, [f"{path}: not MTEB's results JSON (no 'scores'); no aggregates for {run}"]
    version = data.get("mteb_version")
    out = {}
    for entry in data["scores"].get(preds.split) or []:
        if not isinstance(entry, dict) or entry.get("hf_subset", preds.subset) != preds.subset:
            continue
        for key, value in entry.items():
            match = _SCORE.match(str(key))
            if match and isinstance(value, int | float) and not isinstance(value, bool):
                name = _NAMES.get(match.group(1), match.group(1))
                out[f"{run}/{name}@{match.group(2)}"] = float(value)
    return out, (str(version) if version else None), []


def _check_same(found: list[_Predictions]) -> None:
    first = found[0]
    for other in found[1:]:
        if (other.task, other.subset, other.split) != (first.task, first.subset, first.split):
            raise InputError(
                f"{other.path}: holds {other.task} {other.subset}/{other.split}, but "
                f"{first.path} holds {first.task} {first.subset}/{first.split}; read one task "
                "and split at a time"
            )


def _names(found: list[_Predictions]) -> list[str]:
    models = [p.model for p in found]
    names = [p.model if models.count(p.model) == 1 else p.path.parent.name for p in found]
    if len(set(names)) != len(names):
        raise InputError(f"{found[0].path.parent}: two predictions files of the same model")
    return names


def read(path: Path, options: ReadOptions | None = None) -> RunSource:
    """Predictions and qrels written around an MTEB run (see the module docstring)."""
    from ragstat.adapters.folders import chosen, named_file

    path = Path(path)
    options = options or ReadOptions()
    files, skipped = _folder_files(path) if path.is_dir() else ([path], [])
    if options.runs:
        files, skipped = chosen(path if path.is_dir() else path.parent, options, files)
    if not files:
        raise InputError(f"{path}: no MTEB predictions file (*{SUFFIX}) here or one level down")
    found = [_read_predictions(p) for p in files]
    _check_same(found)
    folder = path if path.is_dir() else path.parent
    if options.qrels is not None:
        qrels_path = named_file(folder, options.qrels, "--qrels")
    else:
        qrels_path = _qrels_path(folder, found[0].split, path)
    qrels = read_qrels_tsv(qrels_path)
    runs, aggregates, versions = {}, {}, set()
    for preds, name in zip(found, _names(found), strict=True):
        runs[name] = preds.run
        scores, version, note = _aggregates(preds, name)
        aggregates.update(scores)
        skipped += note
        versions.add(version)
    versions.discard(None)
    first = found[0]
    notes = [f"task {first.task}, subset {first.subset}, split {first.split}",
             f"qrels: {qrels_path}"]  # fmt: skip
    notes += skipped
    if aggregates:
        notes.append("aggregates from MTEB's results JSON (MTEB rounds to 5 decimals)")
    version = versions.pop() if len(versions) == 1 else None
    return RunSource(qrels, runs, TOOL, version, str(path), aggregates, tuple(notes))
