"""ragstat's document-clustered intervals as inspect_ai metrics.

Attach them to a scorer (``@scorer(metrics=[...])``) or a task (``Task(metrics=[...])``)::

    from ragstat.integrations.inspect import clustered_ci, clustered_stderr, paired_difference

    @scorer(metrics=[accuracy(), clustered_stderr(cluster="source_doc"),
                     clustered_ci(cluster="source_doc"),
                     paired_difference(baseline="logs/baseline.eval", score="includes",
                                       cluster="source_doc")])

``cluster`` names the sample metadata field that holds each sample's document (a dotted
path reaches into nested metadata). Every number is what ``ragstat interval LOG --from
inspect --cluster-by FIELD`` reports for its ``cr2_bm`` method (CR2 standard error,
Bell–McCaffrey degrees of freedom, t interval), and the paired difference what ``ragstat
compare`` reports on the two logs: the same estimators, on the sample scores inspect hands
its metrics (one per sample after the epochs are reduced; with inspect's default mean
reducer those are the per-item means ragstat reads from the log).

inspect_ai is imported here only, and only to register the metrics (under ``ragstat/…``,
so that ``inspect score --metric`` and a log's replayed metrics can find them once this
module is imported); without it the factories return plain functions of a list of sample
scores (objects with ``score.value``, ``sample_id`` and ``sample_metadata``).
"""

from __future__ import annotations

import importlib
import logging
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from ragstat.adapters.inspect_ai import value_to_float
from ragstat.errors import InputError

__all__ = ["clustered_ci", "clustered_stderr", "paired_difference"]

log = logging.getLogger(__name__)

#: What an inspect metric receives: inspect's ``SampleScore`` (read by attribute only).
SampleScores = list[Any]
MetricFunction = Callable[[SampleScores], Any]
F = TypeVar("F", bound=Callable[..., MetricFunction])

CI_KEYS = ("clustered_mean", "clustered_se", "clustered_df", "ci_lower", "ci_upper", "documents")
DIFF_KEYS = (
    "difference",
    "difference_se",
    "difference_df",
    "difference_lower",
    "difference_upper",
    "pairs",
    "unpaired",
)
ON_MISSING = ("error", "drop")


class ScoredSample(Protocol):
    """The attributes of inspect's ``SampleScore`` these metrics read."""

    score: Any
    sample_id: Any
    sample_metadata: Mapping[str, Any] | None


def _register(factory: F) -> F:
    """``factory`` registered as an inspect metric when inspect_ai is installed, else as is."""
    try:
        scorer = importlib.import_module("inspect_ai.scorer")
    except ModuleNotFoundError:
        return factory
    registered: F = scorer.metric(factory)
    return registered


# ---------------------------------------------------------------------------- reading scores


def _field(metadata: Mapping[str, Any] | None, name: str) -> Any:
    """``metadata[name]``, or the dotted path ``a.b`` into nested metadata; None if absent."""
    if not metadata:
        return None
    if name in metadata:
        return metadata[name]
    value: Any = metadata
    for part in name.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _document(sample: ScoredSample, cluster: str, what: str) -> str:
    value = _field(sample.sample_metadata, cluster)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise InputError(
            f"{what}: sample {sample.sample_id!r} has no metadata field {cluster!r}; every "
            "sample needs the document it was drawn from"
        )
    return str(value)


