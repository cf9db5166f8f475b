"""Read inspect_ai evaluation logs (``.eval`` zip or ``.json``), or a folder of them.

One row per sample × epoch: ``item_id`` is the sample id, ``repeat`` its epoch (1, 2,
…), ``system`` the log's model (``task/model`` when a folder holds several tasks).
Every scorer's value becomes a float score exactly as inspect's ``value_to_float()``
maps it (C → 1, P → 0.5, I and N → 0, numbers and booleans cast, "yes"/"true" → 1,
"no"/"false" → 0, numeric strings parsed, anything else 0); a dict value becomes one
score per key (``scorer.key``), a list one per position (``scorer.0``, …). Sample
metadata becomes ``meta_<key>`` (nested keys joined with "."). The aggregates are the
``accuracy``/``mean`` metrics inspect reported in ``results.scores`` for scorers
whose epochs were reduced with the mean (inspect's default): inspect averages each
sample's epochs first, then the samples, which is what ragstat's per-item mean over
repeats followed by the mean over items computes.
"""

from __future__ import annotations

import math
import zipfile
from pathlib import Path
from typing import Any

from ragstat.adapters.base import ITEM, REPEAT, SYSTEM, ReadOptions, SourceTable
from ragstat.adapters.reported_errors import Reported, inspect_stderr
from ragstat.adapters.values import flatten, json_file
from ragstat.errors import InputError
from ragstat.records.textio import open_regular, parse_json_line, regular_file
from ragstat.resources.archives import open_zip, read_member

TOOL = "inspect_ai"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ("all_runs",)

#: Log format versions read (``version`` at the top of every inspect log).
VERSIONS = (1, 2)
_HEAD = 8192
_HEAD_KEYS = ('"status"', '"eval"', '"run_id"', '"task"', '"model"')
_METRICS = ("accuracy", "mean")
_MEAN_REDUCERS = (None, "mean")

__all__ = ["TOOL", "VERSIONS", "read", "sniff", "value_to_float"]


# ---------------------------------------------------------------------------- detection


def _sniff_file(path: Path) -> bool:
    if path.suffix == ".eval":
        if not zipfile.is_zipfile(regular_file(path)):
            return False
        with open_zip(path) as archive:
            names = set(archive.namelist())
        return "_journal/start.json" in names or "header.json" in names
    if path.suffix == ".json":
        with open_regular(path) as handle:
            head = handle.read(_HEAD).decode("utf-8", errors="replace")
        return head.lstrip().startswith("{") and all(key in head for key in _HEAD_KEYS)
    return False


def sniff(path: Path) -> bool:
    """True for an inspect log, or a folder holding at least one (never raises)."""
    try:
        path = Path(path)
        if path.is_dir():
            return any(_sniff_file(p) for p in sorted(path.iterdir()) if p.is_file())
        return path.is_file() and _sniff_file(path)
    except Exception:  # sniffing must never raise
        return False


# ---------------------------------------------------------------------------- values


def value_to_float(value: Any) -> float:
    """inspect's default ``value_to_float()`` (``inspect_ai/scorer/_metric.py``)."""
    if value == "C":
        return 1.0
    if value == "P":
        return 0.5
    if value == "I" or value == "N":
        return 0.0
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        lower = value.lower()
        if lower in ("yes", "true"):
            return 1.0
        if lower in ("no", "false"):
            return 0.0
        try:
            number = float(lower)
        except ValueError:
            return 0.0
        return number if math.isfinite(number) else 0.0
    return 0.0


