"""Dask distributed executor: the same batched tasks, on a cluster the user already has.

``dask_executor`` connects to a scheduler (``--scheduler ADDRESS`` or the
``DASK_SCHEDULER_ADDRESS`` environment variable) or, without an address, starts a
``LocalCluster`` bound to loopback only (scheduler, workers and dashboard on
127.0.0.1; scratch space in a temporary folder removed on close). Tasks are the
engine-independent blocks of ``ragstat.engine`` (each with its own spawned seed),
so results are identical to the local engine for the same seed.

Dask is an optional extra, imported only here: ``pip install "ragstat[dask]"``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ragstat.engine.local import EngineError
from ragstat.errors import BackendUnavailable, RagstatError

__all__ = ["DaskExecutor", "dask_executor"]

_INSTALL = 'pip install "ragstat[dask]"'

#: Evaluated on every worker (a builtin, so the probe itself needs no ragstat to unpickle).
_PROBE = "__import__('ragstat').__version__"

# Two distributed defaults slow the numpy-heavy tasks ragstat sends; both are turned off
# for the LocalCluster started here (a user's own cluster keeps its own configuration):
# - the nanny exports MALLOC_TRIM_THRESHOLD_=65536 to its workers (to hand freed memory back
#   to the OS). Setting the threshold explicitly switches off glibc's dynamic mmap threshold,
#   so every large numpy temporary is mmap'ed and page-faulted afresh: None removes the
#   variable (distributed's documented way to unset a pre-spawn variable).
# - worker-saturation 1.1 turns on scheduler-side queuing, which holds tasks back until a
#   worker reports a free thread: a network round trip between coarse, independent numpy
#   blocks that keeps the worker idle. inf sends every task to the workers up front.
# A third setting keeps the worker processes quiet: they write to this process's stderr, and
# at shutdown they log heartbeat failures and CommClosedError tracebacks (a task's own error
# reaches the client as an exception; a dead worker as KilledWorker).
_LOCAL_CONFIG = {
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.nanny.pre-spawn-environ.DASK_LOGGING__DISTRIBUTED": "critical",
    "distributed.scheduler.worker-saturation": math.inf,
}

#: Loggers of the client, scheduler and nanny that run in this process (and of their
#: event loop), quietened while an executor runs and silenced while it shuts down.
_LOGGERS = ("distributed", "tornado", "asyncio", "bokeh")
_OFF = logging.CRITICAL + 1
_CLOSE_TIMEOUT = 10.0


@contextlib.contextmanager
def quiet_logs(level: int = _OFF) -> Iterator[None]:
    """Raise distributed's (and tornado's, asyncio's) loggers in this process to at least
    ``level`` (default: off), restoring each logger's own level on exit."""
    names = {
        name
        for name in list(logging.Logger.manager.loggerDict)
        if name.split(".", 1)[0] in _LOGGERS
    }
    saved: dict[str, int] = {}
    for name in sorted({*_LOGGERS, *names}):
        logger = logging.getLogger(name)
        saved[name] = logger.level
        logger.setLevel(max(level, logger.getEffectiveLevel()))
    try:
        yield
    finally:
        for name, old in saved.items():
            logging.getLogger(name).setLevel(old)


class _Raised:
    """A user error (RagstatError) raised by a task, returned instead of logged by the worker."""

    def __init__(self, error: RagstatError) -> None:
        self.error = error


