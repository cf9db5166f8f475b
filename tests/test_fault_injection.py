"""Output folders are transactions: kill a run anywhere and --out holds the previous complete
result (byte-identical) or the new complete one — never a mix.

Each fault runs the real command in a child process with one function wrapped so that the
process signals itself at a chosen moment: while working, between two output files, just
before and just after the atomic swap. A full disk is an injected ``OSError(ENOSPC)``.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import NOTE, assert_complete, leftovers, snapshot, write_corpus
from ragstat.cli import main

pytestmark = pytest.mark.slow  # fault injection: processes killed at every stage

IR = Path(__file__).parent / "reference" / "ir"

# The child: wrap TARGETS (module:attr,…) so that call number N sends SIG to the process,
# before or after the real call; then run the command line as the console script does.
RUNNER = r"""
import importlib, os, signal, sys, time
targets, nth, sig, when = os.environ["FAULT"].split("|")
count = [0]
def wrap(orig):
    def fault(*args, **kwargs):
        count[0] += 1
        hit = count[0] == int(nth)
        if hit and when == "before":
            os.kill(os.getpid(), getattr(signal, sig)); time.sleep(0.5 if sig != "SIGKILL" else 30)
        out = orig(*args, **kwargs)
        if hit and when == "after":
            os.kill(os.getpid(), getattr(signal, sig)); time.sleep(0.5 if sig != "SIGKILL" else 30)
        return out
    return fault
for target in targets.split(","):
    mod, attr = target.split(":")
    m = importlib.import_module(mod)
    setattr(m, attr, wrap(getattr(m, attr)))
sys.argv = ["ragstat", *sys.argv[1:]]
from ragstat._entry import run
run()
"""

WRITES = "ragstat.atomic:atomic_write,ragstat.selfretrieval.output:atomic_write"
WORK = {
    "study": "ragstat.cli.study:load_corpus",
    "interval": "ragstat.api.verbs.interval:aggregate_path",
    "simulate": "ragstat.simulation:simulate_coverage",
    "evaluate": "ragstat.metrics:read_qrels",
}
FAULTS = {
    "sigint-while-working": ("work", 1, "SIGINT", "before"),
    "sigterm-between-files": (WRITES, 2, "SIGTERM", "before"),
    "sigkill-between-files": (WRITES, 2, "SIGKILL", "after"),
    "sigint-before-swap": ("ragstat.outfolder:_exchange", 1, "SIGINT", "before"),
    "sigkill-before-swap": ("ragstat.outfolder:_exchange", 1, "SIGKILL", "before"),
    "sigkill-after-swap": ("ragstat.outfolder:_exchange", 1, "SIGKILL", "after"),
}


def _queries(path: Path) -> Path:
    rng = np.random.default_rng(3)
    n = rng.integers(1, 9, 40)
    doc = np.repeat([f"doc{i}" for i in range(40)], n)
    p = np.repeat(rng.beta(2, 2, 40), n)
    hit = (rng.random(n.sum()) < p).astype(int)
    pd.DataFrame({"query_id": np.arange(n.sum()), "doc_id": doc, "hit": hit}).to_csv(
        path, index=False
    )
    return path


def _commands(data: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Per verb: the first run (a complete previous result) and the run that gets killed."""
    corpus, table = str(data / "corpus.jsonl"), str(data / "queries.csv")
    ev = ["--qrels", str(IR / "qrels.trec"), "--run", str(IR / "run_a.trec")]
    sim = [table, "--k", "5", "--methods", "cr1,t_rates,wald_iid"]
    return {
        "study": (
            ["study", corpus, "--retrievers", "bm25,tfidf", "--quiet"],
            ["study", corpus, "--retrievers", "bm25", "--quiet"],
        ),
        "interval": (
            ["interval", table, "--seed", "1", "--bootstrap-reps", "199"],
            ["interval", table, "--seed", "2", "--bootstrap-reps", "299"],
        ),
        "simulate": (
            [*("simulate", *sim), "--reps", "200"],
            [*("simulate", *sim), "--reps", "300"],
        ),
        "evaluate": (
            ["evaluate", *ev, "--metrics", "ndcg@10", "--bootstrap-reps", "199"],
            ["evaluate", *ev, "--metrics", "mrr,map", "--bootstrap-reps", "199"],
        ),
    }


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """One complete previous result per verb (made once), with a note of the user's in it."""
    root = tmp_path_factory.mktemp("faults")
    data = root / "data"
    data.mkdir()
    write_corpus(data / "corpus.jsonl")
    _queries(data / "queries.csv")
    commands = _commands(data)
    os.environ["RAGSTAT_REGISTRY"] = str(root / "setup-registry.sqlite")
    try:
        for verb, (first, _) in commands.items():
            out = root / f"prev-{verb}"
            assert main([*first, "--out", str(out)]) == 0, verb
            (out / NOTE).write_text("mine\n")
    finally:
        del os.environ["RAGSTAT_REGISTRY"]
    return root, commands


