"""Cases that fail today, with the reason (written by ``benchmarks/hostile_sweep.py
--write-known`` from a sweep's report, then reviewed). ``tests/test_hostile_sweep.py`` marks
them ``xfail(strict=True)``: a fix turns the mark into a failure, so the entry is removed."""

from __future__ import annotations

#: case id → the problem and the first line of stderr, in the quick subset.
KNOWN_QUICK: dict[str, str] = {
    "rewriting/queries.jsonl:cell-ERROR-third": "internal error (exit 3) | ragstat: internal error: ValueError: could not convert string to float: 'ERROR' (set RAGSTAT_DEBUG=1 for a traceback)",
    "routing/--bootstrap-reps=1000000000": "hang: CPU limit; memory: peak 1.75 GiB | ",
    "simulate-docs/census_docs.csv:cell-ERROR-third": "internal error (exit 3) | ragstat: internal error: ValueError: could not convert string to float: 'ERROR' (set RAGSTAT_DEBUG=1 for a traceback)",
}

#: The same for the full sweep (``slow``).
KNOWN_FULL: dict[str, str] = {
    "beir/test.tsv:long-line": "internal error (exit 3) | ragstat: internal error: Error: field larger than field limit (131072) (set RAGSTAT_DEBUG=1 for a traceback)",
    "beir/test.tsv:nul-bytes": "internal error (exit 3) | ragstat: internal error: Error: new-line character seen in unquoted field - do you need to open the file in universal-newline mode? (set RAGSTAT_DEBUG=1 for a traceback)",
    "gate/gates.toml:gates-x2000": "hang: CPU limit | ",
    "inspect-eval/alpha.eval:bom-crlf": "internal error (stderr); exit 2 with 9 stderr lines | ragstat: error: archive eval/alpha.eval: not a readable zip archive (Bad magic number for central directory)",
    "inspect-json/--system=v4": "internal error (exit 3) | ragstat: internal error: InvalidInputException: Invalid Input Error: Python Conversion Failure: cannot encode str as UTF-8, surrogate '\\ud800' at position 83 is not allowed (set RAGSTAT_DEBUG=1 for a traceback)",
    "latency/trace.jsonl:cell-NaN-text-third": "internal error (exit 3) | ragstat: internal error: TypeError: unsupported operand type(s) for -: 'float' and 'str' (set RAGSTAT_DEBUG=1 for a traceback)",
    "latency/trace.jsonl:cell-empty-third": "internal error (exit 3) | ragstat: internal error: TypeError: unsupported operand type(s) for -: 'str' and 'float' (set RAGSTAT_DEBUG=1 for a traceback)",
    "mteb/test.tsv:long-line": "internal error (exit 3) | ragstat: internal error: Error: field larger than field limit (131072) (set RAGSTAT_DEBUG=1 for a traceback)",
    "ragas-jsonl/--system=v4": "internal error (exit 3) | ragstat: internal error: InvalidInputException: Invalid Input Error: Python Conversion Failure: cannot encode str as UTF-8, surrogate '\\ud800' at position 83 is not allowed (set RAGSTAT_DEBUG=1 for a traceback)",
    "report/--title=v4": "internal error (exit 3) | ragstat: internal error: UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' in position 37: surrogates not allowed (set RAGSTAT_DEBUG=1 for a traceback)",
    "rewriting/queries.jsonl:cell-ERROR-third": "internal error (exit 3) | ragstat: internal error: ValueError: could not convert string to float: 'ERROR' (set RAGSTAT_DEBUG=1 for a traceback)",
    "rewriting/queries.jsonl:cell-bool-text-third": "internal error (exit 3) | ragstat: internal error: ValueError: could not convert string to float: 'true' (set RAGSTAT_DEBUG=1 for a traceback)",
    "routing/--bootstrap-reps=1000000000": "hang: CPU limit; memory: peak 1.53 GiB | ",
    "runs-diff/registry.sqlite:fifo": "hang: blocked (no CPU for 10 s) | ",
    "runs-list/registry.sqlite:fifo": "hang: blocked (no CPU for 10 s) | ",
    "runs-show/registry.sqlite:fifo": "hang: blocked (no CPU for 10 s) | ",
    "simulate-docs/census_docs.csv:cell-ERROR-third": "internal error (exit 3) | ragstat: internal error: ValueError: could not convert string to float: 'ERROR' (set RAGSTAT_DEBUG=1 for a traceback)",
    "simulate-docs/census_docs.csv:cell-bool-text-one": "internal error (exit 3) | ragstat: internal error: ValueError: could not convert string to float: 'true' (set RAGSTAT_DEBUG=1 for a traceback)",
    "simulate-docs/census_docs.csv:cell-null-third": "internal error (exit 3) | ragstat: internal error: ValueError: could not convert string to float: 'null' (set RAGSTAT_DEBUG=1 for a traceback)",
}
