"""`ragstat extraction --json` prints what the Python twin's to_dict() gives (the command
is mounted on a bare Typer app here; the documented example runs in test_formats.py)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from ragstat.api.verbs.extraction import extraction
from ragstat.cli.extraction import extraction as command

ITEMS = Path(__file__).parent / "fixtures" / "formats" / "extraction" / "items.jsonl"


def test_json_equals_the_twin():
    app = typer.Typer()
    app.command()(command)
    out = CliRunner().invoke(app, [str(ITEMS), "--cluster-by", "doc", "--seed", "7", "--json"])
    assert out.exit_code == 0, out.output
    twin = extraction(str(ITEMS), cluster_by="doc", seed=7)
    assert json.loads(out.stdout) == json.loads(json.dumps(twin.to_dict(), ensure_ascii=False))
    assert set(json.loads(out.stdout)) == {"scores", "clustering", "seed", "notes", "f1", "inputs"}


def test_bad_scheme_is_reported():
    app = typer.Typer()
    app.command()(command)
    out = CliRunner().invoke(app, [str(ITEMS), "--scheme", "BIO9"])
    assert out.exit_code != 0
