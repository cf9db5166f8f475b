"""`ragstat ui` serves only what a run wrote, to this machine's names only, and no query
string or registry row makes it fail.

A real server (uvicorn in a subprocess, as `ragstat ui` runs it) over a registry of real
interval runs, into whose folders links to /etc/passwd and /proc/self/environ are planted:
as the report itself, as its output folder, as a folder above it, and as registry rows that
point outside their run folder. Requests carry forged ``Host`` headers; the runs list gets
huge and malformed page numbers; the registry gets rows that do not parse.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from ragstat.cli import main
from ragstat.registry import Manifest, Registry, read_manifest
from ragstat.registry.outputs import UnsafeFile, read_regular
from ragstat.ui.hosts import HostPolicy, split_host
from ui_server import serve

FORMATS = Path(__file__).parent / "fixtures" / "formats"
SECRET = "environ-secret-4711"
PASSWD = Path("/etc/passwd")


def _interval(root: Path, out: str) -> str:
    """One real interval run into ``root/out``; its run id."""
    args = ["interval", str(FORMATS / "interval" / "results.csv"), "--out", out]
    assert main([*args, "--seed", "1", "--bootstrap-reps", "99"]) == 0
    return read_manifest(root / out).run_id


def _forged(reg: Path, run_id: str, folder: Path, report: Path, body: bytes) -> None:
    """A registry row (and a manifest in ``folder`` that agrees with it) whose report is
    ``report`` holding ``body``: all hashes match, only the path is wrong."""
    digest = hashlib.sha256(body).hexdigest()
    m = Manifest(
        run_id=run_id,
        command="interval",
        argv=("interval", "x.csv"),
        config={"file": "/nowhere/x.csv"},
        seed=1,
        corpus_fingerprint=None,
        inputs={},
        outputs=(str(report), str(folder / "manifest.json")),
        results={},
        versions={"python": "3"},
        started_at="2026-01-01T00:00:00+00:00",
        wall_s=1.0,
        output_sha256={str(report): digest},
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(m.to_json(), encoding="utf-8")
    Registry(reg).record(m)


def _plant(root: Path, reg: Path, ids: dict[str, str]) -> None:
    """Links and forged rows, each in place of a real run's report or folder."""
    passwd = PASSWD.read_bytes() if PASSWD.is_file() else b"root:x:0:0:root:/root:/bin/sh\n"
    # the report itself a link (to /etc/passwd, to /proc/self/environ)
    for name, target in (("to-passwd", PASSWD), ("to-environ", Path("/proc/self/environ"))):
        report = root / name / "report.html"
        report.unlink()
        report.symlink_to(target)
    # the output folder a link: a folder holding a copy of the run with /etc/passwd as report
    real = root / "folder-link"
    shutil.copytree(real, root / "elsewhere")
    (root / "elsewhere" / "report.html").write_bytes(passwd)
    shutil.rmtree(real)
    real.symlink_to(root / "elsewhere")
    # a folder above the output folder a link
    (root / "parent" / "inner" / "report.html").write_bytes(passwd)
    shutil.move(root / "parent", root / "parent-real")
    (root / "parent").symlink_to(root / "parent-real")
    # the report a FIFO (never opened for reading: it would block)
    fifo = root / "fifo" / "report.html"
    fifo.unlink()
    os.mkfifo(fifo)
    # rows that point outside their run folder, with hashes that match what is there
    (root / "outside").mkdir()
    (root / "outside" / "report.html").write_bytes(passwd)
    _forged(reg, "outside-run", root / "forged", root / "outside" / "report.html", passwd)
    dotted = root / "forged2" / ".." / "outside" / "report.html"
    _forged(reg, "dotdot-run", root / "forged2", dotted, passwd)
    via_proc = Path(f"/proc/self/root{root}") / "proc-copy"
    (root / "proc-copy").mkdir()
    (root / "proc-copy" / "report.html").write_bytes(passwd)
    _forged(reg, "proc-root-run", via_proc, via_proc / "report.html", passwd)
    # an old row: recorded before reports had a sha256
    con = sqlite3.connect(reg)
    con.execute("UPDATE runs SET output_sha256 = NULL WHERE run_id = ?", (ids["old"],))
    con.commit()
    con.close()


def _bad_rows(reg: Path, like: str) -> None:
    """Rows that do not parse: a config that is not JSON; a row in the history of run
    ``like`` (same input file) whose results are not JSON; a row lacking fields."""
    con = sqlite3.connect(reg)
    row = dict(zip(*_columns(con, like), strict=True))
    insert = f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})"
    con.execute(insert, list({**row, "run_id": "bad-config", "config": "{not json"}.values()))
    con.execute(insert, list({**row, "run_id": "bad-results", "results": "[1, 2"}.values()))
    con.execute(insert, list({**row, "run_id": "no-fields", "versions": '"none"'}.values()))
    con.commit()
    con.close()


