"""A gates file's text and top-level settings, read with one-line errors (exit 2).

Everything a user can get wrong in a gates file stops ``ragstat gate`` with one line
naming the key (and, for a cap, the number to change) before any gate is decided: a file
that is not a regular file (a FIFO would hang), not UTF-8, not TOML, nested too deep, a
setting of the wrong type or out of range (``bootstrap_reps`` above 10⁶), more gates than
:data:`MAX_GATES`.

Two settings say what a score cell without a number means for every gate:

``non_numeric = "error" | "missing"``
    a cell that is not a number (``"ERROR"``) stops the run (default) or counts as
    missing (also settable per input, ``[inputs.NAME] non_numeric``).
``max_unscored = 0``
    the largest share of a gate's rows without a score (missing or not a number) the
    gate accepts; above it the gate fails for missing evidence. A gate's own
    ``max_unscored`` wins.
"""

from __future__ import annotations

import math
import tomllib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragstat.decisions.gates import CORRECTIONS, GateSpec
from ragstat.errors import InputError
from ragstat.inference.analyze import MAX_REPS
from ragstat.inference.names import DEFAULT_REPS
from ragstat.records.cells import check_non_numeric
from ragstat.resources.inputs import open_regular

__all__ = ["MAX_GATES", "MAX_GATES_BYTES", "TOP_KEYS", "Settings", "gate_specs", "load", "settings"]

#: Gates one file may declare (each is decided with its own bootstrap of up to 9,999
#: replicates: 2,000 gates took over 20 s).
MAX_GATES = 1_000
#: Size of a gates file read (a gates file is a few kilobytes).
MAX_GATES_BYTES = 16 << 20

TOP_KEYS = frozenset({
    "level", "correction", "inconclusive", "seed", "bootstrap_reps", "inputs", "gates", "title",
    "window", "non_numeric", "max_unscored",
})  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """The top-level settings of a gates file."""

    level: float = 0.95
    correction: str = "holm"
    inconclusive_blocks: bool = True
    seed: int = 0
    bootstrap_reps: int = DEFAULT_REPS
    non_numeric: str = "error"
    max_unscored: float = 0.0


def load(path: Path) -> dict[str, Any]:
    """The TOML content of the gates file at ``path``; every failure is one-line `InputError`."""
    try:
        with open_regular(path, "gates file") as handle:  # a FIFO is refused, never opened
            raw = handle.read(MAX_GATES_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the gates file ({exc.strerror})") from None
    if len(raw) > MAX_GATES_BYTES:
        raise InputError(
            f"{path}: the gates file is over {MAX_GATES_BYTES >> 20} MiB (MAX_GATES_BYTES "
            "in ragstat/api/gate_settings.py)"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: the gates file is not UTF-8 (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "invalid TOML"
        raise InputError(f"{path}: not a valid TOML gates file ({first})") from None
    except (RecursionError, MemoryError):
        raise InputError(f"{path}: not a valid TOML gates file (nested too deep)") from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer of 5,000 digits
        why = "a number with too many digits" if "digits" in str(exc) else str(exc)[:80]
        raise InputError(f"{path}: not a valid TOML gates file ({why})") from None


def _setting(data: Mapping[str, Any], key: str, kind: type, default: Any) -> Any:
    value: Any = data.get(key, default)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:
            raise InputError(f"gates file: {key!r} is too large: {str(value)[:20]}…") from None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
        raise InputError(f"gates file: {key!r} must be a {kind.__name__}, got {shown}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"gates file: {key!r} must be finite, got {value!r}")
    return value


def settings(data: Mapping[str, Any]) -> Settings:
    """The top-level settings (unknown keys, types, ranges checked)."""
    unknown = sorted(str(k) for k in set(data) - TOP_KEYS)
    if unknown:
        raise InputError(f"gates file: unknown key(s) {unknown}; known: {sorted(TOP_KEYS)}")
    level = _setting(data, "level", float, 0.95)
    if not 0 < level < 1:
        raise InputError(f"gates file: level must be between 0 and 1, got {level}")
    correction = _setting(data, "correction", str, "holm")
    if correction not in CORRECTIONS:
        raise InputError(f"gates file: correction must be one of {', '.join(CORRECTIONS)}")
    blocks = _setting(data, "inconclusive", str, "blocks")
    if blocks not in ("blocks", "passes"):
        raise InputError("gates file: inconclusive must be 'blocks' or 'passes'")
    seed = _setting(data, "seed", int, 0)
    reps = _setting(data, "bootstrap_reps", int, DEFAULT_REPS)
    if seed < 0:
        raise InputError(f"gates file: seed must be ≥ 0, got {seed}")
    if not 99 <= reps <= MAX_REPS:
        raise InputError(
            f"gates file: bootstrap_reps must be in [99, {MAX_REPS:,}], got {reps:,} "
            "(MAX_REPS in ragstat/inference/analyze.py)"
        )
    non_numeric = check_non_numeric(data.get("non_numeric", "error"), "gates file: non_numeric")
    share = _setting(data, "max_unscored", float, 0.0)
    if not 0 <= share <= 1:
        raise InputError(f"gates file: max_unscored is a share between 0 and 1, got {share}")
    return Settings(level, correction, blocks == "blocks", seed, reps, non_numeric, share)


def gate_specs(data: Mapping[str, Any], inputs: Mapping[str, Any]) -> tuple[GateSpec, ...]:
    """The ``[[gates]]`` tables as validated specs (at most :data:`MAX_GATES`, names unique)."""
    raw = data.get("gates")
    if not isinstance(raw, list) or not raw:
        raise InputError("gates file: no [[gates]]: a gates file needs at least one gate")
    if len(raw) > MAX_GATES:
        raise InputError(
            f"gates file: {len(raw):,} gates; at most {MAX_GATES:,} (MAX_GATES in "
            "ragstat/api/gate_settings.py): split the gates into several files, one "
            "`ragstat gate` run each"
        )
    default = "candidate" if "candidate" in inputs else next(iter(inputs))
    specs = []
    for i, table in enumerate(raw, 1):
        if not isinstance(table, Mapping):
            raise InputError(f"gates file: gate {i} is not a table")
        spec = GateSpec.from_mapping({"input": default, **table}, "gates file")
        spec.validate()
        specs.append(spec)
    repeated = sorted(n for n, k in Counter(s.name for s in specs).items() if k > 1)
    if repeated:
        raise InputError(f"gates file: gate names must be unique; repeated: {repeated[:5]}")
    return tuple(specs)
