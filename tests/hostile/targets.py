"""What the sweep attacks: one valid command per verb (the examples of docs/formats/) and
per ``--from`` reader (the adapter fixtures), with the input files it reads and their kind.

Every case runs in a fresh copy of its target's folder; the base command must exit 0."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
FORMATS = TESTS / "fixtures" / "formats"
ADAPTERS = TESTS / "fixtures" / "adapters"
LM = "dummy-a/samples_passages_mc_2026-01-01T00-00-00.000000.jsonl"
HELM = "passages:model=mock_alpha/per_instance_stats.json"


@dataclass(frozen=True)
class Target:
    """A valid command and the files it reads (relative to the copied folder)."""

    name: str
    verb: str
    reader: str | None
    folder: Path  # copied as the case's working folder
    argv: tuple[str, ...]
    inputs: tuple[tuple[str, str], ...]  # (path, kind: csv tsv trec jsonl json toml bin)


def _t(name: str, folder: Path, cmd: str, *inputs: str, reader: str | None = None) -> Target:
    argv = tuple(_split(cmd))
    pairs = tuple((p.split(":", 1)[1], p.split(":", 1)[0]) for p in inputs)
    return Target(name, argv[0], reader, folder, argv, pairs)


def _split(cmd: str) -> list[str]:
    import shlex

    return shlex.split(cmd)


F = FORMATS
VERB_TARGETS: tuple[Target, ...] = (
    _t(
        "interval",
        F / "interval",
        "interval results.csv --position position --seed 7 --json",
        "csv:results.csv",
    ),
    _t(
        "interval-strata",
        F / "interval",
        "interval results.csv --design stratified --strata law "
        "--population-file population.csv --seed 7 --json",
        "csv:population.csv",
    ),
    _t(
        "compare",
        F / "compare",
        "compare run_a.csv run_b.csv --seed 7 --json",
        "csv:run_a.csv",
        "csv:run_b.csv",
    ),
    _t("plan", F / "plan", "plan --half-width 0.1 --pilot pilot.csv --json", "csv:pilot.csv"),
    _t(
        "plan-strata",
        F / "plan",
        "plan --documents 40 --pilot pilot.csv --strata law "
        "--population-file population.csv --allocation neyman --json",
        "csv:population.csv",
    ),
    _t("simulate", F / "simulate", "simulate census.csv --k 4 --reps 200 --json", "csv:census.csv"),
    _t(
        "simulate-docs",
        F / "simulate",
        "simulate census_docs.csv --k 4,8 --reps 100 --json",
        "csv:census_docs.csv",
    ),
    _t(
        "study",
        F / "study",
        "study corpus.jsonl --chunk-words 20 --query-words 8 --out study --quiet --json",
        "jsonl:corpus.jsonl",
    ),
    _t(
        "study-folder",
        F / "study",
        "study corpus --chunk-words 10 --query-words 4 --out sf --quiet --json",
        "bin:corpus/contracts.txt",
        "bin:corpus/theft.html",
    ),
    _t(
        "evaluate",
        F / "evaluate",
        "evaluate --qrels qrels.trec --run bm25.trec --run dense.trec "
        "--cluster-by qrels-doc --seed 7 --json",
        "trec:qrels.trec",
        "trec:bm25.trec",
    ),
    _t(
        "evaluate-csv",
        F / "evaluate",
        "evaluate --qrels qrels.jsonl --run hybrid.csv --metrics "
        "ndcg@10,mrr,hit@1 --cluster-by topics.csv --cluster-column topic --seed 7 --json",
        "jsonl:qrels.jsonl",
        "csv:hybrid.csv",
        "csv:topics.csv",
    ),
    _t(
        "generation",
        F / "generation",
        "generation answers.jsonl --cluster-by doc_id --seed 7 --json",
        "jsonl:answers.jsonl",
    ),
    _t(
        "ontology",
        F / "ontology",
        "ontology items.jsonl --taxonomy taxonomy.csv --cluster-by doc_id --seed 7 --json",
        "jsonl:items.jsonl",
        "csv:taxonomy.csv",
    ),
    _t(
        "ingestion",
        F / "ingestion",
        "ingestion pages.jsonl --cluster-by file --seed 7 --json",
        "jsonl:pages.jsonl",
    ),
    _t(
        "ingestion-cleaning",
        F / "ingestion",
        "ingestion cleaning.jsonl --cluster-by doc --seed 7 --json",
        "jsonl:cleaning.jsonl",
    ),
    _t(
        "latency",
        F / "latency",
        "latency trace.jsonl --cluster-by session --seed 7 --json",
        "jsonl:trace.jsonl",
    ),
    _t(
        "extraction",
        F / "extraction",
        "extraction items.jsonl --cluster-by doc --seed 7 --json",
        "jsonl:items.jsonl",
    ),
    _t(
        "routing",
        F / "routing",
        "routing queries.jsonl --cluster-by doc_id --flat-gain 0.15 --seed 7 --json",
        "jsonl:queries.jsonl",
    ),
    _t(
        "nuggets",
        F / "nuggets",
        "nuggets answers.jsonl --cluster-by topic --seed 7 --json",
        "jsonl:answers.jsonl",
    ),
    _t("chunking", F / "chunking", "chunking chunks.jsonl --seed 7 --json", "jsonl:chunks.jsonl"),
    _t(
        "rewriting",
        F / "rewriting",
        "rewriting queries.jsonl --score recall@10 --seed 7 --json",
        "jsonl:queries.jsonl",
    ),
    _t(
        "gate",
        F / "gate",
        "gate gates.toml --json",
        "toml:gates.toml",
        "csv:candidate.csv",
        "csv:baseline.csv",
    ),
    _t(
        "filter-rule",
        F / "filter-rule",
        "filter-rule --qrels qrels.trec --hard hard.trec --soft "
        "soft.trec --delta-min 0.03 --epsilon 0.02 --recall-loss-max 0.01 --name locale "
        "--kind locale --seed 7 --json",
        "trec:qrels.trec",
        "trec:hard.trec",
        "trec:soft.trec",
    ),
    _t(
        "agreement",
        F / "agreement",
        "agreement items.jsonl --judge judge --human human --positive pass --seed 7 --json",
        "jsonl:items.jsonl",
    ),
    _t("ppi", F / "ppi", "ppi items.csv --judge judge --human human --json", "csv:items.csv"),
    _t(
        "judge-bias",
        F / "judge-bias",
        "judge-bias pairs.jsonl --kind position --seed 7 --json",
        "jsonl:pairs.jsonl",
    ),
    _t(
        "judge-bias-verbosity",
        F / "judge-bias",
        "judge-bias judgments.jsonl --kind verbosity --per 100 --seed 7 --json",
        "jsonl:judgments.jsonl",
    ),
    _t(
        "judge-bias-consistency",
        F / "judge-bias",
        "judge-bias samples.jsonl --kind self-consistency --threshold 0.6 --seed 7 --json",
        "jsonl:samples.jsonl",
    ),
    _t(
        "split",
        F / "split",
        "split queries.csv --groups doc_id,session_id --sets dev=0.5,release=0.5 --seed 1 --json",
        "csv:queries.csv",
    ),
    _t(
        "coverage",
        F / "coverage",
        "coverage queries.csv --dims intent,doc_type --score hit1 --target-half-width 0.2 --json",
        "csv:queries.csv",
    ),
)

A = ADAPTERS
READER_TARGETS: tuple[Target, ...] = (
    _t(
        "inspect-eval",
        A / "inspect",
        "interval eval --from inspect --cluster-by source_doc "
        "--system mockllm/alpha --score grade --seed 7 --json",
        "bin:eval/alpha.eval",
        reader="inspect",
    ),
    _t(
        "inspect-json",
        A / "inspect",
        "interval json --from inspect --cluster-by source_doc "
        "--system mockllm/alpha --score grade --seed 7 --json",
        "json:json/alpha.json",
        reader="inspect",
    ),
    _t(
        "lm-eval",
        A / "lm_eval",
        f"interval {LM} --from lm-eval --cluster-by doc.source_doc --score acc --seed 7 --json",
        f"jsonl:{LM}",
        "json:dummy-a/results_2026-01-01T00-00-00.000000.json",
        reader="lm-eval",
    ),
    _t(
        "helm",
        A / "helm",
        f"interval {HELM} --from helm --cluster-by source_doc --score exact_match --seed 7 --json",
        f"json:{HELM}",
        reader="helm",
    ),
    _t(
        "ragas",
        A / "ragas",
        "interval bm25.csv --from ragas --score exact_match --seed 7 --json",
        "csv:bm25.csv",
        reader="ragas",
    ),
    _t(
        "ragas-jsonl",
        A / "ragas",
        "interval bm25.jsonl --from ragas --score exact_match --seed 7 --json",
        "jsonl:bm25.jsonl",
        reader="ragas",
    ),
    _t(
        "deepeval",
        A / "deepeval",
        "interval bm25.json --from deepeval --score pass --seed 7 --json",
        "json:bm25.json",
        reader="deepeval",
    ),
    _t(
        "promptfoo",
        A / "promptfoo",
        "interval results.json --from promptfoo --cluster-by "
        "vars.source_doc --system 'echo / short' --score pass --seed 7 --json",
        "json:results.json",
        reader="promptfoo",
    ),
    _t(
        "ragchecker",
        A / "ragchecker",
        "interval bm25.json --from ragchecker --score f1 --seed 7 --json",
        "json:bm25.json",
        reader="ragchecker",
    ),
    _t(
        "ranx",
        A / "ranx",
        "evaluate run --from ranx --metrics ndcg@10 --seed 7 --json",
        "json:run/qrels.json",
        "json:run/bm25.json",
        reader="ranx",
    ),
    _t(
        "beir",
        A / "beir",
        "evaluate tiny --from beir --seed 7 --json",
        "tsv:tiny/qrels/test.tsv",
        "trec:tiny/bow.trec",
        reader="beir",
    ),
    _t(
        "mteb",
        A / "mteb",
        "evaluate tiny --from mteb --seed 7 --json",
        "tsv:tiny/qrels/test.tsv",
        "json:tiny/hash-bow/TinyRetrieval_predictions.json",
        reader="mteb",
    ),
)


def run_targets(seeds: Path, run_ids: tuple[str, str]) -> tuple[Target, ...]:
    """``report`` on a run folder and ``runs`` on a registry, both made by the sweep's set-up
    (``seeds`` holds ``run/`` and ``registry.sqlite``; ``run_ids`` are its two runs)."""
    a, b = run_ids
    return (
        _t(
            "report",
            seeds,
            "report run",
            "json:run/report.json",
            "json:run/manifest.json",
            "json:run/result.json",
        ),
        _t("runs-list", seeds, "runs list --json", "bin:registry.sqlite"),
        _t("runs-show", seeds, f"runs show {a} --json", "bin:registry.sqlite"),
        _t("runs-diff", seeds, f"runs diff {a} {b} --json", "bin:registry.sqlite"),
    )
