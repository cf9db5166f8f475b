"""Reading a report.json written by an older ragstat: what it lacks, filled in."""

from __future__ import annotations

from ragstat.report.model import UNRECORDED

__all__ = ["with_references"]


def _legacy_interval(row: object) -> object:
    if isinstance(row, dict) and "reference" not in row:
        return {**row, "reference": UNRECORDED}
    return row


def with_references(data: dict) -> dict:
    """``data`` with ``reference`` filled into every interval row that lacks one (a
    report.json written when interval rows had no ``reference``). Anything malformed is
    left as it is, for the codec to report with its path."""
    out = dict(data)
    results = data.get("results")
    if isinstance(results, list):
        out["results"] = [
            {**b, "intervals": [_legacy_interval(r) for r in b["intervals"]]}
            if isinstance(b, dict) and isinstance(b.get("intervals"), list)
            else b
            for b in results
        ]
    two = data.get("two_stage")
    if isinstance(two, dict) and "interval" in two:
        out["two_stage"] = {**two, "interval": _legacy_interval(two["interval"])}
    return out
