"""Entity linking with NIL as its own outcome (the RAG reference part 7), mention level.

Each item maps mention keys (a span tuple, a string — anything hashable) to an
entity id or NIL (``None`` or the ``nil`` string, default ``"NIL"``), for gold
and for predictions. Per mention:

=================  ===================  =================================
gold               predicted            outcome
=================  ===================  =================================
entity e           e                    correct link
entity e           entity e' ≠ e        wrong link (near but wrong entity)
entity e           NIL or not predicted missed link
NIL                entity               over-link (linked a non-entity)
NIL                NIL                  correct NIL (correct abstention)
not in gold        entity / NIL         spurious link / spurious NIL
=================  ===================  =================================

Linking: ``P = Σ correct / Σ predicted entities``, ``R = Σ correct / Σ gold
entities``. NIL is scored as its own outcome: ``P_NIL = Σ correct NIL / Σ
predicted NIL``, ``R_NIL = Σ correct NIL / Σ gold NIL``; ``over_link_rate =
Σ over-links / Σ gold NIL``; disambiguation accuracy = correct / mentions that
both sides link to an entity.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError
from ragstat.metrics import rates

__all__ = ["EntityLinking", "entity_linking"]

_LINK_FIELDS = (
    "correct",
    "wrong",
    "missed",
    "over_linked",
    "correct_nil",
    "predicted_entities",
    "gold_entities",
    "predicted_nil",
    "gold_nil",
)


@dataclass(frozen=True)
class EntityLinking:
    """Per-item mention counts (int arrays, names in the module table) and micro scores.

    Every ratio raises InputError when its denominator is 0 across all items.
    """

    item_ids: tuple[str, ...]
    correct: np.ndarray
    wrong: np.ndarray
    missed: np.ndarray
    over_linked: np.ndarray
    correct_nil: np.ndarray
    predicted_entities: np.ndarray
    gold_entities: np.ndarray
    predicted_nil: np.ndarray
    gold_nil: np.ndarray

    def _sum(self, name: str) -> int:
        return int(getattr(self, name).sum())

    @property
    def precision(self) -> float:
        return rates.rate(
            self._sum("correct"), self._sum("predicted_entities"), "linking precision"
        )

    @property
    def recall(self) -> float:
        return rates.rate(self._sum("correct"), self._sum("gold_entities"), "linking recall")

    @property
    def f1(self) -> float:
        return rates.f1(self.precision, self.recall)

    @property
    def nil_precision(self) -> float:
        return rates.rate(self._sum("correct_nil"), self._sum("predicted_nil"), "NIL precision")

    @property
    def nil_recall(self) -> float:
        return rates.rate(self._sum("correct_nil"), self._sum("gold_nil"), "NIL recall")

    @property
    def nilf1(self) -> float:
        return rates.f1(self.nil_precision, self.nil_recall)

    @property
    def over_link_rate(self) -> float:
        return rates.rate(self._sum("over_linked"), self._sum("gold_nil"), "over-link rate")

    @property
    def disambiguation_accuracy(self) -> float:
        both = self._sum("correct") + self._sum("wrong")
        return rates.rate(self._sum("correct"), both, "disambiguation accuracy")

    def records(self, field: str = "correct") -> dict[str, int]:
        """``item_id → count`` of one per-item field (for ratio intervals, take two)."""
        if field not in _LINK_FIELDS:
            raise InputError(f"unknown entity-linking field {field!r}; use one of {_LINK_FIELDS}")
        return dict(zip(self.item_ids, getattr(self, field).tolist(), strict=True))


def _mentions(value: object, nil: str, where: str) -> dict[Hashable, str | None]:
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: mentions must map mention → entity id or NIL")
    out: dict[Hashable, str | None] = {}
    for mention, entity in value.items():
        if entity is not None and not isinstance(entity, str):
            raise InputError(f"{where}: entity of mention {mention!r} must be a string or None")
        out[mention] = None if entity is None or entity == nil else entity
    return out


def _link_counts(gold: dict, pred: dict) -> dict[str, int]:
    c = dict.fromkeys(_LINK_FIELDS, 0)
    for e in pred.values():
        c["predicted_entities" if e is not None else "predicted_nil"] += 1
    for m, g in gold.items():
        p = pred.get(m)
        if g is None:
            c["gold_nil"] += 1
            if m in pred:
                c["correct_nil" if p is None else "over_linked"] += 1
            continue
        c["gold_entities"] += 1
        key = "missed" if p is None else ("correct" if p == g else "wrong")
        c[key] += 1
    return c


def entity_linking(
    predicted: Mapping[str, Mapping[Hashable, str | None]],
    gold: Mapping[str, Mapping[Hashable, str | None]],
    *,
    nil: str = "NIL",
) -> EntityLinking:
    """Mention-level entity-linking counts with NIL as its own outcome (module table).

    Items are those of ``gold``; an item absent from ``predicted`` has no predicted
    mention. Mentions match by exact key (e.g. the ``(start, end)`` span).
    """
    if not isinstance(predicted, Mapping) or not isinstance(gold, Mapping):
        raise InputError("entity_linking: predicted and gold must map item id → {mention: entity}")
    if not gold:
        raise InputError("entity_linking: no gold item (empty denominator)")
    rows = []
    for item, g in gold.items():
        gm = _mentions(g, nil, f"gold, item {item!r}")
        pm = _mentions(predicted.get(item, {}), nil, f"predicted, item {item!r}")
        rows.append(_link_counts(gm, pm))
    cols = {f: frozen_array([r[f] for r in rows], np.int64) for f in _LINK_FIELDS}
    return EntityLinking(item_ids=tuple(gold), **cols)
