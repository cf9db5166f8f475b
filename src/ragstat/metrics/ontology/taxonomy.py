"""A taxonomy / ontology as a validated DAG (the RAG reference part 7), the base of the ontology metrics.

Edges run parent → child. Nodes are strings. Cycles (self-loops included) are
rejected; a label that is not a node raises :class:`~ragstat.errors.InputError`
naming it. networkx is imported lazily, so ``ragstat`` still imports without it.

Depth follows the seed's node counting (Sedan "shares two of its three nodes"
with Hatchback, the root included): a root has depth 1 and
``depth(c) = 1 + max(depth(p) for p in parents(c))``, i.e. the number of nodes
on the longest root → c path. The longest path keeps ``depth(LCA) < depth(c)``
for every proper descendant c, so Wu–Palmer stays in [0, 1] and equals 1 only
for identical nodes.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragstat.errors import BackendUnavailable, InputError

__all__ = ["RELATIONS", "Taxonomy"]

#: Relation of a predicted label to the gold label, in the order they are tested.
RELATIONS = ("correct", "parent", "ancestor", "descendant", "sibling", "other")


def _nx() -> Any:
    try:
        import networkx
    except ImportError as exc:  # pragma: no cover - networkx is present in dev envs
        raise BackendUnavailable(
            "ontology metrics need networkx: pip install networkx (the 'ontology' extra)"
        ) from exc
    return networkx


def _node(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: taxonomy nodes must be non-empty strings, got {value!r}")
    return value


@dataclass(frozen=True, eq=False)
class Taxonomy:
    """Validated DAG with cached ancestor sets (self included) and depths (root = 1).

    Build with :meth:`from_edges` (``[(parent, child), ...]``) or :meth:`from_dict`
    (``{parent: [children]}``); ``nodes`` adds isolated nodes.
    """

    graph: Any = field(repr=False)
    _anc: Mapping[str, frozenset[str]] = field(repr=False)
    _depth: Mapping[str, int] = field(repr=False)

    @classmethod
    def from_edges(cls, edges: Iterable[tuple[str, str]], nodes: Iterable[str] = ()) -> Taxonomy:
        nx = _nx()
        g = nx.DiGraph()
        for n in nodes:
            g.add_node(_node(n, "nodes"))
        for edge in edges:
            if not isinstance(edge, (tuple, list)) or len(edge) != 2:
                raise InputError(f"taxonomy edges must be (parent, child) pairs, got {edge!r}")
            g.add_edge(_node(edge[0], "edge parent"), _node(edge[1], "edge child"))
        return cls._build(g)

    @classmethod
    def from_dict(cls, children: Mapping[str, Iterable[str]]) -> Taxonomy:
        if not isinstance(children, Mapping):
            raise InputError("Taxonomy.from_dict expects {parent: [children]}")
        edges: list[tuple[str, str]] = []
        for parent, kids in children.items():
            if isinstance(kids, str) or not isinstance(kids, Iterable):
                raise InputError(f"children of {parent!r} must be a list of node names")
            edges.extend((parent, kid) for kid in kids)
        return cls.from_edges(edges, nodes=list(children))

    @classmethod
    def _build(cls, g: Any) -> Taxonomy:
        nx = _nx()
        if g.number_of_nodes() == 0:
            raise InputError("taxonomy is empty")
        try:
            cycle = nx.find_cycle(g)
        except nx.NetworkXNoCycle:
            cycle = None
        if cycle is not None:
            path = " → ".join([cycle[0][0], *(v for _, v in cycle)])
            raise InputError(f"taxonomy must be acyclic; cycle found: {path}")
        anc: dict[str, frozenset[str]] = {}
        depth: dict[str, int] = {}
        for n in nx.topological_sort(g):
            parents = list(g.predecessors(n))
            anc[n] = frozenset({n}).union(*(anc[p] for p in parents))
            depth[n] = 1 + max((depth[p] for p in parents), default=0)
        g = g.copy(as_view=False)
        nx.freeze(g)
        return cls(graph=g, _anc=anc, _depth=depth)

    def __repr__(self) -> str:
        return f"Taxonomy(nodes={len(self._anc)}, roots={sorted(self.roots)!r})"

    # -- lookups ------------------------------------------------------------
    def __contains__(self, node: object) -> bool:
        return isinstance(node, Hashable) and node in self._anc

    def __len__(self) -> int:
        return len(self._anc)

    @property
    def nodes(self) -> frozenset[str]:
        return frozenset(self._anc)

    @property
    def roots(self) -> frozenset[str]:
        return frozenset(n for n, d in self._depth.items() if d == 1)

    def check(self, node: object, where: str = "label") -> str:
        """Return ``node`` or raise InputError naming the unknown node."""
        if node not in self:
            raise InputError(f"{where}: unknown node {node!r} (not in the taxonomy)")
        return node  # type: ignore[return-value]

    def ancestors(self, node: str, include_self: bool = True) -> frozenset[str]:
        a = self._anc[self.check(node)]
        return a if include_self else a - {node}

    def parents(self, node: str) -> frozenset[str]:
        return frozenset(self.graph.predecessors(self.check(node)))

    def depth(self, node: str) -> int:
        """Nodes on the longest root → node path (a root has depth 1)."""
        return self._depth[self.check(node)]

    def lca(self, a: str, b: str) -> str | None:
        """Deepest common ancestor (self included); ties → smallest name; None if disjoint."""
        common = self.ancestors(a) & self.ancestors(b)
        if not common:
            return None
        return min(common, key=lambda n: (-self._depth[n], n))

    def wu_palmer(self, a: str, b: str) -> float:
        """``WuP(a, b) = 2·depth(LCA) / (depth(a) + depth(b))``; 0 when no common ancestor."""
        lca = self.lca(a, b)
        if lca is None:
            return 0.0
        return 2 * self._depth[lca] / (self._depth[a] + self._depth[b])

    def relation(self, predicted: str, gold: str) -> str:
        """Where ``predicted`` sits relative to ``gold``: one of :data:`RELATIONS`.

        Tested in order: correct (equal), parent (a direct parent of gold),
        ancestor (a farther ancestor), descendant (any depth), sibling (shares a
        direct parent), other. Lineage wins over sibling in a DAG where both hold.
        """
        if self.check(predicted, "predicted") == self.check(gold, "gold"):
            return "correct"
        if self.graph.has_edge(predicted, gold):
            return "parent"
        if predicted in self._anc[gold]:
            return "ancestor"
        if gold in self._anc[predicted]:
            return "descendant"
        if self.parents(predicted) & self.parents(gold):
            return "sibling"
        return "other"
