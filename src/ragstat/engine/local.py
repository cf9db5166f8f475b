"""Local executors: serial (1 worker) and a process pool (several)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Protocol, TypeVar

import numpy as np

from ragstat.errors import InputError

__all__ = ["Executor", "ProcessExecutor", "SerialExecutor", "get_executor", "spawn_seeds"]

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    workers: int

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], on_done: Callable[[], None] | None = None
    ) -> list[R]:
        """``[fn(t) for t in tasks]``, in task order; ``on_done`` after each task (progress)."""
        ...


class SerialExecutor:
    workers = 1

    def map(self, fn, tasks, on_done=None):
        out = []
        for task in tasks:
            out.append(fn(task))
            if on_done is not None:
                on_done()
        return out


class ProcessExecutor:
    """A pool of local processes; ``fn`` and the tasks must be picklable."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def map(self, fn, tasks, on_done=None):
        out = []
        with ProcessPoolExecutor(max_workers=self.workers) as pool:
            for result in pool.map(fn, tasks):  # results in task order, as they arrive
                out.append(result)
                if on_done is not None:
                    on_done()
        return out


def get_executor(workers: int = 1) -> Executor:
    """Serial for one worker, a process pool for more."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be a positive whole number, got {workers!r}")
    return SerialExecutor() if workers == 1 else ProcessExecutor(workers)


def spawn_seeds(seed: int, blocks: int, key: tuple[int, ...] = ()) -> list[np.random.SeedSequence]:
    """One independent seed sequence per block, fixed by ``seed`` (and ``key``, e.g. K) alone."""
    return np.random.SeedSequence([seed, *key] if key else seed).spawn(blocks)


def blocks_of(total: int, size: int) -> Iterable[tuple[int, int]]:
    """(start, stop) ranges of ``size`` covering ``total`` (the last may be shorter)."""
    for start in range(0, total, size):
        yield start, min(start + size, total)