def sample_table(
    scores: Sequence[ScoredSample], cluster: str, what: str
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(sample ids, documents, float values) of inspect's sample scores; the values mapped
    by inspect's default ``value_to_float`` (C → 1, P → 0.5, I/N → 0, numbers as they are)."""
    ids = [str(s.sample_id) for s in scores]
    twice = [i for i, count in Counter(ids).items() if count > 1]
    if twice:
        raise InputError(
            f"{what}: sample {twice[0]!r} has more than one score (were the epochs not reduced?)"
        )
    docs = np.array([_document(s, cluster, what) for s in scores], dtype=object)
    values = np.array([value_to_float(s.score.value) for s in scores], dtype=np.float64)
    return ids, docs, values


# ---------------------------------------------------------------------------- the estimators


def cr2_interval(
    docs: np.ndarray, values: np.ndarray, level: float, *, difference: bool = False
) -> tuple[float, float, float, float, float, int]:
    """(estimate, CR2 SE, Bell–McCaffrey df, lower, upper, K) of the micro mean of ``values``
    clustered by ``docs``: ragstat's ``cr2_bm`` interval (``interval``; with ``difference``
    the per-item differences of ``compare``). An interval that cannot be computed (every
    document at the same rate) has NaN limits and is logged with the reason."""
    from ragstat.inference import analyze
    from ragstat.records import aggregate_arrays

    stats = aggregate_arrays(docs, values, score="difference" if difference else "score")
    if difference:  # as ``compare`` marks them: differences are never 0/1 hits
        stats = replace(stats, binary=False, difference=True)
    nan = float("nan")
    if stats.K < 2:  # inspect also computes metrics on the first samples of a running eval
        log.warning("ragstat cr2_bm interval not available: %d document(s) so far", stats.K)
        return float(stats.s.sum() / stats.N), nan, nan, nan, nan, stats.K
    report = analyze(stats, level=level, methods=["cr2_bm"], estimands=["micro"], seed=0)
    (iv,) = [i for i in report.estimands["micro"].intervals if i.method == "cr2_bm"]
    if not iv.available:
        log.warning("ragstat cr2_bm interval not available: %s", iv.reason)
    return (
        float(iv.estimate),
        nan if iv.se is None else float(iv.se),
        nan if iv.df is None else float(iv.df),
        nan if iv.lower is None else float(iv.lower),
        nan if iv.upper is None else float(iv.upper),
        stats.K,
    )


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise InputError(f"level must lie strictly between 0 and 1, got {level!r}")


# ---------------------------------------------------------------------------- metrics


@_register
def clustered_stderr(cluster: str = "source_doc") -> MetricFunction:
    """CR2 standard error of the mean, clustered by the metadata field ``cluster`` (inspect's
    own ``stderr(cluster=…)`` is CR1, which understates the error with few documents)."""

    def metric(scores: list[Any]) -> float:
        if not scores:
            return float("nan")
        _, docs, values = sample_table(scores, cluster, "clustered_stderr")
        return cr2_interval(docs, values, 0.95)[1]

    return metric


@_register
def clustered_ci(cluster: str = "source_doc", level: float = 0.95) -> MetricFunction:
    """The mean with its CR2 standard error, Bell–McCaffrey df and ``level`` t interval,
    clustered by the metadata field ``cluster``; also the number of documents."""
    _check_level(level)

    def metric(scores: list[Any]) -> dict[str, float]:
        if not scores:
            return dict.fromkeys(CI_KEYS, float("nan"))
        _, docs, values = sample_table(scores, cluster, "clustered_ci")
        return dict(zip(CI_KEYS, map(float, cr2_interval(docs, values, level)), strict=True))

    return metric


@_register
def paired_difference(
    baseline: str,
    cluster: str = "source_doc",
    level: float = 0.95,
    score: str | None = None,
    on_missing: str = "error",
) -> MetricFunction:
    """This run minus the ``baseline`` log, paired by sample id: the mean difference, its CR2
    standard error, Bell–McCaffrey df and ``level`` t interval, clustered by the metadata
    field ``cluster`` (as ``ragstat compare`` computes it on the two logs).

    ``score`` names the baseline's score: the scorer's name (a dict-valued scorer's key as
    ``scorer.key``); inspect does not tell a metric which scorer it serves once the epochs
    are reduced, so it is needed unless the baseline has a single score. A sample of this
    run that the baseline did not score is an error, or with ``on_missing="drop"`` left
    out; ``unpaired`` counts the samples of either run left without a partner (baseline
    samples this run has not scored yet — inspect also computes metrics while the eval
    runs — or left out by ``--limit``).
    """
    _check_level(level)
    if on_missing not in ON_MISSING:
        raise InputError(f"on_missing must be one of {', '.join(ON_MISSING)}, got {on_missing!r}")
    read: dict[str | None, dict[str, tuple[str, float]]] = {}  # the baseline, read once per score

    def metric(scores: list[Any]) -> dict[str, float]:
        if not scores:
            return dict.fromkeys(DIFF_KEYS, float("nan"))
        ids, docs, values = sample_table(scores, cluster, "paired_difference")
        scorer = getattr(scores[0], "scorer", None)  # inspect drops it when reducing epochs
        name = score or (str(scorer).split("/")[-1] if scorer else None)
        if name not in read:
            read[name] = baseline_scores(baseline, cluster, name)
        base = read[name]
        keep, unpaired = pair_up(ids, docs, base, baseline, on_missing)
        if not keep:  # with on_missing="drop", no sample of this run has a partner
            return {
                **dict.fromkeys(DIFF_KEYS, float("nan")),
                "pairs": 0.0,
                "unpaired": float(unpaired),
            }
        diffs = values[keep] - np.array([base[ids[i]][1] for i in keep])
        out = cr2_interval(docs[keep], diffs, level, difference=True)
        row = dict(zip(DIFF_KEYS[:5], out[:5], strict=True))
        row.update(pairs=float(len(keep)), unpaired=float(unpaired))
        return row

    return metric


def baseline_scores(path: str, cluster: str, score: str | None) -> dict[str, tuple[str, float]]:
    """Sample id → (document, score) of the baseline log, read as ``ragstat compare`` reads
    it (``read_source``: every epoch's value mapped like inspect's, averaged per sample);
    samples without that score are left out (they cannot be paired). ``score`` None: the
    baseline's only score."""
    from ragstat.api.sources import read_source

    where = f"paired_difference: baseline {path}"
    if not Path(path).exists():
        raise InputError(f"{where}: no such file or folder")
    source = read_source(path, "inspect", cluster_by=cluster, missing_cluster="error")
    frame = source.frame
    if frame["system"].nunique() != 1:
        names = ", ".join(sorted(frame["system"].astype(str).unique()))
        raise InputError(f"{where}: holds several runs ({names}); give one log")
    if score is None and len(source.scores) == 1:
        score = source.scores[0]
    if score not in source.scores:
        what = "which score to pair" if score is None else f"no score {score!r}"
        raise InputError(
            f"{where}: {what} (it has {', '.join(source.scores)}); name it with "
            "paired_difference(..., score=NAME)"
        )
    return {
        str(q): (str(d), float(v))
        for q, d, v in zip(frame["query_id"], frame["doc_id"], frame[score], strict=True)
        if not math.isnan(float(v))
    }


def pair_up(
    ids: list[str],
    docs: np.ndarray,
    base: Mapping[str, tuple[str, float]],
    baseline: str,
    on_missing: str,
) -> tuple[list[int], int]:
    """(positions of this run's samples the baseline also scored, samples of either run
    without a partner); an error on a sample of this run the baseline lacks (unless
    ``on_missing="drop"``) and on a sample whose document differs between the runs."""
    keep = [i for i, q in enumerate(ids) if q in base]
    missing = [q for q in ids if q not in base]
    if missing and on_missing == "error":
        raise InputError(
            f"paired_difference: {len(missing)} sample(s) of this run are not scored in "
            f"{baseline} (e.g. {missing[0]!r}); pass on_missing='drop' to leave them out"
        )
    for i in keep:
        if base[ids[i]][0] != docs[i]:
            raise InputError(
                f"paired_difference: sample {ids[i]!r} comes from document {docs[i]!r} here "
                f"and {base[ids[i]][0]!r} in {baseline}"
            )
    return keep, len(missing) + len(base) - len(keep)
