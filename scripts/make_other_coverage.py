"""Coverage of the other 95 % intervals at small K: agreement statistics, extraction F1, PPI.

Each interval is the one the user gets — the same library function the verb calls:

* ``agreement``: ``ragstat.metrics.judging.agreement.bootstrap_intervals`` (the percentile
  interval of a document-cluster bootstrap, 1,999 replicates, every statistic the verb
  reports) on two censuses with document-level rater disagreement:
  ``binary`` (0/1 labels) and ``three-category`` (labels 0, 1, 2; weighted κ and ordinal and
  interval α too);
* ``extraction_f1``: ``ragstat.metrics.extraction.f1_bootstrap`` (the extraction verb's
  corpus F1, percentile interval of 1,999 document resamples) on an entity-extraction-like
  census;
* ``ppi``: ``ragstat.inference.ppi.ppi_analysis`` with the verb's defaults (same documents,
  PPI++ λ, the delete-one-document jackknife t interval) on the census of the PPI module's
  docstring (30 % of items labelled).

Every census has 2,000 documents (3,000 for PPI) drawn once from the seed; each sample draws
K of them without replacement, and the target is the census value (the same statistic on
the pooled census). Coverage is over the samples that got an interval (``no_interval``
counts the others); its Monte-Carlo SE is √(c(1 − c)/n).

Usage (from the repository root)::

    python scripts/make_other_coverage.py [--samples 3000] [--seed 20250531]

It writes ``src/ragstat/inference/data/other_coverage.json`` and the table block of
``docs/guide/other-coverage.md``, and prints its run time (441 s on one shared core for
the committed table). ``--doc-only`` rewrites the page's block from the committed JSON;
``--ppi-methods`` prints the PPI docstring's jackknife and CR1 figures at K = 10 and 40.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import ragstat
from ragstat.inference.ppi import ppi_analysis, ppi_mean
from ragstat.metrics.extraction import Matching, Units, f1_bootstrap, f1_of
from ragstat.metrics.judging import agreement as k

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "ragstat" / "inference" / "data" / "other_coverage.json"
DOC = ROOT / "docs" / "guide" / "other-coverage.md"
START, END = "<!-- other-coverage-table: start -->", "<!-- other-coverage-table: end -->"
KS = (10, 20, 30, 40, 80)
LEVEL = 0.95
REPS = 1999
SEED = 20250531
CENSUS_DOCS = 2000

# ------------------------------------------------------------------------------ censuses


def agreement_census(rng: np.random.Generator, q: int, M: int = CENSUS_DOCS) -> np.ndarray:
    """Per-document confusion tables ``(M, q, q)`` (judge × human) of a census where
    documents differ both in their label mix and in how often the judge agrees.

    Sizes ``1 + Poisson(5)`` items. Human labels: ``Bernoulli(π_d)``, ``π_d ~ Beta(2, 3)``
    (q = 2) or categorical with ``Dirichlet(2, 2, 2)`` shares (q = 3). The judge gives the
    human label with the document's accuracy ``a_d ~ Beta(6, 1.5)`` (mean 0.8); otherwise
    the other label (q = 2) or, for q = 3, an adjacent label (3 times in 4) or the far one.
    """
    m = 1 + rng.poisson(5, M)
    doc = np.repeat(np.arange(M), m)
    if q == 2:
        human = (rng.random(doc.size) < rng.beta(2, 3, M)[doc]).astype(np.int64)
    else:
        shares = rng.dirichlet(np.full(q, 2.0), M)[doc]
        human = (rng.random(doc.size)[:, None] > np.cumsum(shares, axis=1)).sum(axis=1)
    agree = rng.random(doc.size) < rng.beta(6, 1.5, M)[doc]
    wrong = 1 - human if q == 2 else _three_category_errors(rng, human)
    judge = np.where(agree, human, wrong)
    return k.confusion_tables(judge, human, doc, q, M)


def _three_category_errors(rng: np.random.Generator, human: np.ndarray) -> np.ndarray:
    """A wrong label on 0, 1, 2: adjacent 3 times in 4 (either side for 1), else the far one."""
    side = np.where(rng.random(human.size) < 0.5, 0, 2)
    near = rng.random(human.size) < 0.75
    return np.where(human == 1, side, np.where(near, 1, 2 - human))


def extraction_census(rng: np.random.Generator, M: int = CENSUS_DOCS) -> np.ndarray:
    """Per-document totals ``(M, 3)``: true positives, predicted and reference mentions.

    Reference mentions ``1 + Poisson(μ_d)``, ``μ_d ~ Gamma(2, 4)`` (mean 8, documents of
    very different sizes); each is found with the document's recall ``r_d ~ Beta(6, 2)``;
    false positives ``Poisson(φ_d · reference)``, ``φ_d ~ Gamma(2, 0.1)`` (mean 0.2).
    """
    ref = 1 + rng.poisson(rng.gamma(2.0, 4.0, M))
    tp = rng.binomial(ref, rng.beta(6, 2, M))
    fp = rng.poisson(rng.gamma(2.0, 0.1, M) * ref)
    return np.stack([tp, tp + fp, ref], axis=1).astype(np.int64)


def ppi_census(rng: np.random.Generator, M: int = 3000):
    """The PPI docstring's census: pass rate ``p_d ~ Beta(2, 2)``, judge score
    ``clip(0.15 + 0.6 y + b_d + N(0, 0.1²), 0, 1)`` with a document error ``b_d ~ N(0, 0.2²)``,
    sizes ``1 + Poisson(5)``."""
    m = 1 + rng.poisson(5, M)
    doc = np.repeat(np.arange(M), m)
    y = (rng.random(doc.size) < rng.beta(2, 2, M)[doc]).astype(float)
    f = np.clip(0.15 + 0.6 * y + rng.normal(0, 0.2, M)[doc] + rng.normal(0, 0.1, doc.size), 0, 1)
    return doc, y, f, m


# ------------------------------------------------------------------------------ intervals


def agreement_kernels(q: int) -> dict[str, k.Kernel]:
    """The statistics the verb reports on these labels (the positive label 1 for q = 2),
    with the ordinal and interval α of the three-category labels added."""
    if q == 2:
        return k.statistic_kernels("nominal", np.arange(2.0), 1)
    values = np.arange(float(q))
    out = k.statistic_kernels("ordinal", values, None)
    out["krippendorff_alpha_ordinal"] = out.pop("krippendorff_alpha")
    out["krippendorff_alpha_interval"] = lambda C: k.krippendorff_alpha(C, "interval", values)
    out["krippendorff_alpha"] = lambda C: k.krippendorff_alpha(C, "nominal")
    return out


def agreement_sample(per_doc: np.ndarray, kernels, rng: np.random.Generator):
    """The verb's intervals for one sample's per-document tables: name → (lower, upper)."""
    got = k.bootstrap_intervals(per_doc, kernels, LEVEL, REPS, rng)
    return {name: (lo, hi) for name, (_, lo, hi, _) in got.items()}


def f1_matching(totals: np.ndarray, docs: np.ndarray) -> tuple[Matching, dict[str, str]]:
    """The unit rows (one per predicted and reference mention) of the sampled documents."""
    items = np.asarray([f"d{d}" for d in docs], dtype=object)
    tp, pred, ref = totals[docs].T
    p_ids, r_ids = np.repeat(items, pred), np.repeat(items, ref)
    p_hit = np.concatenate([np.arange(n) < t for t, n in zip(tp, pred, strict=True)])
    r_hit = np.concatenate([np.arange(n) < t for t, n in zip(tp, ref, strict=True)])
    m = Matching(
        Units(tuple(p_ids), ("E",) * p_ids.size, p_hit),
        Units(tuple(r_ids), ("E",) * r_ids.size, r_hit),
    )
    return m, {i: i for i in items}


# ------------------------------------------------------------------------------ simulation


def _cell(hits: list[bool], widths: list[float], samples: int) -> dict:
    n = len(hits)
    c = float(np.mean(hits)) if n else float("nan")
    return {
        "coverage": round(c, 5),
        "mc_se": round(float(np.sqrt(c * (1 - c) / n)), 5) if n else None,
        "median_width": round(float(np.median(widths)), 5) if n else None,
        "samples": samples,
        "no_interval": samples - n,
    }


def agreement_coverage(q: int, K: int, R: int, seed: int) -> dict[str, dict]:
    """Coverage per statistic of the agreement intervals on ``R`` samples of K documents."""
    rng = np.random.default_rng([seed, q, K])
    census = agreement_census(np.random.default_rng([seed, q]), q)
    kernels = agreement_kernels(q)
    truth = {name: float(f(census.sum(axis=0))) for name, f in kernels.items()}
    hits: dict[str, list[bool]] = {name: [] for name in kernels}
    widths: dict[str, list[float]] = {name: [] for name in kernels}
    for _ in range(R):
        docs = rng.choice(census.shape[0], K, replace=False)
        for name, (lo, hi) in agreement_sample(census[docs], kernels, rng).items():
            if np.isfinite(lo):
                hits[name].append(lo <= truth[name] <= hi)
                widths[name].append(hi - lo)
    return {name: _cell(hits[name], widths[name], R) | {"census": truth[name]} for name in kernels}


def f1_coverage(K: int, R: int, seed: int) -> dict:
    """Coverage of the extraction verb's F1 interval on ``R`` samples of K documents."""
    rng = np.random.default_rng([seed, 7, K])
    totals = extraction_census(np.random.default_rng([seed, 7]))
    tp, pred, ref = totals.sum(axis=0)
    truth = float(f1_of(tp / pred, tp / ref))
    hits, widths = [], []
    for r in range(R):
        docs = rng.choice(totals.shape[0], K, replace=False)
        m, clusters = f1_matching(totals, docs)
        lo, hi, _ = f1_bootstrap(m, clusters, level=LEVEL, reps=REPS, seed=seed + r)
        hits.append(lo <= truth <= hi)
        widths.append(hi - lo)
    return _cell(hits, widths, R) | {"census": truth}


