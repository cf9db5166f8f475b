"""Read lm-evaluation-harness per-sample logs (``samples_<task>_<date>.jsonl``).

lm-eval writes them with ``--log_samples`` (its ``EvaluationTracker``), beside
``results_<date>.json``. One task at a time (``--task NAME`` picks one of a folder that holds
several; without it such a folder is an error listing the tasks). One row per document:
``item_id`` is ``doc_id``, ``repeat`` 0 (lm-eval scores a document once, whatever its
``repeats``). Every numeric per-document metric becomes a score, named ``metric`` for the
``none`` filter and ``metric,<filter>`` for another filter (lm-eval's own ``metric,filter``
key); metrics whose per-document value
is not a number (corpus-level metrics such as BLEU or perplexity keep tuples there) are
left out with a note. The document's fields become ``meta_doc.<field>`` (nested fields
joined with "."), with ``meta_doc_hash`` and ``meta_task``. The system is the model named
in the sibling results file (``model_name``, else ``config.model_args``/``config.model``),
else the folder's name (lm-eval's sanitized model name). The aggregates are the values
lm-eval reported in ``results[<task>]["<metric>,<filter>"]`` for metrics aggregated by
the mean.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragstat.adapters.base import ITEM, REPEAT, SYSTEM, ReadOptions, SourceTable
from ragstat.adapters.reported_errors import Reported, lm_eval_stderr
from ragstat.adapters.values import flatten, json_file
from ragstat.errors import InputError
from ragstat.records.textio import jsonl_objects, open_regular
from ragstat.resources.inputs import json_value

TOOL = "lm-evaluation-harness"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ("task",)

#: lm-eval releases whose sample logs this reader knows (``lm_eval_version``).
VERSIONS = ("0.4",)
_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d\d-\d\dT[\d\-.]+)\.jsonl$")
_KEYS = ("doc_id", "doc", "filter", "metrics")

__all__ = ["TOOL", "VERSIONS", "read", "sniff"]


# ---------------------------------------------------------------------------- detection


def _first_record(path: Path) -> Any:
    with open_regular(path) as handle:
        line = handle.readline(1 << 22)
    return json_value(line, str(path))


def _sniff_file(path: Path) -> bool:
    if path.suffix != ".jsonl":
        return False
    record = _first_record(path)
    return isinstance(record, dict) and all(key in record for key in _KEYS)


def _sample_files(path: Path) -> list[Path]:
    """samples_*.jsonl in a folder and its direct subfolders (one per model)."""
    found = sorted(path.glob("samples_*.jsonl")) + sorted(path.glob("*/samples_*.jsonl"))
    return [p for p in found if p.is_file()]


def sniff(path: Path) -> bool:
    """True for an lm-eval samples file, or a folder of them (never raises)."""
    try:
        path = Path(path)
        if path.is_dir():
            return any(_sniff_file(p) for p in _sample_files(path))
        return path.is_file() and _sniff_file(path)
    except Exception:  # sniffing must never raise
        return False


# ---------------------------------------------------------------------------- results


def _results_file(samples: Path) -> Path | None:
    """The results_<date>.json written with this samples file (same date), else the newest."""
    match = _NAME.match(samples.name)
    if match:
        same = samples.with_name(f"results_{match['date']}.json")
        if same.is_file():
            return same
    others = sorted(samples.parent.glob("results_*.json"))
    return others[-1] if others else None


def _load_results(path: Path) -> dict[str, Any]:
    results = json_file(path, "the lm-eval results file is not readable JSON")
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        raise InputError(f"{path}: not an lm-eval results file (no 'results' section)")
    version = results.get("lm_eval_version")
    if version is not None and not any(str(version).startswith(f"{v}.") for v in VERSIONS):
        known = ", ".join(f"{v}.x" for v in VERSIONS)
        raise InputError(f"{path}: lm-eval version {version} is not supported ({known})")
    return results


def _model_name(results: dict[str, Any] | None, samples: Path) -> str:
    if results:
        if results.get("model_name"):
            return str(results["model_name"])
        config = results.get("config") or {}
        args = config.get("model_args")
        if isinstance(args, dict) and args.get("pretrained"):
            return str(args["pretrained"])
        if isinstance(args, str) and args:
            return f"{config.get('model')} ({args})" if config.get("model") else args
        if config.get("model"):
            return str(config["model"])
    return samples.parent.name


def _mean_metrics(results: dict[str, Any] | None, task: str) -> set[str] | None:
    """Metrics of ``task`` that lm-eval aggregates with the mean (None: not known)."""
    if not results:
        return None
    config = (results.get("configs") or {}).get(task) or {}
    listed = config.get("metric_list")
    if not isinstance(listed, list):
        return None
    return {
        str(m.get("metric"))
        for m in listed
        if isinstance(m, dict) and m.get("aggregation", "mean") == "mean"
    }


# ---------------------------------------------------------------------------- samples


def _records(path: Path) -> list[dict[str, Any]]:
    records = []
    for number, record in jsonl_objects(path, "lm-eval samples file"):
        if not all(key in record for key in _KEYS):
            raise InputError(
                f"{path}: line {number} is not an lm-eval sample (needs {', '.join(_KEYS)})"
            )
        records.append(record)
    if not records:
        raise InputError(f"{path}: the lm-eval samples file is empty")
    return records


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _score_name(metric: str, filter_name: str) -> str:
    return metric if filter_name == "none" else f"{metric},{filter_name}"


def _task_rows(path: Path, task: str, system: str) -> tuple[dict[tuple, dict], list[str]]:
    """(doc_id → row with ids, metadata and scores), notes, for one samples file."""
    rows: dict[tuple, dict[str, Any]] = {}
    skipped: set[str] = set()
    for record in _records(path):
        key = (system, task, str(record["doc_id"]))
        row = rows.setdefault(key, {"doc_id": key[2], "scores": {}, "meta": {}})
        row["meta"]["meta_task"] = task
        row["meta"]["meta_doc_hash"] = record.get("doc_hash")
        flatten("meta_doc", record.get("doc"), row["meta"])
        for metric in record.get("metrics") or []:
            name = _score_name(str(metric), str(record["filter"]))
            value = _number(record.get(metric))
            if value is None:
                skipped.add(str(metric))
                continue
            if name in row["scores"]:
                raise InputError(f"{path}: doc_id {key[2]} has {name} more than once")
            row["scores"][name] = value
    notes = [
        f"{task}: {m} has no per-document number (a corpus-level metric); left out"
        for m in sorted(skipped)
    ]
    return rows, notes


# ---------------------------------------------------------------------------- read


def _inputs(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    found = [p for p in _sample_files(path) if _sniff_file(p)]
    if not found:
        raise InputError(f"{path}: the folder holds no lm-eval samples_*.jsonl file")
    return found


def _task_of(path: Path) -> str:
    match = _NAME.match(path.name)
    return match["task"] if match else path.stem.removeprefix("samples_")


def _metrics_of(files: list[Path]) -> set[str]:
    """The score names of a task's first sample (enough to say which task has a score)."""
    try:
        record = _first_record(files[0])
    except InputError:
        return set()
    metrics = record.get("metrics") if isinstance(record, dict) else None
    name = str(record.get("filter", "none")) if isinstance(record, dict) else "none"
    return {_score_name(str(m), name) for m in metrics or []} | {str(m) for m in metrics or []}


