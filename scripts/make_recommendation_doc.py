"""Write docs/recommendation.md — the recommendation rule and both coverage tables — from
the packaged coverage table (src/ragstat/inference/data/coverage_table.json), so the page
cannot drift from the numbers the rule reads. ``tests/test_recommendation_doc.py``
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
   [0, 1], or a declared `--score-range LO,HI` — is judged on the **rate table** below
   (self-retrieval hit@1 of BM25 on three corpora). Its range-respecting methods (`logit`,
   `korn_graubard`, `logit_cr2_bm`) work on θ' = (θ − lo)/(hi − lo) with
   se' = se/(hi − lo) and map their limits back.
3. **A paired difference A − B of two such scores** (`compare`, paired `evaluate`) has the
   range [a_lo − b_hi, a_hi − b_lo] — [−1, 1] for two rates — and is judged on the
   **paired table** below (the per-query difference hit@1 of BM25 − hit@1 of TF-IDF on
   the same three corpora, every method on that range).
4. **The pick at 95 %:** at the tabulated K nearest to the data's K (on the log scale),
   pooled over the three corpora, the **narrowest** method whose coverage is at least
   95 % − 2 Monte-Carlo SE; when no method reaches that, the one with the **highest
   coverage** (the output then says that no method reached 95 % on similar data). The
   naive methods (`wald_iid`, `query_bootstrap`) and the diagnostic `wald_effective_n` are
   never recommended.
5. **Never an impossible interval.** Every interval is checked against the known range
   (flagged `outside_range`, never clipped). When the pick leaves the range on this sample,
   the best range-respecting method by the same table (`logit`, `korn_graubard`,
   `logit_cr2_bm`, `doc_bootstrap_percentile`) is recommended instead.
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


def _section(kind: str, title: str) -> list[str]:
    from ragstat.inference import defaults as d

    section = d.table_section(kind)
    if section is None:
        return [f"## {title}", "", "(missing from the packaged table)", ""]
    s = section["settings"]
    corpora = ", ".join(section["corpora"])
    lines = [
        f"## {title}",
        "",
        f"Study: {s['study']}. Corpora: {corpora}. {s['reps_per_k']:,} samples of K documents "
        f"per K (simple random sampling, no finite-population correction), "
        f"{s['bootstrap_reps']} bootstrap replicates inside each, {s['level'] * 100:g} % "
        f"intervals, seed {s['seed']}. Coverage, its Monte-Carlo SE and the mean width are "
        "pooled over the corpora; **bold** marks the pick of rule 4 (before rule 5, which "
        "depends on the sample).",
        "",
    ]
    if "sizing" in s:
        lines += [f"Sizing: {s['sizing']}.", ""]
    lines += [
        "| K | estimand | method | coverage | MC SE | mean width |",
        "|---|---|---|---|---|---|",
    ]
    for k in s["ks"]:
        for est in s["estimands"]:
            rows = d.pooled_rows(est, k, kind)
            found = d.pick_row(rows, d.TABLE_LEVEL)
            pick = None if found is None else found[0].method
            for r in sorted(rows, key=lambda r: (-r.coverage, r.method)):
                name = f"**{r.method}**" if r.method == pick else r.method
                if r.method in d.NEVER_RECOMMENDED:
                    name += " (never recommended)"
                if r.mean_width is None:  # no interval in any sample (e.g. needs the rows)
                    lines.append(f"| {k} | {est} | {name} | unavailable | — | — |")
                    continue
                lines.append(
                    f"| {k} | {est} | {name} | {_pct(r.coverage)} | {r.coverage_se:.4f} "
                    f"| {r.mean_width:.4f} |"
                )
    return [*lines, ""]


def _summary() -> list[str]:
    from ragstat.inference import defaults as d

    lines = [
        "## The picks at a glance",
        "",
        "| table | estimand | " + " | ".join(f"K = {k}" for k in _ks()) + " |",
        "|---|---|" + "---|" * len(_ks()),
    ]
    for kind in d.SECTIONS:
        if d.table_section(kind) is None:
            continue
        for est in ("micro", "macro"):
            cells = []
            for k in _ks():
                found = d.pick_row(d.pooled_rows(est, k, kind), d.TABLE_LEVEL)
                if found is None:
                    cells.append("—")
                    continue
                row, reached = found
                mark = "" if reached else " (below 95 %)"
                cells.append(f"{row.method} {_pct(row.coverage)}{mark}")
            lines.append(f"| {kind} | {est} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _ks() -> list[int]:
    from ragstat.inference import defaults as d

    section = d.table_section("rates")
    return [] if section is None else list(section["settings"]["ks"])


def render() -> str:
    """The whole page, from the packaged table."""
    parts = [RULE, *_summary(), *_section("rates", "Rate table (one score in [0, 1])")]
    parts += _section("paired", "Paired table (a difference of two rates, in [−1, 1])")
    parts.append(
        "_Generated by `scripts/make_recommendation_doc.py` from "
        "`src/ragstat/inference/data/coverage_table.json` "
        "(built by `scripts/make_coverage_table.py`); do not edit by hand._"
    )
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    args.out.write_text(render(), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
