"""``ragstat ARGS`` in-process for the tests: exit 2 must be one ``ragstat: error:`` line,
never a traceback or an internal error."""

from __future__ import annotations

from ragstat.cli import main


def cli(capsys, *args: object) -> tuple[int, str, str]:
    """Run ``ragstat ARGS``; (exit code, stdout, stderr), the exit-2 rule checked."""
    rc = main([str(a) for a in args])
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert "Traceback" not in out + err and "internal error" not in out + err, err
    if rc == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("ragstat: error: "), err
    return rc, out, err