def _score_values(name: str, value: Any, out: dict[str, float]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            out[f"{name}.{key}"] = value_to_float(inner)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            out[f"{name}.{i}"] = value_to_float(inner)
    elif value is None:
        out[name] = math.nan
    else:
        out[name] = value_to_float(value)


# ---------------------------------------------------------------------------- one log


def _load_json(where: str, text: bytes) -> Any:
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 text (byte offset {exc.start})") from None
    return parse_json_line(decoded, where)


def _read_eval_zip(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with open_zip(path, "inspect .eval log") as archive:
        names = archive.namelist()
        header = next((n for n in ("header.json", "_journal/start.json") if n in names), None)
        if header is None:
            raise InputError(f"{path}: not an inspect .eval log (no header.json in the archive)")
        where = f"inspect .eval log {path}"
        log = _load_json(f"{where} (member {header})", read_member(archive, header, where))
        sample_names = sorted(n for n in names if n.startswith("samples/") and n.endswith(".json"))
        samples = [
            _load_json(f"{where} (member {name})", read_member(archive, name, where))
            for name in sample_names
        ]
    return log, samples


def _read_log(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the log without samples, its samples), checked for shape and version."""
    regular_file(path, "inspect log")
    if path.suffix == ".eval" or zipfile.is_zipfile(path):
        log, samples = _read_eval_zip(path)
    else:
        log = json_file(path, "not readable as JSON (not an inspect_ai log?)")
        if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
            raise InputError(f"{path}: not an inspect_ai log (no 'eval' section)")
        samples = log.get("samples") or []
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise InputError(f"{path}: not an inspect_ai log (no 'eval' section)")
    version = log.get("version")
    if version not in VERSIONS:
        known = ", ".join(str(v) for v in VERSIONS)
        raise InputError(
            f"{path}: inspect log format version {version!r} is not supported ({known})"
        )
    if not samples:
        raise InputError(f"{path}: the inspect log has no samples (written without log_samples?)")
    return log, samples


def _rows(
    path: Path, system: str, samples: list[dict[str, Any]], offset: int = 0
) -> tuple[list[dict[str, Any]], list[dict[str, float]]]:
    """(one row of ids and metadata per sample, its scores) for one log; its epochs are
    numbered after ``offset`` (the epochs of the same model's earlier runs, pooled)."""
    rows, values = [], []
    for sample in samples:
        if not isinstance(sample, dict) or "id" not in sample:
            raise InputError(f"{path}: a sample has no 'id'; not an inspect_ai sample")
        row: dict[str, Any] = {
            SYSTEM: system,
            ITEM: str(sample["id"]),
            REPEAT: offset + int(sample.get("epoch") or 0),
        }
        for key, value in (sample.get("metadata") or {}).items():
            flatten(f"meta_{key}", value, row)
        scores: dict[str, float] = {}
        for name, score in (sample.get("scores") or {}).items():
            _score_values(name, score.get("value") if isinstance(score, dict) else score, scores)
        rows.append(row)
        values.append(scores)
    return rows, values


def _aggregates(
    system: str, log: dict[str, Any], columns: set[str]
) -> tuple[dict[str, float], list[str], dict[str, Reported]]:
    """inspect's reported accuracy/mean per score column, notes, and its stderr per column."""
    out: dict[str, float] = {}
    notes: list[str] = []
    errors: dict[str, Reported] = {}
    for entry in (log.get("results") or {}).get("scores") or []:
        name, scorer = str(entry.get("name")), str(entry.get("scorer") or entry.get("name"))
        column = name if name in columns else f"{scorer}.{name}"
        if column not in columns:
            continue
        metrics = entry.get("metrics") or {}
        if entry.get("reducer") not in _MEAN_REDUCERS:
            notes.append(
                f"{system}: inspect reduced the epochs of {column} with "
                f"{entry.get('reducer')!r}; ragstat averages them"
            )
            continue
        for metric in _METRICS:
            if metric in metrics and metrics[metric].get("value") is not None:
                out[f"{system}/{column}"] = float(metrics[metric]["value"])
                break
        reported = inspect_stderr(metrics)
        if reported is not None:
            errors[f"{system}/{column}"] = reported
    return out, notes, errors


# ---------------------------------------------------------------------------- read


def _log_files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    found = [p for p in sorted(path.iterdir()) if p.is_file() and _sniff_file(p)]
    if not found:
        raise InputError(f"{path}: the folder holds no inspect_ai log (.eval or .json)")
    return found


def _system_names(logs: list[tuple[Path, dict[str, Any]]]) -> list[str]:
    tasks = {str(log["eval"].get("task")) for _, log in logs}
    names = []
    for file, log in logs:
        model = log["eval"].get("model")
        if not model:
            raise InputError(f"{file}: the inspect log names no model (eval.model)")
        names.append(f"{log['eval'].get('task')}/{model}" if len(tasks) > 1 else str(model))
    return names


def _loaded(path: Path) -> tuple[list[tuple[Path, dict[str, Any], Any]], list[str]]:
    loaded, notes, seen = [], [], set()
    for file in _log_files(path):
        log, samples = _read_log(file)
        eval_id = log["eval"].get("eval_id")
        if eval_id is not None and eval_id in seen:
            notes.append(f"{file.name}: same evaluation as an earlier log (eval_id); skipped")
            continue
        seen.add(eval_id)
        loaded.append((file, log, samples))
    return loaded, notes


def _created(entry: tuple[Path, dict[str, Any], Any]) -> tuple[float, str]:
    from datetime import datetime

    text = str(entry[1]["eval"].get("created") or "")
    try:
        stamp = datetime.fromisoformat(text).timestamp()
    except ValueError:
        stamp = float("-inf")
    return stamp, entry[0].name


def _reruns(
    loaded: list[tuple[Path, dict[str, Any], Any]], all_runs: bool
) -> tuple[list[tuple[Path, dict[str, Any], Any]], list[int], list[str]]:
    """Per (task, model) the latest run (``eval.created``), or every run with its epochs
    numbered after the earlier runs' (``all_runs``); the epoch offset of each kept log and
    notes naming the runs left out or pooled."""
    groups: dict[tuple[str, str], list[tuple[Path, dict[str, Any], Any]]] = {}
    for entry in loaded:
        groups.setdefault((str(entry[1]["eval"].get("task")), str(entry[1]["eval"].get("model"))), []).append(entry)  # fmt: skip
    kept, offsets, notes = [], [], []
    for (task, model), runs in groups.items():
        runs = sorted(runs, key=_created)
        if len(runs) > 1 and not all_runs:
            left = ", ".join(r[0].name for r in runs[:-1])
            notes.append(
                f"{model} on {task}: {len(runs)} runs; read the latest ({runs[-1][0].name}), "
                f"left out {left} (--all-runs pools them as repeats)"
            )
            runs = runs[-1:]
        elif len(runs) > 1:
            names = ", ".join(r[0].name for r in runs)
            notes.append(f"{model} on {task}: {len(runs)} runs pooled as repeats ({names})")
        offset = 0
        for run in runs:
            kept.append(run)
            offsets.append(offset)
            offset += max(
                (int(s.get("epoch") or 0) for s in run[2] if isinstance(s, dict)), default=0
            )
    return kept, offsets, notes


def read(path: Path, options: ReadOptions | None = None) -> SourceTable:
    """Read one inspect log, or every inspect log in a folder (one system per model)."""
    import pandas as pd

    path = Path(path)
    loaded, notes = _loaded(path)
    loaded, offsets, more_notes = _reruns(loaded, (options or ReadOptions()).all_runs)
    notes.extend(more_notes)
    names = _system_names([(f, log) for f, log, _ in loaded])
    rows: list[dict[str, Any]] = []
    values: list[dict[str, float]] = []
    for (file, _, samples), system, offset in zip(loaded, names, offsets, strict=True):
        more_rows, more_values = _rows(file, system, samples, offset)
        rows.extend(more_rows)
        values.extend(more_values)
    score_frame = pd.DataFrame(values, dtype="float64")
    if score_frame.shape[1] == 0 or score_frame.isna().all().all():
        raise InputError(f"{path}: the inspect log's samples carry no scores")
    scores = tuple(str(c) for c in score_frame.columns)
    ids = pd.DataFrame(rows).drop(columns=list(scores), errors="ignore")
    frame = pd.concat([ids, score_frame], axis=1)
    frame[REPEAT] = frame[REPEAT].astype("int64")
    aggregates: dict[str, float] = {}
    errors: dict[str, Reported] = {}
    pooled = {n for n in names if names.count(n) > 1}  # no one inspect aggregate for them
    for (_, log, _), system in zip(loaded, names, strict=True):
        if system in pooled:
            continue
        found, more, reported = _aggregates(system, log, set(scores))
        aggregates.update(found)
        errors.update(reported)
        notes.extend(more)
    versions = sorted({v for _, log, _ in loaded if (v := _package_version(log))})
    return SourceTable(
        frame=frame,
        scores=scores,
        tool=TOOL,
        version=", ".join(versions) or None,
        source=str(path),
        aggregates=aggregates,
        notes=tuple(notes),
        errors=errors,
    )


def _package_version(log: dict[str, Any]) -> str | None:
    packages = log["eval"].get("packages") or {}
    version = packages.get("inspect_ai") if isinstance(packages, dict) else None
    return str(version) if version else None
