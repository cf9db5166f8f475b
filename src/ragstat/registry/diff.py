"""What changed between two runs: config, data, results and versions, key by key.

Nested dicts are flattened to dotted keys (``bm25.hit1_micro``). Run ids, argv,
timestamps, wall time and output paths are never compared: they differ between
any two runs and say nothing about why the results differ. A failed run's ``error``
is compared only when the two statuses differ.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass

from ragstat.errors import InputError
from ragstat.registry.manifest import Manifest

__all__ = ["SECTIONS", "Change", "RunDiff", "diff_runs", "flatten"]

SECTIONS = ("config", "data", "results", "versions")


def _show(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Change:
    """One key whose value differs: ``a`` in the first run, ``b`` in the second (None: absent)."""

    key: str
    a: object
    b: object

    def __str__(self) -> str:
        return f"{self.key}: {_show(self.a)} → {_show(self.b)}"

    def to_dict(self) -> dict:
        return {"key": self.key, "a": self.a, "b": self.b}


@dataclass(frozen=True)
class RunDiff:
    """The differences between runs ``a_id`` and ``b_id``, by section."""

    a_id: str
    b_id: str
    config: tuple[Change, ...]
    data: tuple[Change, ...]
    results: tuple[Change, ...]
    versions: tuple[Change, ...]

    @property
    def empty(self) -> bool:
        return not any(self.sections().values())

    def sections(self) -> dict[str, tuple[Change, ...]]:
        return {name: getattr(self, name) for name in SECTIONS}

    def keys(self, section: str) -> set[str]:
        """The changed keys of one section."""
        if section not in SECTIONS:
            raise InputError(f"unknown diff section {section!r}; choose from {', '.join(SECTIONS)}")
        return {c.key for c in getattr(self, section)}

    def to_dict(self) -> dict:
        return {
            "a": self.a_id,
            "b": self.b_id,
            **{name: [c.to_dict() for c in changes] for name, changes in self.sections().items()},
        }

    def lines(self) -> list[str]:
        """Readable text: a header, then each non-empty section as ``key: a → b``."""
        out = [f"{self.a_id} → {self.b_id}"]
        if self.empty:
            return [*out, "no differences"]
        for name, changes in self.sections().items():
            if changes:
                out.append(f"{name}:")
                out.extend(f"  {c}" for c in changes)
        return out


def flatten(data: Mapping, prefix: str = "") -> dict[str, object]:
    """Nested mappings as one level of dotted keys; lists and scalars stay values."""
    out: dict[str, object] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = dict(value) if isinstance(value, Mapping) else value
    return out


def _same(x: object, y: object) -> bool:
    numbers = (int, float)
    if (
        isinstance(x, numbers)
        and isinstance(y, numbers)
        and not isinstance(x, bool)
        and not isinstance(y, bool)
    ):
        return math.isclose(x, y, rel_tol=1e-12, abs_tol=0.0)
    return x == y


def _changes(a: Mapping, b: Mapping) -> tuple[Change, ...]:
    fa, fb = flatten(a), flatten(b)
    keys = list(fa) + [k for k in fb if k not in fa]
    return tuple(Change(k, fa.get(k), fb.get(k)) for k in keys if not _same(fa.get(k), fb.get(k)))


def _outcome(m: Manifest, other: Manifest) -> dict:
    """``results`` and ``status`` of ``m``, its ``outcome`` when either run recorded one, and
    its ``error`` when the other run's status differs."""
    out = {**m.results, "status": m.status}
    if m.outcome is not None or other.outcome is not None:
        out["outcome"] = m.outcome
    if m.status != other.status:
        out["error"] = m.error
    return out


def diff_runs(a: Manifest, b: Manifest) -> RunDiff:
    """The differences between two manifests, section by section.

    - config: ``config`` (the seed lives there; the manifest's own ``seed`` is compared
      only when neither config holds one), and ``command`` when the verbs differ;
    - data: ``corpus_fingerprint`` and the input hashes (``inputs.<path>``);
    - results: ``results``, ``status`` and ``outcome``, and ``error`` only when the statuses differ
      (two failed runs with differently worded errors are not a difference);
    - versions: ``versions``.
    """
    if not isinstance(a, Manifest) or not isinstance(b, Manifest):
        raise InputError("diff_runs compares two Manifest objects")
    cfg_a, cfg_b = {"command": a.command, **a.config}, {"command": b.command, **b.config}
    if "seed" not in a.config and "seed" not in b.config:
        cfg_a["seed"], cfg_b["seed"] = a.seed, b.seed
    return RunDiff(
        a_id=a.run_id,
        b_id=b.run_id,
        config=_changes(cfg_a, cfg_b),
        data=_changes(
            {"corpus_fingerprint": a.corpus_fingerprint, "inputs": a.inputs},
            {"corpus_fingerprint": b.corpus_fingerprint, "inputs": b.inputs},
        ),
        results=_changes(_outcome(a, b), _outcome(b, a)),
        versions=_changes(a.versions, b.versions),
    )
