"""Issue 28: exit codes that mean one thing (the table in ``ragstat.cli``'s docstring).

0 ok · 1 a gate failed (only that) · 2 bad input or a machine error, one line · 3 an
internal error with the debug hint · 130/143 SIGINT/SIGTERM, DuckDB reads included.
"""

from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pandas as pd
import pytest
import typer

import ragstat.cli as cli
from ragstat import signals
from ragstat.cli import main
from ragstat.records import duck


def _app(monkeypatch, body) -> None:
    """Stand a one-verb app in for ragstat's (the verb ``boom`` runs ``body``)."""
    app = typer.Typer(pretty_exceptions_enable=False)
    app.callback()(lambda: None)
    app.command("boom")(body)
    monkeypatch.setattr(cli, "app", app)


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("ragstat: error: ") and "Traceback" not in err
    return lines[0]


def test_0_when_the_command_does_what_was_asked(capsys):
    assert main(["plan", "--sd", "0.3", "--documents", "40"]) == 0
    assert "documents" in capsys.readouterr().out


def test_1_only_when_a_gate_fails(tmp_path, capsys):
    rng = np.random.default_rng(5)
    doc = np.repeat(np.arange(30), 5)
    table = pd.DataFrame({"doc_id": doc, "hit1": (rng.random(doc.size) < 0.5).astype(int)})
    records = tmp_path / "records.parquet"
    table.to_parquet(records)
    gates = tmp_path / "gates.toml"
    gates.write_text(
        f'seed = 1\nbootstrap_reps = 199\n[inputs.candidate]\npath = "{records}"\n'
        '[[gates]]\nname = "high"\nkind = "at_least"\nmetric = "hit1"\nthreshold = 0.95\n',
        encoding="utf-8",
    )
    assert main(["gate", str(gates)]) == 1
    capsys.readouterr()
    # the same table through every other failure path never gives 1
    assert main(["interval", str(records), "--score", "nope"]) == 2
    assert main(["interval", str(records), "--no-such-option"]) == 2
    assert cli.EXIT_GATE_FAILED == 1


@pytest.mark.parametrize(
    "argv, words",
    [
        (["plan", "--half-width-target", "3"], "No such option: --half-width-target"),
        (["plan", "--population", "abc"], "Invalid value for '--population'"),
        (["no-such-verb"], "No such command"),
        (["plan", "--ab", "--mde", "1e-300", "--rate", "0.1"], "raise --mde"),
        (["plan", "--ab", "--mde", "0.01", "--rate", "0.1", "--test", "t", "--power",
          "0.9999999"], "use --test z"),
        (["plan", "--ab", "--mde", "0.01", "--sd", "1e300"], "out of the range"),
        (["plan", "--rate", "0.5", "--half-width", "1e-200", "--queries-per-doc", "3"],
         "raise the half-width"),
        (["plan", "--sd", "0.3", "--documents", "99999999999999999999"], "1,000,000,000,000"),
        (["plan", "--sd", "1.7e308", "--documents", "5"], "at most 1e+150"),
    ],
)  # fmt: skip
def test_2_bad_input_in_one_line(argv, words, capsys):
    assert main(argv) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert words in line


def test_2_for_ppi_lambda_and_simulate_settings(tmp_path, capsys):
    rng = np.random.default_rng(3)
    doc = np.repeat([f"d{i}" for i in range(20)], 6)
    judge = rng.random(doc.size)
    human = np.where(rng.random(doc.size) < 0.4, (judge > 0.5).astype(float), np.nan)
    items = tmp_path / "items.csv"
    pd.DataFrame({"doc_id": doc, "judge": judge, "human": human}).to_csv(items, index=False)
    base = ["ppi", str(items), "--judge", "judge", "--human", "human", "--lambda"]
    for lam in ("1e308", "-1e300", "nan", "inf", "abc"):
        assert main([*base, lam]) == 2, lam
        assert "--lambda" in _one_error_line(capsys.readouterr().err)
    census = tmp_path / "census.csv"
    pd.DataFrame({"doc_id": doc, "hit": (judge > 0.5).astype(int)}).to_csv(census, index=False)
    for bad in (["--k", "1"], ["--reps", "0"], ["--bootstrap-reps", "0"], ["--level", "2"]):
        assert main(["simulate", str(census), *bad]) == 2, bad
        _one_error_line(capsys.readouterr().err)


def test_3_for_a_bug_with_the_debug_hint(monkeypatch, capsys):
    def boom() -> None:
        raise ZeroDivisionError("a bug\non two lines")

    _app(monkeypatch, boom)
    monkeypatch.delenv("RAGSTAT_DEBUG", raising=False)
    assert main(["boom"]) == 3
    err = capsys.readouterr().err.strip()
    assert err == (
        "ragstat: internal error: ZeroDivisionError: a bug; on two lines "
        "(set RAGSTAT_DEBUG=1 for a traceback)"
    )
    monkeypatch.setenv("RAGSTAT_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        main(["boom"])


def test_130_on_sigint(monkeypatch, capsys):
    def boom() -> None:
        os.kill(os.getpid(), signal.SIGINT)  # the handler main installed raises here

    _app(monkeypatch, boom)
    assert main(["boom"]) == 130
    assert capsys.readouterr().err.strip() == "ragstat: interrupted by SIGINT"


def _long_query(monkeypatch, sig: KeyboardInterrupt) -> None:
    """A verb whose real DuckDB query is interrupted (as a signal handler would) by ``sig``."""

    def boom() -> None:
        con = duck.connect()
        signals.received.append(sig)
        threading.Timer(0.3, con.interrupt).start()
        duck.run(con, "records", "SELECT sum(a.range * b.range) FROM range(100000000) a, "
                 "range(1000) b")  # fmt: skip

    _app(monkeypatch, boom)


def test_143_on_sigterm_during_a_duckdb_read(monkeypatch, capsys):
    _long_query(monkeypatch, signals.Terminated())
    assert main(["boom"]) == 143
    assert capsys.readouterr().err.strip() == "ragstat: interrupted by SIGTERM"


def test_130_on_sigint_during_a_duckdb_read(monkeypatch, capsys):
    _long_query(monkeypatch, KeyboardInterrupt())
    assert main(["boom"]) == 130
    assert capsys.readouterr().err.strip() == "ragstat: interrupted by SIGINT"


def test_a_query_interrupted_error_wrapped_as_ours_is_still_the_signal(monkeypatch, capsys):
    from ragstat.errors import InputError

    def boom() -> None:
        signals.received.append(signals.Terminated())
        raise InputError("records.csv: INTERRUPT Error: Query interrupted")

    _app(monkeypatch, boom)
    assert main(["boom"]) == 143
    assert "SIGTERM" in capsys.readouterr().err
