"""The hostile sweep (issue 28): ≥ 1,500 generated hostile runs over every verb and every
``--from`` reader; fails (exit 1) on any internal error, hang, run over 1 GB or ``--json``
that a strict parser rejects. See benchmarks/README.md.

    python benchmarks/hostile_sweep.py                  # the full sweep (~1,600 cases)
    python benchmarks/hostile_sweep.py --quick          # the fast subset
    python benchmarks/hostile_sweep.py --only gate/     # cases whose id contains "gate/"
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hostile.runner import Limits, Outcome  # noqa: E402
from hostile.sweep import SEED, build, summary, sweep, write_known, write_report  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the fast subset (~150 cases)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once")
    parser.add_argument("--cpu", type=int, default=20, help="CPU seconds before a hang")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds blocked before a hang")
    parser.add_argument("--only", help="run only cases whose id contains this text")
    parser.add_argument("--list", action="store_true", help="print the case ids and exit")
    parser.add_argument(
        "--write-known",
        action="store_true",
        help="record this run's failures in tests/hostile/known.py (xfail)",
    )
    parser.add_argument("--report", type=Path, default=ROOT / "benchmarks/_data/hostile.json")
    parser.add_argument(
        "--known-from",
        type=Path,
        metavar="REPORT",
        help="write tests/hostile/known.py from a report and exit (no run)",
    )
    args = parser.parse_args()
    if args.known_from:
        report = json.loads(args.known_from.read_text())
        write_known(ROOT / "tests/hostile/known.py", report["outcomes"], report["quick"])
        return 0
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        if args.list:
            for c in build(Path(tmp), args.seed, args.quick):
                print(c.id)
            return 0

        def progress(done: int, total: int, o: Outcome) -> None:
            mark = "FAIL " + "; ".join(o.problems) if o.problems else "ok"
            print(f"[{done}/{total}] {o.id} exit={o.exit} {o.wall_s:.1f}s {mark}", flush=True)

        limits = Limits(cpu_s=args.cpu, idle_s=args.idle)
        cases, outcomes, wall = sweep(
            Path(tmp), args.seed, args.quick, args.jobs, limits, args.only, progress
        )
    print(summary(outcomes))
    print(f"wall {wall:.0f} s; report: {args.report}")
    write_report(args.report, cases, outcomes, wall, args.seed, args.quick)
    if args.write_known and not args.only:
        write_known(ROOT / "tests/hostile/known.py", outcomes, args.quick)
    return 1 if any(o.problems for o in outcomes) else 0


if __name__ == "__main__":
    raise SystemExit(main())