def ppi_coverage(K: int, R: int, seed: int) -> dict:
    """Coverage of the PPI verb's default interval on ``R`` samples of K documents (30 % of
    the sampled items labelled; a sample with labels in fewer than two documents, or every
    item labelled, gets no interval)."""
    rng = np.random.default_rng([seed, 11, K])
    doc, y, f, m = ppi_census(np.random.default_rng([seed, 11]))
    starts, truth = np.concatenate([[0], np.cumsum(m)[:-1]]), float(y.mean())
    hits, widths = [], []
    for _ in range(R):
        chosen = rng.choice(m.size, K, replace=False)
        idx = np.concatenate([np.arange(starts[d], starts[d] + m[d]) for d in chosen])
        lab = rng.random(idx.size) < 0.3
        if np.unique(doc[idx][lab]).size < 2 or lab.all():
            continue
        a = ppi_analysis(f[idx], np.where(lab, y[idx], np.nan), doc[idx]).ppi
        hits.append(a.lower <= truth <= a.upper)
        widths.append(a.upper - a.lower)
    return _cell(hits, widths, R) | {"census": truth}


def ppi_methods(K: int, R: int, seed: int) -> dict[str, float]:
    """The PPI docstring's figures: coverage of the jackknife and CR1 intervals on the same
    ``R`` samples (census and samples from one seed, as tests/test_ppi.py draws them)."""
    rng = np.random.default_rng(seed)
    doc, y, f, m = ppi_census(rng)
    starts, truth = np.concatenate([[0], np.cumsum(m)[:-1]]), y.mean()
    hits = {"jackknife": 0, "cr1": 0}
    done = 0
    while done < R:
        chosen = rng.choice(m.size, K, replace=False)
        idx = np.concatenate([np.arange(starts[d], starts[d] + m[d]) for d in chosen])
        lab = rng.random(idx.size) < 0.3
        if np.unique(doc[idx][lab]).size < 2 or lab.all():
            continue
        yy = np.where(lab, y[idx], np.nan)
        for method in hits:
            fit = ppi_mean(f[idx], yy, doc[idx], method=method)
            hits[method] += fit.lower <= truth <= fit.upper
        done += 1
    return {k: v / R for k, v in hits.items()}


