"""Small courtesies of the command line and the package: ``--version``, a closed pipe,
a missing optional package named by its extra, and ``dir(ragstat)``."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import ragstat
from cli_run import cli
from ragstat.errors import EXTRA_OF, BackendUnavailable, missing_extra

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ROOT / "tests" / "fixtures" / "formats"


def test_version_option_prints_the_installed_version(capsys):
    rc, out, err = cli(capsys, "--version")
    assert rc == 0 and err == ""
    assert out == f"ragstat {ragstat.__version__}\n"
    assert ragstat.__version__ == importlib.metadata.version("ragstat")


def test_version_is_declared_once():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in project["project"]["dynamic"]  # read from ragstat/__init__.py
    assert project["tool"]["hatch"]["version"]["path"] == "src/ragstat/__init__.py"


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("interval", FORMATS / "interval" / "results.csv", "--score", "hit"),
        ("interval", FORMATS / "interval" / "results.csv", "--score", "hit", "--json"),
    ],
    ids=["help", "interval", "interval-json"],
)
def test_a_closed_pipe_exits_0_quietly(args):
    """``ragstat … | head -1``: the reader went away before ragstat wrote; what was wanted
    was read, so exit 0 and nothing on stderr (no traceback, no "Exception ignored")."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragstat", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "RAGSTAT_REGISTRY": "off"},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first write
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert err == ""


def _without(monkeypatch, *modules: str) -> None:
    """Make ``import MODULE`` fail as it does when the package is not installed."""
    for name in list(sys.modules):
        if name.split(".")[0] in modules:
            monkeypatch.delitem(sys.modules, name)
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.parametrize(
    ("modules", "args", "extra"),
    [
        (("apted",), ("extraction", FORMATS / "extraction" / "items.jsonl"), "extraction"),
        (("seqeval",), ("extraction", FORMATS / "extraction" / "items.jsonl"), "extraction"),
        (("rapidfuzz",), ("extraction", FORMATS / "extraction" / "items.jsonl"), "extraction"),
        (("jiwer",), ("ingestion", FORMATS / "ingestion" / "pages.jsonl"), "ingestion"),
        (
            ("dask", "distributed"),
            (
                "interval",
                FORMATS / "interval" / "results.csv",
                "--score",
                "hit",
                "--engine",
                "dask",
            ),
            "dask",
        ),
        (("uvicorn",), ("ui", "--registry", "REGISTRY"), "ui"),
    ],
    ids=["apted", "seqeval", "rapidfuzz", "jiwer", "dask", "uvicorn"],
)
def test_a_missing_optional_package_names_its_extra(
    capsys, monkeypatch, tmp_path, modules, args, extra
):
    _without(monkeypatch, *modules)
    registry = tmp_path / "runs.sqlite"  # the server stops before reading it
    argv = [str(registry) if a == "REGISTRY" else a for a in args]
    rc, _, err = cli(capsys, *argv)  # exit 2 is one "ragstat: error:" line (cli checks)
    assert rc == 2, err
    assert f"ragstat[{extra}]" in err


def test_missing_extra_reads_the_cause_chain():
    wrapped = RuntimeError("while scoring")
    wrapped.__cause__ = ModuleNotFoundError("No module named 'apted.helpers'", name="apted.helpers")
    named = missing_extra(wrapped)
    assert isinstance(named, BackendUnavailable) and "ragstat[extraction]" in str(named)
    assert missing_extra(RuntimeError("no cause")) is None
    assert missing_extra(ModuleNotFoundError("x", name="numpy")) is None  # not optional


def test_every_optional_import_maps_to_an_extra_that_exists():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = project["project"]["optional-dependencies"]
    assert set(EXTRA_OF.values()) <= set(extras)
    for module, extra in EXTRA_OF.items():
        packages = " ".join(extras[extra]).lower().replace("-", "_")
        assert module in packages or module in {"distributed", "transformers"}, module


def test_dir_shows_only_the_public_names():
    assert dir(ragstat) == sorted(ragstat.__all__)
    for name in ragstat.__all__:
        assert getattr(ragstat, name) is not None
