"""The sweep: set up the run folder and registry that ``report`` and ``runs`` read, build
the cases of every target, run them and summarise (shared by ``benchmarks/hostile_sweep.py``
and ``tests/test_hostile_sweep.py``)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from .cases import Case, all_cases, capped
from .runner import Limits, Outcome, preimport, run_cases, verb_options
from .targets import FORMATS, READER_TARGETS, VERB_TARGETS, Target, run_targets

SEED = 28
READER_OPTIONS = ("--score", "--cluster-by", "--system", "--cluster-rule", "--missing-cluster")


def prepare_seeds(work: Path) -> tuple[Path, tuple[str, str]]:
    """A folder with ``run/`` (an interval run) and ``registry.sqlite`` holding two runs."""
    seeds = work / "seeds"
    shutil.rmtree(seeds, ignore_errors=True)
    shutil.copytree(FORMATS / "interval", seeds)
    for name in ("run_a.csv", "run_b.csv"):
        shutil.copy(FORMATS / "compare" / name, seeds / name)
    commands = (
        ["interval", "results.csv", "--seed", "7", "--bootstrap-reps", "199", "--out", "run"],
        ["compare", "run_a.csv", "run_b.csv", "--seed", "7", "--bootstrap-reps", "199"],
    )
    for argv in commands:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.chdir(seeds)
                os.environ["RAGSTAT_REGISTRY"] = str(seeds / "registry.sqlite")
                fd = os.open(os.devnull, os.O_WRONLY)
                os.dup2(fd, 1)
                from ragstat.cli import main

                code = main(argv)
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, f"set-up run failed: {argv}"
    with sqlite3.connect(seeds / "registry.sqlite") as db:
        ids = [r[0] for r in db.execute("SELECT run_id FROM runs ORDER BY started_at")]
    assert len(ids) == 2, ids
    return seeds, (ids[0], ids[1])


def targets(work: Path) -> tuple[Target, ...]:
    seeds, ids = prepare_seeds(work)
    return VERB_TARGETS + READER_TARGETS + run_targets(seeds, ids)


FULL_PER_TARGET = 40
QUICK_PER_TARGET = 3
QUICK_SKIP = ("study",)  # the study's valid run alone takes seconds of CPU
#: The quick subset also leaves out bombs and FIFOs (seconds each until caps refuse them).


def build(work: Path, seed: int = SEED, quick: bool = False) -> list[Case]:
    """The cases (deterministic for a seed): up to 40 per target besides its valid run;
    ``quick``: 3 per target, the study targets left out."""
    every = targets(work)
    options: dict[str, dict[str, str]] = {}
    seen: set[tuple[str, ...]] = set()
    for t in every:
        key = t.argv[:2] if t.verb == "runs" else t.argv[:1]
        opts = verb_options(t.argv)
        if key in seen:  # a verb's options are fuzzed once; readers keep their own
            opts = {k: v for k, v in opts.items() if k in READER_OPTIONS or k == "--bootstrap-reps"}
            opts = {k: (v if k != "--bootstrap-reps" else "flag") for k, v in opts.items()}
        seen.add(key)
        options[t.name] = opts
    cases = all_cases(every, options, seed)
    if quick:
        cases = [
            c
            for c in cases
            if not c.target.startswith(QUICK_SKIP) and c.group != "bomb" and "fifo" not in c.id
        ]
    return capped(cases, seed, QUICK_PER_TARGET if quick else FULL_PER_TARGET)


def sweep(
    work: Path,
    seed: int = SEED,
    quick: bool = False,
    jobs: int = 2,
    limits: Limits | None = None,
    only: str | None = None,
    progress: Any = None,
) -> tuple[list[Case], list[Outcome], float]:
    preimport()
    cases = build(work, seed, quick)
    if only:
        cases = [c for c in cases if only in c.id]
    start = time.monotonic()
    outcomes = run_cases(cases, work / "cases", limits or Limits(), jobs, progress)
    return cases, outcomes, time.monotonic() - start


def summary(outcomes: list[Outcome]) -> str:
    """A table per target (cases, failures by kind) and the failures grouped by problem."""
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    for o in outcomes:
        key = o.id.split("/", 1)[0]
        rows[key]["cases"] += 1
        for p in o.problems:
            rows[key][p.split(":")[0].split(" (")[0]] += 1
    kinds = sorted({k for c in rows.values() for k in c if k != "cases"})
    head = f"{'target':24} {'cases':>5} " + " ".join(f"{k[:14]:>14}" for k in kinds)
    lines = [head]
    for name in sorted(rows):
        c = rows[name]
        lines.append(f"{name:24} {c['cases']:5} " + " ".join(f"{c[k] or '':>14}" for k in kinds))
    failed = [o for o in outcomes if o.problems]
    lines.append(f"\n{len(outcomes)} cases, {len(failed)} failed")
    by_problem: dict[str, list[Outcome]] = defaultdict(list)
    for o in failed:
        by_problem[o.problems[0].split(":")[0]].append(o)
    for problem in sorted(by_problem):
        lines.append(f"\n== {problem} ({len(by_problem[problem])})")
        for o in by_problem[problem]:
            lines.append(
                f"  {o.id}  exit={o.exit} sig={o.signal} {o.wall_s:.1f}s "
                f"{o.peak_mb:.0f}MB  {'; '.join(o.problems)}  | {o.stderr_first[:140]}"
            )
    return "\n".join(lines)


def write_report(
    path: Path, cases: list[Case], outcomes: list[Outcome], wall: float, seed: int, quick: bool
) -> None:
    by_id = {c.id: c for c in cases}
    report = {
        "seed": seed,
        "quick": quick,
        "cases": len(outcomes),
        "failed": sum(bool(o.problems) for o in outcomes),
        "wall_s": round(wall, 1),
        "verbs": sorted({o.verb for o in outcomes}),
        "readers": sorted({o.reader for o in outcomes if o.reader}),
        "outcomes": [
            {**o.to_dict(), "argv": list(by_id[o.id].argv), "note": by_id[o.id].note}
            for o in outcomes
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, ensure_ascii=True) + "\n")


def write_known(path: Path, outcomes: list[Any], quick: bool) -> None:
    """Rewrite ``known.py`` with a run's failures for its tier (the other tier kept);
    ``outcomes`` are ``Outcome`` objects or the ``outcomes`` of a written report."""
    from . import known

    rows = [o if isinstance(o, dict) else o.to_dict() for o in outcomes]
    fresh = {
        o["id"]: f"{'; '.join(o['problems'])} | {o['stderr_first']}"[:300]
        for o in rows
        if o["problems"]
    }
    quick_map = fresh if quick else known.KNOWN_QUICK
    full_map = known.KNOWN_FULL if quick else fresh
    text = path.read_text(encoding="utf-8")
    head = text[: text.index("#: case id")].rstrip()
    dumps = functools.partial(json.dumps, ensure_ascii=False)
    body = [head, "", "#: case id → the problem and the first line of stderr, in the quick subset."]
    body += ["KNOWN_QUICK: dict[str, str] = {"]
    body += [f"    {dumps(k)}: {dumps(v)}," for k, v in sorted(quick_map.items())]
    body += [
        "}",
        "",
        "#: The same for the full sweep (``slow``).",
        "KNOWN_FULL: dict[str, str] = {",
    ]
    body += [f"    {dumps(k)}: {dumps(v)}," for k, v in sorted(full_map.items())]
    body += ["}", ""]
    path.write_text("\n".join(body), encoding="utf-8")