def _columns(con: sqlite3.Connection, run_id: str) -> tuple[list[str], tuple]:
    cur = con.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,))
    return [d[0] for d in cur.description], cur.fetchone()


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("uisec").resolve()
    reg = root / "registry.sqlite"
    ids: dict[str, str] = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGSTAT_REGISTRY", str(reg))
        mp.chdir(root)
        names = ("own", "to-passwd", "to-environ", "folder-link", "fifo", "old")
        for name in names:
            ids[name] = _interval(root, name)
        ids["parent"] = _interval(root, "parent/inner")
        ids["first"] = _interval(root, "same")
        ids["second"] = _interval(root, "same")  # the same --out: replaces the first's report
    _plant(root, reg, ids)
    _bad_rows(reg, ids["own"])
    return {"root": root, "registry": reg, "ids": ids}


@pytest.fixture(scope="module")
def server(site):
    with serve(site["registry"], {"RAGSTAT_UI_TEST_SECRET": SECRET}) as port:
        yield port


def _get(port: int, path: str, host: str | None = "") -> tuple[int, str]:
    """GET ``path`` with ``Host: host`` (default 127.0.0.1:port; None: no Host header)."""
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        con.putrequest("GET", path, skip_host=True)
        if host is not None:
            con.putheader("Host", host or f"127.0.0.1:{port}")
        con.endheaders()
        r = con.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        con.close()


def _never_leaks(body: str) -> None:
    assert "root:x:0:0" not in body and "root:" not in body
    assert SECRET not in body


# ----------------------------------------------------------------------------- reports


def test_a_run_records_its_report_sha256_in_the_registry_and_its_manifest(site):
    root, ids = site["root"], site["ids"]
    m = Registry(site["registry"]).get(ids["own"])
    report = root / "own" / "report.html"
    digest = hashlib.sha256(report.read_bytes()).hexdigest()
    assert m.output_sha256[str(report)] == digest
    assert read_manifest(root / "own").output_sha256[str(report)] == digest
    # every output file but the manifest itself has its hash
    files = [p for p in m.outputs if Path(p).is_file() and Path(p).name != "manifest.json"]
    assert files and set(files) == set(m.output_sha256)


def test_the_runs_own_report_is_served(site, server):
    run_id = site["ids"]["own"]
    status, html = _get(server, f"/run/{run_id}")
    assert status == 200 and f'src="/run/{run_id}/report"' in html
    status, body = _get(server, f"/run/{run_id}/report")
    assert status == 200 and body == (site["root"] / "own" / "report.html").read_text("utf-8")


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("to-passwd", "is a symbolic link"),
        ("to-environ", "is a symbolic link"),
        ("folder-link", "folder-link is a symbolic link"),
        ("parent", "parent is a symbolic link"),
        ("fifo", "is not a regular file"),
        ("outside-run", "recorded output folder"),
        ("dotdot-run", "recorded output folder"),
        ("proc-root-run", "/proc/self is a symbolic link"),
        ("old", "older ragstat that kept no sha256"),
    ],
)
def test_a_report_that_is_not_the_runs_own_file_is_an_explained_404(site, server, key, why):
    run_id = site["ids"].get(key, key)
    status, body = _get(server, f"/run/{run_id}/report")
    assert status == 404 and why in body, body
    _never_leaks(body)
    status, page = _get(server, f"/run/{run_id}")
    assert status == 200 and "<iframe" not in page and why in page
    _never_leaks(page)


def test_a_report_replaced_by_a_later_run_is_not_shown_on_the_first_runs_page(site, server):
    first, second = site["ids"]["first"], site["ids"]["second"]
    status, page = _get(server, f"/run/{first}")
    assert status == 200 and "<iframe" not in page
    assert "replaced" in page and f'href="/run/{second}"' in page
    status, body = _get(server, f"/run/{first}/report")
    assert status == 404 and f"a later run, {second}" in body
    status, page = _get(server, f"/run/{second}")
    assert status == 200 and f'src="/run/{second}/report"' in page
    assert _get(server, f"/run/{second}/report")[0] == 200


def test_read_regular_refuses_links_anywhere_on_the_path(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f.txt").write_text("ok")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "l.txt").symlink_to(tmp_path / "real" / "f.txt")
    assert read_regular(tmp_path / "real" / "f.txt", 10) == b"ok"
    for path, why in [
        (tmp_path / "link" / "f.txt", "link is a symbolic link"),
        (tmp_path / "real" / "l.txt", "l.txt is a symbolic link"),
        (tmp_path / "real" / "nope", "does not exist"),
        (tmp_path / "real", "not a regular file"),
        (tmp_path / "real" / ".." / "real" / "f.txt", "not a plain absolute path"),
        (Path("real/f.txt"), "not a plain absolute path"),
    ]:
        with pytest.raises(UnsafeFile, match=why):
            read_regular(path, 10)
    with pytest.raises(UnsafeFile, match="larger than 1 bytes"):
        read_regular(tmp_path / "real" / "f.txt", 1)


# -------------------------------------------------------------------------------- Host


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:{port}", "127.0.0.1:1", "localhost:{port}0", "127.0.0.1:x"],
)
def test_a_request_for_another_host_gets_400(site, server, host):
    status, body = _get(server, f"/run/{site['ids']['own']}/report", host.format(port=server))
    assert status == 400 and "DNS rebinding" in body and "<script" not in body


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}"])
def test_the_loopback_names_at_the_bound_port_are_answered(server, host):
    status, body = _get(server, "/", host.format(port=server))
    assert status == 200 and 'id="runs"' in body


