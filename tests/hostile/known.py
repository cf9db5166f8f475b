"""Cases that fail today, with the reason (written by ``benchmarks/hostile_sweep.py
--write-known`` from a sweep's report, then reviewed). ``tests/test_hostile_sweep.py`` marks
them ``xfail(strict=True)``: a fix turns the mark into a failure, so the entry is removed."""

from __future__ import annotations

#: case id → the problem and the first line of stderr, in the quick subset.
KNOWN_QUICK: dict[str, str] = {}

#: The same for the full sweep (``slow``).
KNOWN_FULL: dict[str, str] = {}
