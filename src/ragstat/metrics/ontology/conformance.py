"""Schema validity and vocabulary conformance of structured outputs (the RAG reference part 7).

**Schema validity** = valid outputs / outputs (JSON parse + jsonschema or a
pydantic model, strict by default: nothing is coerced), each invalid item keeps
its reason. **Vocabulary conformance** = named ids in the closed vocabulary /
named ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pydantic

from ragstat.arrays import frozen_array
from ragstat.errors import BackendUnavailable, InputError
from ragstat.metrics import rates

__all__ = ["SchemaValidity", "VocabularyConformance", "schema_validity", "vocabulary_conformance"]


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


def _pydantic_checker(model: type[pydantic.BaseModel], strict: bool) -> Any:
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
    if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
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
        valid=frozen_array([r is None for r in reasons], bool),
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
        return rates.rate(
            int(self.n_valid.sum()), int(self.n_named.sum()), "vocabulary conformance"
        )

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
    :class:`~ragstat.metrics.ontology.taxonomy.Taxonomy`'s ``nodes``.
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
        n_named=frozen_array(named, np.int64),
        n_valid=frozen_array(valid, np.int64),
        out_of_vocabulary=tuple(oov),
    )
