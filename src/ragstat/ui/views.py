"""What the pages show of a run: its source, reproduce command, report file and history.

Plain data for the templates (which escape every string); nothing here writes. The only
files read are those a run's manifest records among its outputs, through no symbolic link
(the report: :mod:`ragstat.ui.reports`).
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass
from pathlib import PurePath

from ragstat.registry import Manifest
from ragstat.registry.display import data_fingerprint, outcome_of
from ragstat.registry.display import started_utc as run_time
from ragstat.registry.outputs import UnsafeFile, read_regular
from ragstat.ui.reports import recorded_output
from ragstat.ui.series import Estimate, estimate_of, headline
from ragstat.ui.store import HistoryKey

__all__ = [
    "RunRow",
    "data_fingerprint",
    "gate_estimates",
    "history_key",
    "reproduce",
    "run_row",
    "run_time",
    "source_of",
    "source_paths",
]

#: The largest output file the view reads (a gate's result.json).
_MAX_READ = 16 << 20


def _path_name(path: str) -> str:
    """A recorded path's last part (a name such as ``demo`` stays as it is)."""
    return PurePath(path).name or path


def source_paths(m: Manifest) -> list[str]:
    """The input paths the run read, as recorded in its config (compare: A, then B)."""
    c = m.config
    keys = ["a", "b"] if m.command == "compare" else []
    keys += ["gates_file", "file", "corpus", "records", "path", "table"]
    found = [str(c[k]) for k in keys if isinstance(c.get(k), str) and c[k]]
    if not found:  # another verb's inputs: the config values of its recorded input roles
        found = [str(c[k]) for k in m.inputs if isinstance(c.get(k), str) and c[k]]
    return list(dict.fromkeys(found))


def source_of(m: Manifest) -> str:
    """The data the run read, by file name: ``a.parquet vs b.parquet``, or one file with the
    systems it analysed (``records.parquet (bm25 vs tfidf)``)."""
    paths = source_paths(m)
    if not paths:
        return ", ".join(sorted(m.inputs)) or "—"
    names = " vs ".join(_path_name(p) for p in paths[:2]) if m.command == "compare" else ""
    names = names or ", ".join(_path_name(p) for p in paths)
    systems = m.config.get("systems") if m.command == "compare" else m.config.get("system")
    if isinstance(systems, str) and systems and len(paths) == 1:
        names += f" ({' vs '.join(s.strip() for s in systems.split(','))})"
    return names


def reproduce(m: Manifest) -> str:
    """The command line that reruns ``m`` (from the folder it was run in)."""
    if not m.argv:
        return ""
    return shlex.join(["ragstat", *m.argv])


def history_key(m: Manifest) -> HistoryKey | None:
    """Which runs ``m`` is compared with over time (None: nothing ties it to others)."""
    gates = m.config.get("gates_file")
    if m.command == "gate" and isinstance(gates, str):
        return HistoryKey("gates", gates)
    if m.corpus_fingerprint:
        return HistoryKey("corpus", m.corpus_fingerprint)
    file = m.config.get("file")
    if isinstance(file, str):
        return HistoryKey("file", file)
    return None


def gate_estimates(m: Manifest) -> list[Estimate]:
    """A gate run's gates with their estimates, intervals and outcomes, read from the
    result.json the run recorded (the outcomes alone when that file is gone, is not a regular
    file reached through no link, or differs from the bytes the run recorded)."""
    path = recorded_output(m, "result.json")
    gates: list[object] = []
    try:
        raw = read_regular(path, _MAX_READ) if path is not None else b""
        digest = m.output_sha256.get(str(path))
        if raw and (digest is None or hashlib.sha256(raw).hexdigest() == digest):
            data = json.loads(raw.decode("utf-8"))
            gates = data.get("gates", []) if isinstance(data, dict) else []
    except (UnsafeFile, ValueError, RecursionError):
        gates = []
    out: list[Estimate] = []
    for g in gates:
        if not isinstance(g, dict) or not isinstance(g.get("name"), str):
            continue
        est = estimate_of(g["name"], g)
        outcome = g.get("outcome") if isinstance(g.get("outcome"), str) else None
        if est is not None:
            out.append(Estimate(est.name, est.estimate, est.lower, est.upper, outcome))
    return out


@dataclass(frozen=True)
class RunRow:
    """One line of the runs list, computed before the page is drawn (so a row that does not
    make sense is counted as unreadable instead of breaking the page)."""

    m: Manifest
    time: str
    source: str
    source_title: str
    fingerprint: str
    headline: str
    outcome: str


def run_row(m: Manifest) -> RunRow:
    """The runs list's line for ``m``."""
    joiner = " vs " if m.command == "compare" else ", "
    return RunRow(
        m=m,
        time=run_time(m.started_at),
        source=source_of(m),
        source_title=joiner.join(source_paths(m)),
        fingerprint=data_fingerprint(m),
        headline=headline(m),
        outcome=outcome_of(m),
    )
