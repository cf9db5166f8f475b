"""The hostile cases: every target's valid command, then its input files mutated (bytes,
cells, ids, shape, special files, bombs) and its options pushed to extremes. Seeded and
deterministic: the same seed gives the same cases, ids and bytes."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import formats as fm
from .targets import Target
from .values import CELLS, NAMED, OPTION_VALUES, SKIP_OPTIONS, STRINGS

TEXT_KINDS = ("csv", "tsv", "trec", "jsonl", "json", "toml")
#: (label, op) applied to any input file; ops run in the case's folder (see ``runner``).
SPECIAL = (
    ("empty", ("write", b"")),
    ("fifo", ("fifo",)),
    ("symlink-passwd", ("symlink", "/etc/passwd")),
    ("symlink-devzero", ("symlink", "/dev/zero")),
    ("directory", ("mkdir",)),
    ("missing", ("remove",)),
    ("gzip-bomb", ("bomb", "gzip-zeros")),
)
TEXT_SPECIAL = (
    ("long-line", ("bomb", "long-line")),
    ("deep-nesting", ("bomb", "deep")),
)
SHAPES = ("dup-rows", "dup-id", "one-doc", "one-row", "no-rows", "drop-score")
TOML_VALUES = {
    "threshold": ("nan", "inf", '"ERROR"', "1e400", fm_huge := "9" * 5000, '""'),
    "margin": ("-inf", "nan", '"0.05"'),
    "level": ("1.0", "0", "1.5", "nan"),
    "bootstrap_reps": ("1000000000", "-1", "0", "1.5"),
    "seed": ("-1", "1" + "0" * 40),
    "name": ('"\\u001b[31mred\\u001b[0m"', '"a\\u0000b"', '"\\u0007bell"', '"\\ud800"'),
    "metric": ('"\\u001b]0;x\\u0007"', '""'),
    "path": ('"/etc/passwd"', '"/dev/zero"', '"/proc/self/environ"', '"../../../etc/passwd"'),
    "kind": ('"sideways"',),
    "correction": ('"\\u001b[2J"',),
}


@dataclass(frozen=True)
class Case:
    """One hostile run: where (the target's folder, copied), what to break, the command."""

    id: str
    target: str
    verb: str
    reader: str | None
    group: str  # bytes, special, bomb, cells, strings, shape, options, toml, registry
    argv: tuple[str, ...]
    folder: Path
    ops: tuple[tuple[Any, ...], ...] = ()
    out: bool = False  # --out given: its files are scanned too
    note: str = field(default="", compare=False)


def _with_option(argv: tuple[str, ...], opt: str, value: str) -> tuple[str, ...]:
    args = list(argv)
    if opt in args:
        i = args.index(opt)
        if i + 1 < len(args) and not args[i + 1].startswith("--"):
            args[i + 1] = value
            return tuple(args)
    return (*args, opt, value)


def _without_out(argv: tuple[str, ...]) -> tuple[str, ...]:
    args = list(argv)
    if "--out" in args:
        i = args.index("--out")
        del args[i : i + 2]
    return tuple(args)


def base_argv(t: Target, options: dict[str, str]) -> tuple[str, ...]:
    """The target's command, with 199 bootstrap replicates where the verb has them."""
    if "--bootstrap-reps" in options and "--bootstrap-reps" not in t.argv:
        return (*t.argv, "--bootstrap-reps", "199")
    return t.argv


def _case(
    t: Target,
    argv: tuple[str, ...],
    group: str,
    label: str,
    *ops: Any,
    out: bool = False,
    note: str = "",
) -> Case:
    return Case(
        f"{t.name}/{label}", t.name, t.verb, t.reader, group, argv, t.folder, tuple(ops), out, note
    )


def file_cases(t: Target, argv: tuple[str, ...], rel: str, kind: str, out_ok: bool) -> list[Case]:
    data = (t.folder / rel).read_bytes()
    name = rel.rsplit("/", 1)[-1]
    cases = [
        _case(t, argv, "special", f"{name}:{label}", (op[0], rel, *op[1:])) for label, op in SPECIAL
    ]
    if kind in TEXT_KINDS:
        cases += [
            _case(t, argv, "bomb", f"{name}:{label}", (op[0], rel, *op[1:]))
            for label, op in TEXT_SPECIAL
        ]
        gz = tuple(a + ".gz" if a == rel else a for a in argv)
        cases.append(
            _case(
                t,
                gz,
                "bomb",
                f"{name}:gzip-lines-bomb",
                ("bomb", rel, "gzip-lines"),
                note="renamed to .gz",
            )
        )
    cases += byte_cases(t, argv, rel, data)
    if rel.endswith(".eval"):
        cases.append(_case(t, argv, "bomb", f"{name}:zip-bomb-member", ("bomb", rel, "eval-bomb")))
        cases.append(_case(t, argv, "bytes", f"{name}:bad-crc", ("bomb", rel, "eval-crc")))
    if kind == "toml":
        cases += toml_cases(t, argv, rel, data)
    elif kind in TEXT_KINDS:
        cases += content_cases(t, argv, rel, kind, data, out_ok)
    return cases


def byte_cases(t: Target, argv: tuple[str, ...], rel: str, data: bytes) -> list[Case]:
    name = rel.rsplit("/", 1)[-1]
    half = len(data) // 2
    variants = {
        "truncated-half": data[:half],
        "truncated-last-byte": data[:-1],
        "non-utf8": data[:half] + b"\xff\xfe\xc3(" + data[half:],
        "nul-bytes": data[:half] + b"\x00" * 16 + data[half:],
        "bom-crlf": b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"),
    }
    return [_case(t, argv, "bytes", f"{name}:{k}", ("write", rel, v)) for k, v in variants.items()]


def _edit(kind: str) -> tuple[Any, Any, Any]:
    if kind in ("jsonl", "json"):
        return fm.json_cell, fm.json_string, fm.json_shape
    return fm.table_cell, fm.table_string, fm.table_shape


def content_cases(
    t: Target, argv: tuple[str, ...], rel: str, kind: str, data: bytes, out_ok: bool
) -> list[Case]:
    name = rel.rsplit("/", 1)[-1]
    cell, string, shape = _edit(kind)
    cases: list[Case] = []
    json_kind = kind in ("jsonl", "json")
    for i, (label, text, token) in enumerate(CELLS):
        for every, scope in ((0, "one"), (3, "third")):
            new = cell(data, kind, i, token if json_kind else text, every)
            if new is not None:
                cases.append(
                    _case(t, argv, "cells", f"{name}:cell-{label}-{scope}", ("write", rel, new))
                )
    out_argv = (*_without_out(argv), "--out", "out") if out_ok else argv
    for i, (label, text) in enumerate(STRINGS):
        new = string(data, kind, i, text)
        if new is not None:
            cases.append(
                _case(
                    t,
                    out_argv,
                    "strings",
                    f"{name}:string-{label}",
                    ("write", rel, new),
                    out=out_ok,
                )
            )
    for label in SHAPES:
        new = shape(data, kind, label)
        if new is not None:
            cases.append(_case(t, argv, "shape", f"{name}:{label}", ("write", rel, new)))
    return cases


def toml_cases(t: Target, argv: tuple[str, ...], rel: str, data: bytes) -> list[Case]:
    name = rel.rsplit("/", 1)[-1]
    out_argv = (*_without_out(argv), "--out", "out")
    cases = []
    for key, values in TOML_VALUES.items():
        for j, value in enumerate(values):
            new = fm.toml_value(data, key, value)
            if new is not None:
                a = out_argv if key in ("name", "metric") else argv
                cases.append(
                    _case(t, a, "toml", f"{name}:{key}-{j}", ("write", rel, new), out=a is out_argv)
                )
    for n in (2_000, 100_000):
        cases.append(
            _case(
                t, argv, "toml", f"{name}:gates-x{n}", ("write", rel, fm.toml_many_gates(data, n))
            )
        )
    return cases


def option_cases(
    t: Target, argv: tuple[str, ...], options: dict[str, str], rng: random.Random, per_option: int
) -> list[Case]:
    cases = []
    for opt in sorted(options):
        if opt in SKIP_OPTIONS or options[opt] not in OPTION_VALUES:
            continue
        values = NAMED.get(opt) or OPTION_VALUES[options[opt]]
        chosen = values if opt in NAMED else rng.sample(values, min(per_option, len(values)))
        for value in chosen:
            label = value if len(value) < 24 and value.isprintable() else f"v{values.index(value)}"
            cases.append(_case(t, _with_option(argv, opt, value), "options", f"{opt}={label}"))
    return cases


REGISTRY_EDITS = (
    ("row-config-not-json", "UPDATE runs SET config = 'not json {'"),
    ("row-results-nan", 'UPDATE runs SET results = \'{"x": NaN, "y": 1e400}\''),
    ("row-started-garbage", "UPDATE runs SET started_at = char(27) || '[31m'"),
    ("row-argv-escape", "UPDATE runs SET argv = '[\"' || char(27) || ']0;x' || char(7) || '\"]'"),
    ("row-null-text", "UPDATE runs SET command = '', status = 'weird', wall_s = 'ERROR'"),
    (
        "row-huge",
        "UPDATE runs SET outputs = '[' || substr(hex(zeroblob(5000000)), 1, 9000000) || ']'",
    ),
    ("schema-dropped", "DROP TABLE runs"),
    ("user-version", "PRAGMA user_version = 999"),
)


def registry_cases(t: Target, argv: tuple[str, ...], rel: str) -> list[Case]:
    return [
        _case(t, argv, "registry", f"registry:{label}", ("sql", rel, sql))
        for label, sql in REGISTRY_EDITS
    ]


def target_cases(t: Target, options: dict[str, str], seed: int, per_option: int) -> list[Case]:
    rng = random.Random(f"{seed}:{t.name}")
    argv = base_argv(t, options)
    cases = [_case(t, argv, "valid", "valid")]
    for rel, kind in t.inputs:
        cases += file_cases(t, argv, rel, kind, "--out" in options)
        if rel.endswith(".sqlite"):
            cases += registry_cases(t, argv, rel)
    cases += option_cases(t, argv, options, rng, per_option)
    return cases


def all_cases(
    targets: tuple[Target, ...], options: dict[str, dict[str, str]], seed: int, per_option: int = 3
) -> list[Case]:
    """Every target's cases; the ids are unique (checked)."""
    cases = [c for t in targets for c in target_cases(t, options[t.name], seed, per_option)]
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, f"duplicate case ids: {sorted(dup)[:5]}"
    return cases


#: Ids holding these come first in their group (the issue's named cases).
PRIORITY = (
    "cell-ERROR-third",
    "fifo",
    "gzip-bomb",
    "symlink-passwd",
    "zip-bomb",
    "gates-x",
    "--population=1e308",
    "--bootstrap-reps=1000000000",
    "--k=0",
    "string-ansi",
)


def capped(cases: list[Case], seed: int, per_target: int) -> list[Case]:
    """At most ``per_target`` cases per target besides its valid run: taken round-robin over
    the groups (bytes, special, cells, strings, options…), each group in a seeded order with
    the issue's named cases first. Deterministic for a seed."""
    rng = random.Random(f"cap:{seed}")
    by_target: dict[str, list[Case]] = {}
    for c in cases:
        by_target.setdefault(c.target, []).append(c)
    chosen: list[Case] = []
    for name in by_target:
        group_lists: dict[str, list[Case]] = {}
        for c in by_target[name]:
            group_lists.setdefault(c.group, []).append(c)
        chosen += group_lists.pop("valid", [])
        for group in group_lists.values():
            rng.shuffle(group)
            group.sort(key=lambda c: not any(p in c.id for p in PRIORITY))
        picked: list[Case] = []
        queues = [group_lists[g] for g in sorted(group_lists)]
        while len(picked) < per_target and any(queues):
            for q in queues:
                if q and len(picked) < per_target:
                    picked.append(q.pop(0))
        chosen += picked
    return chosen
