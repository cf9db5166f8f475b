"""Write docs/recommendation.md — the recommendation rule and the coverage tables — from
the packaged small-K contest table (src/ragstat/inference/data/contest_table.json), so the
page cannot drift from the numbers the rule reads. ``tests/test_recommendation_doc.py``
regenerates it and compares.

Usage (from the repository root)::

    python scripts/make_recommendation_doc.py [--out docs/recommendation.md]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "recommendation.md"

RULE = """\
# Which interval is recommended

Every output (`interval`, `compare`, the study and demo reports, `gate`, `evaluate`, the web
view) shows one interval per estimand first: the **recommended** one. It is chosen once, by
`ragstat.inference.analyze.recommend`, from the estimand, the range the scores are known to
lie in, the number of documents K, the level and the methods computed. The rule:

1. **K ≤ 3 documents: no interval.** One sentence says that the data cannot support one
   (at least 4 documents are needed).
2. **A score known to lie in a range** — a rate or any score whose values all lie in
   [0, 1], or a declared `--score-range LO,HI` — is judged on the **small-K contest**
   below: a 0/1 score on its 0/1 families (self-retrieval hit@1 of BM25 on the three
   built-in corpora and five synthetic populations), any other score on its continuous
   families (three synthetic populations). Its range-respecting methods (`logit`,
   `korn_graubard`, `logit_cr2_bm`) work on θ' = (θ − lo)/(hi − lo) with
   se' = se/(hi − lo) and map their limits back.
3. **A paired difference A − B of two such scores** (`compare`, paired `evaluate`) has the
   range [a_lo − b_hi, a_hi − b_lo] — [−1, 1] for two rates — and is judged on the
   contest's **paired** families below (the per-query difference hit@1 of BM25 − hit@1 of
   TF-IDF on the same three corpora, every method on that range).
4. **The pick at 95 %:** at the tabulated K nearest to the data's K (on the log scale), a
   method *reaches* 95 % in a family when its coverage there is at least 95 % − 2
   Monte-Carlo SE. The default is the **narrowest** method (mean width relative to CR2
   over the families) that reaches 95 % **in every family**; when none does, the method
   with the **highest mean coverage** over the families, and the output says how far its
   worst family falls short ("no method reaches 95 % in every family of similar data:
   logit_cr2_bm covered 91.0 % on average over 8 families, 71.5 % in its worst (…): 23.5
   points short there"). On a sample where the pick gives no interval (every document
   at the same rate, say) Korn–Graubard's is shown, and the contest counts that interval
   in the pick's place. The naive methods (`wald_iid`, `query_bootstrap`) and
   the diagnostic `wald_effective_n` are never recommended. The small-K candidates
   (`cr3_bm`, `wcr`, `doc_bootstrap_bca`, `beta_binomial`, `doc_bootstrap_calibrated`)
   are computed when the table picks one, or when asked for by name.
5. **Never an impossible interval.** Every interval is checked against the known range
   (flagged `outside_range`, never clipped). When the pick leaves the range on this sample,
   the best range-respecting method by the same table (`logit`, `korn_graubard`,
   `logit_cr2_bm`, the percentile, BCa and calibrated bootstraps, `beta_binomial`) is
   recommended instead.
6. **Other levels** (e.g. 90 %): the tables were measured at 95 %, so the document-level
   method guide applies — `cr2_bm` for micro, `t_rates` for macro — with rule 5.
7. **Scores with no known range** (e.g. a difference of unbounded scores, a score outside
   [0, 1] without `--score-range`): the same guide, `cr2_bm` for micro and `t_rates` for
   macro; the tables do not describe their coverage.
8. **Other designs.** Sampled queries (a weight column): `cr2_bm` for micro, `t_rates` for
   macro; when that interval leaves the range, the percentile bootstrap if computed, else
   none. Stratified and two-stage designs: their design-based interval, unless it leaves
   the range (then none, with the reason).

