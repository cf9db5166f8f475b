"""``ragstat.judge_bias``: an LLM judge's position bias, verbosity bias and
self-consistency, every number with an interval clustered by document.

Input: a table (JSONL, CSV, TSV, Parquet, a DataFrame or a list of mappings), one row per
unit with the document in the ``cluster`` column (``doc_id``):

* ``kind="position"`` — one row per pair judged in both orders: ``verdict_ab`` (A listed
  first) and ``verdict_ba`` (B listed first), each naming the winning *position*
  (first|A|1, second|B|2, tie|C); optional ``pair_id``.
* ``kind="verbosity"`` — one row per pairwise judgment: ``winner`` (A|B|tie) or
  ``preference`` (the preference for A in [0, 1]), and ``length_a`` + ``length_b``
  (any unit, e.g. tokens) or ``answer_a`` + ``answer_b`` (lengths in whitespace tokens).
* ``kind="self_consistency"`` — one row per item with ``item_id`` and ``answers`` (the
  sampled answers), or one row per sample with ``item_id`` and ``answer``.

The kernels and their formulas are in :mod:`ragstat.metrics.judging.biases`. Shares are
micro means over their units with the intervals of :func:`ragstat.inference.analyze`
(the recommended one shown); the regression coefficients (verbosity) get CR2 standard
errors with Bell–McCaffrey degrees of freedom: β̂ ± t_{ν, 1−α/2} · se.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ragstat.api.data import read_table
from ragstat.api.evaluation import draw_seed, json_ready
from ragstat.api.items import METHODS, Records, read_records
from ragstat.api.verbs.judge_bias_checks import KINDS, check_bias_memory, check_kind
from ragstat.errors import InputError
from ragstat.inference import analyze
from ragstat.inference.headline import describe, headline, single_headline
from ragstat.metrics.judging.biases import (
    ClusteredFit,
    self_consistency,
    swap_pairs,
    verbosity_bias,
)
from ragstat.records import aggregate_arrays
from ragstat.tidy import Tidy

__all__ = ["KINDS", "BiasEstimate", "JudgeBiasResult", "judge_bias"]

Rows = list[dict[str, Any]]
CR2_REFERENCE = "CR2 (Bell & McCaffrey 2002) regression sandwich, Bell–McCaffrey df"


@dataclass(frozen=True)
class BiasEstimate:
    """One number with its document-clustered interval (``method`` the one shown) and, for
    a share, every method's interval in ``intervals``; ``reason`` when none exists."""

    name: str
    description: str
    estimate: float | None
    n: int
    K: int
    method: str | None = None
    lower: float | None = None
    upper: float | None = None
    se: float | None = None
    df: float | None = None
    intervals: tuple[dict[str, Any], ...] = ()
    reason: str | None = None
    #: The range the estimate lies in ((0, 1) for a share), None for a coefficient.
    bounds: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "description": self.description, "estimate": self.estimate, "n": self.n,
            "documents": self.K, "method": self.method, "lower": self.lower,
            "upper": self.upper, "se": self.se, "df": self.df,
            "intervals": [dict(i) for i in self.intervals], "reason": self.reason,
        }  # fmt: skip