def _one_task(path: Path, files: list[Path], options: ReadOptions) -> list[Path]:
    """The samples files of the task ``--task`` names; several tasks without it: an error
    listing them (or naming the one task that has the score to be analysed)."""
    tasks: dict[str, list[Path]] = {}
    for file in files:
        tasks.setdefault(_task_of(file), []).append(file)
    if options.task is not None:
        if options.task not in tasks:
            raise InputError(
                f"--task {options.task}: {path} has no such task; tasks: {', '.join(sorted(tasks))}"
            )
        return tasks[options.task]
    if len(tasks) == 1:
        return files
    listed = ", ".join(sorted(tasks))
    if options.score is not None:
        having = [t for t in sorted(tasks) if options.score in _metrics_of(tasks[t])]
        if len(having) == 1:
            raise InputError(
                f"{path}: {len(tasks)} lm-eval tasks ({listed}); only {having[0]} has the score "
                f"{options.score}: add --task {having[0]}"
            )
    raise InputError(f"{path}: {len(tasks)} lm-eval tasks ({listed}); choose one with --task NAME")


def _aggregates(
    results: dict[str, Any] | None, task: str, system: str, rename: dict[str, str]
) -> dict[str, float]:
    if not results:
        return {}
    means = _mean_metrics(results, task)
    reported = (results.get("results") or {}).get(task) or {}
    out = {}
    for key, value in reported.items():
        metric, _, filter_name = str(key).partition(",")
        name = _score_name(metric, filter_name or "none")
        if name not in rename or (means is not None and metric not in means):
            continue
        number = _number(value)
        if number is not None and math.isfinite(number):
            out[f"{system}/{rename[name]}"] = number
    return out


