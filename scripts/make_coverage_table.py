"""Build the built-in coverage table behind the default interval recommendation.

Two sections, each measured by the coverage simulator at K = 5, 10, 20, 40, 80, micro and
macro, every method, on three censuses — the self-retrieval study of the planalto laws, of
ANEEL REN 1.000 and of the built-in demo corpus:

* rates (the file's top-level ``settings`` and ``corpora``): the BM25 study's ``hit1``
  (top-1 hit, a 0/1 score in [0, 1]); 4,000 samples per K, 999 bootstrap replicates,
  about six minutes on one idle core;
* ``paired``: the per-query difference y = hit1 of bm25 − hit1 of tfidf of a study with
  both retrievers (a difference of two rates, known in [−1, 1]; the range-respecting
  methods work on that range); 2,000 samples per K, 499 bootstrap replicates inside each,
  sized to take under fifteen minutes on one shared core.

Per corpus, K, estimand and method: the coverage, its Monte-Carlo SE, the mean width and
the replicates, plus each section's settings and the ragstat version. ``--part paired``
rebuilds the paired section only and keeps the rate section as it is (and vice versa).

Usage (from the repository root, with ../shared/data present)::

    python scripts/make_coverage_table.py [--part all|rates|paired] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
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
#: (samples per K, bootstrap replicates) of each part.
SIZES = {"rates": (4_000, 999), "paired": (2_000, 499)}
PAIR = ("bm25", "tfidf")
DIFFERENCE_RANGE = (-1.0, 1.0)


def _study(source: str, out: Path, retrievers: str) -> Path:
    """Run the self-retrieval study of ``source`` into ``out``; its records file."""
    cmd = ["ragstat", "study", source, "--retrievers", retrievers, "--out", str(out), "--quiet"]
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


def _census(records: Path, part: str):
    """The census of one study: bm25's hit1, or the paired difference bm25 − tfidf."""
    from ragstat.records import pair_files
    from ragstat.simulation import Census, load_census

    if part == "rates":
        return load_census(records, score="hit1", system="bm25")
    table = pair_files(records, systems=PAIR, score="hit1")
    stats = replace(table.stats, bounds=DIFFERENCE_RANGE, difference=True)
    return Census.from_docstats(stats)


def _simulate(records: Path, part: str, args: argparse.Namespace) -> dict:
    from ragstat.simulation import simulate_coverage

    reps, boot = SIZES[part]
    report = simulate_coverage(
        _census(records, part),
        KS,
        reps=args.reps or reps,
        bootstrap_reps=args.bootstrap_reps or boot,
        seed=args.seed,
        workers=args.workers,
        methods=_methods(part),
    )
    return {"census": report.census.to_dict(), "by_k": _rows(report)}


def _methods(part: str) -> tuple[str, ...]:
    """Every method; for the paired differences the small-K candidates too (the
    beta-binomial model is for 0/1 scores only, so not for a difference)."""
    from ragstat.inference.names import METHODS, SMALL_K_METHODS

    if part == "paired":
        return tuple(m for m in METHODS if m != "beta_binomial")
    return tuple(m for m in METHODS if m not in SMALL_K_METHODS)


def _settings(part: str, args: argparse.Namespace) -> dict:

    reps, boot = SIZES[part]
    study = (
        "self-retrieval, bm25, score hit1 (top-1 hit), default chunking"
        if part == "rates"
        else "self-retrieval, bm25 and tfidf, per-query difference hit1(bm25) − hit1(tfidf) "
        "in [−1, 1], default chunking"
    )
    out = {
        "study": study,
        "design": "srs",
        "level": 0.95,
        "ks": list(KS),
        "estimands": ["micro", "macro"],
        "methods": list(_methods(part)),
        "reps_per_k": args.reps or reps,
        "bootstrap_reps": args.bootstrap_reps or boot,
        "seed": args.seed,
        "script": "scripts/make_coverage_table.py",
    }
    if part == "paired":
        out["bounds"] = list(DIFFERENCE_RANGE)
        out["sizing"] = (
            "2,000 samples per K and 499 bootstrap replicates: sized to run in under 15 "
            "minutes on one shared core (Monte-Carlo SE of a 95 % coverage ≈ 0.005 per corpus)"
        )
    return out


def _part(part: str, args: argparse.Namespace, tmp: Path) -> dict:
    from ragstat import __version__

    retrievers = "bm25" if part == "rates" else ",".join(PAIR)
    corpora = {}
    for name, source in CORPORA.items():
        t0 = time.perf_counter()
        records = _study(source, tmp / f"{part}-{name}", retrievers)
        corpora[name] = _simulate(records, part, args)
        print(f"{part} {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return {"ragstat_version": __version__, "settings": _settings(part, args), "corpora": corpora}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("all", "rates", "paired"), default="all")
    p.add_argument("--reps", type=int, default=None, help="samples per K (default per part)")
    p.add_argument("--bootstrap-reps", type=int, default=None)
    p.add_argument("--seed", type=int, default=20_260_101)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    table = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.part in ("all", "rates"):
            paired = table.get("paired")
            table = _part("rates", args, Path(tmp))
            if paired is not None:
                table["paired"] = paired
        if args.part in ("all", "paired"):
            if "corpora" not in table:
                raise SystemExit("the rate section is missing: run with --part all first")
            table["paired"] = _part("paired", args, Path(tmp))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = args.out.with_suffix(".json.tmp")
    tmp_out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp_out.replace(args.out)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
