"""``ragstat.routing``: intent / router accuracy and iterative search under budgets, with
intervals clustered by document.

One record per item (a query), with ``id``, the field named by ``cluster_by`` (the query's
source document) and either or both of:

* ``label`` (the true intent or route) + ``predicted``, optional ``slice``: ``accuracy``
  (and ``accuracy:<slice>``), ``precision:<label>`` and ``recall:<label>`` as means over
  units (so each mean is the corpus ratio), per-class and macro F1 with a document-bootstrap
  percentile interval, and the confusion matrix (rows true labels, columns predicted, in the
  declared order). The label set is ``labels``, a ``labels_file`` (one label per line) or a
  ``labels`` list in the file's first record; without one, the labels seen are the set;
* ``steps`` (the step at which the answer was found, ≥ 1, or null), ``max_steps`` (or the
  ``max_steps`` argument), optional ``cost`` (cumulative cost at success): ``success@<s>``
  for s = 1 … S, ``success@cost<=<b>`` per cost budget, and the step at which the success
  curve flattens, with the paired interval on the gain from there to S (``gain@<s>-><S>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ragstat.api.evaluation import draw_seed, json_ready
from ragstat.api.item_verdicts import f1_marks, f1_sentence
from ragstat.api.items import (
    ItemScore,
    ItemScores,
    Records,
    Scores,
    check_reps,
    clusters_for,
    read_records,
    require_ids,
    score_intervals,
)
from ragstat.errors import InputError
from ragstat.metrics.routing import IntentClassification, SearchBudgets

__all__ = ["RoutingResult", "routing"]

Rows = list[dict[str, Any]]
#: The bootstrap of F1 and what a class with no predicted item gets (scikit-learn's default).
F1_METHOD = "doc_bootstrap_percentile"
ZERO_DIVISION = 0.0


@dataclass(frozen=True, repr=False)
class RoutingResult(ItemScores):
    """Item scores plus the classification tables (``labels``, ``confusion``, ``classes``,
    ``macro_f1``) and the search-budget summary (``search``)."""

    labels: tuple[str, ...] = ()
    labels_source: str = ""
    confusion: tuple[tuple[int, ...], ...] = ()
    classes: dict[str, dict[str, Any]] = field(default_factory=dict)
    macro_f1: dict[str, Any] | None = None
    search: dict[str, Any] | None = None

    def sentences(self) -> list[str]:
        """One sentence per score, then macro F1's."""
        if self.macro_f1 is None:
            return super().sentences()
        macro = f1_sentence("macro F1", self.macro_f1, self.level, self.noun)
        return [*super().sentences(), macro]

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["labels"] = list(self.labels)
        out["labels_source"] = self.labels_source
        out["confusion"] = [list(r) for r in self.confusion]
        out["classes"] = {k: dict(v) for k, v in self.classes.items()}
        out["macro_f1"] = None if self.macro_f1 is None else dict(self.macro_f1)
        out["search"] = None if self.search is None else dict(self.search)
        return json_ready(out)


def _labels_file(path: str | Path) -> tuple[str, ...]:
    """One label per line of a regular file (a FIFO or device such as /dev/zero is refused,
    lines and size within the reader caps), blank lines skipped."""
    from ragstat.records.textio import iter_lines
    from ragstat.resources.caps import check_list

    found = tuple(x.strip() for _, x in iter_lines(path, "labels file") if x.strip())
    check_list(found, "labels file")
    return found


def _declared(
    rows: Rows, labels: Sequence[str] | None, labels_file: str | Path | None, label: str
) -> tuple[Rows, tuple[str, ...] | None, str]:
    """The records without a header record, the declared labels and where they came from."""
    head = rows[0] if "labels" in rows[0] else None
    later = [str(r.get("id", i)) for i, r in enumerate(rows[1:], 2) if "labels" in r]
    if later:
        raise InputError(f"{label}: 'labels' belongs in the first record only (record {later[0]})")
    if head is not None and not {"id", "label", "predicted", "steps"} & set(head):
        rows = rows[1:]  # a header record: only the label set
    found: list[tuple[str, tuple[str, ...]]] = []
    if labels is not None:
        found.append(("argument", tuple(str(c) for c in labels)))
    if labels_file is not None:
        found.append(("labels file", _labels_file(labels_file)))
    if head is not None:
        if not isinstance(head["labels"], list):
            raise InputError(f"{label}: 'labels' in the first record must be a list")
        found.append(("first record", tuple(str(c) for c in head["labels"])))
    if len({v for _, v in found}) > 1:
        raise InputError(f"{label}: the declared label sets differ: {dict(found)}")
    if not rows:
        raise InputError(f"{label}: no records after the labels header")
    return rows, (found[0][1] if found else None), (found[0][0] if found else "seen")


