"""What counts as a failure of one run (issue 28's exit-code table and output rules)."""

from __future__ import annotations

import signal
import xml.etree.ElementTree as ET
from pathlib import Path

from .cases import Case

OK_CODES = {0, 2, 130, 143}
GB = 1 << 30
SLOW_CPU_S = 5.0  # a refusal should take well under a second; above this a note
NON_NUMERIC = ("cell-ERROR", "cell-huge-int", "cell-1e400", "cell-inf", "cell-bool-text")


def problems_of(
    case: Case,
    folder: Path,
    code: int | None,
    sig: int | None,
    out: bytes,
    err: bytes,
    peak: int,
    killed: str | None,
    cpu_s: float,
) -> tuple[list[str], list[str]]:
    """(problems, notes): problems fail the sweep; notes are reported only."""
    from .runner import strict_json

    problems: list[str] = []
    notes: list[str] = []
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if killed:
        problems.append(killed)
    elif sig in (signal.SIGXCPU, signal.SIGKILL):
        problems.append("hang: CPU limit")
    elif sig is not None:
        problems.append(f"crash: signal {signal.Signals(sig).name}")
    elif code in (3, 97, 98, 99) or (code == 1 and case.verb != "gate"):
        problems.append(f"internal error (exit {code})")
    elif code not in OK_CODES and not (code == 1 and case.verb == "gate"):
        problems.append(f"unexpected exit {code}")
    told = b"Traceback" in err or b"internal error" in err
    if told and not any(p.startswith("internal") for p in problems):
        problems.append("internal error (stderr)")
    if peak > GB:
        problems.append(f"memory: peak {peak / 2**30:.2f} GiB")
    if code == 2 and len(lines) != 1:
        problems.append(f"exit 2 with {len(lines)} stderr lines")
    if "--json" in case.argv and code in (0, 1) and sig is None:
        try:
            strict_json(out)
        except ValueError as exc:
            problems.append(f"--json not strict JSON: {str(exc)[:80]}")
    if b"\x1b" in out or b"\x1b" in err:
        problems.append("raw escape on stdout/stderr")
    if case.out and code in (0, 1):
        problems += _out_folder(folder / "out")
    if code == 0 and case.group == "valid":
        pass
    elif case.group == "valid":
        problems.append("the valid command did not exit 0")
    if cpu_s > SLOW_CPU_S and not problems:
        notes.append(f"slow: {cpu_s:.1f} s of CPU")
    if code == 0 and any(k in case.id for k in NON_NUMERIC):
        notes.append("non-numeric or non-finite cell accepted (exit 0)")
    return problems, notes


def _out_folder(out: Path) -> list[str]:
    found: list[str] = []
    if not out.is_dir():
        return found
    for path in sorted(out.rglob("*")):
        if not path.is_file() or path.suffix not in (".md", ".html", ".json", ".xml", ".txt"):
            continue
        data = path.read_bytes()
        if b"\x1b" in data:
            found.append(f"raw escape in {path.name}")
        if path.suffix == ".xml":
            try:
                ET.fromstring(data)
            except ET.ParseError as exc:
                found.append(f"{path.name} is not well-formed XML: {exc}")
        if path.suffix == ".json":
            from .runner import strict_json

            try:
                strict_json(data)
            except ValueError as exc:
                found.append(f"{path.name} not strict JSON: {str(exc)[:60]}")
    return found
