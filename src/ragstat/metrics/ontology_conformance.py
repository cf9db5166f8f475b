"""Entity linking with NIL, schema validity and vocabulary conformance (seed 004 part 7).

**Entity linking, mention level.** Each item maps mention keys (a span tuple, a
string — anything hashable) to an entity id or NIL (``None`` or the ``nil``
string, default ``"NIL"``), for gold and for predictions. Per mention:

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

**Schema validity** = valid outputs / outputs (JSON parse + jsonschema or a
pydantic model, strict by default: nothing is coerced), each invalid item keeps
its reason. **Vocabulary conformance** = named ids in the closed vocabulary /
named ids.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragstat.errors import BackendUnavailable, InputError

__all__ = [
    "EntityLinking",
    "SchemaValidity",
    "VocabularyConformance",
    "entity_linking",
    "schema_validity",
    "vocabulary_conformance",
]

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


def _frozen(values: Sequence, dtype: object) -> np.ndarray:
    arr = np.asarray(values, dtype=dtype)
    arr.flags.writeable = False
    return arr


def _div(num: int, den: int, what: str) -> float:
    if den == 0:
        raise InputError(f"{what}: empty denominator")
    return num / den


def _f1(p: float, r: float) -> float:
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


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
        return _div(self._sum("correct"), self._sum("predicted_entities"), "linking precision")

    @property
    def recall(self) -> float:
        return _div(self._sum("correct"), self._sum("gold_entities"), "linking recall")

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)

    @property
    def nil_precision(self) -> float:
        return _div(self._sum("correct_nil"), self._sum("predicted_nil"), "NIL precision")

    @property
    def nil_recall(self) -> float:
        return _div(self._sum("correct_nil"), self._sum("gold_nil"), "NIL recall")

    @property
    def nil_f1(self) -> float:
        return _f1(self.nil_precision, self.nil_recall)

    @property
    def over_link_rate(self) -> float:
        return _div(self._sum("over_linked"), self._sum("gold_nil"), "over-link rate")

    @property
    def disambiguation_accuracy(self) -> float:
        both = self._sum("correct") + self._sum("wrong")
        return _div(self._sum("correct"), both, "disambiguation accuracy")

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
    cols = {f: _frozen([r[f] for r in rows], np.int64) for f in _LINK_FIELDS}
    return EntityLinking(item_ids=tuple(gold), **cols)


@dataclass(frozen=True)
class SchemaValidity:
    """Per item ``valid`` (bool array) and ``reasons`` (None when valid); ``rate`` =
    Σ valid / n; ``invalid`` = item_id → reason."""

    item_ids: tuple[str, ...]
    valid: np.ndarray
    reasons: tuple[str | None, ...]

    @property
    def rate(self) -> float:
        return float(self.valid.mean())

    @property
    def invalid(self) -> dict[str, str]:
        return {i: r for i, r in zip(self.item_ids, self.reasons, strict=True) if r is not None}

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.valid.astype(float).tolist(), strict=True))


def _jsonschema_checker(schema: Mapping) -> Any:
    try:
        import jsonschema
    except ImportError as exc:  # pragma: no cover
        raise BackendUnavailable("schema_validity with a JSON schema needs jsonschema") from exc
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise InputError(
            f"schema_validity: the JSON schema itself is invalid: {exc.message}"
        ) from exc
    validator = cls(schema)

    def check(text: str | None, obj: object) -> str | None:
        if text is not None:
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                return f"not valid JSON: {exc}"
        errors = sorted(validator.iter_errors(obj), key=lambda e: list(map(str, e.path)))
        if not errors:
            return None
        return "; ".join(f"{'/'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors)

    return check


def _pydantic_checker(model: type, strict: bool) -> Any:
    import pydantic

    def check(text: str | None, obj: object) -> str | None:
        try:
            if text is not None:
                model.model_validate_json(text, strict=strict)
            else:
                model.model_validate(obj, strict=strict)
        except pydantic.ValidationError as exc:
            if any(e["type"] == "json_invalid" for e in exc.errors()):
                return f"not valid JSON: {exc.errors()[0]['msg']}"
            return "; ".join(
                f"{'/'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in exc.errors()
            )
        return None

    return check


def _checker(schema: object, strict: bool) -> Any:
    if isinstance(schema, Mapping):
        return _jsonschema_checker(schema)
    try:
        import pydantic
    except ImportError:  # pragma: no cover
        pydantic = None
    if pydantic is not None and isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
        return _pydantic_checker(schema, strict)
    raise InputError("schema_validity: schema must be a JSON schema mapping or a pydantic model")


def schema_validity(
    outputs: Mapping[str, object], schema: object, *, strict: bool = True
) -> SchemaValidity:
    """Share of outputs that parse and validate: ``rate = Σ valid / n``.

    ``outputs`` maps item id → a JSON string/bytes (parsed first; a parse failure
    is invalid with its reason) or an already-parsed object. ``schema`` is a JSON
    schema (mapping, checked first) or a pydantic model class (``strict``: no
    coercion such as ``"3"`` → 3). No output → InputError.
    """
    if not isinstance(outputs, Mapping):
        raise InputError("schema_validity: outputs must map item id → output")
    if not outputs:
        raise InputError("schema_validity: no output (empty denominator)")
    check = _checker(schema, strict)
    reasons = []
    for out in outputs.values():
        if isinstance(out, bytes):
            out = out.decode("utf-8", errors="replace")
        reasons.append(check(out, None) if isinstance(out, str) else check(None, out))
    return SchemaValidity(
        item_ids=tuple(outputs),
        valid=_frozen([r is None for r in reasons], bool),
        reasons=tuple(reasons),
    )


@dataclass(frozen=True)
class VocabularyConformance:
    """Per item ``n_named`` and ``n_valid`` (int arrays) and the ``out_of_vocabulary`` ids.

    ``rate = Σ n_valid / Σ n_named`` (InputError when nothing is named); per-item
    ``item_rate`` is NaN for an item that names nothing.
    """

    item_ids: tuple[str, ...]
    n_named: np.ndarray
    n_valid: np.ndarray
    out_of_vocabulary: tuple[tuple[str, ...], ...]

    @property
    def rate(self) -> float:
        return _div(int(self.n_valid.sum()), int(self.n_named.sum()), "vocabulary conformance")

    @property
    def item_rate(self) -> np.ndarray:
        out = np.full(self.n_named.shape, np.nan)
        np.divide(self.n_valid, self.n_named, out=out, where=self.n_named > 0)
        out.flags.writeable = False
        return out

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.item_rate.tolist(), strict=True))


def vocabulary_conformance(
    outputs: Mapping[str, Iterable[str]], vocabulary: Iterable[str]
) -> VocabularyConformance:
    """Closed-vocabulary check: share of named ids that belong to ``vocabulary``.

    ``outputs`` maps item id → the entity/predicate ids the output names (each
    occurrence counts). ``vocabulary`` is any collection of ids, e.g. a
    :class:`~ragstat.metrics.ontology_taxonomy.Taxonomy`'s ``nodes``.
    """
    if not isinstance(outputs, Mapping):
        raise InputError("vocabulary_conformance: outputs must map item id → list of ids")
    if isinstance(vocabulary, str) or not isinstance(vocabulary, Iterable):
        raise InputError("vocabulary_conformance: vocabulary must be a collection of ids")
    vocab = frozenset(vocabulary)
    named, valid, oov = [], [], []
    for item, ids in outputs.items():
        if isinstance(ids, str) or not isinstance(ids, Iterable):
            raise InputError(f"vocabulary_conformance, item {item!r}: expected a list of ids")
        ids = list(ids)
        bad = tuple(i for i in ids if i not in vocab)
        named.append(len(ids))
        valid.append(len(ids) - len(bad))
        oov.append(bad)
    return VocabularyConformance(
        item_ids=tuple(outputs),
        n_named=_frozen(named, np.int64),
        n_valid=_frozen(valid, np.int64),
        out_of_vocabulary=tuple(oov),
    )