def _pairs(rows: Rows, label: str) -> Rows:
    """The records with a label and a prediction; one without the other is an error."""
    for r in rows:
        if ("label" in r) != ("predicted" in r):
            has, lacks = ("label", "predicted") if "label" in r else ("predicted", "label")
            raise InputError(f"{label}: item {str(r['id'])!r} has {has} but no {lacks}")
    return [r for r in rows if "label" in r]


def _interval(v: ItemScore) -> dict[str, Any]:
    """The headline interval of a score as {estimate, lower, upper, method}, with ``reason``
    when none is shown (three documents or fewer, an interval leaving the range…)."""
    from ragstat.api.item_verdicts import score_headline

    h = score_headline(v)
    if h is None:
        return {"estimate": v.mean, "lower": None, "upper": None, "method": None,
                "reason": "fewer than two documents"}  # fmt: skip
    return {
        "estimate": v.mean, "lower": h.lower, "upper": h.upper,
        "method": h.method if h.available else None, "reason": h.reason,
    }  # fmt: skip


def _classification(
    pairs: Rows, declared: tuple[str, ...] | None, scores: Scores, questions: dict[str, str]
) -> IntentClassification:
    from ragstat.metrics.routing import intent_classification

    c = intent_classification(
        {str(r["id"]): r["label"] for r in pairs},
        {str(r["id"]): r["predicted"] for r in pairs},
        declared,
    )
    scores["accuracy"] = (list(c.item_ids), c.correct)
    questions["accuracy"] = "a random labelled item"
    if any("slice" in r for r in pairs):
        sl = np.array([str(r.get("slice", "")) for r in pairs], dtype=object)
        for name in sorted(set(sl) - {""}):
            scores[f"accuracy:{name}"] = (
                list(np.array(c.item_ids)[sl == name]),
                c.correct[sl == name],
            )
            questions[f"accuracy:{name}"] = f"a random labelled item of slice {name}"
    for lab in c.labels:
        for which in ("precision", "recall"):
            ids, values = c.units(lab, which)
            if ids:
                scores[f"{which}:{lab}"] = (ids, values)
                side = "predicted" if which == "precision" else "labelled"
                questions[f"{which}:{lab}"] = f"a random item {side} {lab}"
    return c


