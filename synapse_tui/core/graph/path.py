"""How is this fact connected to that one? A weighted shortest path over the neighbour graph.

The graph is the one of `egograph` (facts and entities; semantic, mentions and NPMI edges,
each weight in (0, 1]). A step of weight w costs `-ln w`, so the cheapest path is the one
whose weights have the largest product: the strongest chain of links, where each link
multiplies in its own strength, the way the factors of trust do. `strength = exp(-cost)`
is that product, shown next to each step's own kind and weight.

The search is bounded, so it stays fast on a large store: breadth-first from both facts at
once, always widening the side with the smaller frontier, reading at most
`graph.path_fanout` links per entity (its strongest NPMI neighbours, the newest facts
naming it; a fact's own links are few and always read), for `graph.path_max_hops` rings
in all (or until MAX_NODES nodes are read). Rings spent after the two sides meet let a
stronger detour a few links longer be seen. networkx then finds the cheapest path in what
was read: the best path of that neighbourhood, not a proof over the whole store
(benchmarks/bench_graph_views.py measures how close it comes). When the two sides never
meet, the facts are not connected within that many hops.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import networkx as nx

from synapse_tui.core.graph.ego import ENTITY, FACT, GraphReader
from synapse_tui.core.graph.read import GraphRead, entity_name, read_graph

MAX_NODES = 20_000  # nodes read at most: the search stops widening there


@dataclass(frozen=True)
class PathNode:
    kind: str  # FACT or ENTITY
    id: str  # fact id or entity key
    label: str  # fact text, or the entity's spelling


@dataclass(frozen=True)
class Step:
    kind: str  # 'semantic', 'mentions' or 'npmi'
    weight: float
    cost: float  # -ln(weight)
    lexical: bool = False  # a semantic edge of the built-in lexical embedder


@dataclass(frozen=True)
class Path:
    a: str
    b: str
    nodes: tuple[PathNode, ...]  # a first, b last
    steps: tuple[Step, ...]  # steps[i] joins nodes[i] and nodes[i + 1]
    cost: float  # sum of the steps' costs
    explored: int  # nodes read to find it

    @property
    def strength(self) -> float:
        """The product of the steps' weights."""
        return math.exp(-self.cost)

    @property
    def hops(self) -> int:
        return len(self.steps)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "cost": self.cost,
            "strength": self.strength,
            "nodes": [{"kind": n.kind, "id": n.id, "label": n.label} for n in self.nodes],
            "steps": [{"kind": s.kind, "weight": s.weight, "cost": s.cost} for s in self.steps],
        }


def cost(weight: float) -> float:
    """-ln(weight); weights are in (0, 1] so costs are >= 0 (edges of weight 0 are never stored)."""
    return -math.log(max(weight, 1e-12))


Node = tuple[str, int]  # (FACT, position) or (ENTITY, eid) while searching


class _Search:
    """Both balls of the bidirectional widening, as plain adjacency sets and one dict of
    links (networkx gets the graph once, at the end: adding edges one by one to an
    nx.Graph costs more than reading them)."""

    def __init__(self, reader: GraphReader, fanout: int, exclude: frozenset[int] = frozenset()) -> None:
        self.reader, self.fanout = reader, fanout
        self.exclude = exclude  # fact positions the path may not go through (not yet created)
        self.adj: dict[Node, set[Node]] = {}
        self.links: dict[tuple[Node, Node], tuple[str, float, bool]] = {}
        self.expanded: set[Node] = set()

    def _link(self, u: Node, v: Node, kind: str, w: float, lexical: bool = False) -> None:
        key = (u, v) if u < v else (v, u)
        if any(n[0] == FACT and n[1] in self.exclude for n in key):
            return
        if key not in self.links:
            self.links[key] = (kind, w, lexical)
            self.adj.setdefault(u, set()).add(v)
            self.adj.setdefault(v, set()).add(u)

    def widen(self, frontier: list[Node]) -> set[Node]:
        """Read every link of the frontier; the nodes it reaches."""
        todo = [n for n in frontier if n not in self.expanded]
        self.expanded.update(todo)
        facts = [p for kind, p in todo if kind == FACT]
        for a, b, w, space in self.reader.semantic(facts) if facts else []:
            self._link((FACT, a), (FACT, b), "semantic", w, space == "lexical")
        mentions = self.reader.mentions(facts) if facts else []
        self.reader.count_naming(e for _, e in mentions)
        for p, e in mentions:
            self._link((FACT, p), (ENTITY, e), "mentions", self.reader.specificity(e))
        for kind, e in todo:
            if kind != ENTITY:
                continue
            for o, w, _ in self.reader.npmi(e, self.fanout):
                self._link((ENTITY, e), (ENTITY, o), "npmi", w)
            for p in self.reader.newest_naming(e, self.fanout):
                self._link((FACT, p), (ENTITY, e), "mentions", self.reader.specificity(e))
        return {m for n in todo for m in self.adj.get(n, ())}

    def graph(self) -> nx.Graph:
        G = nx.Graph()
        G.add_edges_from(
            (u, v, {"kind": kind, "weight": w, "cost": cost(w), "lexical": lexical})
            for (u, v), (kind, w, lexical) in self.links.items()
        )
        return G