def test_a_request_without_host_gets_400(server):
    status, _ = _get(server, "/", None)
    assert status == 400


def test_host_policy_parses_names_ports_and_addresses():
    assert split_host("[::1]:8765") == ("::1", 8765)
    assert split_host("LocalHost.:80") == ("localhost", 80)
    assert split_host("a:b:c") is None and split_host("[::1") is None
    assert split_host("x:99999999") is None
    policy = HostPolicy.of(["runs.example"])
    assert policy.allows("runs.example:8765", 8765) and policy.allows("localhost", 80)
    assert not policy.allows("runs.example:8765", 9000)
    assert not policy.allows("10.0.0.5:8765", 8765)
    assert HostPolicy.of(any_address=True).allows("10.0.0.5:8765", 8765)
    assert not HostPolicy.of(any_address=True).allows("evil.example:8765", 8765)


def _asgi_get(app, path: str, host: str, port: int) -> tuple[int, bytes]:
    """One GET through the ASGI app itself (no server): status and body."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", host.encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", port),
    }
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], body


def test_the_cli_passes_allowed_hosts_to_the_guard(monkeypatch, tmp_path):
    import uvicorn

    from ragstat.cli import ui

    served: dict[str, object] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.update(app=app, **kw))
    ui.ui(registry=tmp_path / "r.sqlite", port=8765, allowed_host=["runs.example"])
    app = served["app"]
    assert _asgi_get(app, "/", "runs.example:8765", 8765)[0] == 200
    assert _asgi_get(app, "/", "127.0.0.1:8765", 8765)[0] == 200
    assert _asgi_get(app, "/", "evil.example:8765", 8765)[0] == 400
    ui.ui(registry=tmp_path / "r.sqlite", host="0.0.0.0", allow_remote=True)
    app = served["app"]
    assert _asgi_get(app, "/", "192.168.1.7:8765", 8765)[0] == 200
    assert _asgi_get(app, "/", "evil.example:8765", 8765)[0] == 400


# --------------------------------------------------------------------- pages and rows


@pytest.mark.parametrize("page", ["10" + "0" * 29, "9" * 5000, "2", "999"])
def test_a_page_past_the_last_shows_the_last(server, page):
    status, body = _get(server, f"/?page={page}")
    assert status == 200 and "page 1 of 1" in body and 'id="runs"' in body


@pytest.mark.parametrize("page", ["-1", "0", "abc", "1.5", "1e3", "%00", ""])
def test_a_malformed_page_is_a_400_not_a_500(server, page):
    status, body = _get(server, f"/?page={page}")
    assert status == 400 and "page must be a whole number" in body


def test_unreadable_rows_are_counted_not_fatal(site, server):
    status, body = _get(server, "/")
    assert status == 200 and 'id="runs"' in body
    assert "3 runs on this page could not be read" in body
    assert site["ids"]["own"] in body and "bad-config" not in body
    status, body = _get(server, f"/history/{site['ids']['own']}")
    assert status == 200 and "<svg" in body
    assert "2 runs could not be read" in body  # bad-results and no-fields share its file
    status, body = _get(server, "/run/bad-config")
    assert status == 404 and "cannot be read" in body


def test_a_registry_row_with_json_that_is_too_deep_is_counted(tmp_path):
    from ragstat.ui.store import RunQuery, RunStore

    reg = tmp_path / "r.sqlite"
    base = Manifest.from_dict(
        {
            "run_id": "ok-run",
            "command": "interval",
            "argv": [],
            "config": {},
            "seed": None,
            "corpus_fingerprint": None,
            "inputs": {},
            "outputs": [],
            "results": {},
            "versions": {},
            "started_at": "2026-01-01T00:00:00+00:00",
            "wall_s": 0.0,
        }
    )
    Registry(reg).record(base)
    con = sqlite3.connect(reg)
    cols, row = _columns(con, "ok-run")
    values = dict(zip(cols, row, strict=True))
    values.update(run_id="deep", results="[" * 100_000 + "]" * 100_000)
    con.execute(
        f"INSERT INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
        list(values.values()),
    )
    con.commit()
    con.close()
    page = RunStore(reg).page(RunQuery())
    assert [m.run_id for m in page.runs] == ["ok-run"] and page.unreadable == 1
    assert page.total == 2