def _f1_tables(
    c: IntentClassification, clusters: list[str], level: float, reps: int, seed: int
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Per class: support, predicted, precision, recall, F1 with its bootstrap interval;
    and macro F1 with its interval."""
    from ragstat.metrics.routing import f1_bootstrap

    tp, fp, fn = c.counts()
    f1, k = c.f1, len(set(clusters))
    boot = (
        None
        if k < 2
        else f1_bootstrap(*c.counts_by_cluster(clusters), level=level, reps=reps, seed=seed)
    )
    classes = {}
    for j, lab in enumerate(c.labels):
        p, r = c.precision[j], c.recall[j]
        classes[lab] = {
            "support": int(tp[j] + fn[j]), "predicted": int(tp[j] + fp[j]),
            "precision": None if np.isnan(p) else float(p),
            "recall": None if np.isnan(r) else float(r),
            "f1": float(f1[j]),
            "f1_lower": None if boot is None else float(boot.lower[j]),
            "f1_upper": None if boot is None else float(boot.upper[j]),
        }  # fmt: skip
    macro = f1_marks({
        "estimate": c.macro_f1,
        "lower": None if boot is None else boot.macro_lower,
        "upper": None if boot is None else boot.macro_upper,
        "method": F1_METHOD, "reps": reps, "clusters": k, "zero_division": ZERO_DIVISION,
    })  # fmt: skip
    return classes, macro


def _classification_notes(
    c: IntentClassification, classes: dict[str, dict[str, Any]], macro: dict[str, Any]
) -> list[str]:
    notes = [
        "macro F1: a class with neither true nor predicted items has F1 0, scikit-learn's "
        "default zero_division",
        "per-class F1: " + ", ".join(f"{k} {v['f1']:.3f}" for k, v in classes.items()),
        f"confusion matrix (rows true, columns predicted; {', '.join(c.labels)}): "
        + "; ".join(" ".join(map(str, r)) for r in c.confusion().tolist()),
    ]
    never = [k for k, v in classes.items() if v["predicted"] == 0]
    if never:
        notes.append(f"never predicted, so precision is undefined (missing): {', '.join(never)}")
    absent = [k for k, v in classes.items() if v["support"] == 0]
    if absent:
        notes.append(f"no true item, so recall is undefined (missing): {', '.join(absent)}")
    if not c.declared:
        notes.append(f"no declared label set: the labels seen are the set ({', '.join(c.labels)})")
    return notes


def _budgets(rows: Rows, max_steps: int | None) -> SearchBudgets:
    from ragstat.metrics.routing import search_budgets

    for r in rows:
        if r.get("max_steps", max_steps) is None:
            raise InputError(f"item {str(r['id'])!r} has steps but no max_steps (or --max-steps)")
    return search_budgets(
        {str(r["id"]): r["steps"] for r in rows},
        {str(r["id"]): r.get("max_steps", max_steps) for r in rows},
        {str(r["id"]): r.get("cost") for r in rows},
    )


def _numbers(values: Sequence[float | str]) -> tuple[float, ...]:
    """Cost budgets as numbers ≥ 0 (text from the command line included)."""
    out = []
    for v in values:
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise InputError(f"cost budget {v!r} is not a number") from None
        if not x >= 0 or not np.isfinite(x):
            raise InputError(f"cost budget {v!r} must be a finite number ≥ 0")
        out.append(x)
    return tuple(out)


def _search_scores(
    b: SearchBudgets, flat_gain: float, cost_budgets: Sequence[float | str] | None, scores: Scores
) -> tuple[int, tuple[float, ...]]:
    """success@s, success@cost<=b and the flattening gain as scores; (s*, the cost budgets)."""
    ids, horizon = list(b.item_ids), b.horizon
    for s in range(1, horizon + 1):
        scores[f"success@{s}"] = (ids, b.success_at(s))
    budgets: tuple[float, ...] = ()
    if b.has_cost:
        budgets = b.default_budgets() if cost_budgets is None else _numbers(cost_budgets)
        for x in budgets:
            scores[f"success@cost<={x:g}"] = (ids, b.within_cost(x))
    flat = b.flattens_at(flat_gain)
    if flat < horizon:
        scores[f"gain@{flat}->{horizon}"] = (ids, b.gain_from(flat))
    return flat, budgets


def _search_summary(
    b: SearchBudgets, flat: int, budgets: tuple[float, ...], flat_gain: float,
    found: dict[str, ItemScore],
) -> tuple[dict[str, Any], str]:  # fmt: skip
    horizon = b.horizon
    gain = found.get(f"gain@{flat}->{horizon}")
    g: dict[str, Any] = {"estimate": 0.0, "lower": None, "upper": None, "method": None}
    if gain is not None:
        g = _interval(gain)
    summary = {
        "horizon": horizon, "flat_gain": flat_gain, "flattens_at": flat, "gain": g,
        "curve": [float(v) for v in b.curve()], "cost_budgets": list(budgets),
        "never_found": int((~b.found).sum()),
    }  # fmt: skip
    if flat == horizon:
        return summary, f"the success curve does not flatten before {horizon} steps"
    ci = f", no interval: {g.get('reason')}"
    if g["lower"] is not None:
        ci = f" [{100 * g['lower']:.1f}, {100 * g['upper']:.1f}]"
    return summary, (
        f"the curve flattens at {flat} steps: going to {horizon} adds "
        f"{100 * g['estimate']:.1f} points{ci} (paired, clustered; threshold {100 * flat_gain:g})"
    )


def routing(
    data: Records,
    *,
    labels: Sequence[str] | None = None,
    labels_file: str | Path | None = None,
    cluster_by: str | None = None,
    flat_gain: float = 0.01,
    cost_budgets: Sequence[float | str] | None = None,
    max_steps: int | None = None,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> RoutingResult:
    """Router accuracy, per-class precision/recall/F1, macro F1 and the confusion matrix;
    success by search steps and cost budget and where the success curve flattens — each mean
    with intervals clustered by ``cluster_by`` (see the module docstring). ``data``: a JSONL
    path, a list of mappings, a DataFrame or a pyarrow Table; ``seed=None`` draws a seed,
    kept in ``result.seed``."""
    check_reps(bootstrap_reps)
    rows, label = read_records(data)
    rows, declared, source = _declared(rows, labels, labels_file, label)
    ids = require_ids(rows, label)
    pairs, steps = _pairs(rows, label), [r for r in rows if "steps" in r]
    if not pairs and not steps:
        raise InputError(f"{label}: records need label + predicted, or steps")
    seed = draw_seed(seed)
    cluster_of = dict(zip(ids, clusters_for(rows, ids, cluster_by)[0], strict=True))
    scores: Scores = {}
    questions: dict[str, str] = {}
    notes: list[str] = []
    extra: dict[str, Any] = {}
    if pairs:
        c = _classification(pairs, declared, scores, questions)
        clusters = [cluster_of[i] for i in c.item_ids]
        classes, macro = _f1_tables(c, clusters, level, bootstrap_reps, seed)
        notes += _classification_notes(c, classes, macro)
        extra = dict(labels=c.labels, labels_source=source if c.declared else "seen",
                     confusion=tuple(map(tuple, c.confusion().tolist())),
                     classes=classes, macro_f1=macro)  # fmt: skip
    b = _budgets(steps, max_steps) if steps else None
    if b is not None:
        flat, budgets = _search_scores(b, flat_gain, cost_budgets, scores)
    found, note = score_intervals(
        scores, rows, cluster_by, level=level, seed=seed, reps=bootstrap_reps, questions=questions
    )
    if b is not None:
        extra["search"], sentence = _search_summary(b, flat, budgets, flat_gain, found)
        notes.append(sentence)
    return RoutingResult("routing", label, found, note, tuple(notes), level, seed, **extra)
