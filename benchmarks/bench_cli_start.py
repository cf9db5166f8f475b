"""Benchmark: how long the command line takes to start, against a bare interpreter.

    python benchmarks/bench_cli_start.py             # best of 10 of each command
    python benchmarks/bench_cli_start.py --quick     # best of 3
    python benchmarks/bench_cli_start.py --all-verbs # also every verb's --help
    python benchmarks/bench_cli_start.py --as-is     # keep PYTHONDONTWRITEBYTECODE etc.

Each command runs as a fresh child process with its output thrown away: the baseline
``python -c pass``, ``ragstat --help``, ``ragstat interval --help``, ``ragstat study
--help`` and ``python -c "import ragstat"``. Printed for each: the best and median wall
time, the best CPU time (user + system of the child: less sensitive than wall time to
other work on a shared machine), and the excess of the best wall time over the
baseline's, marked ``ok`` when it is at most 0.3 s (the target of issue 20). The floor,
``import typer``, is what typer costs before ragstat does anything (ragstat draws click's
plain help: typer's rich help, ``typer.rich_utils``, would add ≈ 0.2 s of rich.markdown
and rich.traceback); the rest of a ``--help``'s excess is ragstat's own. Commands
alternate round by round, so a burst of load on the machine touches them all alike.
The children cache their bytecode in a temporary folder (``PYTHONPYCACHEPREFIX``, and
``PYTHONDONTWRITEBYTECODE`` dropped), as an installed package has its ``.pyc`` files;
``--as-is`` keeps this environment's settings. Timing ratios only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

#: The most a command may take above ``python -c pass`` (seconds).
TARGET_S = 0.3
#: What typer costs before ragstat does anything: the floor of any ``--help``.
FLOOR = "floor: import typer"

VERBS = (
    "interval", "compare", "plan", "evaluate", "agreement", "judge-bias", "ppi", "split",
    "coverage", "ui", "gate", "filter-rule", "generation", "ontology", "ingestion", "latency",
    "extraction", "routing", "nuggets", "chunking", "rewriting", "simulate", "study", "demo",
    "report", "runs",
)  # fmt: skip


def ragstat_command() -> list[str]:
    """The installed console script, else ``python -m ragstat``."""
    script = shutil.which("ragstat")
    return [script] if script else [sys.executable, "-m", "ragstat"]


def commands(all_verbs: bool) -> dict[str, list[str]]:
    py, rs = [sys.executable], ragstat_command()
    out = {
        "python -c pass": [*py, "-c", "pass"],
        "ragstat --help": [*rs, "--help"],
        "ragstat interval --help": [*rs, "interval", "--help"],
        "ragstat study --help": [*rs, "study", "--help"],
        'python -c "import ragstat"': [*py, "-c", "import ragstat"],
        FLOOR: [*py, "-c", "import typer"],
    }
    if all_verbs:
        for verb in VERBS:
            out.setdefault(f"ragstat {verb} --help", [*rs, verb, "--help"])
    return out


def child_env(as_is: bool, cache: str) -> dict[str, str]:
    """The children's environment: bytecode cached under ``cache`` (as in an ordinary
    installation), unless ``as_is`` (e.g. PYTHONDONTWRITEBYTECODE=1: every start compiles
    ragstat's sources)."""
    env = dict(os.environ)
    if not as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(
    cmds: dict[str, list[str]], repeat: int, env: dict[str, str]
) -> dict[str, tuple[list[float], list[float]]]:
    times: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in cmds}
    for argv in cmds.values():  # one warm-up round: the page cache, .pyc files
        run_once(argv, env)
    for _ in range(repeat):
        for label, argv in cmds.items():
            wall, cpu = run_once(argv, env)
            times[label][0].append(wall)
            times[label][1].append(cpu)
    return times


def report(times: dict[str, tuple[list[float], list[float]]]) -> None:
    base_wall = min(times["python -c pass"][0])
    base_cpu = min(times["python -c pass"][1])
    print(f"  {'command':<34s} {'best':>7s} {'median':>7s} {'cpu':>6s} {'excess':>7s}  ≤ 0.3 s")
    for label, (walls, cpus) in times.items():
        excess = min(walls) - base_wall
        mark = (
            "" if label in ("python -c pass", FLOOR) else ("ok" if excess <= TARGET_S else "OVER")
        )
        print(
            f"  {label:<34s} {min(walls):7.3f} {statistics.median(walls):7.3f} "
            f"{min(cpus):6.3f} {excess:+7.3f}  {mark}"
        )
    worst = max((k for k in times if k != "python -c pass"), key=lambda k: min(times[k][0]))
    floor = min(times[FLOOR][0]) - base_wall
    print(
        f"slowest: {worst}, {min(times[worst][0]) / base_wall:.1f}× the baseline's wall time "
        f"({min(times[worst][1]) - base_cpu:+.3f} s CPU above it); typer alone "
        f"(the floor) is {floor:+.3f} s, ragstat's own share {min(times[worst][0]) - base_wall - floor:+.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="best of 3 instead of 10")
    parser.add_argument("--repeat", type=int, default=None, help="runs of each command")
    parser.add_argument("--all-verbs", action="store_true", help="also every verb's --help")
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="keep this environment's bytecode settings (default: cache .pyc files in a "
        "temporary folder, as an installed package has them)",
    )
    args = parser.parse_args()
    repeat = args.repeat or (3 if args.quick else 10)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"python {platform.python_version()}, {os.cpu_count()} CPU(s), load average {load:.1f}; "
        f"ragstat = {' '.join(ragstat_command())}; best of {repeat} (seconds); bytecode: "
        + ("as this environment has it" if args.as_is else "cached (PYTHONPYCACHEPREFIX)")
    )
    with tempfile.TemporaryDirectory(prefix="ragstat-pyc-") as cache:
        report(measure(commands(args.all_verbs), repeat, child_env(args.as_is, cache)))


if __name__ == "__main__":
    main()
