"""Local executors: serial (1 worker) and a process pool (several); ``get_executor`` picks one."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from ragstat.errors import InputError, RagstatError

__all__ = [
    "ENGINES",
    "EngineError",
    "Executor",
    "ProcessExecutor",
    "SerialExecutor",
    "blocks_of",
    "get_executor",
    "spawn_seeds",
]

#: Engine names accepted by ``get_executor`` and the CLI's ``--engine``.
ENGINES = ("local", "dask")

T = TypeVar("T")
R = TypeVar("R")


class EngineError(RagstatError):
    """The execution engine cannot run the work (scheduler unreachable, worker misconfigured)."""


class Executor(Protocol):
    """Maps a function over batched tasks; a context manager (``close`` frees the workers)."""

    workers: int

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], on_done: Callable[[], None] | None = None
    ) -> list[R]:
        """``[fn(t) for t in tasks]``, in task order; ``on_done`` after each task (progress).

        An exception raised by ``fn`` propagates with its own type.
        """
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...


class _NoopClose:
    def close(self) -> None:
        """Nothing to free: the pool (if any) lives only for the duration of each ``map``."""

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialExecutor(_NoopClose):
    workers = 1

    def map(self, fn, tasks, on_done=None):
        out = []
        for task in tasks:
            out.append(fn(task))
            if on_done is not None:
                on_done()
        return out


class ProcessExecutor(_NoopClose):
    """A pool of local processes; ``fn`` and the tasks must be picklable."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def map(self, fn, tasks, on_done=None):
        out = []
        pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_leave_signals_to_parent)
        try:
            for result in pool.map(fn, tasks):  # results in task order, as they arrive
                out.append(result)
                if on_done is not None:
                    on_done()
        except BaseException:  # an error or a signal: stop the workers now, not after their tasks
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        return out


def _leave_signals_to_parent() -> None:
    """Workers ignore Ctrl-C (sent to the whole process group) and end quietly on SIGTERM:
    the parent stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def get_executor(
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    *,
    scratch: Path | None = None,
    connect_timeout: float = 10.0,
) -> Executor:
    """An executor for ``engine``: ``local`` (serial for one worker, else a process pool) or
    ``dask`` (see :func:`ragstat.engine.dask.dask_executor` for the scheduler and ``workers``).

    Use it as a context manager so that a Dask cluster started here is shut down.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be a positive whole number, got {workers!r}")
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    if engine == "dask":
        from ragstat.engine.dask import dask_executor

        return dask_executor(workers, scheduler, scratch=scratch, connect_timeout=connect_timeout)
    if scheduler is not None:
        raise InputError("--scheduler applies to --engine dask only")
    return SerialExecutor() if workers == 1 else ProcessExecutor(workers)


def spawn_seeds(seed: int, blocks: int, key: tuple[int, ...] = ()) -> list[np.random.SeedSequence]:
    """One independent seed sequence per block, fixed by ``seed`` (and ``key``, e.g. K) alone."""
    return np.random.SeedSequence([seed, *key] if key else seed).spawn(blocks)


def blocks_of(total: int, size: int) -> Iterable[tuple[int, int]]:
    """(start, stop) ranges of ``size`` covering ``total`` (the last may be shorter)."""
    for start in range(0, total, size):
        yield start, min(start + size, total)