@dataclass(frozen=True, repr=False)
class JudgeBiasResult(Tidy):
    """What ``judge_bias`` computes: the estimates of one kind of bias, one row per unit
    (``table``: pairs, judgments or items, each with its document) and the details.

    ``to_dict()`` is what ``ragstat judge-bias --json`` prints; ``to_frame()`` one row per
    estimate × interval method; the ``repr`` the interval shown for each estimate.
    """

    kind: str
    source: str
    cluster: str
    level: float
    seed: int
    documents: int
    units: int
    estimates: tuple[BiasEstimate, ...]
    table: tuple[dict[str, Any], ...]
    details: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def estimate(self, name: str) -> BiasEstimate:
        for e in self.estimates:
            if e.name == name:
                return e
        raise KeyError(f"no estimate {name!r}; have {[e.name for e in self.estimates]}")

    def to_dict(self) -> dict[str, Any]:
        out = {
            "kind": self.kind, "source": self.source, "cluster": self.cluster,
            "level": self.level, "seed": self.seed, "documents": self.documents,
            "units": self.units, "estimates": {e.name: e.to_dict() for e in self.estimates},
            "details": self.details, "notes": list(self.notes), "rows": list(self.table),
        }  # fmt: skip
        return json_ready(out)

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for e in self.estimates:
            for iv in e.intervals:
                out.append({"estimand": e.name, **{k: iv.get(k) for k in _TIDY},
                            "recommended": iv.get("method") == e.method})  # fmt: skip
        return out

    def headline_rows(self) -> list[dict[str, Any]]:
        return [{"estimand": e.name, "method": e.method, "estimate": e.estimate,
                 "lower": e.lower, "upper": e.upper} for e in self.estimates]  # fmt: skip

    def sentences(self) -> list[str]:
        """One plain sentence per estimate: its headline interval, or why there is none."""
        what = {"self_consistency": "self-consistency"}.get(self.kind, f"{self.kind} bias")
        out = []
        for e in self.estimates:
            h = single_headline(
                e.estimate, e.method, e.lower, e.upper, K=e.K, level=self.level,
                bounds=e.bounds, reason=e.reason, question=f"this judge's {what}",
            )  # fmt: skip
            out.append(describe(h, e.name))
        return out

    def title(self) -> str:
        what = {"self_consistency": "self-consistency"}.get(self.kind, f"{self.kind} bias")
        return (
            f"judge {what}: {self.source}, {self.units} units in {self.documents} "
            f"documents, {self.level:.0%} intervals clustered by {self.cluster!r}"
        )


_TIDY = ("method", "estimate", "lower", "upper", "se", "df", "level", "available", "reason")


# ------------------------------------------------------------------ intervals


@dataclass(frozen=True)
class _Settings:
    level: float
    seed: int
    reps: int


def _share(
    name: str, description: str, docs: np.ndarray, values: np.ndarray, s: _Settings
) -> BiasEstimate:
    """A micro mean over units with the recommended document-clustered interval."""
    if values.size == 0:
        return BiasEstimate(name, description, None, 0, 0, reason="no units to average")
    stats = aggregate_arrays(np.asarray(docs, dtype=object), values, score=name)
    mean = float(values.mean())
    if stats.K < 2:
        why = "its units lie in one document: a clustered interval needs at least two"
        return BiasEstimate(name, description, mean, int(values.size), stats.K, reason=why)
    report = analyze(stats, level=s.level, methods=METHODS, seed=s.seed, bootstrap_reps=s.reps)
    micro = report.estimands["micro"]
    h = headline(report, "micro")  # the interval every output shows first, or why none
    shown = micro.get(h.method) if h.method is not None else None
    return BiasEstimate(
        name, description, mean, int(values.size), stats.K, method=h.method,
        lower=h.lower, upper=h.upper, se=None if shown is None else shown.se,
        df=None if shown is None else shown.df,
        intervals=tuple(iv.to_dict() for iv in micro.intervals), reason=h.reason,
        bounds=report.bounds,
    )  # fmt: skip


def _coefficient(
    name: str, description: str, fit: ClusteredFit, j: int, level: float
) -> BiasEstimate:
    """Regression coefficient j: β̂_j ± t_{ν_j, (1+level)/2} · se_CR2."""
    from scipy.stats import t

    est, se, df = float(fit.coef[j]), float(fit.se[j]), float(fit.df[j])
    half = float(t.ppf((1 + level) / 2, df)) * se if np.isfinite(df) else float("nan")
    lower, upper = (est - half, est + half) if np.isfinite(half) else (None, None)
    reason = None if lower is not None else "the degrees of freedom are undefined"
    iv = {"method": "cr2_bm", "estimate": est, "lower": lower, "upper": upper, "se": se,
          "df": df, "level": level, "available": lower is not None, "reason": reason,
          "reference": CR2_REFERENCE}  # fmt: skip
    return BiasEstimate(
        name, description, est, fit.N, fit.K, method="cr2_bm", lower=lower, upper=upper,
        se=se, df=df, intervals=(iv,), reason=reason,
    )  # fmt: skip


# ------------------------------------------------------------------ reading


