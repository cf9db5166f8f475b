"""What the pages show of a run: its headline, source, reproduce command and report file.

Plain data for the templates (which escape every string); nothing here writes. The only
files read are those a run's manifest records among its outputs.
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass
from pathlib import Path

from ragstat.registry import Manifest
from ragstat.registry.display import data_fingerprint
from ragstat.registry.display import started_utc as run_time
from ragstat.ui.store import HistoryKey

__all__ = [
    "Estimate",
    "ReportFile",
    "data_fingerprint",
    "gate_estimates",
    "headline",
    "history_key",
    "metrics_of",
    "report_file",
    "reproduce",
    "run_time",
    "source_of",
]

#: The largest output file the view reads (a gate's result.json).
_MAX_READ = 16 << 20


@dataclass(frozen=True)
class Estimate:
    """One estimate with its interval (None where the run recorded none)."""

    name: str
    estimate: float
    lower: float | None = None
    upper: float | None = None
    outcome: str | None = None  # a gate's pass / fail / inconclusive

    @property
    def text(self) -> str:
        if self.lower is None or self.upper is None:
            return f"{self.estimate:.4g}"
        return f"{self.estimate:.4g} [{self.lower:.4g}, {self.upper:.4g}]"


@dataclass(frozen=True)
class ReportFile:
    """The run's recorded report.html: its path, and why it cannot be shown (None: it can)."""

    path: Path | None
    problem: str | None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _estimate(name: str, value: object) -> Estimate | None:
    if isinstance(value, dict):
        est = _number(value.get("estimate"))
        if est is None:
            return None
        return Estimate(name, est, _number(value.get("lower")), _number(value.get("upper")))
    est = _number(value)
    return None if est is None else Estimate(name, est)


def metrics_of(m: Manifest) -> list[Estimate]:
    """Every headline number of the run's results (``micro`` and ``macro`` first)."""
    keys = [k for k in ("micro", "macro") if k in m.results]
    keys += [k for k in m.results if k not in keys]
    found = (_estimate(k, m.results[k]) for k in keys)
    return [e for e in found if e is not None]


def headline(m: Manifest) -> str:
    """The run's headline for the runs list: an estimate with its interval, or the outcomes."""
    metrics = metrics_of(m)
    if metrics:
        return f"{metrics[0].name} {metrics[0].text}"
    outcomes = [v for v in m.results.values() if isinstance(v, str)]
    if outcomes:
        counts = {o: outcomes.count(o) for o in dict.fromkeys(outcomes)}
        return ", ".join(f"{n} {o}" for o, n in counts.items())
    return "—"


def source_of(m: Manifest) -> str:
    """The data the run read, as given on its command line (config paths)."""
    c = m.config
    for key in ("gates_file", "file", "corpus", "records", "path"):
        if isinstance(c.get(key), str):
            return str(c[key])
    if isinstance(c.get("a"), str) and isinstance(c.get("b"), str):
        return f"{c['a']} vs {c['b']}"
    return ", ".join(sorted(m.inputs)) or "—"


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
        est = _estimate(g["name"], g)
        outcome = g.get("outcome") if isinstance(g.get("outcome"), str) else None
        if est is not None:
            out.append(Estimate(est.name, est.estimate, est.lower, est.upper, outcome))
    return out
