"""The small-K contest: coverage of every interval method, candidates included, at K = 5–80.

Families (populations a sample of K documents is drawn from, without replacement):

* the three built-in corpora — the BM25 self-retrieval study's hit@1 (0/1) on the planalto
  laws, ANEEL REN 1.000 and the built-in demo corpus;
* synthetic censuses of 2,000 documents spanning the intra-document correlation (ICC
  0.02–0.5), the spread of document sizes (CV 0.2–1.5, mean 8 queries), rates 0.03–0.97,
  0/1 and continuous scores in [0, 1] (`synthetic_census`);
* paired differences: the per-query difference hit@1 of BM25 − hit@1 of TF-IDF on the
  three corpora, known to lie in [−1, 1] (the default for a difference of two scores).

For each family, K in 5, 10, 20, 40, 80, micro and macro: R samples (4,000 by default), every
method's 95 % interval (999 bootstrap replicates where a method resamples), its coverage of
the census value with the Monte-Carlo SE sqrt(c(1 − c)/R), the share of samples where it
gives no interval and the median width relative to the reference interval (CR2 with
Bell–McCaffrey df: cr2_bm for micro, t_rates for macro — the same interval for one
observation per document). Where a method gives no interval (every sampled document at
the same rate: all 0 with a rare success, say), ragstat shows Korn–Graubard's instead
(`inference.defaults`), so ``coverage`` counts that interval there (``coverage_alone``
counts a miss). Writes src/ragstat/inference/data/contest_table.json with the
seed, the settings, the ragstat version and the run time; `scripts/make_contest_doc.py`
renders it into docs/guide/small-k-contest.md.

Usage (from the repository root, with ../shared/data present)::

    python scripts/small_k_contest.py [--reps 4000] [--workers 2] [--families a,b]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "src" / "ragstat" / "inference" / "data" / "contest_table.json"
KS = (5, 10, 20, 40, 80)
LEVEL = 0.95
CORPORA = {
    "planalto-leis": str(DATA / "planalto-leis.jsonl"),
    "aneel-ren1000": str(DATA / "aneel-ren1000.jsonl"),
    "demo": "demo",
}
#: Synthetic families: score kind, ICC, CV of document sizes, mean rate, and whether the
#: rate grows with document size (micro ≠ macro).
SYNTHETIC = {
    "binary-icc0.02-cv0.2-rate0.5": ("binary", 0.02, 0.2, 0.5, False),
    "binary-icc0.5-cv1.5-rate0.5": ("binary", 0.5, 1.5, 0.5, False),
    "binary-icc0.15-cv0.8-rate0.03": ("binary", 0.15, 0.8, 0.03, False),
    "binary-icc0.15-cv0.8-rate0.97": ("binary", 0.15, 0.8, 0.97, False),
    "binary-icc0.3-cv1.5-rate0.2-size": ("binary", 0.3, 1.5, 0.2, True),
    "continuous-icc0.05-cv1.5-mean0.7": ("continuous", 0.05, 1.5, 0.7, False),
    "continuous-icc0.5-cv0.2-mean0.3": ("continuous", 0.5, 0.2, 0.3, False),
    "continuous-icc0.2-cv0.8-mean0.9-size": ("continuous", 0.2, 0.8, 0.9, True),
}
SYNTHETIC_M = 2_000
MEAN_SIZE = 8.0
#: Within-document concentration of continuous scores: y ~ Beta(p κ, (1 − p) κ).
KAPPA = 4.0
MICRO = (
    "cr2_bm", "cr2_ik", "cr1", "doc_bootstrap_t", "doc_bootstrap_percentile", "logit",
    "korn_graubard", "logit_cr2_bm", "wald_iid",
)  # fmt: skip
MACRO = ("t_rates", "doc_bootstrap_t", "doc_bootstrap_percentile", "logit", "korn_graubard",
         "wald_iid")  # fmt: skip
REFERENCE = {"micro": "cr2_bm", "macro": "t_rates"}
#: The interval shown where a method gives none (available at every rate, 0 and 1 too).
FALLBACK = "korn_graubard"
PAIRED = {name: f"{name}-paired" for name in ("planalto-leis", "aneel-ren1000", "demo")}
BLOCK = 250


def synthetic_census(spec: tuple, seed: int):
    """A census of SYNTHETIC_M documents: sizes 1 + Gamma with the family's CV (mean
    MEAN_SIZE), document rates p_d ~ Beta with mean μ and the family's ICC (on the logit
    scale shifted by the standardised log size when the rate grows with size), 0/1 scores
    ~ Bernoulli(p_d) or continuous y ~ Beta(p_d κ, (1 − p_d) κ)."""
    from ragstat.simulation import Census

    kind, icc, cv, mu, sized = spec
    rng = np.random.default_rng(seed)
    shape = 1.0 / cv**2
    n = 1 + np.round(rng.gamma(shape, (MEAN_SIZE - 1) / shape, SYNTHETIC_M))
    # ICC of a 0/1 score with Beta(μφ, (1−μ)φ) rates is 1/(1 + φ); of a continuous one
    # 1/(1 + φ/(κ + 1)).
    phi = 1.0 / icc - 1.0 if kind == "binary" else (KAPPA + 1.0) * (1.0 / icc - 1.0)
    p = rng.beta(mu * phi, (1 - mu) * phi, SYNTHETIC_M)
    if sized:
        z = np.log(n) - np.log(n).mean()
        logit = np.log(p / (1 - p)) + 0.8 * z / max(z.std(), 1e-12)
        p = 1.0 / (1.0 + np.exp(-np.clip(logit, -30, 30)))
    p = np.clip(p, 1e-9, 1 - 1e-9)
    if kind == "binary":
        s = rng.binomial(n.astype(int), p).astype(float)
        w = s - s * s / n
    else:
        doc = np.repeat(np.arange(SYNTHETIC_M), n.astype(int))
        y = rng.beta(p[doc] * KAPPA, (1 - p[doc]) * KAPPA)
        s = np.bincount(doc, weights=y, minlength=SYNTHETIC_M)
        w = np.bincount(doc, weights=(y - (s / n)[doc]) ** 2, minlength=SYNTHETIC_M)
    return Census(n, s, w, kind == "binary", None, True, (0.0, 1.0))


def corpus_census(source: str, tmp: Path, paired: bool = False):
    """The census of the BM25 study's hit@1 on one corpus, or of the per-query difference
    hit@1 of BM25 − hit@1 of TF-IDF (known in [−1, 1])."""
    from dataclasses import replace

    from ragstat.records import pair_files
    from ragstat.simulation import Census, load_census

    out = tmp / Path(source).stem
    if not (out / "records.parquet").is_file():
        cmd = [sys.executable, "-m", "ragstat", "study", source, "--retrievers", "bm25,tfidf",
               "--out", str(out), "--quiet"]  # fmt: skip
        subprocess.run(cmd, check=True)
    if not paired:
        return load_census(out / "records.parquet", score="hit1", system="bm25")
    table = pair_files(out / "records.parquet", systems=("bm25", "tfidf"), score="hit1")
    stats = replace(table.stats, bounds=(-1.0, 1.0), difference=True)
    return Census.from_docstats(stats)


CORPUS_LABELS = {
    "planalto-leis": "planalto laws, BM25 hit@1",
    "aneel-ren1000": "ANEEL REN 1.000, BM25 hit@1",
    "demo": "demo corpus, BM25 hit@1",
}


def label(name: str) -> str:
    """A family's name in words."""
    if name in CORPUS_LABELS:
        return CORPUS_LABELS[name]
    for corpus, paired in PAIRED.items():
        if name == paired:
            return CORPUS_LABELS[corpus].replace("BM25 hit@1", "hit@1 of BM25 − TF-IDF")
    kind, icc, cv, mu, sized = SYNTHETIC[name]
    what = "0/1 scores" if kind == "binary" else "continuous scores"
    text = f"{what}, mean {mu:g}, ICC {icc:g}, size CV {cv:g}"
    return text + ", rate grows with size" if sized else text


