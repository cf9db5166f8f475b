"""``ragstat.extraction``: tables, entities, relations and titles against a reference, with
intervals clustered by document.

One record per item (a page, a table, a passage) with ``id``, an optional ``class`` (for
per-class table scores), the field named by ``cluster_by`` (e.g. the source document) and
any of these pairs:

* ``table_pred`` + ``table_ref`` (HTML): ``teds``, ``teds_s`` per item, and per class;
* ``tags_pred`` + ``tags_ref`` (BIO/IOB tags per token, or per sentence): mention
  precision/recall in seqeval's default mode (``ner_*``) and strict mode with ``scheme``
  (``ner_*_strict``);
* ``entities_pred`` + ``entities_ref`` (spans ``{start, end, type}`` or ``[start, end,
  type]``; ``text`` bounds them when present): strict (``entity_*``) and overlapping-span
  (``entity_*_partial``) precision/recall;
* ``relations_pred`` + ``relations_ref`` (``[head, type, tail]``): ``relation_*``;
* ``title_pred`` + ``title_ref`` (text, or lists of headings): ``title_exact_match``,
  ``title_similarity`` per heading.

Precision and recall are means over units (one 0/1 row per predicted or reference mention
or triple), so the mean is the corpus ratio ΣTP / Σpredicted (ΣTP / Σreference) and its
interval is clustered by the item's document. F1 is not a mean: ``result.f1`` gives its
corpus value and a percentile interval from resampling documents.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragstat.api.evaluation import draw_seed, json_ready
from ragstat.api.item_verdicts import f1_marks, f1_sentence
from ragstat.api.items import (
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
from ragstat.inference.other_coverage import shortfall_sentence
from ragstat.metrics.extraction import Matching

__all__ = ["INPUTS", "ExtractionScores", "extraction"]

Rows = list[dict[str, Any]]
#: Input → its (predicted, reference) fields.
INPUTS = {
    "tables": ("table_pred", "table_ref"),
    "tags": ("tags_pred", "tags_ref"),
    "entities": ("entities_pred", "entities_ref"),
    "relations": ("relations_pred", "relations_ref"),
    "titles": ("title_pred", "title_ref"),
}
#: The field of the internal unit rows that holds the cluster (not a record field).
_CLUSTER = "\x1fcluster"


@dataclass(frozen=True, repr=False)
class ExtractionScores(ItemScores):
    """Item scores plus F1 (corpus value and document-bootstrap percentile interval per
    measure) and, per input, how many items had it and how many lacked it."""

    f1: dict[str, dict[str, Any]] = field(default_factory=dict)
    inputs: dict[str, dict[str, int]] = field(default_factory=dict)

    def sentences(self) -> list[str]:
        """One sentence per score, then one per overall F1 (not per type)."""
        f1 = [f1_sentence(k, v, self.level, self.noun) for k, v in self.f1.items() if ":" not in k]
        return super().sentences() + f1

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["f1"] = {k: dict(v) for k, v in self.f1.items()}
        out["inputs"] = {k: dict(v) for k, v in self.inputs.items()}
        return json_ready(out)


@dataclass(frozen=True)
class _Work:
    """What the input sections fill: scores, their unit rows, matchings for F1, notes."""

    rows: Rows
    clusters: dict[str, str]
    scores: Scores = field(default_factory=dict)
    units: Rows = field(default_factory=list)
    matchings: dict[str, Matching] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    questions: dict[str, str] = field(default_factory=dict)

    def pairs(self, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        p, r = INPUTS[name]
        have = [x for x in self.rows if p in x and r in x]
        return {str(x["id"]): x[p] for x in have}, {str(x["id"]): x[r] for x in have}

    def add_units(self, name: str, items: tuple[str, ...], values: np.ndarray, unit: str) -> None:
        """A score over units (``unit``: "predicted mention", "heading"…): one row per unit,
        clustered as its item."""
        self.questions[name] = f"a random {unit}"
        ids = [f"{item}\x1f{name}\x1f{k}" for k, item in enumerate(items)]
        self.units.extend(
            {"id": u, _CLUSTER: self.clusters[i]} for u, i in zip(ids, items, strict=True)
        )
        self.scores[name] = (ids, np.asarray(values, dtype=float))

    def add_matching(self, stem: str, m: Matching, suffix: str = "") -> None:
        """Precision and recall (units), overall and per type; F1 kept for the bootstrap."""
        noun = "triple" if stem == "relation" else "mention"
        for kind, sub in [("", m)] + [(f":{t}", m.of_type(t)) for t in m.types]:
            for which, u in (("precision", sub.predicted), ("recall", sub.reference)):
                if u.item_ids or not kind:  # a type with no unit on this side: no score
                    side = "predicted" if which == "precision" else "reference"
                    name = f"{stem}_{which}{suffix}{kind}"
                    self.add_units(name, u.item_ids, u.matched, f"{side} {noun}")
            self.matchings[f"{stem}_f1{suffix}{kind}"] = sub


def _tables(w: _Work) -> None:
    from ragstat.metrics.extraction import table_scores

    pred, ref = w.pairs("tables")
    classes = {str(x["id"]): str(x.get("class", "all")) for x in w.rows}
    t = table_scores(pred, ref, classes)
    ids = list(t.item_ids)
    w.scores["teds"], w.scores["teds_s"] = (ids, t.teds), (ids, t.teds_s)
    if any("class" in x for x in w.rows if str(x["id"]) in ref):
        cls = np.asarray(t.doc_class, dtype=object)
        for c in sorted(set(t.doc_class)):
            keep = [i for i, k in zip(ids, cls == c, strict=True) if k]
            w.scores[f"teds:{c}"] = (keep, t.teds[cls == c])
            w.scores[f"teds_s:{c}"] = (keep, t.teds_s[cls == c])
    if t.no_table:
        w.notes.append(
            f"{len(t.no_table)} predicted table(s) with no <table>, scored 0: "
            + ", ".join(t.no_table[:5])
        )


def _tags(w: _Work, scheme: str) -> None:
    from ragstat.metrics.extraction import tag_matches

    pred, ref = w.pairs("tags")
    w.add_matching("ner", tag_matches(pred, ref, mode="default"))
    w.add_matching("ner", tag_matches(pred, ref, mode="strict", scheme=scheme), "_strict")
    w.notes.append(f"ner_*: seqeval default mode; ner_*_strict: strict mode, scheme {scheme}")


def _entities(w: _Work) -> None:
    from ragstat.metrics.extraction import span_matches

    pred, ref = w.pairs("entities")
    lengths = {str(x["id"]): len(x["text"]) for x in w.rows if isinstance(x.get("text"), str)}
    w.add_matching("entity", span_matches(pred, ref, mode="strict", lengths=lengths))
    w.add_matching("entity", span_matches(pred, ref, mode="partial", lengths=lengths), "_partial")


def _relations(w: _Work) -> None:
    from ragstat.metrics.extraction import relation_matches

    pred, ref = w.pairs("relations")
    w.add_matching("relation", relation_matches(pred, ref))


def _titles(w: _Work) -> None:
    from ragstat.metrics.extraction import heading_scores

    pred, ref = w.pairs("titles")
    h = heading_scores(pred, ref)
    w.add_units("title_exact_match", h.item_ids, h.exact, "heading")
    w.add_units("title_similarity", h.item_ids, h.similarity, "heading")


def _inputs(rows: Rows, label: str) -> dict[str, dict[str, int]]:
    """Per input: items with both fields and items lacking them; one side alone: error."""
    out = {}
    for name, (p, r) in INPUTS.items():
        for x in rows:
            if (p in x) != (r in x):
                has, lacks = (p, r) if p in x else (r, p)
                raise InputError(f"{label}: item {str(x['id'])!r} has {has} but no {lacks}")
        n = sum(1 for x in rows if p in x)
        out[name] = {"items": n, "lacking": len(rows) - n}
    if not any(v["items"] for v in out.values()):
        fields = ", ".join(f"{p} + {r}" for p, r in INPUTS.values())
        raise InputError(f"{label}: no record has any of {fields}")
    return out


def _f1(w: _Work, level: float, reps: int, seed: int) -> dict[str, dict[str, Any]]:
    """Corpus F1 and its document-bootstrap percentile interval for every matching, with
    why no interval is shown (``reason``: three documents or fewer) and its flags."""
    from ragstat.metrics.extraction import f1_bootstrap

    out = {}
    for name, m in w.matchings.items():
        lo = hi = None
        k = len({w.clusters[i] for i in m.predicted.item_ids + m.reference.item_ids})
        if k >= 2:
            lo, hi, k = f1_bootstrap(m, w.clusters, level=level, reps=reps, seed=seed)
        out[name] = f1_marks({
            "estimate": m.f1, "lower": lo, "upper": hi, "clusters": k,
            "method": "doc_bootstrap_percentile", "reps": reps,
        })  # fmt: skip
    return out


def _f1_notes(f1: dict[str, dict[str, Any]], level: float) -> list[str]:
    """How far the shown overall F1 intervals fell short of 95 % in simulation at their
    number of documents (nothing where they reach it)."""
    by_k: dict[int, list[str]] = {}
    for name, e in f1.items():
        if ":" not in name and e["reason"] is None:
            by_k.setdefault(int(e["clusters"]), []).append(name)
    out = []
    for K, names in sorted(by_k.items()):
        what = "entity extraction (corpus F1)"
        said = shortfall_sentence("extraction_f1", "entities", [("f1", n) for n in names], K,
                                  level, what)  # fmt: skip
        if said:
            out.append(said)
    return out


def extraction(
    data: Records,
    *,
    cluster_by: str | None = None,
    scheme: str = "IOB2",
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
) -> ExtractionScores:
    """TEDS/TEDS-S of tables (per ``class`` too), mention precision/recall from BIO tags
    (seqeval default and strict with ``scheme``) or spans (strict and partial), relation
    precision/recall, title exact match and similarity, each with intervals clustered by
    ``cluster_by``, and F1 with a document-bootstrap interval (see the module docstring).
    ``data``: a JSONL path, a list of mappings, a DataFrame or a pyarrow Table;
    ``seed=None`` draws a seed, kept in ``result.seed``."""
    check_reps(bootstrap_reps)
    rows, label = read_records(data)
    ids = require_ids(rows, label)
    inputs = _inputs(rows, label)
    seed = draw_seed(seed)
    cluster_of, note = clusters_for(rows, ids, cluster_by)
    w = _Work(rows, dict(zip(ids, cluster_of, strict=True)))
    sections: dict[str, Callable[[_Work], None]] = {
        "tables": _tables, "tags": lambda x: _tags(x, scheme), "entities": _entities,
        "relations": _relations, "titles": _titles,
    }  # fmt: skip
    for name, run in sections.items():
        if inputs[name]["items"]:
            run(w)
    item_rows = [{"id": i, _CLUSTER: c} for i, c in w.clusters.items()]
    found, _ = score_intervals(
        w.scores, item_rows + w.units, _CLUSTER, level=level, seed=seed, reps=bootstrap_reps,
        questions=w.questions,
    )  # fmt: skip
    f1 = _f1(w, level, bootstrap_reps, seed)
    notes = (*w.notes, *_f1_notes(f1, level))
    return ExtractionScores(
        "extraction", label, found, note, notes, level, seed, f1=f1, inputs=inputs
    )
