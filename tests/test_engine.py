"""The executor interface: local engines, argument checks, error types, seeds."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from ragstat.engine import (
    ENGINES,
    EngineError,
    ProcessExecutor,
    SerialExecutor,
    blocks_of,
    get_executor,
    spawn_seeds,
)
from ragstat.errors import BackendUnavailable, InputError, RagstatError


def _square(x: int) -> int:
    return x * x


def _fail_on_three(x: int) -> int:
    if x == 3:
        raise InputError("three is not allowed")
    return x


def test_engines_listed():
    assert ENGINES == ("local", "dask")
    assert issubclass(EngineError, RagstatError)


@pytest.mark.parametrize("workers, kind", [(1, SerialExecutor), (2, ProcessExecutor)])
def test_local_executors_map_in_order_and_close(workers, kind):
    ticks = []
    with get_executor(workers) as ex:
        assert isinstance(ex, kind)
        assert ex.workers == workers
        assert ex.map(_square, list(range(7)), on_done=lambda: ticks.append(1)) == [
            x * x for x in range(7)
        ]
        assert ex.map(_square, []) == []
    ex.close()  # closing twice is harmless
    assert len(ticks) == 7


@pytest.mark.parametrize("workers", [1, 2])
def test_task_errors_keep_their_type(workers):
    with get_executor(workers) as ex, pytest.raises(InputError, match="three"):
        ex.map(_fail_on_three, list(range(6)))


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_worker_counts(bad):
    with pytest.raises(InputError, match="workers"):
        get_executor(bad)


def test_unknown_engine_and_stray_scheduler():
    with pytest.raises(InputError, match="unknown engine 'spark'"):
        get_executor(1, "spark")
    with pytest.raises(InputError, match="--scheduler applies to --engine dask"):
        get_executor(1, "local", "tcp://127.0.0.1:8786")


def test_dask_engine_without_the_extra_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails as if not installed
    with pytest.raises(BackendUnavailable, match=r'pip install "ragstat\[dask\]"'):
        get_executor(2, "dask")


def test_seeds_depend_on_seed_and_key_only():
    a = [s.generate_state(2) for s in spawn_seeds(7, 3, key=(10,))]
    b = [s.generate_state(2) for s in spawn_seeds(7, 3, key=(10,))]
    c = [s.generate_state(2) for s in spawn_seeds(7, 3, key=(11,))]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])
    assert list(blocks_of(250, 100)) == [(0, 100), (100, 200), (200, 250)]


def test_simulation_accepts_an_executor(tmp_path):
    from ragstat.records import aggregate_arrays
    from ragstat.simulation import Census, simulate_coverage

    rng = np.random.default_rng(3)
    n = rng.integers(1, 30, 120)
    doc = np.repeat([f"d{i:03d}" for i in range(n.size)], n)
    y = (rng.random(n.sum()) < np.repeat(rng.beta(1, 3, n.size), n)).astype(float)
    census = Census.from_docstats(aggregate_arrays(doc, y))
    kw = dict(reps=250, methods=("wald_iid", "cr2_bm"), bootstrap_reps=50, seed=5)
    serial = simulate_coverage(census, [5, 10], **kw)
    with get_executor(2) as ex:
        pooled = simulate_coverage(census, [5, 10], executor=ex, **kw)
    assert serial.to_dict() == pooled.to_dict()
