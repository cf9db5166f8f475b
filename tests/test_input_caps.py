"""Every input bounded (issue 28, item 3): compression bombs, deep nesting, huge integers,
lone surrogates, non-UTF-8 bytes, bad CRCs, FIFOs and symlinks leaving a corpus folder are
one-line `InputError` s (exit 2), each within seconds and bounded memory."""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import sys
import textwrap
import threading
import time
import zipfile
import zlib
from pathlib import Path

import pytest

from ragstat.errors import InputError

MB = 1 << 20


# ----------------------------------------------------------------------------- builders


def _gzip_bomb(path: Path, mbytes: int) -> Path:
    """A gzip file of ``mbytes`` MiB of zeros written in chunks (≈ 1,000:1)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * MB
    with path.open("wb") as fh:
        for _ in range(mbytes):
            fh.write(comp.compress(block))
        fh.write(comp.flush())
    return path


def _zip_raw(path: Path, members: list[tuple[str, int, bytes, int, int]]) -> Path:
    """A zip archive written by hand: (name, method, raw data, crc, uncompressed size)."""
    body, central = b"", b""
    for name, method, raw, crc, size in members:
        n = name.encode()
        head = struct.pack(
            "<4s5H3L2H", b"PK\x03\x04", 63, 0, method, 0, 0, crc, len(raw), size, len(n), 0
        )
        central += struct.pack(
            "<4s6H3L5H2L", b"PK\x01\x02", 63, 63, 0, method, 0, 0, crc, len(raw), size,
            len(n), 0, 0, 0, 0, 0, len(body),
        ) + n  # fmt: skip
        body += head + n + raw
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(body), 0
    )
    path.write_bytes(body + central + end)
    return path


def _header() -> bytes:
    return json.dumps(
        {"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}}
    ).encode()


def _zstd_bomb(path: Path, frames: int) -> Path:
    """An inspect .eval whose sample member is ``frames`` × 8 MiB of zeros in zstd frames."""
    import pyarrow as pa

    frame = pa.Codec("zstd").compress(b"\0" * (8 * MB), asbytes=True)
    raw = frame * frames
    return _zip_raw(
        path,
        [("header.json", 0, _header(), zlib.crc32(_header()), len(_header())),
         ("samples/1_epoch_1.json", 93, raw, 0, 8 * MB * frames)],
    )  # fmt: skip


def _deflate_bomb(path: Path, mbytes: int) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", _header())
        with zf.open("samples/1_epoch_1.json", "w") as member:
            block = b"\0" * MB
            for _ in range(mbytes):
                member.write(block)
    return path


# -------------------------------------------------------------------- bounded, measured


_CHILD = """
import resource, subprocess, sys, time
t = time.monotonic()
proc = subprocess.run([sys.executable, "-c", sys.argv[1]], capture_output=True, text=True)
print(proc.returncode, time.monotonic() - t,
      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, repr(proc.stdout + proc.stderr))
