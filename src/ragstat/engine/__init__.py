"""Executors that map a function over batched tasks: serial, local processes, or Dask.

Tasks carry their own `numpy.random.SeedSequence` (spawned once from the run's
seed, one per block of fixed size), so results do not depend on the engine, how
many workers run them, or in which order they finish. Dask (the ``dask`` extra)
is imported only when ``engine="dask"`` is chosen.
"""

from ragstat.engine.local import (
    ENGINES,
    EngineError,
    Executor,
    ProcessExecutor,
    SerialExecutor,
    blocks_of,
    get_executor,
    spawn_seeds,
)

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
