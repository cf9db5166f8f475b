"""From a :class:`~ragstat.adapters.base.SourceTable` to the per-query table the verbs read.

A source table has one row per system × item × repeat. The verbs read one row per
system × item, with the item's cluster (``doc_id``): the unit that was sampled, usually
the source document. :func:`to_units` chooses the cluster (a field named by
``cluster_by``, or a rule over the items' reference document ids, or none), checks that
every item has exactly one, and averages each score over the item's repeats.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from ragstat.adapters.base import ITEM, REFERENCE_IDS, REPEAT, SYSTEM, SourceTable
from ragstat.errors import InputError
from ragstat.tidy import plain

__all__ = ["ON_MISSING", "REPEATS", "RULES", "Units", "design_effect", "to_units"]

#: The per-query table's count of repeats per item (bookkeeping, never a score).
REPEATS = "meta_n_repeats"

#: ``rule`` values: the first reference document of each item, or the groups of items
#: that share any reference document (connected components).
RULES = ("first-reference", "component")
#: ``on_missing`` values.
ON_MISSING = ("exclude", "error")

_RULE_WORDS = {
    "first-reference": "first reference document of each item",
    "component": "groups of items sharing reference documents (connected components)",
}
INDEPENDENT = "none: each item is its own unit (items treated as independent)"


@dataclass(frozen=True)
class Units:
    """The per-query table (``frame``) and the repeats it was averaged from.

    ``frame``: one row per (system, item): ``query_id`` (the item id), ``doc_id`` (its
    cluster), ``system``, one float column per score (the mean over the item's repeats
    that have that score), ``meta_n_repeats`` (how many repeats the item had: a count,
    never a score) and the ``meta_*`` columns (first value per item). ``repeats``: the source rows that were kept, with ``doc_id`` added.
    ``cluster`` says in words how items were grouped; ``independent`` is True when they
    were not; ``excluded`` counts items left out for want of a cluster value.
    """

    frame: Any
    repeats: Any
    scores: tuple[str, ...]
    cluster: str
    independent: bool
    excluded: int
    notes: tuple[str, ...] = ()


def design_effect(m: float, rho: float) -> float:
    """How many times wider a document-clustered interval is than an independent one.

    √(1 + (m̄ − 1) ρ) for m̄ items per document and intra-document correlation ρ
    (Kish 1965, *Survey Sampling*, §5.4: the design effect 1 + (m̄ − 1) ρ on the variance).
    """
    return math.sqrt(1.0 + (m - 1.0) * rho)


def to_units(
    table: SourceTable,
    *,
    cluster_by: str | None = None,
    rule: str | None = None,
    on_missing: str = "exclude",
) -> Units:
    """One row per system × item, grouped by ``cluster_by`` (a field), ``rule``
    (``"first-reference"`` or ``"component"``) or, when neither is given, not at all."""
    if cluster_by is not None and rule is not None:
        raise InputError("to_units: give cluster_by or rule, not both")
    if on_missing not in ON_MISSING:
        raise InputError(f"to_units: on_missing {on_missing!r}; use one of {', '.join(ON_MISSING)}")
    frame = _checked_frame(table)
    scores, notes = _usable_scores(frame, table.scores)
    if cluster_by is not None:
        field = _resolve_field(frame, cluster_by)
        by_item = _field_clusters(frame, field)
        label, what = field, f"documents from field {field}"
    elif rule is not None:
        by_item = _rule_clusters(frame, rule)
        label = "reference document ids"
        what = _RULE_WORDS.get(rule, rule)
    else:
        frame = frame.assign(doc_id=frame[ITEM])
        return _independent(frame, scores, (*notes, *_independent_notes(frame)))
    kept, excluded, missing_note = _apply_missing(frame, by_item, label, on_missing)
    n_docs = kept["doc_id"].nunique()
    unit = "groups" if rule == "component" else "documents"
    cluster = f"{what} ({n_docs} {unit})"
    out_notes = (*notes, *missing_note, *_nan_notes(kept, scores))
    return Units(_aggregate(kept, scores), kept, scores, cluster, False, excluded, out_notes)


def _independent(frame: Any, scores: tuple[str, ...], notes: tuple[str, ...]) -> Units:
    notes = (*notes, *_nan_notes(frame, scores))
    return Units(_aggregate(frame, scores), frame, scores, INDEPENDENT, True, 0, notes)


# ---------------------------------------------------------------------------- checks


def _checked_frame(table: SourceTable) -> Any:
    frame = table.frame
    absent = [c for c in (ITEM, SYSTEM, REPEAT) if c not in frame.columns]
    if absent:
        raise InputError(f"{table.source}: the table has no column {', '.join(absent)}")
    frame = frame.reset_index(drop=True).copy()
    frame[ITEM] = frame[ITEM].map(_text)
    frame[SYSTEM] = frame[SYSTEM].map(_text)
    dup = frame.duplicated([SYSTEM, ITEM, REPEAT])
    if dup.any():
        row = frame[dup].iloc[0]
        raise InputError(
            f"{table.source}: system {row[SYSTEM]!r}, item {row[ITEM]!r}, repeat "
            f"{plain(row[REPEAT])} appears more than once"
        )
    return frame


def _usable_scores(frame: Any, scores: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    import pandas as pd

    usable, notes = [], []
    for name in scores:
        if name not in frame.columns:
            raise InputError(f"score {name!r}: no such column in the table")
        if pd.to_numeric(frame[name], errors="coerce").notna().any():
            usable.append(name)
        else:
            notes.append(f"score {name} has no values; left out")
    if not usable:
        raise InputError("the table has no scores (every score column is empty)")
    return tuple(usable), tuple(notes)


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip() == ""


# ---------------------------------------------------------------------------- clusters


def _resolve_field(frame: Any, name: str) -> str:
    """The frame column ``name`` names: itself, or ``meta_<name>``."""
    columns = [str(c) for c in frame.columns]
    for candidate in (name, f"meta_{name}"):
        if candidate in columns:
            return candidate
    plain = {c.removeprefix("meta_"): c for c in columns}
    near = difflib.get_close_matches(name.removeprefix("meta_"), list(plain), n=3, cutoff=0.5)
    hint = f"; nearest: {', '.join(plain[n] for n in near)}" if near else ""
    raise InputError(f"--cluster-by {name}: no such field{hint}")


def _field_clusters(frame: Any, field: str) -> dict[str, str | None]:
    """Item id → its one cluster value (None when the item has none)."""
    values: dict[str, set[str]] = {}
    for item, value in zip(frame[ITEM], frame[field], strict=True):
        seen = values.setdefault(item, set())
        if not _missing(value):
            seen.add(_text(value))
    return _one_each(values, field)


def _one_each(values: dict[str, set[str]], what: str) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for item, seen in values.items():
        if len(seen) > 1:
            shown = ", ".join(sorted(seen)[:3])
            raise InputError(f"item {item!r} has more than one {what} ({shown}); it needs one")
        out[item] = next(iter(seen)) if seen else None
    return out


def _references(frame: Any) -> dict[str, list[str]]:
    """Item id → its reference document ids (in order, over all its rows, no repeats)."""
    if REFERENCE_IDS not in frame.columns:
        raise InputError("the table has no reference document ids; use cluster_by a field")
    refs: dict[str, list[str]] = {}
    for item, ids in zip(frame[ITEM], frame[REFERENCE_IDS], strict=True):
        have = refs.setdefault(item, [])
        for ref in _id_list(ids):
            if ref not in have:
                have.append(ref)
    return refs


def _id_list(ids: Any) -> list[str]:
    if ids is None or isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        return [] if _missing(ids) else [_text(ids)]
    return [_text(i) for i in ids if not _missing(i)]


def _rule_clusters(frame: Any, rule: str) -> dict[str, str | None]:
    if rule not in RULES:
        raise InputError(f"cluster rule {rule!r}: unknown; use one of {', '.join(RULES)}")
    if rule == "first-reference":
        if REFERENCE_IDS not in frame.columns:
            raise InputError("the table has no reference document ids; use cluster_by a field")
        firsts: dict[str, set[str]] = {}
        for item, ids in zip(frame[ITEM], frame[REFERENCE_IDS], strict=True):
            seen = firsts.setdefault(item, set())
            seen.update(_id_list(ids)[:1])
        return _one_each(firsts, "first reference document")
    return _components(_references(frame))


def _components(refs: dict[str, list[str]]) -> dict[str, str | None]:
    """Item id → the smallest reference id of its connected component (union–find)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for ids in refs.values():
        for ref in ids:
            a, b = find(ids[0]), find(ref)
            if a != b:
                parent[max(a, b)] = min(a, b)  # the root stays the smallest id
    return {item: (find(ids[0]) if ids else None) for item, ids in refs.items()}