FAMILIES = {
    "binary": "0/1 labels; document label rate Beta(2, 3), judge accuracy per document "
    "Beta(6, 1.5); 1 + Poisson(5) items per document",
    "three-category": "labels 0, 1, 2 with Dirichlet(2, 2, 2) shares per document; judge "
    "accuracy per document Beta(6, 1.5), errors to an adjacent label 3 times in 4; "
    "1 + Poisson(5) items per document",
    "entities": "1 + Poisson(Gamma(2, 4)) reference mentions per document, recall Beta(6, 2) "
    "and false positives Poisson(Gamma(2, 0.1) × reference) per document",
    "ppi-census": "PPI docstring census: pass rate Beta(2, 2) per document, judge score "
    "0.15 + 0.6 y + document error N(0, 0.2²) + N(0, 0.1²), 30 % of items labelled",
}


def build(R: int, seed: int, ks=KS, log: Callable[[str], None] = print) -> dict:
    """Every cell of the table (a list of rows) with the settings."""
    rows = []
    for K in ks:
        t = time.perf_counter()
        for q, family in ((2, "binary"), (3, "three-category")):
            for name, cell in agreement_coverage(q, K, R, seed).items():
                rows.append({"interval": "agreement", "family": family, "statistic": name,
                             "K": K} | cell)  # fmt: skip
        rows.append({"interval": "extraction_f1", "family": "entities", "statistic": "f1",
                     "K": K} | f1_coverage(K, R, seed))  # fmt: skip
        rows.append({"interval": "ppi", "family": "ppi-census", "statistic": "mean",
                     "K": K} | ppi_coverage(K, R, seed))  # fmt: skip
        log(f"K={K}: {time.perf_counter() - t:.0f} s")
    return {
        "ragstat_version": ragstat.__version__,
        "level": LEVEL,
        "bootstrap_reps": REPS,
        "samples": R,
        "seed": seed,
        "ks": list(ks),
        "families": FAMILIES,
        "rows": rows,
    }


