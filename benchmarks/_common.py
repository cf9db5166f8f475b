"""Helpers shared by the benchmark scripts (timing, memory, printing).

Benchmarks print ratios against a baseline measured in the same run; they
never assert on times.
"""

from __future__ import annotations

import platform
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


_process_peak_mib = 0.0  # high-water marks seen before each reset (a reset lowers ru_maxrss too)


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far (getrusage, plus marks seen before resets)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    peak = peak / 1024 / 1024 if sys.platform == "darwin" else peak / 1024
    return max(peak, _process_peak_mib)


def _status_kib(field: str) -> float | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(field + ":"):
                return float(line.split()[1])
    except OSError:
        return None
    return None


def reset_phase_peak() -> bool:
    """Reset the kernel's high-water mark (Linux ≥ 4.0) so a phase's own peak can be read.

    The reset also lowers getrusage's ru_maxrss, so the mark is remembered first.
    """
    global _process_peak_mib
    _process_peak_mib = peak_rss_mib()
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


def phase_peak_mib() -> float | None:
    """Peak RSS since the last `reset_phase_peak` (VmHWM), or None where unsupported."""
    kib = _status_kib("VmHWM")
    return None if kib is None else kib / 1024


def current_rss_mib() -> float | None:
    kib = _status_kib("VmRSS")
    return None if kib is None else kib / 1024


class Timing:
    """Wall times of repeated runs of one callable, with the phase's peak RSS."""

    def __init__(self, label: str, times: list[float], peak_mib: float | None, result: Any):
        self.label = label
        self.times = times
        self.peak_mib = peak_mib
        self.result = result

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    def line(self) -> str:
        reps = (
            f"best of {len(self.times)}, median {self.median:8.3f} s" if len(self.times) > 1 else ""
        )
        mem = f"  phase peak RSS {self.peak_mib:7.0f} MiB" if self.peak_mib is not None else ""
        return f"  {self.label:<48s} {self.best:8.3f} s  {reps}{mem}"


def timed(label: str, fn: Callable[[], Any], repeat: int = 1) -> Timing:
    """Run ``fn`` ``repeat`` times; keep every wall time and the last result."""
    baseline_rss = current_rss_mib()
    reset_phase_peak()
    times = []
    result = None
    for _ in range(repeat):
        result = None  # let the previous result go before the next run
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    peak = phase_peak_mib()
    if peak is not None and baseline_rss is not None:
        peak = max(peak, baseline_rss)
    t = Timing(label, times, peak, result)
    print(t.line(), flush=True)
    return t


def machine_line() -> str:
    import os

    import duckdb
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    return (
        f"python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}, "
        f"pyarrow {pa.__version__}, duckdb {duckdb.__version__}; {os.cpu_count()} CPU(s), "
        f"{platform.machine()} {platform.system()}"
    )