class _Guarded:
    """``fn`` with its RagstatErrors returned as values: expected input errors reach the user
    as one clean exception, while the worker keeps logging genuine failures."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "task")

    def __call__(self, task):
        try:
            return self.fn(task)
        except RagstatError as exc:
            return _Raised(exc)


def _import_distributed():
    try:
        import dask
        import distributed
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise BackendUnavailable(f"the Dask engine needs dask and distributed: {_INSTALL}") from exc
    return dask, distributed


class DaskExecutor:
    """Runs ``map`` on a ``distributed.Client``; ``close`` stops what it started.

    ``workers`` is the number of workers connected when the executor was created.
    """

    def __init__(
        self,
        client,
        cluster=None,
        scratch: tempfile.TemporaryDirectory | None = None,
        quiet: contextlib.ExitStack | None = None,
    ):
        self.client = client
        self._cluster = cluster
        self._scratch = scratch
        self._quiet = quiet  # the quietened loggers, restored by close
        self.workers = len(client.scheduler_info()["workers"])

    @property
    def address(self) -> str:
        return self.client.scheduler.address

    def map(self, fn: Callable, tasks: Sequence, on_done: Callable[[], None] | None = None) -> list:
        """``[fn(t) for t in tasks]`` as Dask tasks, in task order; the first error is re-raised
        with its own type (the remaining tasks are cancelled)."""
        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        if not tasks:
            return []
        guarded, token = _Guarded(fn), uuid.uuid4().hex  # keys named after fn on the dashboard
        keys = [f"{guarded.__name__}-{token}-{i}" for i in range(len(tasks))]
        futures = self.client.map(guarded, list(tasks), key=keys, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        out: list = [None] * len(futures)
        try:
            for future in as_completed(futures, loop=self.client.loop):
                value = future.result()  # a bug in fn raises here, with its own type
                if isinstance(value, _Raised):
                    raise value.error
                out[index[future.key]] = value
                if on_done is not None:
                    on_done()
            return out
        except KilledWorker as exc:
            raise EngineError(
                f"a Dask worker died while running {getattr(fn, '__name__', fn)} "
                f"(out of memory? see the worker logs): {exc}"
            ) from exc
        finally:
            self.client.cancel([f for f in futures if not f.done()])
            del futures

    def close(self) -> None:
        """Disconnect; shut down the LocalCluster and remove its scratch space, if started here.

        Silent: the client is closed before the cluster, each within a timeout, with
        distributed's loggers off (a closing cluster logs heartbeat and connection errors
        that say nothing about the results).
        """
        client, cluster, scratch, quiet = self.client, self._cluster, self._scratch, self._quiet
        self._cluster = self._scratch = self._quiet = None
        try:
            with quiet_logs():
                _shut(client, cluster)
        finally:
            try:
                if scratch is not None:
                    scratch.cleanup()
            finally:
                if quiet is not None:
                    quiet.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def dask_executor(
    workers: int = 1,
    scheduler: str | None = None,
    *,
    scratch: Path | None = None,
    connect_timeout: float = 10.0,
) -> DaskExecutor:
    """Connect to ``scheduler`` (else ``DASK_SCHEDULER_ADDRESS``) or start a loopback LocalCluster.

    For a LocalCluster, ``workers`` single-threaded worker processes are started;
    ``workers=1`` (the CLI default, i.e. not chosen) means one per available core.
    ``scratch`` is the workers' local directory (default: a temporary folder removed on
    close). With a scheduler address, ``workers`` is ignored: the cluster's workers are used.
    """
    _import_distributed()
    address = scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if address is not None:
        return _connect(address, connect_timeout)
    return _local_cluster(workers, scratch)


def _check_address(address: str) -> None:
    """A malformed address, or an ``inproc://`` one with no scheduler in this process, fails
    here at once (a client would wait for the timeout, then warn again when collected)."""
    from distributed.comm import parse_address, parse_host_port

    fix = "give the tcp://HOST:PORT of a running scheduler in --scheduler or DASK_SCHEDULER_ADDRESS"
    try:
        scheme, location = parse_address(address)
        if scheme not in ("tcp", "tls", "ws", "wss", "ucx", "inproc"):
            raise ValueError(f"unknown protocol {scheme!r}")
        if scheme != "inproc":
            parse_host_port(location)  # a missing or non-numeric port is an error here
    except (ValueError, TypeError) as exc:
        raise EngineError(f"{address!r} is not a Dask scheduler address ({exc}): {fix}") from None
    if scheme == "inproc" and not _inproc_listening(location):
        raise EngineError(
            f"{address!r} names a scheduler inside this process, and none runs here "
            f"(inproc:// addresses cannot be reached from another process): {fix}"
        )


def _inproc_listening(location: str) -> bool:
    from distributed.comm.inproc import global_manager

    with global_manager.lock:
        return global_manager.listeners.get(location) is not None


def _connect(address: str, timeout: float) -> DaskExecutor:
    from distributed import Client

    _check_address(address)
    quiet = contextlib.ExitStack()
    quiet.enter_context(quiet_logs(logging.ERROR))
    try:
        try:
            client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError, RuntimeError, ImportError) as exc:
            raise EngineError(
                f"cannot reach the Dask scheduler at {address} within {timeout:g} s: "
                "start one with `dask scheduler` or check --scheduler / DASK_SCHEDULER_ADDRESS"
            ) from exc
        try:
            _wait_for_workers(client, address, timeout)
        except BaseException:
            with quiet_logs():
                _shut(client, None)
            raise
    except BaseException:
        quiet.close()
        raise
    return DaskExecutor(client, quiet=quiet)


def _wait_for_workers(client, address: str, timeout: float) -> None:
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise EngineError(
            f"no Dask worker joined the scheduler at {address} within {timeout:g} s: "
            "start workers with `dask worker ADDRESS`"
        ) from exc
    check_workers(client)


def _shut(client, cluster) -> None:
    """Close the client, then the cluster (if any), each within ``_CLOSE_TIMEOUT``: a peer
    already gone or a slow goodbye is no error once the results are in."""
    try:
        with contextlib.suppress(OSError, TimeoutError):
            client.close(timeout=_CLOSE_TIMEOUT)
    finally:
        if cluster is not None:
            with contextlib.suppress(OSError, TimeoutError):
                cluster.close(timeout=_CLOSE_TIMEOUT)


def _local_cluster(workers: int, scratch: Path | None) -> DaskExecutor:
    dask, _ = _import_distributed()
    from distributed import Client, LocalCluster

    n = workers if workers > 1 else max(1, len(os.sched_getaffinity(0)))
    tmp = None
    if scratch is None:
        tmp = tempfile.TemporaryDirectory(prefix="ragstat-dask-", ignore_cleanup_errors=True)
        scratch = Path(tmp.name)
    environ = dict(os.environ)  # the nanny writes its pre-spawn variables into our environment
    cluster = None
    quiet = contextlib.ExitStack()
    quiet.enter_context(quiet_logs(logging.ERROR))
    try:
        # The scheduler's scratch space (its lock files) goes with the workers', not to /tmp.
        with dask.config.set({**_LOCAL_CONFIG, "temporary-directory": str(scratch)}):
            cluster = LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                local_directory=str(scratch),
            )
        client = Client(cluster, set_as_default=False)
    except BaseException:
        try:
            if cluster is not None:
                with quiet_logs():
                    cluster.close(timeout=_CLOSE_TIMEOUT)
            if tmp is not None:
                tmp.cleanup()
        finally:
            quiet.close()
        raise
    finally:
        os.environ.clear()
        os.environ.update(environ)
    return DaskExecutor(client, cluster, tmp, quiet)


def check_workers(client) -> None:
    """The scheduler (it unpickles the task graph) and every worker must import ragstat, at
    the client's version; else an error naming the machines and the fix."""
    from ragstat import __version__

    found = client.run(eval, _PROBE, on_error="return")
    try:
        found[f"scheduler {client.scheduler.address}"] = client.run_on_scheduler(eval, _PROBE)
    except Exception as exc:
        found[f"scheduler {client.scheduler.address}"] = exc
    bad = {addr: v for addr, v in sorted(found.items()) if v != __version__}
    if not bad:
        return
    what = "; ".join(
        f"{addr}: {'ragstat ' + v if isinstance(v, str) else _why(v)}" for addr, v in bad.items()
    )
    raise EngineError(
        f"the Dask cluster lacks a usable ragstat — {what}. Install ragstat on the scheduler "
        f'and every worker: pip install "ragstat[dask]=={__version__}" (the same version as '
        f"the client, {__version__}), then restart them"
    )


def _why(exc: object) -> str:
    if isinstance(exc, ImportError):
        return "ragstat is not importable"
    return f"ragstat check failed ({type(exc).__name__}: {exc})"