def _child(args: list[str], fault: tuple, verb: str, env_registry: str):
    targets, nth, sig, when = fault
    targets = WORK[verb] if targets == "work" else targets
    env = {**os.environ, "FAULT": f"{targets}|{nth}|{sig}|{when}"}
    env["RAGSTAT_REGISTRY"] = env_registry
    env.pop("RAGSTAT_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-c", RUNNER, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


#: Every fault for one verb; the publish step is shared, so the others get one fault of each
#: phase (working, writing, swapping) — the suite stays CI-sized.
CASES = [("interval", fault) for fault in FAULTS] + [
    (verb, fault)
    for verb in ("study", "simulate", "evaluate")
    for fault in ("sigint-while-working", "sigterm-between-files", "sigkill-after-swap")
]


@pytest.mark.parametrize(("verb", "fault"), CASES)
def test_killed_run_leaves_previous_or_new_complete_result(
    prepared, tmp_path, monkeypatch, verb, fault
):
    root, commands = prepared
    out = tmp_path / "out"
    shutil.copytree(root / f"prev-{verb}", out)
    before = snapshot(out)
    registry = str(tmp_path / "registry.sqlite")
    spec = FAULTS[fault]
    done = _child([*commands[verb][1], "--out", str(out)], spec, verb, registry)
    sig = spec[2]
    assert "Traceback" not in done.stderr, done.stderr
    expected = {"SIGINT": 130, "SIGTERM": 143, "SIGKILL": -signal.SIGKILL}[sig]
    assert done.returncode == expected, done.stderr
    after = snapshot(out)
    if sig != "SIGKILL":
        published = " (after its result was published)" if after != before else ""
        assert done.stderr.strip().splitlines() == [f"ragstat: interrupted by {sig}{published}"]
    if after != before:  # only a publish may change it: then the new run is whole
        assert fault in ("sigint-before-swap", "sigkill-after-swap"), fault
        assert_complete(out)
        assert after[NOTE] == b"mine\n"
    if sig != "SIGKILL":
        assert leftovers(out) == []
        _assert_recorded(registry, "ok" if after != before else "interrupted", sig)
    else:  # whatever a kill left beside --out is named incomplete, and the next run clears it
        assert all(".ragstat-incomplete-" in name for name in leftovers(out))
        monkeypatch.setenv("RAGSTAT_REGISTRY", registry)
        assert main([*commands[verb][1], "--out", str(out)]) == 0
        assert leftovers(out) == []
        assert_complete(out)
        assert (out / NOTE).read_text() == "mine\n"


def _assert_recorded(registry: str, status: str, sig: str) -> None:
    from ragstat.registry import Registry

    runs = Registry(registry).list()
    assert [r.status for r in runs] == [status]
    if status == "interrupted":
        assert runs[0].error == f"interrupted by {sig}"


@pytest.mark.parametrize("verb", ["study", "interval", "simulate", "evaluate"])
def test_full_disk_keeps_previous_result(prepared, tmp_path, monkeypatch, capsys, verb):
    """ENOSPC on the second output file: exit 2, one line, --out byte-identical."""
    import ragstat.atomic
    import ragstat.selfretrieval.output

    root, commands = prepared
    out = tmp_path / "out"
    shutil.copytree(root / f"prev-{verb}", out)
    before = snapshot(out)
    calls = [0]
    real = ragstat.atomic.atomic_write

    def full(path, write):
        calls[0] += 1
        if calls[0] == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, write)

    monkeypatch.setattr(ragstat.atomic, "atomic_write", full)
    monkeypatch.setattr(ragstat.selfretrieval.output, "atomic_write", full)
    capsys.readouterr()
    assert main([*commands[verb][1], "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ragstat: error: No space left on device"), err
    assert snapshot(out) == before
    assert leftovers(out) == []


@pytest.fixture
def tiny_disk(tmp_path):
    """A tmpfs of 64 pages (needs root and mount; skipped elsewhere)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    size = 64 * 4096
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount, size
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_real_full_disk_keeps_previous_result(prepared, tiny_disk, capsys):
    """A real full disk: the previous interval result fills most of a small tmpfs, so the
    next run cannot stage a second copy."""
    root, commands = prepared
    mount, size = tiny_disk
    out = mount / "out"
    shutil.copytree(root / "prev-interval", out)
    used = sum(-(-len(b) // 4096) * 4096 for b in snapshot(out).values())
    (mount / "filler").write_bytes(b"\0" * max(0, size - used - 12 * 4096))
    before = snapshot(out)
    capsys.readouterr()
    assert main([*commands["interval"][1], "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ragstat: error: No space left on device"), err
    assert snapshot(out) == before
    assert leftovers(out) == []
