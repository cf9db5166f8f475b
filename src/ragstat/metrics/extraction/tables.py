"""Table extraction fidelity: TEDS and TEDS-S (Zhong, ShafieiBahrami & Jimeno Yepes 2020,
PubTabNet).

    TEDS(T_pred, T_ref) = 1 − EditDist(T_pred, T_ref) / max(|T_pred|, |T_ref|)

over the HTML trees of the two tables (the first ``<table>`` of each string). Tree edit
distance (APTED) with PubTabNet's costs: inserting or deleting a node costs 1; renaming
costs 1 when the tags or the ``colspan``/``rowspan`` differ, and for two ``td`` cells with
the same spans the normalised Levenshtein distance of their content tokens (each
character, and ``<b>``/``</b>``-style tags of inline elements); otherwise 0. A ``td`` is a
leaf: its content is the token list, not subtrees. TEDS-S ignores cell content.

As in the reference implementation only ``td`` cells carry content; a ``th`` cell is an
ordinary node (its tag and inline elements count, its text does not).

``|T|`` is the number of nodes of the tree the distance is computed on
(``count="tree"``, as the ``table-recognition-metric`` package); ``count="pubtabnet"``
takes PubTabNet's ``src/metric.py`` count instead: every element below ``<table>``,
inline elements inside cells included and the table itself not.

A prediction that is empty or has no ``<table>`` scores 0, as in the reference (a failed
extraction is a miss, not a gap); a reference without a ``<table>`` is an input error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import BackendUnavailable, InputError
from ragstat.metrics.extraction.html_tree import Element, first_table

__all__ = ["COUNTS", "TableNode", "TableScores", "table_scores", "table_tree", "teds"]

#: How |T| is counted: the scored tree's nodes, or PubTabNet's elements below <table>.
COUNTS = ("tree", "pubtabnet")


@dataclass(frozen=True)
class TableNode:
    """A node of the tree TEDS compares: tag, spans (cells only), content tokens (cells
    only) and children (none for a cell)."""

    tag: str
    colspan: int | None
    rowspan: int | None
    content: tuple[str, ...]
    children: tuple[TableNode, ...]

    def size(self) -> int:
        return 1 + sum(c.size() for c in self.children)


def _tokens(e: Element) -> list[str]:
    """``<tag>``, the characters of the text, the children's tokens, ``</tag>``, then the
    tail's characters (not after a ``td``) — PubTabNet's cell tokenizer."""
    out = [f"<{e.tag}>", *e.text]
    for c in e.children:
        out += _tokens(c)
    out.append(f"</{e.tag}>")
    if e.tag != "td":
        out += list(e.tail)
    return out


def _span(e: Element, name: str, item: str) -> int:
    raw = e.attrs.get(name, "1")
    try:
        return int(raw)
    except ValueError:
        raise InputError(f"item {item!r}: {name}={raw!r} is not a whole number") from None


def table_tree(e: Element, structure_only: bool = False, item: str = "?") -> TableNode:
    """The TEDS tree of an element: ``td`` cells are leaves with spans and content."""
    if e.tag == "td":
        content = () if structure_only else tuple(_tokens(e)[1:-1])
        return TableNode("td", _span(e, "colspan", item), _span(e, "rowspan", item), content, ())
    kids = tuple(table_tree(c, structure_only, item) for c in e.children)
    return TableNode(e.tag, None, None, (), kids)


def _config() -> Any:
    try:
        from apted import Config
        from rapidfuzz.distance import Levenshtein
    except ImportError as exc:
        raise BackendUnavailable(
            "TEDS needs apted and rapidfuzz: pip install 'ragstat[extraction]'"
        ) from exc

    class _Costs(Config):  # apted is untyped: Config is Any
        def rename(self, a: TableNode, b: TableNode) -> float:
            if (a.tag, a.colspan, a.rowspan) != (b.tag, b.colspan, b.rowspan):
                return 1.0
            if a.tag == "td" and (a.content or b.content):
                longest = max(len(a.content), len(b.content))
                return Levenshtein.distance(a.content, b.content) / longest
            return 0.0

    return _Costs()


def _parsed(markup: object, item: str, side: str) -> Element | None:
    if markup is None or markup == "":
        return None
    if not isinstance(markup, str):
        raise InputError(f"item {item!r}: table_{side} must be HTML text")
    return first_table(markup)


def teds(
    pred: str, ref: str, *, structure_only: bool = False, count: str = "tree", item: str = "?"
) -> float:
    """TEDS (or TEDS-S with ``structure_only``) of one predicted table against its
    reference (see the module docstring); 0 when ``pred`` has no table."""
    try:
        from apted import APTED
    except ImportError as exc:
        raise BackendUnavailable(
            "TEDS needs apted and rapidfuzz: pip install 'ragstat[extraction]'"
        ) from exc

    if count not in COUNTS:
        raise InputError(f"count must be one of {', '.join(COUNTS)}; got {count!r}")
    r = _parsed(ref, item, "ref")
    if r is None:
        raise InputError(f"item {item!r}: table_ref has no <table>")
    p = _parsed(pred, item, "pred")
    if p is None:
        return 0.0
    tp, tr = table_tree(p, structure_only, item), table_tree(r, structure_only, item)
    dist = APTED(tp, tr, _config()).compute_edit_distance()
    tree = count == "tree"
    nodes = max(tp.size(), tr.size()) if tree else max(p.descendants(), r.descendants())
    return 1.0 - float(dist) / nodes


@dataclass(frozen=True)
class TableScores:
    """TEDS and TEDS-S per item, the item's class, and the items whose prediction had no
    table (scored 0)."""

    item_ids: tuple[str, ...]
    doc_class: tuple[str, ...]
    teds: np.ndarray
    teds_s: np.ndarray
    no_table: tuple[str, ...]

    def records(self, which: str = "teds") -> dict[str, float]:
        values = self.teds if which == "teds" else self.teds_s
        return dict(zip(self.item_ids, values.tolist(), strict=True))


def table_scores(
    pred: Mapping[str, str],
    ref: Mapping[str, str],
    classes: Mapping[str, str] | None = None,
    *,
    count: str = "tree",
) -> TableScores:
    """TEDS and TEDS-S of every reference table (keyed by item id) against its
    prediction; ``classes`` gives each item's page or document class (default ``all``)."""
    if not ref:
        raise InputError("table_scores: no reference table (empty denominator)")
    full, struct, cls, missed = [], [], [], []
    for item, r in ref.items():
        if item not in pred:
            raise InputError(f"item {item!r}: table_ref without table_pred")
        p = pred[item]
        if _parsed(p, item, "pred") is None:
            missed.append(item)
        full.append(teds(p, r, count=count, item=item))
        struct.append(teds(p, r, structure_only=True, count=count, item=item))
        cls.append(str((classes or {}).get(item, "all")))
    return TableScores(
        tuple(ref), tuple(cls), frozen_array(full, float), frozen_array(struct, float),
        tuple(missed),
    )  # fmt: skip
