"""Hostile values: cells that are not scores, strings that attack terminals and encoders,
and extreme option values."""

from __future__ import annotations

#: A 5,000-digit integer (past int64, past float).
HUGE_INT = "9" * 5000

#: Non-numeric or non-finite cells: (label, CSV text, JSON token as written in the file).
CELLS: tuple[tuple[str, str, str], ...] = (
    ("ERROR", "ERROR", '"ERROR"'),
    ("empty", "", '""'),
    ("NaN-text", "NaN", '"NaN"'),
    ("NaN-token", "nan", "NaN"),
    ("inf", "inf", "Infinity"),
    ("-inf", "-inf", "-Infinity"),
    ("1e400", "1e400", "1e400"),
    ("huge-int", HUGE_INT, HUGE_INT),
    ("null", "null", "null"),
    ("bool-text", "true", '"true"'),
)

#: Strings for ids, names and labels: (label, text).
STRINGS: tuple[tuple[str, str], ...] = (
    ("ansi-color", "\x1b[31mred\x1b[0m"),
    ("osc-title", "\x1b]0;pwned\x07x"),
    ("bell", "a\x07b"),
    ("lone-surrogate", "d\ud800"),
    ("rtl-override", "\u202egnp.exe"),
    ("newline", "a\nb"),
    ("nul", "a\x00b"),
    ("line-sep", "e\u2028f"),
    ("empty-id", ""),
    ("long-id", "x" * 20_000),
)

#: Extreme values per option type (the type as ``--help`` shows it).
OPTION_VALUES: dict[str, tuple[str, ...]] = {
    "int": ("0", "-1", "1000000000", "1000000000000000000", HUGE_INT, "NaN"),
    "int range": ("-1", "1000000000000000000", HUGE_INT, "nan"),
    "float": ("0", "1", "-1", "1e308", "nan", "inf", "1e-320", "1e400"),
    "str": ("\x1b[31mred\x1b[0m", "NaN", "", ",,,", "d\ud800", "x" * 100_000),
    "path": ("/etc/passwd", "/dev/zero", "/proc/self/environ", "does-not-exist.csv"),
}

#: Options never fuzzed: they select the machine's resources or the network, or are flags.
SKIP_OPTIONS = frozenset(
    {"--engine", "--scheduler", "--out", "--force", "--json", "--help", "--quiet", "--registry"}
)

#: Per-option values the issue names (on top of the type's).
NAMED: dict[str, tuple[str, ...]] = {
    "--k": ("0", "1000000000", "-3", "NaN", "1,1000000000"),
    "--level": ("1", "0", "1.5", "-0.1", "NaN"),
    "--bootstrap-reps": ("1000000000", "0", "-5"),
    "--population": ("1e308", "0", "-1", "NaN", "100000000000000000000000"),
    "--reps": ("1000000000000", "0"),
    "--workers": ("0", "-1"),
}
