"""Ontology-layer metrics (the RAG reference part 7): hierarchy-aware scores over a taxonomy DAG.

* :func:`hierarchical_prf` — hierarchical precision / recall / F1 (Kosmopoulos et
  al., 2015, as the seed cites; the set-augmentation idea of Kiritchenko et al.).
  With ``P̂_q`` the predicted node(s) plus all their ancestors and ``T_q`` the gold
  node(s) plus all their ancestors, **the root included** (the seed: Sedan shares
  two of its three nodes with Hatchback, Submarine "only the root")::

      hP = Σ_q |P̂_q ∩ T_q| / Σ_q |P̂_q|    hR = Σ_q |P̂_q ∩ T_q| / Σ_q |T_q|
      hF1 = 2·hP·hR / (hP + hR)

* :func:`wu_palmer` — ``WuP = 2·depth(LCA) / (depth(c1) + depth(c2))``, root depth 1.
* :func:`hierarchy_confusion` — count_sibling / total_errors, count_parent /
  total_errors, count_descendant / total_errors (and ancestor, other).

Entity linking with NIL lives in :mod:`ragstat.metrics.ontology.linking`, schema
validity and vocabulary conformance in :mod:`ragstat.metrics.ontology.conformance`,
the taxonomy DAG in :mod:`ragstat.metrics.ontology.taxonomy`. Every per-item result is a frozen dataclass with ``item_ids`` and read-only numpy
arrays; ``records()`` gives ``item_id → value`` for clustered intervals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array, ratios
from ragstat.errors import InputError
from ragstat.metrics import rates
from ragstat.metrics.ontology.taxonomy import RELATIONS, Taxonomy

__all__ = [
    "HierarchicalPRF",
    "HierarchyConfusion",
    "WuPalmer",
    "hierarchical_prf",
    "hierarchy_confusion",
    "wu_palmer",
]


def _check_maps(predicted: object, gold: object, what: str) -> None:
    if not isinstance(predicted, Mapping) or not isinstance(gold, Mapping):
        raise InputError(f"{what}: predicted and gold must map item id → label")
    if not gold:
        raise InputError(f"{what}: no gold item (empty denominator)")


def _labels(tax: Taxonomy, value: object, where: str) -> frozenset[str]:
    """A label or a collection of labels, each checked against the taxonomy."""
    if isinstance(value, str):
        return frozenset({tax.check(value, where)})
    if not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise InputError(f"{where}: a label must be a node name or a list of them, got {value!r}")
    return frozenset(tax.check(v, where) for v in value)


def _single(tax: Taxonomy, value: object, where: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{where}: expected one node name, got {value!r}")
    return tax.check(value, where)


@dataclass(frozen=True)
class HierarchicalPRF:
    """Per item: ``overlap = |P̂∩T|``, ``n_predicted = |P̂|``, ``n_gold = |T|`` (int arrays).

    Per-item ``hp``, ``hr`` (NaN where the denominator is 0) and
    ``hf1 = 2·overlap / (|P̂| + |T|)``; micro ``precision``, ``recall``, ``f1`` as
    in the module docstring (InputError on an empty denominator). ``missing``:
    gold items without a prediction (scored as an empty prediction).
    """

    item_ids: tuple[str, ...]
    overlap: np.ndarray
    n_predicted: np.ndarray
    n_gold: np.ndarray
    missing: tuple[str, ...]

    @property
    def hp(self) -> np.ndarray:
        return ratios(self.overlap, self.n_predicted)

    @property
    def hr(self) -> np.ndarray:
        return ratios(self.overlap, self.n_gold)

    @property
    def hf1(self) -> np.ndarray:
        return ratios(2 * self.overlap, self.n_predicted + self.n_gold)

    @property
    def precision(self) -> float:
        return rates.rate(
            int(self.overlap.sum()), int(self.n_predicted.sum()), "hierarchical precision"
        )

    @property
    def recall(self) -> float:
        return rates.rate(int(self.overlap.sum()), int(self.n_gold.sum()), "hierarchical recall")

    @property
    def f1(self) -> float:
        return rates.f1(self.precision, self.recall)

    def records(self, metric: str = "hf1") -> dict[str, float]:
        """``item_id → value`` of ``hp``, ``hr`` or ``hf1``."""
        if metric not in ("hp", "hr", "hf1"):
            raise InputError(f"unknown per-item metric {metric!r}; use hp, hr or hf1")
        return dict(zip(self.item_ids, getattr(self, metric).tolist(), strict=True))


def hierarchical_prf(
    taxonomy: Taxonomy,
    predicted: Mapping[str, object],
    gold: Mapping[str, object],
    *,
    exclude_roots: bool = False,
) -> HierarchicalPRF:
    """Hierarchical P/R/F1 over ancestor-augmented label sets (formulas in the module doc).

    Labels are one node or a collection of nodes (multi-label). Items are those
    of ``gold`` in order; predictions for other items are ignored. The seed counts
    the root; ``exclude_roots=True`` gives the Kiritchenko variant without roots.
    """
    _check_maps(predicted, gold, "hierarchical_prf")
    roots = taxonomy.roots if exclude_roots else frozenset()
    overlap, n_pred, n_gold = [], [], []
    for item, label in gold.items():
        t = _augment(taxonomy, _labels(taxonomy, label, f"gold, item {item!r}"), roots)
        raw = predicted.get(item, ())
        p = _augment(taxonomy, _labels(taxonomy, raw, f"predicted, item {item!r}"), roots)
        overlap.append(len(p & t))
        n_pred.append(len(p))
        n_gold.append(len(t))
    return HierarchicalPRF(
        item_ids=tuple(gold),
        overlap=frozen_array(overlap, np.int64),
        n_predicted=frozen_array(n_pred, np.int64),
        n_gold=frozen_array(n_gold, np.int64),
        missing=tuple(i for i in gold if i not in predicted),
    )


def _augment(tax: Taxonomy, labels: frozenset[str], drop: frozenset[str]) -> frozenset[str]:
    return frozenset().union(*(tax.ancestors(n) for n in labels)) - drop


@dataclass(frozen=True)
class WuPalmer:
    """Per item Wu–Palmer ``similarity`` (float array) and the ``lca`` used (None: disjoint
    roots or missing prediction). ``missing`` items score 0. ``mean`` = Σ sim / n."""

    item_ids: tuple[str, ...]
    similarity: np.ndarray
    lca: tuple[str | None, ...]
    missing: tuple[str, ...]

    @property
    def mean(self) -> float:
        return float(self.similarity.mean())

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.similarity.tolist(), strict=True))


def wu_palmer(
    taxonomy: Taxonomy, predicted: Mapping[str, str], gold: Mapping[str, str]
) -> WuPalmer:
    """``WuP(c1, c2) = 2·depth(LCA(c1, c2)) / (depth(c1) + depth(c2))`` per gold item.

    Depth counts nodes from the root (root = 1, as NLTK's WordNet ``wup_similarity``);
    with several lowest common ancestors in a DAG the deepest is used. A missing
    prediction scores 0.
    """
    _check_maps(predicted, gold, "wu_palmer")
    sims: list[float] = []
    lcas: list[str | None] = []
    for item, label in gold.items():
        g = _single(taxonomy, label, f"gold, item {item!r}")
        if item not in predicted:
            sims.append(0.0)
            lcas.append(None)
            continue
        p = _single(taxonomy, predicted[item], f"predicted, item {item!r}")
        sims.append(taxonomy.wu_palmer(p, g))
        lcas.append(taxonomy.lca(p, g))
    return WuPalmer(
        item_ids=tuple(gold),
        similarity=frozen_array(sims, np.float64),
        lca=tuple(lcas),
        missing=tuple(i for i in gold if i not in predicted),
    )


@dataclass(frozen=True)
class HierarchyConfusion:
    """Per item ``relation`` (str array, one of :data:`RELATIONS` or ``"missing"``) and
    ``wrong`` (bool array). ``shares[r] = count_r / total_errors`` over wrong
    predictions (missing predictions are not wrong labels and are left out)."""

    item_ids: tuple[str, ...]
    relation: np.ndarray
    wrong: np.ndarray
    missing: tuple[str, ...]

    @property
    def n_errors(self) -> int:
        return int(self.wrong.sum())

    @property
    def shares(self) -> dict[str, float]:
        total = self.n_errors
        if total == 0:
            raise InputError("hierarchy confusion shares: no wrong prediction (empty denominator)")
        return {r: int((self.relation == r).sum()) / total for r in RELATIONS[1:]}

    def records(self) -> dict[str, str]:
        return dict(zip(self.item_ids, self.relation.tolist(), strict=True))


def hierarchy_confusion(
    taxonomy: Taxonomy, predicted: Mapping[str, str], gold: Mapping[str, str]
) -> HierarchyConfusion:
    """Classify each wrong prediction as parent / ancestor / descendant / sibling / other.

    See :meth:`Taxonomy.relation` for the order of the tests. Share of each kind
    among wrong predictions: ``count_kind / total_errors`` (InputError if none).
    """
    _check_maps(predicted, gold, "hierarchy_confusion")
    rel = []
    for item, label in gold.items():
        g = _single(taxonomy, label, f"gold, item {item!r}")
        if item not in predicted:
            rel.append("missing")
            continue
        p = _single(taxonomy, predicted[item], f"predicted, item {item!r}")
        rel.append(taxonomy.relation(p, g))
    relation = frozen_array(rel, np.str_)
    return HierarchyConfusion(
        item_ids=tuple(gold),
        relation=relation,
        wrong=frozen_array([r not in ("correct", "missing") for r in rel], bool),
        missing=tuple(i for i in gold if i not in predicted),
    )