def _apply_missing(
    frame: Any, by_item: dict[str, str | None], label: str, on_missing: str
) -> tuple[Any, int, tuple[str, ...]]:
    lacking = [item for item, doc in by_item.items() if doc is None]
    total = len(by_item)
    if lacking and len(lacking) == total:
        raise InputError(f"none of the {total} items has {label}")
    if lacking and on_missing == "error":
        raise InputError(
            f"{len(lacking)} of {total} items have no {label} (e.g. item {lacking[0]}); "
            "use --missing-cluster exclude to leave them out"
        )
    doc = frame[ITEM].map(by_item)
    kept = frame.assign(doc_id=doc)[doc.notna()].reset_index(drop=True)
    note = (f"{len(lacking)} of {total} items have no {label}; excluded",) if lacking else ()
    return kept, len(lacking), note


# ---------------------------------------------------------------------------- aggregation


def _aggregate(frame: Any, scores: tuple[str, ...]) -> Any:
    """One row per (system, item): score means over repeats (NaN-aware), the number of
    repeats (``meta_n_repeats``: a ``meta_`` column, so no verb takes it for a score), meta."""
    import pandas as pd

    keys = [SYSTEM, ITEM]
    numeric = frame[list(scores)].apply(pd.to_numeric, errors="coerce").astype(float)
    work = pd.concat([frame[keys], numeric], axis=1)
    grouped = work.groupby(keys, sort=False)
    out = grouped[list(scores)].mean()
    out[REPEATS] = grouped.size().astype(int)
    meta = [c for c in frame.columns if str(c).startswith("meta_") and c != REPEATS]
    firsts = frame.groupby(keys, sort=False)[["doc_id", *meta]].first()
    out = out.join(firsts).reset_index().rename(columns={ITEM: "query_id"})
    out["doc_id"] = out["doc_id"].map(_text)
    return out[["query_id", "doc_id", SYSTEM, *scores, REPEATS, *meta]]