def _srs(rng: np.random.Generator, M: int, k: int, reps: int) -> np.ndarray:
    keys = rng.random((reps, M))
    return np.argpartition(keys, k - 1, axis=1)[:, :k]


def _methods(candidates: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(MICRO + MACRO + candidates))


def run_cell(args: tuple) -> dict:
    """Every method's coverage in one (family, K) cell."""
    from ragstat.simulation.batch import batch_intervals
    from ragstat.simulation.tally import tally

    census, k, reps, boot, seed, candidates = args
    if not census.binary:  # the beta-binomial model is for 0/1 scores only
        candidates = tuple(c for c in candidates if c != "beta_binomial")
    t0 = time.perf_counter()
    wanted = {"micro": MICRO + candidates, "macro": MACRO + candidates}
    parts: dict[tuple[str, str], list] = {}
    targets = {"micro": census.micro, "macro": census.macro}
    for b, child in enumerate(np.random.SeedSequence(seed).spawn(-(-reps // BLOCK))):
        rng = np.random.default_rng(child)
        rows = min(BLOCK, reps - b * BLOCK)
        idx = _srs(rng, census.M, k, rows)
        out = batch_intervals(
            census.n[idx], census.s[idx], census.w[idx], binary=census.binary, level=LEVEL,
            fpc=1.0 - k / census.M, methods=_methods(candidates), bootstrap_reps=boot, rng=rng,
            bounds=census.known_bounds,
        )  # fmt: skip
        for iv in out:
            if iv.method in wanted[iv.estimand]:
                got = (iv.estimate, iv.lower, iv.upper, iv.available)
                parts.setdefault((iv.estimand, iv.method), []).append(got)
    cell: dict[str, dict] = {}
    joined = {key: [np.concatenate(a) for a in zip(*b, strict=True)] for key, b in parts.items()}
    for (est, method), arrays in joined.items():
        alone = tally(k, est, method, targets[est], *arrays)
        shown = _with_fallback(arrays, joined.get((est, FALLBACK)))
        cov = tally(k, est, method, targets[est], *shown)
        widths = (shown[2] - shown[1])[shown[3]]
        cell.setdefault(est, {})[method] = {
            "coverage": round(cov.coverage, 5),
            "mc_se": round(cov.coverage_se, 5),
            "coverage_alone": round(alone.coverage, 5),
            "unavailable": round(1.0 - float(np.mean(arrays[3])), 5),
            "median_width": float(np.median(widths)) if widths.size else None,
        }
    for est, rows in cell.items():
        ref = rows.get(REFERENCE[est], {}).get("median_width")
        for row in rows.values():
            w = row["median_width"]
            row["width_vs_reference"] = None if not ref or w is None else round(w / ref, 4)
            row["median_width"] = None if w is None else round(w, 6)
    return {"k": k, "seconds": round(time.perf_counter() - t0, 1), "by_estimand": cell}


def _kind(name: str, census) -> str:
    """The table section a family belongs to: paired, binary or continuous."""
    if name in PAIRED.values():
        return "paired"
    return "binary" if census.binary else "continuous"


def _with_fallback(arrays: list, fallback: list | None) -> list:
    """(estimate, lower, upper, available) with the fallback's interval where there is none."""
    if fallback is None:
        return arrays
    est, lo, hi, ok = arrays
    return [est, np.where(ok, lo, fallback[1]), np.where(ok, hi, fallback[2]), ok | fallback[3]]


def main(argv: list[str] | None = None) -> int:
    from ragstat.inference.names import SMALL_K_METHODS

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=4_000)
    p.add_argument("--bootstrap-reps", type=int, default=999)
    p.add_argument("--seed", type=int, default=20_261_203)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--ks", default=",".join(map(str, KS)))
    p.add_argument("--families", default=None, help="comma-separated subset")
    p.add_argument("--candidates", default=",".join(SMALL_K_METHODS))
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    ks = tuple(int(k) for k in args.ks.split(","))
    candidates = tuple(c for c in args.candidates.split(",") if c)
    names = list(CORPORA) + list(SYNTHETIC) + list(PAIRED.values())
    if args.families:
        names = [f for f in names if f in args.families.split(",")]
    t0 = time.perf_counter()
    censuses = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, name in enumerate(names):
            if name in CORPORA:
                censuses[name] = corpus_census(CORPORA[name], Path(tmp))
            elif name in SYNTHETIC:
                censuses[name] = synthetic_census(SYNTHETIC[name], args.seed + 1_000 + i)
            else:
                corpus = next(c for c, p in PAIRED.items() if p == name)
                censuses[name] = corpus_census(CORPORA[corpus], Path(tmp), paired=True)
    jobs = [
        (name, (censuses[name], k, args.reps, args.bootstrap_reps,
                [args.seed, names.index(name), k], candidates))
        for name in names for k in sorted(ks, reverse=True)
    ]  # fmt: skip
    table = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    families = table.get("families", {})
    runs = [*table.get("runs", []), {"candidates": list(candidates), "families": names,
                                     "reps_per_cell": args.reps, "seconds": 0.0}]  # fmt: skip
    with ProcessPoolExecutor(args.workers) as pool:
        for (name, job), got in zip(jobs, pool.map(run_cell, [j for _, j in jobs]), strict=True):
            fam = families.setdefault(name, {"census": {}, "by_k": {}})
            fam["label"] = label(name)
            c = job[0]
            fam["census"] = {"documents": c.M, "queries": int(c.n.sum()), "binary": c.binary,
                             "micro": c.micro, "macro": c.macro,
                             "kind": _kind(name, c)}  # fmt: skip
            cell = fam["by_k"].setdefault(str(got["k"]), {})
            for est, rows in got["by_estimand"].items():
                cell.setdefault(est, {}).update(rows)
            cell["seconds"] = round(cell.get("seconds", 0.0) + got["seconds"], 1)
            print(f"{name} K={got['k']}: {got['seconds']} s", file=sys.stderr, flush=True)
            runs[-1]["seconds"] = round(time.perf_counter() - t0, 1)
            _write(args, runs, families)  # after every cell: an interrupted run keeps its cells
    return 0


def _write(args: argparse.Namespace, runs: list, families: dict) -> None:
    from ragstat import __version__

    table = {
        "ragstat_version": __version__,
        "settings": {
            "level": LEVEL, "ks": list(KS), "reps_per_cell": args.reps,
            "bootstrap_reps": args.bootstrap_reps, "seed": args.seed, "design": "srs",
            "synthetic": {k: list(v) for k, v in SYNTHETIC.items()},
            "synthetic_documents": SYNTHETIC_M, "mean_size": MEAN_SIZE, "kappa": KAPPA,
            "reference": REFERENCE, "script": "scripts/small_k_contest.py",
        },
        "runs": runs,
        "families": families,
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = args.out.with_suffix(".json.tmp")
    tmp_out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp_out.replace(args.out)


if __name__ == "__main__":
    raise SystemExit(main())