def path_between(
    source: Any, a_id: str, b_id: str, config: Any, exclude: frozenset[int] = frozenset()
) -> Path | None:
    """The cheapest path from fact `a_id` to fact `b_id`, or None when they are not
    connected within `config.graph.path_max_hops` links (module docstring).

    Raises KeyError naming an id that is not in the store.
    """
    reader = GraphReader(source)
    a, b = (FACT, reader.pos_of(a_id)), (FACT, reader.pos_of(b_id))
    if a == b:
        return Path(a_id, b_id, (PathNode(FACT, a_id, _texts(reader, [a[1]])[0]),), (), 0.0, 1)
    search = _Search(reader, int(config.graph.path_fanout), exclude)
    seen = [{a}, {b}]
    frontier = [[a], [b]]
    for _ in range(int(config.graph.path_max_hops)):
        if len(search.adj) >= MAX_NODES:
            break
        side = 0 if len(frontier[0]) <= len(frontier[1]) else 1
        if not frontier[side]:
            side = 1 - side
            if not frontier[side]:
                break
        reached = search.widen(frontier[side]) - seen[side]
        seen[side] |= reached
        frontier[side] = sorted(reached)
    if not seen[0] & seen[1]:
        return None
    G = search.graph()
    total, nodes = nx.bidirectional_dijkstra(G, a, b, weight="cost")  # the balls met: a path exists
    steps = tuple(
        Step(d["kind"], d["weight"], d["cost"], d["lexical"])
        for d in (G.edges[u, v] for u, v in zip(nodes, nodes[1:], strict=False))
    )
    return Path(a_id, b_id, _path_nodes(reader, nodes), steps, float(total), len(G))


def find_path(
    store: Any, a_id: str, b_id: str, config: Any, exclude: frozenset[int] = frozenset()
) -> GraphRead:
    """`path_between` as the path view reads it: not connected is an error to show."""
    read = read_graph(store, lambda: path_between(store, a_id, b_id, config, exclude))
    if read.value is None and read.error is None:
        return GraphRead(None, not_connected(a_id, b_id, config), read.info)
    return read


def not_connected(a_id: str, b_id: str, config: Any) -> str:
    """What `path_between` returning None means, in the words every caller shows."""
    graph = config.graph
    return (
        f"{a_id} and {b_id} are not connected within {graph.path_max_hops} hops "
        f"(reading at most {graph.path_fanout} links per entity)"
    )


def _texts(reader: GraphReader, positions: list[int]) -> list[str]:
    facts = reader.facts(positions)
    return [facts[p][1] for p in positions]


def _path_nodes(reader: GraphReader, nodes: list[tuple[str, int]]) -> tuple[PathNode, ...]:
    facts = reader.facts([x for kind, x in nodes if kind == FACT])
    keys = reader.entity_keys([x for kind, x in nodes if kind == ENTITY])
    return tuple(
        PathNode(FACT, *facts[x])
        if kind == FACT
        else PathNode(ENTITY, keys[x], entity_name(reader.tables, x))
        for kind, x in nodes
    )