"""

_READERS = {
    "qrels": "from ragstat.records.qrels import read_qrels as f; f({path!r})",
    "run": "from ragstat.records.qrels import read_run as f; f({path!r})",
    "corpus": "from ragstat.corpus.loaders import load_corpus as f; f({path!r})",
    "inspect": "from ragstat.adapters.registry import read_source as f; f({path!r}, 'inspect')",
}


def _measure(kind: str, path: Path, env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """(seconds the read took, peak RSS in MiB, message) of the reader run in a fresh
    process (its own child, so RUSAGE_CHILDREN measures only it)."""
    code = textwrap.dedent(f"""
        import time
        from ragstat.errors import InputError
        t = time.monotonic()
        try:
            {_READERS[kind].format(path=str(path))}
        except InputError as exc:
            print(f"{{time.monotonic() - t:.3f}}", "ERR", str(exc))
        else:
            print(f"{{time.monotonic() - t:.3f}}", "OK")
    """)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    ).stdout.split(" ", 3)
    rc, _, rss_kib, text = int(out[0]), out[1], int(out[2]), eval(out[3])
    assert rc == 0, text
    seconds, status, message = text.split(" ", 2)
    assert status == "ERR", text
    return float(seconds), rss_kib // 1024, message.strip()


@pytest.mark.slow  # decompression bombs
@pytest.mark.parametrize(
    ("kind", "name"),
    [("qrels", "qrels.jsonl.gz"), ("run", "run.txt.gz"), ("corpus", "docs.jsonl")],
)
def test_gzip_bombs_stop_fast_in_bounded_memory(tmp_path, kind, name):
    bomb = _gzip_bomb(tmp_path / name, 300)
    assert bomb.stat().st_size < 400_000
    seconds, peak, message = _measure(kind, bomb)
    assert seconds < 5 and peak < 500, (seconds, peak)
    assert "\n" not in message and "RAGSTAT_MAX_RATIO" in message and "200:1" in message


def test_absolute_decompressed_cap_names_its_variable(tmp_path):
    bomb = _gzip_bomb(tmp_path / "qrels.jsonl.gz", 40)
    seconds, peak, message = _measure("qrels", bomb, {"RAGSTAT_MAX_DECOMPRESSED": "8M"})
    assert seconds < 5 and peak < 500
    assert "RAGSTAT_MAX_DECOMPRESSED" in message and "8.0 MiB" in message


@pytest.mark.slow  # decompression bombs
def test_deflate_member_bomb_in_an_eval_log(tmp_path):
    bomb = _deflate_bomb(tmp_path / "bomb.eval", 300)
    seconds, peak, message = _measure("inspect", bomb)
    assert seconds < 5 and peak < 500, (seconds, peak)
    assert "samples/1_epoch_1.json" in message and "RAGSTAT_MAX_RATIO" in message


@pytest.mark.slow  # decompression bombs
def test_zstd_member_bomb_in_an_eval_log(tmp_path):
    bomb = _zstd_bomb(tmp_path / "bomb.eval", 40)  # 320 MiB of zeros
    seconds, peak, message = _measure("inspect", bomb)
    assert seconds < 5 and peak < 500, (seconds, peak)
    assert "samples/1_epoch_1.json" in message and "RAGSTAT_MAX_RATIO" in message


# ---------------------------------------------------------------- hostile JSON and text


def _line_error(path: Path) -> str:
    from ragstat.records.qrels import read_qrels

    with pytest.raises(InputError) as err:
        read_qrels(path)
    assert "\n" not in str(err.value)
    return str(err.value)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"query_id": "q", "doc_id": "d", "relevance": ' + "[" * 5000 + "]" * 5000 + "}", "RAGSTAT_MAX_JSON_DEPTH"),
        ('{"query_id": "q", "doc_id": "d", "relevance": ' + "7" * 5000 + "}", "PYTHONINTMAXSTRDIGITS"),
        ('{"query_id": "\\udc80", "doc_id": "d", "relevance": 1}', "surrogate"),
    ],
)  # fmt: skip
def test_hostile_json_lines_are_one_line_errors(tmp_path, line, expected):
    path = tmp_path / "qrels.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    message = _line_error(path)
    assert expected in message and f"{path}:1" in message


def test_non_utf8_and_long_lines(tmp_path, monkeypatch):
    path = tmp_path / "qrels.jsonl"
    path.write_bytes(b'{"query_id": "q\xff", "doc_id": "d", "relevance": 1}\n')
    assert "not UTF-8" in _line_error(path) and "byte offset 15" in _line_error(path)
    monkeypatch.setenv("RAGSTAT_MAX_LINE", "1K")
    path.write_bytes(b'{"query_id": "' + b"q" * 5000 + b'", "doc_id": "d", "relevance": 1}\n')
    assert "RAGSTAT_MAX_LINE" in _line_error(path)


ADAPTER_FILES = {
    "deepeval": ("run.json", '{"testCases": [], "metricsScores": %s}'),
    "promptfoo": ("results.json", '{"results": {"results": %s}}'),
    "ragchecker": ("results.json", '{"results": %s}'),
    "ranx": ("run.json", '{"q": %s}'),
    "helm": ("stats.json", "[%s]"),
    "inspect": ("log.json", '{"version": 2, "eval": %s}'),
    "lm-eval": ("samples_t.jsonl", '{"doc_id": 0, "x": %s}'),
    "ragas": ("r.jsonl", '{"user_input": "q", "faithfulness": %s}'),
}


@pytest.mark.parametrize("fmt", sorted(ADAPTER_FILES))
@pytest.mark.parametrize("value", ["[" * 3000 + "]" * 3000, "9" * 5000, '"\\ud800"'])
def test_from_readers_read_json_strictly(tmp_path, fmt, value):
    """The `--from` readers called json.loads directly: these were internal errors."""
    from ragstat.adapters.registry import read_source

    name, template = ADAPTER_FILES[fmt]
    path = tmp_path / name
    path.write_text(template % value + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_source(path, fmt)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("fmt", sorted(ADAPTER_FILES))
def test_from_readers_refuse_non_utf8(tmp_path, fmt):
    from ragstat.adapters.registry import read_source

    name, template = ADAPTER_FILES[fmt]
    path = tmp_path / name
    path.write_bytes((template % '"caf\u00e9"').encode("latin-1") + b"\n")
    with pytest.raises(InputError) as err:
        read_source(path, fmt)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_bad_crc_member_is_an_input_error(tmp_path):
    from ragstat.adapters.registry import read_source

    sample = json.dumps({"id": 1, "epoch": 1, "scores": {}}).encode()
    path = _zip_raw(
        tmp_path / "bad.eval",
        [("header.json", 0, _header(), zlib.crc32(_header()), len(_header())),
         ("samples/1_epoch_1.json", 0, sample, zlib.crc32(sample) ^ 1, len(sample))],
    )  # fmt: skip
    with pytest.raises(InputError, match=r"member samples/1_epoch_1.json.*CRC"):
        read_source(path, "inspect")


def test_zip_member_count_cap(tmp_path, monkeypatch):
    from ragstat.adapters.registry import read_source

    monkeypatch.setenv("RAGSTAT_MAX_ZIP_MEMBERS", "3")
    members = [(f"samples/{i}.json", 0, b"{}", zlib.crc32(b"{}"), 2) for i in range(5)]
    path = _zip_raw(tmp_path / "many.eval", members)
    with pytest.raises(InputError, match="RAGSTAT_MAX_ZIP_MEMBERS"):
        read_source(path, "inspect")


def test_multi_member_gzip_reads_whole(tmp_path):
    from ragstat.records.textio import iter_lines

    path = tmp_path / "two.txt.gz"
    path.write_bytes(gzip.compress(b"a\nb\n") + gzip.compress(b"c\n"))
    assert [t for _, t in iter_lines(path)] == ["a", "b", "c"]
    path.write_bytes(gzip.compress(b"a\nb\n")[:-6])
    with pytest.raises(InputError, match="damaged gzip"):
        list(iter_lines(path))


# ------------------------------------------------------------------------------- FIFOs


def _no_hang(fn, *args) -> BaseException | None:
    """Run ``fn(*args)`` in a thread; fail (not hang) if it has not returned in 10 s."""
    box: list[BaseException | None] = [None]

    def target() -> None:
        try:
            fn(*args)
        except BaseException as exc:
            box[0] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), f"{fn.__name__} hung on a FIFO"
    return box[0]


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("deepeval", "run.json"), ("promptfoo", "r.json"), ("ragchecker", "r.json"),
     ("ragas", "r.csv"), ("inspect", "log.eval"), ("lm-eval", "samples_t.jsonl"),
     ("helm", "stats.json"), ("ranx", "run.json"), ("beir", "q.tsv"), ("mteb", "t_predictions.json")],
)  # fmt: skip
def test_every_from_reader_refuses_a_fifo(tmp_path, fmt, name):
    from ragstat.adapters.registry import read_source

    exc = _no_hang(read_source, _fifo(tmp_path / name), fmt)
    assert isinstance(exc, InputError) and "FIFO" in str(exc), exc


def test_detection_refuses_a_fifo(tmp_path):
    from ragstat.adapters.registry import read_source

    exc = _no_hang(read_source, _fifo(tmp_path / "x.json"))
    assert isinstance(exc, InputError) and "FIFO" in str(exc), exc


@pytest.mark.parametrize("reader", ["read_qrels", "read_run"])
def test_file_readers_refuse_a_fifo(tmp_path, reader):
    import ragstat.records.qrels as q

    for name in ("x.txt", "x.jsonl", "x.csv"):
        exc = _no_hang(getattr(q, reader), _fifo(tmp_path / f"{reader}{name}"))
        assert isinstance(exc, InputError) and "FIFO" in str(exc), exc


def test_regular_file_helper(tmp_path):
    from ragstat.records.textio import read_json_file, regular_file

    (tmp_path / "a").touch()
    assert regular_file(tmp_path / "a") == tmp_path / "a"
    for bad, word in (
        (tmp_path, "folder"),
        (tmp_path / "nope", "no such file"),
        (Path("/dev/null"), "device"),
    ):
        with pytest.raises(InputError, match=word):
            regular_file(bad, "gates file")
    exc = _no_hang(read_json_file, _fifo(tmp_path / "f.json"))
    assert isinstance(exc, InputError) and "FIFO" in str(exc)


def test_cli_fifo_is_one_line_exit_2(tmp_path):
    fifo = _fifo(tmp_path / "run.json")
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "ragstat", "interval", str(fifo), "--from", "deepeval"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and time.monotonic() - start < 60
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ragstat: error:")]
    assert len(errors) == 1 and "FIFO" in errors[0], proc.stderr


# ------------------------------------------------------------------------ corpus folder


def test_corpus_folder_fifo_is_excluded_with_a_note(tmp_path):
    from ragstat.corpus.loaders import load_folder

    (tmp_path / "a.txt").write_text("some text", encoding="utf-8")
    _fifo(tmp_path / "pipe.txt")
    box: list = []
    assert _no_hang(lambda: box.append(load_folder(tmp_path))) is None
    corpus = box[0]
    assert [d.doc_id for d in corpus.documents] == ["a.txt"]
    assert [(e.source, "FIFO" in e.reason) for e in corpus.excluded] == [("pipe.txt", True)]


def test_corpus_folder_symlink_out_is_refused(tmp_path):
    from ragstat.corpus.loaders import load_folder

    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("password=hunter2", encoding="utf-8")
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("kept text", encoding="utf-8")
    (folder / "inside.txt").symlink_to(folder / "a.txt")
    (folder / "passwd.txt").symlink_to("/etc/passwd")
    (folder / "secret.txt").symlink_to(secret)
    (folder / "sub" / "up.txt").symlink_to("../../outside/secret.txt")
    (folder / "linked").symlink_to(secret.parent, target_is_directory=True)
    corpus = load_folder(folder)
    texts = " ".join(d.text for d in corpus.documents)
    assert "hunter2" not in texts and "root:" not in texts
    assert sorted(d.doc_id for d in corpus.documents) == ["a.txt", "inside.txt"]
    reasons = {e.source: e.reason for e in corpus.excluded}
    assert set(reasons) == {"passwd.txt", "secret.txt", "sub/up.txt", "linked"}
    assert all(
        "outside the corpus folder" in reasons[k]
        for k in ("passwd.txt", "secret.txt", "sub/up.txt")
    )
    followed = load_folder(folder, follow_symlinks=True)
    assert "secret.txt" in {d.doc_id for d in followed.documents}


# --------------------------------------------------------------------------------- MTEB


def test_mteb_unreadable_predictions_file_is_an_error(tmp_path):
    from ragstat.adapters.registry import read_source

    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq\td\t1\n", encoding="utf-8"
    )
    good = {"mteb_model_meta": {"model_name": "m"}, "default": {"test": {"q": {"d": 0.5}}}}
    (tmp_path / "T_predictions.json").write_text(json.dumps(good), encoding="utf-8")
    _fifo(tmp_path / "U_predictions.json")  # was skipped silently (as unreadable files were)
    exc = _no_hang(read_source, tmp_path, "mteb")
    assert isinstance(exc, InputError) and "U_predictions.json" in str(exc) and "FIFO" in str(exc)
