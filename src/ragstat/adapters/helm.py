"""Read HELM (crfm-helm) ``per_instance_stats.json``: a file, a run folder, or a suite.

One row per instance × train trial: ``item_id`` is ``instance_id``, ``repeat`` the
``train_trial_index``. Each stat's ``mean`` becomes a score named by its ``name.name``,
with ``@<split>`` when the file holds several splits, ``:<sub_split>`` when it has one
and ``#<perturbation>`` (``#<perturbation>:<computed_on>`` unless "perturbed") for a
perturbed instance, so a perturbed copy of an instance lands on the same row in its own
columns. The system is ``adapter_spec.model`` of the sibling ``run_spec.json`` (the run
folder's name when it is absent, or when several runs of one model are read). Instance
metadata comes from a sibling ``instances.json`` (written by ``helm-summarize``) or
``scenario_state.json``: ``meta_split``, ``meta_sub_split`` and each ``extra_data`` key
as ``meta_<key>``. The aggregates are the means HELM reported in the sibling
``stats.json`` under the same stat names (HELM averages the instances of each trial,
then the trials). HELM writes no version into these files, so ``version`` is None.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ragstat.adapters.base import ITEM, REPEAT, SYSTEM, ReadOptions, SourceTable
from ragstat.adapters.values import json_file
from ragstat.errors import InputError
from ragstat.records.textio import open_regular

TOOL = "HELM"

#: The :class:`~ragstat.adapters.base.ReadOptions` this reader takes.
OPTIONS: tuple[str, ...] = ("task",)

FILE = "per_instance_stats.json"
_HEAD = 4096
_KEYS = ('"instance_id"', '"train_trial_index"', '"stats"')

__all__ = ["FILE", "TOOL", "read", "sniff"]


# ---------------------------------------------------------------------------- detection


def _sniff_file(path: Path) -> bool:
    with open_regular(path) as handle:
        head = handle.read(_HEAD).decode("utf-8", errors="replace")
    return head.lstrip().startswith("[") and all(key in head for key in _KEYS)


def _stats_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    found = [path / FILE] if (path / FILE).is_file() else sorted(path.glob(f"*/{FILE}"))
    return [p for p in found if p.is_file()]


def sniff(path: Path) -> bool:
    """True for a per_instance_stats.json, or a folder holding them (never raises)."""
    try:
        path = Path(path)
        if path.is_dir():
            return any(_sniff_file(p) for p in _stats_files(path))
        return path.is_file() and path.suffix == ".json" and _sniff_file(path)
    except Exception:  # sniffing must never raise
        return False


# ---------------------------------------------------------------------------- names


def _load(path: Path, what: str) -> Any:
    return json_file(path, f"not readable as JSON ({what})")


def _label(name: Any, several_splits: bool) -> str:
    if not isinstance(name, dict) or not isinstance(name.get("name"), str):
        raise ValueError("stat without name.name")
    label = name["name"]
    if several_splits and name.get("split"):
        label += f"@{name['split']}"
    if name.get("sub_split"):
        label += f":{name['sub_split']}"
    perturbation = name.get("perturbation")
    if isinstance(perturbation, dict):
        label += f"#{perturbation.get('name')}"
        computed_on = perturbation.get("computed_on")
        if computed_on not in (None, "perturbed"):
            label += f":{computed_on}"
    return label


def _stat_value(stat: dict[str, Any]) -> float:
    if isinstance(stat.get("mean"), (int, float)):
        return float(stat["mean"])
    count, total = stat.get("count"), stat.get("sum")
    if isinstance(count, (int, float)) and count and isinstance(total, (int, float)):
        return float(total) / float(count)
    return math.nan


# ---------------------------------------------------------------------------- one run


def _entries(path: Path) -> list[dict[str, Any]]:
    data = _load(path, "HELM per-instance stats")
    if not isinstance(data, list) or not all(
        isinstance(e, dict) and "instance_id" in e and "stats" in e for e in data
    ):
        raise InputError(
            f"{path}: not a HELM per_instance_stats.json (a list of instance_id/stats entries)"
        )
    if not data:
        raise InputError(f"{path}: the HELM per-instance stats are empty")
    return data


def _splits(entries: list[dict[str, Any]]) -> set[Any]:
    return {
        stat["name"].get("split")
        for entry in entries
        for stat in entry["stats"]
        if isinstance(stat, dict) and isinstance(stat.get("name"), dict)
    }


def _run_rows(path: Path, system: str, entries: list[dict[str, Any]]) -> tuple[dict, bool]:
    """((system, instance, trial) → scores), whether any stat counted more than once."""
    several = len(_splits(entries)) > 1
    rows: dict[tuple[str, str, int], dict[str, float]] = {}
    counted = False
    for entry in entries:
        key = (system, str(entry["instance_id"]), int(entry.get("train_trial_index") or 0))
        row = rows.setdefault(key, {})
        for stat in entry["stats"] or []:
            try:
                label = _label(stat.get("name"), several)
            except (AttributeError, ValueError):
                raise InputError(f"{path}: a stat of {key[1]} has no name.name") from None
            if label in row:
                raise InputError(f"{path}: instance {key[1]} has {label} twice in one trial")
            row[label] = _stat_value(stat)
            counted = counted or (stat.get("count") not in (None, 1))
    return rows, counted


def _instances(folder: Path) -> list[dict[str, Any]]:
    """The run's instances, from instances.json or scenario_state.json (none when absent)."""
    if (folder / "instances.json").is_file():
        data = _load(folder / "instances.json", "HELM instances")
        return [i for i in data if isinstance(i, dict)] if isinstance(data, list) else []
    if (folder / "scenario_state.json").is_file():
        data = _load(folder / "scenario_state.json", "HELM scenario state")
        states = data.get("request_states") if isinstance(data, dict) else None
        return [s["instance"] for s in states or [] if isinstance(s, dict) and "instance" in s]
    return []