def _errors(
    results: dict[str, Any] | None, task: str, system: str, aggregates: dict[str, float],
    rename: dict[str, str],
) -> dict[str, Reported]:  # fmt: skip
    """lm-eval's ``<metric>_stderr`` beside each aggregate it reported."""
    reported = ((results or {}).get("results") or {}).get(task) or {}
    out = {}
    for key in reported:
        metric, _, filter_name = str(key).partition(",")
        name = _score_name(metric, filter_name or "none")
        target = f"{system}/{rename.get(name)}"
        if name in rename and target in aggregates and (se := lm_eval_stderr(reported, key)):
            out[target] = se
    return out


def read(path: Path, options: ReadOptions | None = None) -> SourceTable:
    """Read one samples file, or every samples file in a folder (and its subfolders)."""
    path = Path(path)
    files = _one_task(path, _inputs(path), options or ReadOptions())
    rows: list[dict[str, Any]] = []
    errors: dict[str, Reported] = {}
    aggregates: dict[str, float] = {}
    notes: list[str] = []
    versions: set[str] = set()
    for file in files:
        task = _task_of(file)
        found = _results_file(file)
        results = _load_results(found) if found else None
        if results and results.get("lm_eval_version"):
            versions.add(str(results["lm_eval_version"]))
        system = _model_name(results, file)
        task_rows, more = _task_rows(file, task, system)
        notes.extend(more)
        rename = {name: name for row in task_rows.values() for name in row["scores"]}
        for row in task_rows.values():
            item = row["doc_id"]
            rows.append({SYSTEM: system, ITEM: item, REPEAT: 0, **row["meta"], **row["scores"]})
        means = _aggregates(results, task, system, rename)
        aggregates.update(means)
        errors.update(_errors(results, task, system, means, rename))
    return replace(_table(path, rows, aggregates, notes, versions), errors=errors)


def _table(
    path: Path,
    rows: list[dict[str, Any]],
    aggregates: dict[str, float],
    notes: list[str],
    versions: set[str],
) -> SourceTable:
    import pandas as pd

    frame = pd.DataFrame(rows)
    duplicated = frame.duplicated([SYSTEM, ITEM, REPEAT])
    if duplicated.any():
        row = frame[duplicated].iloc[0]
        raise InputError(
            f"{path}: {row[SYSTEM]} scored document {row[ITEM]} in two samples files "
            "(two runs of one task?); read one of them"
        )
    fixed = {SYSTEM, ITEM, REPEAT}
    scores = tuple(c for c in frame.columns if c not in fixed and not c.startswith("meta_"))
    if not scores or frame[list(scores)].isna().all().all():
        raise InputError(f"{path}: the lm-eval samples carry no per-document scores")
    frame[list(scores)] = frame[list(scores)].astype("float64")
    frame[REPEAT] = frame[REPEAT].astype("int64")
    return SourceTable(
        frame=frame,
        scores=scores,
        tool=TOOL,
        version=", ".join(sorted(versions)) or None,
        source=str(path),
        aggregates=aggregates,
        notes=tuple(notes),
    )
