"""Executors that map a function over batched tasks: serial, local processes (Dask: scale-out issue).

Tasks carry their own `numpy.random.SeedSequence` (spawned once from the run's
seed, one per block of fixed size), so results do not depend on how many
workers run them or in which order they finish.
"""

from ragstat.engine.local import ProcessExecutor, SerialExecutor, get_executor, spawn_seeds

__all__ = ["ProcessExecutor", "SerialExecutor", "get_executor", "spawn_seeds"]
