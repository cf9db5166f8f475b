"""What the pages show of a run: its source, reproduce command, report file and history.

Plain data for the templates (which escape every string); nothing here writes. The only
files read are those a run's manifest records among its outputs.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePath

from ragstat.registry import Manifest
from ragstat.registry.display import data_fingerprint
from ragstat.registry.display import started_utc as run_time
from ragstat.ui.series import Estimate, estimate_of
from ragstat.ui.store import HistoryKey

__all__ = [
    "ReportFile",
    "data_fingerprint",
    "gate_estimates",
    "history_key",
    "report_file",
    "reproduce",
    "run_time",
    "source_of",
    "source_paths",
]

#: The largest output file the view reads (a gate's result.json).
_MAX_READ = 16 << 20


@dataclass(frozen=True)
class ReportFile:
    """The run's recorded report.html: its path, and why it cannot be shown (None: it can)."""

    path: Path | None
    problem: str | None


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


def _recorded(m: Manifest, name: str) -> Path | None:
    """The recorded output file called ``name`` (the only way a file reaches the view)."""
    for out in m.outputs:
        p = Path(out)
        if p.name == name and p.is_absolute():
            return p
    return None


def report_file(m: Manifest) -> ReportFile:
    """The run's report.html as recorded, or why it cannot be shown."""
    path = _recorded(m, "report.html")
    if path is None:
        return ReportFile(None, "This run recorded no HTML report.")
    if not path.is_file():
        return ReportFile(
            None,
            f"The report recorded for this run, {path}, is not there any more: it was moved "
            "or deleted after the run. Rerun the command below to write it again.",
        )
    return ReportFile(path, None)


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
    result.json the run recorded (the outcomes alone when that file is gone)."""
    path = _recorded(m, "result.json")
    gates: list[object] = []
    try:
        if path is not None and path.is_file() and path.stat().st_size <= _MAX_READ:
            data = json.loads(path.read_text(encoding="utf-8"))
            gates = data.get("gates", []) if isinstance(data, dict) else []
    except (OSError, ValueError):
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