def markdown(table: dict) -> str:
    """The table as Markdown: one row per interval × family × statistic, coverage (%) ± MC SE
    per K, bold where below nominal − 2 MC SE (the outputs then say so)."""
    ks = table["ks"]
    cells: dict[tuple[str, str, str], dict[int, dict]] = {}
    for r in table["rows"]:
        cells.setdefault((r["interval"], r["family"], r["statistic"]), {})[r["K"]] = r
    head = "| interval | census | statistic | " + " | ".join(f"K = {K}" for K in ks) + " |"
    out = [head, "|" + "---|" * (3 + len(ks))]
    for (interval, family, stat), by_k in cells.items():
        shown = []
        for K in ks:
            r = by_k[K]
            text = f"{100 * r['coverage']:.1f} ± {100 * r['mc_se']:.1f}"
            shown.append(f"**{text}**" if r["coverage"] < LEVEL - 2 * r["mc_se"] else text)
        out.append(f"| {interval} | {family} | {stat} | " + " | ".join(shown) + " |")
    out.append("")
    out.append(
        f"Seed {table['seed']}, {table['samples']:,} samples per cell, "
        f"{table['bootstrap_reps']:,} bootstrap replicates, ragstat {table['ragstat_version']}, "
        f"run time {table['run_time_s']:.0f} s on one core."
    )
    return "\n".join(out)


def write_doc(table: dict, path: Path = DOC) -> None:
    """Replace the page's table block (between its two markers) with :func:`markdown`."""
    text = path.read_text(encoding="utf-8")
    a, b = text.index(START) + len(START), text.index(END)
    path.write_text(text[:a] + "\n" + markdown(table) + "\n" + text[b:], encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--ppi-methods", action="store_true",
                    help="print the PPI docstring's jackknife and CR1 coverage at K = 10 and "
                    "40 (5 seeds × --samples) instead of writing the table")  # fmt: skip
    ap.add_argument("--doc-only", action="store_true",
                    help="rewrite the docs page's table from the committed JSON, no simulation")  # fmt: skip
    args = ap.parse_args()
    if args.doc_only:
        write_doc(json.loads(args.out.read_text(encoding="utf-8")))
        return
    t0 = time.perf_counter()
    if args.ppi_methods:
        for K in (10, 40):
            got = [ppi_methods(K, args.samples, args.seed + s) for s in range(5)]
            for method in ("jackknife", "cr1"):
                c = 100 * np.asarray([g[method] for g in got])
                print(f"K = {K}: {method} {c.min():.1f}–{c.max():.1f} (mean {c.mean():.1f})")
        print(f"{time.perf_counter() - t0:.0f} s")
        return
    table = build(args.samples, args.seed)
    table["run_time_s"] = round(time.perf_counter() - t0, 1)
    args.out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    if DOC.exists():
        write_doc(table)
    for r in table["rows"]:
        print(f"{r['interval']:13} {r['family']:14} {r['statistic']:27} K={r['K']:<3} "
              f"{100 * r['coverage']:5.1f} ± {100 * (r['mc_se'] or 0):.1f}")  # fmt: skip
    print(
        f"wrote {args.out} in {table['run_time_s']:.0f} s (seed {args.seed}, {args.samples} samples)"
    )


if __name__ == "__main__":
    main()