def _nan_notes(frame: Any, scores: tuple[str, ...]) -> tuple[str, ...]:
    import pandas as pd

    notes = []
    for name in scores:
        lacking = int(pd.to_numeric(frame[name], errors="coerce").isna().sum())
        if lacking:
            notes.append(
                f"score {name}: {lacking} of {len(frame)} repeats have no score; "
                "the item means leave them out"
            )
    return tuple(notes)


# ---------------------------------------------------------------------------- independent


def _independent_notes(frame: Any) -> tuple[str, ...]:
    """Say that items are treated as independent, what that may cost, and what to use."""
    cells = ", ".join(
        f"{design_effect(m, rho):.2f} ({m} items, correlation {rho})"
        for m in (5, 10)
        for rho in (0.1, 0.3)
    )
    notes = [
        "items treated as independent: no document or other cluster was given",
        "if items from the same document score alike, the interval is too narrow by "
        f"√(1 + (items per document − 1) × correlation): {cells}",
    ]
    fields = _document_like(frame)
    if fields:
        notes.append(f"to group items by document use --cluster-by {fields[0]}"
                     + (f" (or {', '.join(fields[1:])})" if fields[1:] else ""))  # fmt: skip
    if REFERENCE_IDS in frame.columns and any(map(_id_list, frame[REFERENCE_IDS])):
        notes.append(
            "the items name reference documents: group them by the first one "
            "(--cluster-rule first-reference) or by shared ones (--cluster-rule component)"
        )
    return tuple(notes)


def _document_like(frame: Any) -> list[str]:
    words = ("doc", "source", "title")
    return [
        str(c)
        for c in frame.columns
        if str(c).startswith("meta_")
        and any(w in str(c).lower() for w in words)
        and frame[c].map(lambda v: not _missing(v) and isinstance(v, Hashable)).any()
    ]
