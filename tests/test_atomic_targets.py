"""An output path that is a device, a FIFO or a folder is refused with one line: the atomic
write (temporary file, then rename) would otherwise replace the device node itself (a
`--markdown /dev/zero` run once turned /dev/zero into a Markdown file)."""

from __future__ import annotations

import os
import stat

import pytest

from ragstat.atomic import atomic_write_text
from ragstat.errors import InputError


def test_a_fifo_is_refused_and_kept(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):
        atomic_write_text(fifo, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_device_is_refused_and_kept(tmp_path):
    dev = tmp_path / "zero"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("making a device node needs root")
    with pytest.raises(InputError, match="a device"):
        atomic_write_text(dev, "x")
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(InputError, match="a folder"):
        atomic_write_text(tmp_path, "x")


def test_a_regular_file_and_a_new_path_are_written(tmp_path):
    (tmp_path / "a.md").write_text("old", encoding="utf-8")
    atomic_write_text(tmp_path / "a.md", "new")
    atomic_write_text(tmp_path / "b.md", "fresh")
    assert (tmp_path / "a.md").read_text() == "new" and (tmp_path / "b.md").read_text() == "fresh"


def test_the_gate_markdown_option_refuses_a_fifo(tmp_path, capsys):
    import shutil
    from pathlib import Path

    from ragstat.cli import main

    folder = tmp_path / "gate"
    shutil.copytree(Path(__file__).parent / "fixtures" / "formats" / "gate", folder)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["gate", str(folder / "gates.toml"), "--markdown", str(fifo)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "FIFO" in err[0]
