"""Build the built-in coverage table behind the default interval recommendation.

Runs the coverage simulator on three censuses — the BM25 self-retrieval study (score
``hit1``) of the planalto laws, of ANEEL REN 1.000 and of the built-in demo corpus — at
K = 5, 10, 20, 40, 80, micro and macro, every method, and writes
``src/ragstat/inference/data/coverage_table.json``: per corpus, K, estimand and method the
coverage, its Monte-Carlo SE, the mean width and the replicates, plus the settings and the
ragstat version. Sized to run in about six minutes on one core (4,000 samples per K, 999 bootstrap
replicates inside each).

Usage (from the repository root, with ../shared/data present)::

    python scripts/make_coverage_table.py [--reps 4000] [--bootstrap-reps 999] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "src" / "ragstat" / "inference" / "data" / "coverage_table.json"
KS = (5, 10, 20, 40, 80)
CORPORA = {
    "planalto-leis": str(DATA / "planalto-leis.jsonl"),
    "aneel-ren1000": str(DATA / "aneel-ren1000.jsonl"),
    "demo": "demo",
}


def _study(source: str, out: Path) -> Path:
    """Run the BM25 self-retrieval study of ``source`` into ``out``; its records file."""
    cmd = ["ragstat", "study", source, "--retrievers", "bm25", "--out", str(out), "--quiet"]
    subprocess.run(cmd, check=True)
    return out / "records.parquet"


def _rows(report) -> dict[str, dict[str, dict[str, dict]]]:
    """{K: {estimand: {method: {coverage, mc_se, mean_width, reps}}}} of one report."""
    table: dict[str, dict[str, dict[str, dict]]] = {}
    for r in report.results:
        cell = table.setdefault(str(r.k), {}).setdefault(r.estimand, {})
        cell[r.method] = {
            "coverage": round(r.coverage, 5),
            "mc_se": round(r.coverage_se, 5),
            "mean_width": None if r.mean_width is None else round(r.mean_width, 5),
            "reps": r.reps,
        }
    return table


def _simulate(records: Path, args: argparse.Namespace) -> dict:
    from ragstat.simulation import load_census, simulate_coverage

    census = load_census(records, score="hit1", system="bm25")
    report = simulate_coverage(
        census,
        KS,
        reps=args.reps,
        bootstrap_reps=args.bootstrap_reps,
        seed=args.seed,
        workers=args.workers,
    )
    return {"census": report.census.to_dict(), "by_k": _rows(report)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=4_000)
    p.add_argument("--bootstrap-reps", type=int, default=999)
    p.add_argument("--seed", type=int, default=20_260_101)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    from ragstat import __version__
    from ragstat.inference.results import METHODS

    corpora = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in CORPORA.items():
            t0 = time.perf_counter()
            records = _study(source, Path(tmp) / name)
            corpora[name] = _simulate(records, args)
            print(f"{name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    table = {
        "ragstat_version": __version__,
        "settings": {
            "study": "self-retrieval, bm25, score hit1 (top-1 hit), default chunking",
            "design": "srs",
            "level": 0.95,
            "ks": list(KS),
            "estimands": ["micro", "macro"],
            "methods": list(METHODS),
            "reps_per_k": args.reps,
            "bootstrap_reps": args.bootstrap_reps,
            "seed": args.seed,
            "script": "scripts/make_coverage_table.py",
        },
        "corpora": corpora,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = args.out.with_suffix(".json.tmp")
    tmp_out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp_out.replace(args.out)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