def _read(data: Records) -> tuple[Rows, str]:
    if isinstance(data, (str, Path)) and Path(data).suffix.lower() in (".csv", ".tsv", ".parquet"):
        path = Path(data)
        rows, _ = read_records(read_table(path))
        return rows, str(path)
    return read_records(data, "judge table")


def _column(rows: Rows, name: str, label: str) -> list[Any]:
    for i, r in enumerate(rows, 1):
        if name not in r:
            raise InputError(f"{label}: row {i} has no {name!r} field (see --help for the fields)")
    return [r[name] for r in rows]


def _has(rows: Rows, *names: str) -> bool:
    return all(n in rows[0] for n in names)


# ------------------------------------------------------------------ the three kinds


def _position(rows: Rows, label: str, cluster: str, s: _Settings) -> dict[str, Any]:
    docs = _column(rows, cluster, label)
    ids = [r.get("pair_id", i) for i, r in enumerate(rows, 1)]
    sp = swap_pairs(
        ids, docs, _column(rows, "verdict_ab", label), _column(rows, "verdict_ba", label)
    )
    d, won = sp.first_slot_calls()
    both = sp.decisive == 2
    estimates = (
        _share("consistency", "share of pairs with the same winner in both orders "
               "(a tie in both counts as consistent)", sp.doc_id, sp.consistent * 1.0, s),
        _share("first_slot_preference", "share of calls won by the first-listed answer, "
               "ties excluded (0.5: no position bias)", d, won, s),
        _share("first_both", "share of pairs where the first position won in both orders",
               sp.doc_id, (sp.first_wins == 2) * 1.0, s),
        _share("second_both", "share of pairs where the second position won in both orders",
               sp.doc_id, (both & (sp.first_wins == 0)) * 1.0, s),
    )  # fmt: skip
    details = {"pairs": len(ids), "decisive_calls": int(sp.decisive.sum()),
               "tied_calls": int(2 * len(ids) - sp.decisive.sum()),
               "inconsistent_pairs": int((~sp.consistent).sum())}  # fmt: skip
    notes = ("first-slot preference counts calls, not pairs: each pair gives two calls, and "
             "ties are left out of numerator and denominator",)  # fmt: skip
    return {"estimates": estimates, "table": sp.rows(), "details": details, "notes": notes}


def _preferences(rows: Rows, label: str) -> list[Any]:
    from ragstat.metrics.judging.biases import preference_value

    field_ = "preference" if _has(rows, "preference") else "winner"
    if not _has(rows, field_):
        raise InputError(f"{label}: verbosity needs a winner (A|B|tie) or preference field")
    values = _column(rows, field_, label)
    return [preference_value(v, f"{label}: row {i} {field_}") for i, v in enumerate(values, 1)]


def _lengths(rows: Rows, label: str) -> tuple[list[Any], list[Any], str]:
    if _has(rows, "length_a", "length_b"):
        a, b = _column(rows, "length_a", label), _column(rows, "length_b", label)
        return a, b, "as given in length_a and length_b"
    if not _has(rows, "answer_a", "answer_b"):
        raise InputError(f"{label}: verbosity needs length_a + length_b or answer_a + answer_b")
    a, b = _column(rows, "answer_a", label), _column(rows, "answer_b", label)
    return [len(str(x).split()) for x in a], [len(str(x).split()) for x in b], "whitespace tokens"


def _verbosity(rows: Rows, label: str, cluster: str, s: _Settings, per: float) -> dict[str, Any]:
    docs = _column(rows, cluster, label)
    la, lb, unit = _lengths(rows, label)
    vb = verbosity_bias(docs, _preferences(rows, label), la, lb, per=per)
    d, longer = vb.longer_wins()
    estimates = (
        _coefficient("length_slope", f"change in the preference for A per {per:g} length "
                     "units of len_A − len_B (linear-probability regression)", vb.fit, 1, s.level),
        _coefficient("length_controlled_preference", "preference for A at zero length "
                     "difference (the regression's intercept)", vb.fit, 0, s.level),
        _share("preference", "preference for A, not length-controlled (A = 1, tie = ½, B = 0)",
               vb.doc_id, vb.preference, s),
        _share("longer_wins", "share of judgments won by the longer answer (ties and equal "
               "lengths excluded)", d, longer, s),
    )  # fmt: skip
    details = {"judgments": int(vb.preference.size), "per": per, "length_unit": unit,
               "mean_length_diff": float(vb.length_diff.mean()),
               "df_rule": "Bell–McCaffrey (CR2, working model Ω = I)"}  # fmt: skip
    notes = ("the length-controlled preference is the linear model's intercept: the "
             "preference predicted when both answers have the same length",)  # fmt: skip
    return {"estimates": estimates, "table": vb.rows(), "details": details, "notes": notes}


