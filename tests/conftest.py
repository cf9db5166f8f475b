from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is absent")
    return SHARED


def unequal_design(rng: np.random.Generator, K: int, binary: bool = True, max_n: int = 60):
    """Per-query arrays (doc ids, scores, positions) with unequal document sizes."""
    n = rng.integers(1, max_n, K)
    doc = np.repeat(np.array([f"d{i:04d}" for i in range(K)]), n)
    p = np.repeat(rng.beta(0.8, 2.5, K), n)
    y = (rng.random(n.sum()) < p).astype(float) if binary else rng.random(n.sum()) * p
    pos = np.concatenate([np.arange(k) for k in n])
    return doc, y, pos


@pytest.fixture(autouse=True)
def _isolated_registry(tmp_path_factory, monkeypatch):
    """Every test records its runs in a registry of its own, never in the working folder."""
    path = tmp_path_factory.mktemp("registry") / "registry.sqlite"
    monkeypatch.setenv("RAGSTAT_REGISTRY", str(path))
    monkeypatch.setenv("MPLBACKEND", "Agg")


def child_pids() -> set[int]:
    """Live PIDs whose parent is this process (from /proc: no psutil needed), except
    multiprocessing's resource tracker (one per interpreter, it exits with this process)."""
    me, out = str(os.getpid()), set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
            if fields[1] == me and fields[0] != "Z" and b"resource_tracker" not in cmdline:
                out.add(int(stat.parent.name))
    return out
