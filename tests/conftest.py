from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
_STARTED = time.monotonic()  # this file loads when the test run starts


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """The tier's wall time, printed last: the README promises the fast tier (``python -m
    pytest``, tests not marked ``slow``) in at most 5 minutes on 2 cores."""
    tier = config.getoption("markexpr") or "every test"
    workers = getattr(config.option, "numprocesses", None) or 1
    terminalreporter.write_line(
        f"ragstat tests ({tier}): {time.monotonic() - _STARTED:.0f} s wall time, "
        f"{workers} worker(s) on {os.cpu_count()} CPU(s)"
    )


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
    """Every test records its runs in a registry of its own, never in the working folder, and
    a test that unsets RAGSTAT_REGISTRY finds a per-user data folder of its own (Linux)."""
    folder = tmp_path_factory.mktemp("registry")
    monkeypatch.setenv("RAGSTAT_REGISTRY", str(folder / "registry.sqlite"))
    monkeypatch.setenv("XDG_DATA_HOME", str(folder / "xdg-data"))
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


# ---------------------------------------------------------------- output-folder helpers

NOTE = "my-notes.txt"  # a file of the user's inside an output folder: always kept


def write_corpus(path: Path) -> Path:
    """A small JSONL corpus (24 documents) for studies in tests."""
    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(400)]
    with path.open("w", encoding="utf-8") as fh:
        for d in range(24):
            own = rng.choice(len(vocab), 40, replace=False)
            words = [vocab[own[i % 40]] if rng.random() < 0.5 else rng.choice(vocab) for i in
                     range(int(rng.integers(150, 420)))]  # fmt: skip
            fh.write(json.dumps({"doc_id": f"d{d}", "text": " ".join(words)}) + "\n")
    return path


def snapshot(folder: Path) -> dict[str, bytes] | None:
    if not folder.exists():
        return None
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def assert_complete(out: Path) -> dict:
    """A published run: its manifest says ok and lists exactly the files of the folder
    (besides the user's own note)."""
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "ok"
    listed = {Path(p).relative_to(out).as_posix() for p in manifest["outputs"]}
    present = {k for k in snapshot(out) if not k.startswith("index/")} - {NOTE}
    assert present == listed
    return manifest


# ---------------------------------------------------------------- the demo, built once


@pytest.fixture(scope="session")
def demo_workdir(tmp_path_factory) -> Path:
    """A folder holding ``ragstat-demo/`` as ``ragstat demo`` writes it, built once per test
    session and shared with the README and docs-output tests (``tests/doc_outputs.py``)."""
    from doc_outputs import workdir

    where = workdir(tmp_path_factory)
    assert (where / "ragstat-demo" / "records.parquet").is_file()
    return where


_EARLY: list = []  # the controller's thread building the shared demo (a whole-suite xdist run)


def pytest_sessionstart(session) -> None:
    """On a whole-suite run with xdist workers, the controller (idle while workers test)
    starts building the shared demo at once, so no worker sits waiting for it later; a run
    of chosen files builds it on first use instead."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return  # paths or node ids were named: maybe no test needs the demo
    import threading

    from doc_outputs import workdir

    factory = config._tmp_path_factory  # the controller's; workers' folders live below it
    thread = threading.Thread(target=workdir, args=(factory,), daemon=True)
    thread.start()
    _EARLY.append(thread)


def pytest_sessionfinish(session) -> None:
    for thread in _EARLY:
        thread.join()  # never leave a demo half-built by a process that is going away