def _samples(rows: Rows, label: str, cluster: str) -> tuple[list[str], list[Any], list[Any]]:
    """(item ids, documents, sampled answers), from one row per item or one row per sample."""
    items = [str(x) for x in _column(rows, "item_id", label)]
    docs = _column(rows, cluster, label)
    if _has(rows, "answers"):
        answers = _column(rows, "answers", label)
        bad = [i for i, a in zip(items, answers, strict=True) if not isinstance(a, list)]
        if bad:
            raise InputError(f"{label}: item {bad[0]!r}: 'answers' must be a list of answers")
        return items, docs, answers
    grouped: dict[str, list[Any]] = {}
    doc_of: dict[str, Any] = {}
    for item, doc, ans in zip(items, docs, _column(rows, "answer", label), strict=True):
        if doc_of.setdefault(item, doc) != doc:
            raise InputError(f"{label}: item {item!r} appears in two documents")
        grouped.setdefault(item, []).append(ans)
    return list(grouped), [doc_of[i] for i in grouped], list(grouped.values())


def _consistency(
    rows: Rows, label: str, cluster: str, s: _Settings, threshold: float
) -> dict[str, Any]:
    sc = self_consistency(*_samples(rows, label, cluster), threshold=threshold)
    estimates = (
        _share("agreement", "mean share of an item's samples that give its modal answer",
               sc.doc_id, sc.agreement, s),
        _share("flagged", f"share of items with agreement below {threshold:g}",
               sc.doc_id, sc.flagged * 1.0, s),
        _share("unanimous", "share of items whose samples all agree",
               sc.doc_id, (sc.agreement == 1.0) * 1.0, s),
    )  # fmt: skip
    details = {"items": len(sc.item_id), "threshold": threshold,
               "samples_min": int(sc.samples.min()), "samples_max": int(sc.samples.max()),
               "distribution": sc.distribution(),
               "flagged_items": [i for i, f in zip(sc.item_id, sc.flagged, strict=True) if f]}  # fmt: skip
    notes = ("answers are compared case-folded with runs of whitespace made one space; "
             "a tie for the modal answer goes to the one sampled first",)  # fmt: skip
    return {"estimates": estimates, "table": sc.rows(), "details": details, "notes": notes}


# ------------------------------------------------------------------ the verb


def judge_bias(
    data: Records,
    *,
    kind: str = "position",
    cluster: str = "doc_id",
    threshold: float = 0.5,
    per: float = 100.0,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> JudgeBiasResult:
    """Position bias, verbosity bias or self-consistency of an LLM judge, every estimate with
    an interval clustered by ``cluster`` (the document). Fields per ``kind``: the module
    docstring. ``threshold``: self-consistency flags items with agreement below it; ``per``:
    the verbosity slope is per this many length units. ``seed=None`` draws a seed (kept)."""
    k = check_kind(kind, level, bootstrap_reps)
    rows, label = _read(data)
    s = _Settings(float(level), draw_seed(seed), bootstrap_reps)
    docs = _column(rows, cluster, label)
    K = len({str(d) for d in docs})
    check_bias_memory(k, docs, bootstrap_reps, label)
    if K < 2:
        raise InputError(
            f"{label}: every row is in one document ({cluster!r}): a clustered interval needs "
            "at least two documents"
        )
    if k == "position":
        out = _position(rows, label, cluster, s)
    elif k == "verbosity":
        out = _verbosity(rows, label, cluster, s, per)
    else:
        out = _consistency(rows, label, cluster, s, threshold)
    return JudgeBiasResult(
        kind=k, source=label, cluster=cluster, level=float(level), seed=s.seed, documents=K,
        units=len(out["table"]), estimates=out["estimates"], table=tuple(out["table"]),
        details=out["details"], notes=out["notes"],
    )  # fmt: skip