def _metadata(folder: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for instance in _instances(folder):
        if instance.get("id") is None or instance.get("perturbation"):
            continue
        meta = {"meta_split": instance.get("split"), "meta_sub_split": instance.get("sub_split")}
        for key, value in (instance.get("extra_data") or {}).items():
            is_scalar = value is None or isinstance(value, (str, int, float, bool))
            meta[f"meta_{key}"] = value if is_scalar else json.dumps(value, default=str)
        out.setdefault(str(instance["id"]), meta)
    return out


def _model(folder: Path) -> str | None:
    if not (folder / "run_spec.json").is_file():
        return None
    spec = _load(folder / "run_spec.json", "HELM run spec")
    adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
    if not isinstance(adapter, dict):
        return None
    model = adapter.get("model") or adapter.get("model_deployment")
    return str(model) if model else None


def _reported(folder: Path, system: str, several: bool, columns: set[str]) -> dict[str, float]:
    if not (folder / "stats.json").is_file():
        return {}
    stats = _load(folder / "stats.json", "HELM stats")
    out: dict[str, float] = {}
    for stat in stats if isinstance(stats, list) else []:
        try:
            label = _label(stat.get("name"), several)
        except (AttributeError, ValueError):
            continue
        value = _stat_value(stat)
        if label in columns and math.isfinite(value):
            out[f"{system}/{label}"] = value
    return out


# ---------------------------------------------------------------------------- read


def _task(file: Path) -> str:
    """A run's task: its folder's name (HELM's run name) up to the first ":"."""
    return file.parent.name.split(":", 1)[0]


def _one_task(path: Path, files: list[Path], options: ReadOptions) -> list[Path]:
    """The runs of the task ``--task`` names; several tasks without it: an error listing them."""
    tasks = sorted({_task(f) for f in files})
    if options.task is not None:
        if options.task not in tasks:
            raise InputError(f"--task {options.task}: {path} has no such task; tasks: "
                             f"{', '.join(tasks)}")  # fmt: skip
        return [f for f in files if _task(f) == options.task]
    if len(tasks) > 1:
        raise InputError(
            f"{path}: runs of {len(tasks)} HELM tasks ({', '.join(tasks)}); choose one with --task NAME"
        )
    return files


def _systems(files: list[Path]) -> list[str]:
    models = [_model(f.parent) for f in files]
    if any(m is None for m in models) or len(set(models)) < len(models):
        return [f.parent.name for f in files]
    return [str(m) for m in models]


def read(path: Path, options: ReadOptions | None = None) -> SourceTable:
    """Read one run's per-instance stats, or every run folder's in a suite folder."""
    import pandas as pd

    path = Path(path)
    files = _stats_files(path)
    if not files:
        raise InputError(f"{path}: the folder holds no HELM {FILE}")
    files = _one_task(path, files, options or ReadOptions())
    records: list[dict[str, Any]] = []
    values: list[dict[str, float]] = []
    aggregates: dict[str, float] = {}
    notes: list[str] = []
    for file, system in zip(files, _systems(files), strict=True):
        entries = _entries(file)
        rows, counted = _run_rows(file, system, entries)
        meta = _metadata(file.parent)
        for (name, instance, trial), scores in rows.items():
            records.append({SYSTEM: name, ITEM: instance, REPEAT: trial, **meta.get(instance, {})})
            values.append(scores)
        columns = {label for scores in rows.values() for label in scores}
        aggregates.update(_reported(file.parent, system, len(_splits(entries)) > 1, columns))
        if counted:
            notes.append(
                f"{system}: some stats count several values per instance; HELM's run "
                "mean weights instances by count, ragstat's does not"
            )
    score_frame = pd.DataFrame(values, dtype="float64")
    if score_frame.shape[1] == 0 or score_frame.isna().all().all():
        raise InputError(f"{path}: the HELM per-instance stats carry no scores")
    scores = tuple(str(c) for c in score_frame.columns)
    ids = pd.DataFrame.from_records(records).drop(columns=list(scores), errors="ignore")
    frame = pd.concat([ids, score_frame], axis=1)
    frame[REPEAT] = frame[REPEAT].astype("int64")
    return SourceTable(
        frame=frame,
        scores=scores,
        tool=TOOL,
        version=None,
        source=str(path),
        aggregates=aggregates,
        notes=tuple(notes),
    )
