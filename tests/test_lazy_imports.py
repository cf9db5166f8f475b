"""The command line starts light: ``import ragstat``, ``import ragstat.cli`` and every
``--help`` leave the numerical and data libraries unimported (issue 20).

A test of module sets, not of time (``benchmarks/bench_cli_start.py`` times it). Each
check runs in a fresh interpreter, since this test process has imported everything.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

#: Libraries the start of ``ragstat`` must not import (each takes 0.1–2 s).
HEAVY = (
    "pandas",
    "scipy",
    "duckdb",
    "matplotlib",
    "bm25s",
    "torch",
    "sklearn",
    "numba",
    "pyarrow",
    "numpy",
)

PRELUDE = f"""
import json, sys
HEAVY = {HEAVY!r}

def heavy():
    return sorted({{m.split(".")[0] for m in sys.modules}} & set(HEAVY))
"""


def run_python(body: str) -> dict:
    """Run ``body`` in a fresh interpreter; it prints one JSON object as its last line."""
    code = PRELUDE + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_ragstat_is_light():
    out = run_python(
        """
        import ragstat
        print(json.dumps({"heavy": heavy()}))
        """
    )
    assert out["heavy"] == []


def test_import_cli_is_light():
    out = run_python(
        """
        import ragstat.cli
        print(json.dumps({"heavy": heavy()}))
        """
    )
    assert out["heavy"] == []


def test_every_help_is_light():
    """``ragstat --help``, each verb's and each ``runs`` command's: exit 0, nothing heavy.
    The first command that pulls a library in is the one named."""
    out = run_python(
        """
        import contextlib, io
        from ragstat import cli

        commands = [[]]
        commands += [[c.name] for c in cli.app.registered_commands]
        for group in cli.app.registered_groups:
            commands.append([group.name])
            commands += [[group.name, c.name] for c in group.typer_instance.registered_commands]
        pulled = {"(import ragstat.cli)": heavy()} if heavy() else {}
        codes = {}
        for words in commands:
            before = set(heavy())
            with contextlib.redirect_stdout(io.StringIO()) as text:
                codes[" ".join(words)] = (cli.main([*words, "--help"]), len(text.getvalue()))
            new = sorted(set(heavy()) - before)
            if new:
                pulled[" ".join(words) or "(ragstat)"] = new
        print(json.dumps({"pulled": pulled, "codes": codes}))
        """
    )
    assert out["pulled"] == {}
    assert len(out["codes"]) > 20  # every verb and the runs commands were rendered
    for words, (code, length) in out["codes"].items():
        assert code == 0, words
        assert length > 100, words  # a help text was printed


def test_console_script_help_is_light():
    """The entry point (`python -m ragstat`, as the console script) with ``--help``."""
    out = run_python(
        """
        import atexit, runpy
        atexit.register(lambda: print(json.dumps({"heavy": heavy()})))
        sys.argv = ["ragstat", "interval", "--help"]
        runpy.run_module("ragstat", run_name="__main__")
        """
    )
    assert out["heavy"] == []


def test_help_is_drawn_without_rich():
    """The help is click's plain layout: typer's rich help (``typer.rich_utils``) imports
    rich.markdown and rich.traceback, about 0.2 s, more than the start-up budget."""
    out = run_python(
        """
        import contextlib, io
        from ragstat.cli import main

        with contextlib.redirect_stdout(io.StringIO()) as text:
            codes = [main(["--help"]), main(["interval", "--help"])]
        loaded = sorted(m for m in ("typer.rich_utils", "rich.markdown") if m in sys.modules)
        print(json.dumps({"codes": codes, "loaded": loaded, "text": text.getvalue()}))
        """
    )
    assert out["codes"] == [0, 0] and out["loaded"] == []
    assert "--cluster" in out["text"] and "docs/formats/" in out["text"]


def test_verb_help_skips_pydantic_when_typer_allows():
    """Typer builds a pydantic adapter for a flag whose value is not a bool; the command
    groups (``cli.verb.Group``) give their unused ``--help`` False, so none is built."""
    out = run_python(
        """
        import typer
        before = "pydantic" in sys.modules
        import contextlib, io
        from ragstat.cli import main

        with contextlib.redirect_stdout(io.StringIO()):
            main(["runs", "list", "--help"])
        print(json.dumps({"before": before, "after": "pydantic" in sys.modules}))
        """
    )
    if out["before"]:
        pytest.skip("this typer imports pydantic itself")
    assert out["after"] is False


def test_lazy_names_still_load_on_demand():
    out = run_python(
        """
        import ragstat
        fn = ragstat.interval
        import ragstat.inference as inference
        from ragstat.inference import METHODS, DEFAULT_REPS, analyze, se_cr1
        from ragstat.inference import methods
        from ragstat.registry import Manifest, Registry, locate_registry
        print(json.dumps({
            "interval": callable(fn) and fn.__name__ == "interval",
            "analyze": callable(analyze) and inference.analyze is analyze,
            "methods": methods.__name__,
            "se_cr1": callable(se_cr1),
            "METHODS": list(METHODS),
            "DEFAULT_REPS": DEFAULT_REPS,
            "registry": [Manifest.__name__, Registry.__name__, callable(locate_registry)],
            "heavy": heavy(),
        }))
        """
    )
    assert out["interval"] and out["analyze"] and out["se_cr1"]
    assert out["methods"] == "ragstat.inference.methods"
    assert out["registry"] == ["Manifest", "Registry", True]
    assert "numpy" in out["heavy"]  # the lazy names did load their modules


def test_analyze_stays_the_function_after_its_module_loads():
    """``ragstat.inference.analyze`` names the function, as when the package imported
    everything at once, even when the submodule of that name is imported first."""
    out = run_python(
        """
        from ragstat.inference.analyze import RECOMMENDED
        import ragstat.inference as inference
        import ragstat.inference.analyze as module_or_function
        print(json.dumps({
            "attribute": type(inference.analyze).__name__,
            "import_as": type(module_or_function).__name__,
        }))
        """
    )
    assert out == {"attribute": "function", "import_as": "function"}


def test_light_names_agree_with_the_modules_that_compute():
    from ragstat.inference import analyze as analyze_function
    from ragstat.inference import designs, names, results

    module = sys.modules["ragstat.inference.analyze"]
    assert analyze_function is module.analyze
    assert names.METHODS == results.METHODS
    assert names.NAIVE_METHODS == results.NAIVE_METHODS
    assert names.DEFAULT_REPS == module.DEFAULT_REPS
    assert names.DESIGNS == designs.DESIGNS
    assert set(names.METHODS) >= {m for ms in module.APPLICABLE.values() for m in ms}
