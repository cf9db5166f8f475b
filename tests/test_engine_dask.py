"""The Dask engine: a loopback LocalCluster and a `dask` CLI cluster give the local results.

Run clean under ``python -W error -m pytest tests/test_engine_dask.py``; every test
leaves no process and no scratch folder behind.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

pytest.importorskip("distributed")

import ragstat
from conftest import child_pids
from ragstat.engine import EngineError, get_executor
from ragstat.errors import InputError
from ragstat.records import aggregate_arrays, aggregate_dataset
from ragstat.simulation import Census, simulate_coverage
from test_aggregate_scale import OPTS, assert_same, by_doc_and_position, make_table, write_split

pytestmark = pytest.mark.slow  # Dask clusters (scale-out)

SIM = {"reps": 250, "methods": ("wald_iid", "cr2_bm", "doc_bootstrap_percentile")}
SIM_KW = {**SIM, "bootstrap_reps": 49, "seed": 11}


def _fail(x: int) -> int:
    if x == 2:
        raise InputError("task 2 is bad input")
    if x == 4:
        raise KeyError("a bug")
    return x


@pytest.fixture(scope="module")
def census() -> Census:
    rng = np.random.default_rng(3)
    n = rng.integers(1, 30, 150)
    doc = np.repeat([f"d{i:03d}" for i in range(n.size)], n)
    y = (rng.random(n.sum()) < np.repeat(rng.beta(1, 3, n.size), n)).astype(float)
    strata = np.repeat([f"t{i % 3}" for i in range(n.size)], n)
    return Census.from_docstats(aggregate_arrays(doc, y, stratum=strata))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dask-data")
    table = make_table(seed=4)
    write_split(by_doc_and_position(table), root / "ds", [600, 1500, 1501, 2200])
    pq.write_table(table, root / "all.parquet")
    return root


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """One 2-worker loopback LocalCluster for the module; checks it leaves nothing behind."""
    before = child_pids()
    scratch = tmp_path_factory.mktemp("dask-scratch")
    with get_executor(2, "dask", scratch=scratch) as ex:
        yield ex
    assert child_pids() <= before
    assert not multiprocessing.active_children()
    assert not any((scratch / "dask-scratch-space").glob("worker-*"))


def test_local_cluster_is_loopback_and_tuned(cluster):
    assert cluster.workers == 2
    assert cluster.address.startswith("tcp://127.0.0.1:")
    workers = cluster.client.scheduler_info()["workers"]
    assert all(a.startswith("tcp://127.0.0.1:") for a in workers)
    dashboard = cluster.client.run_on_scheduler(
        lambda dask_scheduler: dask_scheduler.http_server.address
    )
    assert dashboard in (None, "127.0.0.1") or str(dashboard).startswith("127.0.0.1")
    saturation = cluster.client.run_on_scheduler(
        lambda dask_scheduler: dask_scheduler.WORKER_SATURATION
    )
    assert saturation == float("inf")
    trim = cluster.client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_"))
    assert set(trim.values()) == {None}
    assert "MALLOC_TRIM_THRESHOLD_" not in os.environ  # the client's environment is restored


def test_map_order_progress_and_error_types(cluster):
    ticks = []
    assert cluster.map(_fail, [0, 1, 3, 5], on_done=lambda: ticks.append(1)) == [0, 1, 3, 5]
    assert len(ticks) == 4
    assert cluster.map(_fail, []) == []
    with pytest.raises(InputError, match="task 2 is bad input"):
        cluster.map(_fail, [0, 1, 2, 3])
    with pytest.raises(KeyError, match="a bug"):
        cluster.map(_fail, [4])


@pytest.mark.parametrize("design", ["srs", "stratified"])
def test_simulation_identical_to_local(cluster, census, design):
    local = simulate_coverage(census, [6, 9], design=design, **SIM_KW)
    ticks = []
    remote = simulate_coverage(
        census,
        [6, 9],
        design=design,
        executor=cluster,
        progress=lambda done, total: ticks.append((done, total)),
        **SIM_KW,
    )
    assert remote.to_dict() == local.to_dict()
    assert ticks[-1] == (6, 6)


def test_aggregation_identical_to_local(cluster, dataset):
    local = aggregate_dataset(dataset / "ds", **OPTS)
    remote = aggregate_dataset(dataset / "ds", executor=cluster, **OPTS)
    assert_same(local, remote, rtol=0)
    assert_same(ragstat.records.aggregate_file(dataset / "all.parquet", **OPTS), remote)


def test_default_scratch_is_removed(tmp_path, monkeypatch):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))  # the process's temporary folder
    before = child_pids()
    with get_executor(2, "dask") as ex:
        workers_dirs = ex.client.run(lambda dask_worker: dask_worker.local_directory)
        scratch = {Path(d).parents[1] for d in workers_dirs.values()}
        assert len(scratch) == 1
        assert next(iter(scratch)).name.startswith("ragstat-dask-")
        assert ex.map(_fail, [1]) == [1]
    assert not any(p.exists() for p in scratch)
    assert list(tmp.iterdir()) == []  # nothing left in the temporary folder, not even locks
    assert child_pids() <= before


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_scheduler_fails_within_the_timeout(monkeypatch):
    address = f"tcp://127.0.0.1:{_closed_port()}"
    t0 = time.monotonic()
    with pytest.raises(
        EngineError, match=rf"cannot reach the Dask scheduler at {address} within 2 s"
    ):
        get_executor(engine="dask", scheduler=address, connect_timeout=2)
    assert time.monotonic() - t0 < 8
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", address)
    with pytest.raises(EngineError, match="dask scheduler"):
        get_executor(engine="dask", connect_timeout=1)


# --------------------------------------------------------------- a cluster from the dask CLI


def _stop(proc: subprocess.Popen) -> None:
    """Terminate by PID, then its process group (the nanny's worker) if anything is left."""
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


@contextlib.contextmanager
def cli_cluster(tmp: Path, worker_env: dict | None = None, scheduler_env: dict | None = None):
    """`dask scheduler` and one `dask worker` on 127.0.0.1, as separate processes."""
    scheduler = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    file = tmp / "scheduler.json"
    procs = []
    try:
        procs.append(
            subprocess.Popen(
                [
                    *scheduler,
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(file),
                ],
                start_new_session=True,
                env={**os.environ, "TMPDIR": str(tmp), **(scheduler_env or {})},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        deadline = time.monotonic() + 30
        while not file.exists() or not file.read_text().strip():
            if time.monotonic() > deadline or procs[0].poll() is not None:
                raise RuntimeError("the dask scheduler did not start")
            time.sleep(0.1)
        address = json.loads(file.read_text())["address"]
        worker = [
            sys.executable,
            "-m",
            "distributed.cli.dask_worker",
            "--scheduler-file",
            str(file),
        ]
        options = ["--nworkers", "1", "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"]
        procs.append(
            subprocess.Popen(
                [*worker, *options, "--local-directory", str(tmp / "worker")],
                start_new_session=True,
                env={**os.environ, "TMPDIR": str(tmp), **(worker_env or {})},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        yield address
    finally:
        for proc in reversed(procs):
            _stop(proc)


def test_cli_cluster_gives_the_local_results(tmp_path, census, dataset):
    with (
        cli_cluster(tmp_path) as address,
        get_executor(engine="dask", scheduler=address, connect_timeout=60) as ex,
    ):
        assert ex.workers == 1
        remote_sim = simulate_coverage(census, [5], executor=ex, **SIM_KW)
        remote_agg = aggregate_dataset(dataset / "ds", executor=ex, **OPTS)
    assert remote_sim.to_dict() == simulate_coverage(census, [5], **SIM_KW).to_dict()
    assert_same(aggregate_dataset(dataset / "ds", **OPTS), remote_agg, rtol=0)


BLOCKER = """
import sys

class _NoRagstat:
    def find_spec(self, name, path=None, target=None):
        if name == "ragstat" or name.startswith("ragstat."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NoRagstat())
"""


@pytest.mark.parametrize("where", ["worker", "scheduler"])
def test_cluster_without_ragstat_names_the_fix(tmp_path, where):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER)
    env = {"PYTHONPATH": str(site)}
    probe = subprocess.run(
        [sys.executable, "-c", "import ragstat"], env={**os.environ, **env}, capture_output=True
    )
    assert probe.returncode != 0  # the blocker works
    with (
        cli_cluster(tmp_path, **{f"{where}_env": env}) as address,
        pytest.raises(EngineError) as info,
    ):
        get_executor(engine="dask", scheduler=address, connect_timeout=60)
    message = str(info.value)
    assert ("scheduler " if where == "scheduler" else "") + "tcp://127.0.0.1:" in message
    assert "ragstat is not importable" in message
    assert f'pip install "ragstat[dask]=={ragstat.__version__}"' in message
