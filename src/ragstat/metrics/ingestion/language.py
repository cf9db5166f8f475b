"""Language identification (the RAG reference, cleaning): predicted language codes against
labelled ones, per language and overall, with scikit-learn's definitions.

Codes are compared as text after trimming spaces, lower-casing and dropping fastText's
``__label__`` prefix (``"__label__pt"`` and ``"PT"`` are ``pt``); regional variants stay
distinct (``pt-br`` is not ``pt``). The labels are the codes seen on either side, sorted.

The result is an :class:`~ragstat.metrics.routing.intent.IntentClassification`:
``accuracy``, per language ``precision``, ``recall`` and ``f1`` (in ``labels`` order, as
``precision_recall_fscore_support(average=None)``; precision or recall NaN when undefined,
F1 0 then, scikit-learn's default), ``macro_f1`` (``f1_score(average="macro")``),
``confusion()``, ``units(label, which)`` (the 0/1 items of a language's precision or
recall) and ``counts_by_cluster`` for the document bootstrap of F1.
"""

from __future__ import annotations

from collections.abc import Mapping

from ragstat.errors import InputError
from ragstat.metrics.routing.intent import IntentClassification, intent_classification

__all__ = ["language_code", "language_identification"]

PREFIX = "__label__"


def language_code(value: object, item: str, field: str) -> str:
    """``value`` as a comparable language code (see the module docstring)."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"item {item!r}: {field} must be a language code (text), got {value!r}")
    code = value.strip().lower()
    code = code.removeprefix(PREFIX).strip()
    if not code:
        raise InputError(f"item {item!r}: {field} {value!r} holds no language code")
    return code


def language_identification(
    reference: Mapping[str, object], predicted: Mapping[str, object]
) -> IntentClassification:
    """Labelled (``lang_ref``) and predicted (``lang_pred``) codes of every item of
    ``reference``; an item without a prediction is an InputError naming it."""
    if not reference:
        raise InputError("language identification: no labelled item")
    ref, pred = {}, {}
    for item, code in reference.items():
        key = str(item)
        if item not in predicted:
            raise InputError(f"item {key!r}: lang_ref without lang_pred")
        ref[key] = language_code(code, key, "lang_ref")
        pred[key] = language_code(predicted[item], key, "lang_pred")
    return intent_classification(ref, pred, None)