A caller may override the pick (`recommended={"micro": ...}` in Python, or the result of
the user's own coverage simulation, `ragstat simulate`).
"""


def _pct(x: float) -> str:
    return f"{x * 100:.1f} %"


def _families(section: dict) -> list[tuple[str, str]]:
    return [(name, str(f.get("label", name))) for name, f in section["corpora"].items()]


def _settings_line(kind: str, section: dict) -> str:
    s = section["settings"]
    reps = s.get("reps_per_cell", s.get("reps_per_k"))
    base = (
        f"{reps:,} samples of K documents per family and K (simple random sampling without "
        f"replacement), {s['bootstrap_reps']} bootstrap replicates inside each, "
        f"{s['level'] * 100:g} % intervals, seed {s['seed']}"
    )
    return (
        f"{base}. Where a method gives no interval on a sample (every sampled document at the "
        "same rate, say) ragstat shows Korn–Graubard's, and the coverage counts that interval "
        "(† marks a method this happened to, on at least 0.1 % of the samples). "
        "Cells: coverage % ± MC SE; last "
        "column: the median width relative to CR2 (cr2_bm for micro, t_rates for macro — the "
        "same interval for one observation per document), averaged over the families."
    )


def _cell_rows(kind: str, section: dict, est: str, k: int) -> list[str]:
    from ragstat.inference import defaults as d

    names = _families(section)
    rows = d.family_rows(est, k, kind)
    found = d.pick_row(rows, d.TABLE_LEVEL)
    pick = None if found is None else found[0].method
    lines = [
        f"**K = {k}, {est}**",
        "",
        "| method | " + " | ".join(f"{i + 1}" for i in range(len(names))) + " | width |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    for r in sorted(rows, key=lambda r: (-r.coverage, r.method)):
        name = f"**{r.method}**" if r.method == pick else r.method
        if r.method in d.NEVER_RECOMMENDED:
            name += " (never recommended)"
        cells = []
        for fam, _label in names:
            c = section["corpora"][fam]["by_k"][str(k)][est][r.method]
            ok = c["coverage"] >= d.TABLE_LEVEL - d.MC_SLACK * c["mc_se"]
            text = f"{c['coverage'] * 100:.1f} ± {c['mc_se'] * 100:.1f}"
            if c.get("unavailable", 0.0) >= 0.001 and r.method != d.FALLBACK:
                text += " †"
            cells.append(text if ok else f"_{text}_")
        width = "—" if r.mean_width is None else f"{r.mean_width:.3f}"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {width} |")
    return [*lines, ""]


def _section(kind: str, title: str) -> list[str]:
    from ragstat.inference import defaults as d

    section = d.table_section(kind)
    if section is None:
        return [f"## {title}", "", "(missing from the packaged tables)", ""]
    s = section["settings"]
    lines = [f"## {title}", "", _settings_line(kind, section), ""]
    lines += ["Families (columns):", ""]
    lines += [f"{i + 1}. {label}" for i, (_n, label) in enumerate(_families(section))]
    lines += [
        "",
        "**Bold**: the pick of rule 4 (before rule 5, which depends on the sample); _italic_: "
        "below 95 % − 2 MC SE in that family.",
        "",
    ]
    for k in s["ks"]:
        for est in ("micro", "macro"):
            lines += _cell_rows(kind, section, est, k)
    return lines


def _summary() -> list[str]:
    from ragstat.inference import defaults as d

    lines = [
        "## The picks at a glance",
        "",
        "Each cell: the default and its coverage in its worst family (where no method "
        "reaches 95 % in every family: how far short, and the default is the method with the "
        "highest mean coverage).",
        "",
        "| scores | estimand | " + " | ".join(f"K = {k}" for k in _ks()) + " |",
        "|---|---|" + "---|" * len(_ks()),
    ]
    for kind in d.SECTIONS:
        if d.table_section(kind) is None:
            continue
        for est in ("micro", "macro"):
            cells = []
            for k in _ks():
                found = d.pick_row(d.family_rows(est, k, kind), d.TABLE_LEVEL)
                if found is None:
                    cells.append("—")
                    continue
                row, reached = found
                mark = "" if reached else f" ({(d.TABLE_LEVEL - row.coverage) * 100:.1f} short)"
                cells.append(f"{row.method} {_pct(row.coverage)}{mark}")
            lines.append(f"| {kind} | {est} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _ks() -> list[int]:
    from ragstat.inference import defaults as d

    section = d.table_section("binary")
    return [] if section is None else list(section["settings"]["ks"])


def _runs() -> list[str]:
    from ragstat.inference import defaults as d

    table = d.contest_table() or {}
    runs = table.get("runs", [])
    total = sum(r["seconds"] for r in runs)
    return [
        f"The contest ran in {total / 60:.1f} minutes on 2 cores ({len(runs)} run(s) of "
        "`scripts/small_k_contest.py`, merged cell by cell on the same samples).",
        "",
    ]


CORPORA = ("planalto-leis", "aneel-ren1000", "demo")
SMALL_KS = (10, 20, 40)


def corpus_coverage(kind: str, est: str, k: int, method: str) -> list[float]:
    """The method's coverage on each built-in corpus of the section (none for continuous)."""
    from ragstat.inference import defaults as d

    names = {"binary": CORPORA, "paired": tuple(f"{c}-paired" for c in CORPORA)}.get(kind, ())
    fams = (d.table_section(kind) or {"corpora": {}})["corpora"]
    return [fams[c]["by_k"][str(k)][est][method]["coverage"] for c in names if c in fams]


README = ROOT / "README.md"
README_MARKERS = ("<!-- small-k-summary: start -->", "<!-- small-k-summary: end -->")


def _picks(kind: str, est: str) -> str:
    """One estimand's defaults at K = 10, 20, 40: methods, corpora coverage, worst family."""
    from ragstat.inference import defaults as d

    methods, corpora, short = [], [], []
    for k in SMALL_KS:
        found = d.pick_row(d.family_rows(est, k, kind), d.TABLE_LEVEL)
        if found is None:
            return f"{est} none"
        row, reached = found
        methods.append(f"`{row.method}`")
        short.append("reached" if reached else f"−{(d.TABLE_LEVEL - row.coverage) * 100:.1f}")
        cov = corpus_coverage(kind, est, k, row.method)
        lo, hi = (f"{min(cov) * 100:.0f}", f"{max(cov) * 100:.0f}") if cov else ("", "")
        corpora.append(lo if lo == hi else f"{lo}–{hi}")
    names = methods[0] if len(set(methods)) == 1 else " / ".join(methods)
    where = f" covers {' / '.join(corpora)} % on the corpora," if any(corpora) else ""
    return f"{est} {names}{where} worst family against 95 %: {' / '.join(short)} points"


def readme_block() -> str:
    """The README's lines on few documents, from the same table (tests compare)."""
    words = {"binary": "0/1 scores", "continuous": "continuous scores", "paired": "differences"}
    lines = [
        README_MARKERS[0],
        "**Few documents.** The default interval won a contest of every method on 3 corpora "
        "and 8 synthetic populations, 4,000 samples per cell ([Methods](docs/recommendation.md)"
        "); every output says how far it falls short at your K. At K = 10 / 20 / 40:",
        "",
    ]
    for kind in ("binary", "continuous", "paired"):
        lines.append(f"- {words[kind]}: {_picks(kind, 'micro')}; {_picks(kind, 'macro')}")
    return "\n".join([*lines, README_MARKERS[1]])


def readme_with_block(text: str) -> str:
    """``text`` (the README) with its small-K block replaced by `readme_block`."""
    start, end = README_MARKERS
    head, rest = text.split(start, 1)
    _old, tail = rest.split(end, 1)
    return head + readme_block() + tail


def render() -> str:
    """The whole page, from the packaged tables."""
    parts = [RULE, *_summary(), *_runs()]
    parts += _section("binary", "Small-K contest: 0/1 scores")
    parts += _section("continuous", "Small-K contest: continuous scores in [0, 1]")
    parts += _section("paired", "Small-K contest: paired differences of two rates, in [−1, 1]")
    parts.append(
        "_Generated by `scripts/make_recommendation_doc.py` from "
        "`src/ragstat/inference/data/contest_table.json` (built by "
        "`scripts/small_k_contest.py`); do not edit by hand._"
    )
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    args.out.write_text(render(), encoding="utf-8")
    README.write_text(readme_with_block(README.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {args.out} and the small-K block of {README.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
