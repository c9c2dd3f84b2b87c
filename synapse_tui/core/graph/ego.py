"""The neighbour graph around one fact, as a networkx graph, and the rows the browser lists.

Nodes are `("fact", id)` and `("entity", key)`, each with `kind` and `label` (fact text or
the entity's most frequent spelling). Every edge carries `kind` and a `weight` in (0, 1]:

- `semantic` (fact - fact): the stored mutual-kNN weight (SPEC 3.1);
- `mentions` (fact - entity): the entity's *specificity* `ln(1 + N/n) / ln(1 + N)`, N the
  facts in the store and n those naming the entity: 1 for an entity one fact names, falling
  towards 0 as it names more of the store. An entity every fact names links them all and
  so says little; the weight makes a path through it cost what it is worth;
- `npmi` (entity - entity): the clamped NPMI of SPEC 3.2.

The ego graph is two hops deep: the fact's semantic neighbours and their semantic
neighbours, its entities, the facts naming those entities, and the entities' NPMI
neighbours. It is read from the stored edges with indexed lookups per node, never by
loading the whole graph, so it costs the same at 100 facts and at 100,000.

A fact sharing entities with this one is weighted by the strength of the links through
them, as the path view measures strength: each shared entity e is a chain fact - e - fact of
two `mentions` links, strength s(e)^2, and several combine as 1 - prod(1 - s(e)^2). Sharing
a rare entity counts for much, sharing one that a hundred facts name for little; a count
of entities in common (or their share, which is 1.00 for every pair of facts naming the
same single entity) would rank them all alike.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from synapse_tui.core.graph.read import GraphRead, entity_name, entity_pagerank, read_graph
from synapse_tui.core.store.graph import graph_tables

FACT, ENTITY = "fact", "entity"
SECTIONS = ("semantic", "shared", "second", "entity", "npmi")
SHARED_LIMIT = 15  # facts sharing entities, the strongest first
SECOND_LIMIT = 10  # two-hop semantic neighbours, the strongest chains first
NPMI_LIMIT = 5  # NPMI neighbours listed per entity of the fact
SHARING_SCAN = 2000  # facts read per entity when looking for facts sharing it


def neighbourhood(store: Any, fact_id: str, config: Any = None) -> GraphRead:
    """`ego_graph` of a fact as the neighbour view reads it."""
    return read_graph(store, lambda: ego_graph(store, fact_id, config))


def shared_strength(specificities: Iterable[float]) -> float:
    """Two facts sharing entities of these specificities: 1 - prod(1 - s^2) (module docstring)."""
    return 1.0 - math.prod(1.0 - s * s for s in specificities)


class GraphReader:
    """Indexed reads of the stored edges, by fact position and entity id, cached per use
    (the statements are the store's: `store.graph`)."""

    def __init__(self, source: Any) -> None:
        self.tables = graph_tables(source)
        self.n_facts = self.tables.last_position()
        self._naming: dict[int, int] = {}

    def pos_of(self, fact_id: str) -> int:
        pos = self.tables.position(fact_id)
        if pos is None:
            raise KeyError(fact_id)
        return pos

    def facts(self, positions: Sequence[int]) -> dict[int, tuple[str, str]]:
        """(id, text) by position."""
        return self.tables.facts_at(positions)

    def entity_keys(self, eids: Sequence[int]) -> dict[int, str]:
        return self.tables.entity_keys(eids)

    def semantic(self, positions: Sequence[int]) -> list[tuple[int, int, float, str]]:
        """Every semantic edge touching these facts: (a, b, weight, space)."""
        return self.tables.semantic_touching(positions)

    def mentions(self, positions: Sequence[int]) -> list[tuple[int, int]]:
        """(pos, eid) for every entity these facts name."""
        return self.tables.mentions_at(positions)

    def count_naming(self, eids: Iterable[int]) -> None:
        """Count the facts naming each of these entities in one query per chunk."""
        todo = sorted({e for e in eids if e not in self._naming})
        if todo:
            self._naming.update(self.tables.naming_counts(todo))

    def naming(self, eid: int) -> int:
        """How many facts name the entity (an index range count)."""
        n = self._naming.get(eid)
        if n is None:
            n = self._naming[eid] = self.tables.naming_count(eid)
        return n

    def specificity(self, eid: int) -> float:
        """The weight of a `mentions` edge (module docstring)."""
        n, total = max(1, self.naming(eid)), max(1, self.n_facts)
        return math.log1p(total / n) / math.log1p(total) if total > 1 else 1.0

    def newest_naming(self, eid: int, limit: int) -> list[int]:
        """The newest `limit` facts naming the entity: a hub entity is never read whole."""
        return self.tables.newest_naming(eid, limit)

    def npmi(self, eid: int, limit: int) -> list[tuple[int, float, int]]:
        """The entity's strongest NPMI neighbours: (other eid, weight, n_ab)."""
        return self.tables.npmi(eid, limit)

    def sharing(self, pos: int, limit: int) -> list[tuple[int, int, list[int]]]:
        """Facts naming any entity of the fact at `pos`, the strongest share first:
        (pos, their entity count, shared eids). Ties: the larger share of the two facts'
        entities, then the newer fact.

        Of an entity named by more than SHARING_SCAN facts, the newest SHARING_SCAN are
        read: a hub entity is never read whole (it costs its size, and says little)."""
        mine = self.tables.entities_at(pos)
        self.count_naming(mine)
        shared: dict[int, list[int]] = {}
        for e in mine:
            for p in self.tables.newest_naming(e, SHARING_SCAN, besides=pos):
                shared.setdefault(p, []).append(e)
        theirs = self.tables.entity_counts_at(sorted(shared))

        def rank(p: int) -> tuple[float, float, int]:
            both = len(shared[p])
            strength = shared_strength(self.specificity(e) for e in shared[p])
            return (-strength, -both / (len(mine) + theirs[p] - both), -p)

        return [(p, theirs[p], sorted(shared[p])) for p in sorted(shared, key=rank)[:limit]]


@dataclass(frozen=True)
class EgoRow:
    """One row of the neighbour view: a node of the ego graph and how it is reached."""

    section: str  # one of SECTIONS
    kind: str  # FACT or ENTITY
    node: str  # fact id or entity key
    label: str  # fact text, or the entity's spelling
    weight: float  # semantic / NPMI weight, specificity, or the strength of a chain
    hops: int
    via: str | None = None  # the entity or fact it was reached through (its label)
    lexical: bool = False  # a semantic edge of the built-in lexical embedder
    detail: str = ""  # a plain note: "4 facts name it", "together in 3 notes", "1 of 3 entities"


@dataclass(frozen=True)
class EgoGraph:
    id: str
    text: str
    graph: nx.Graph
    rows: tuple[EgoRow, ...]

    def fact_ids(self) -> list[str]:
        return [r.node for r in self.rows if r.kind == FACT]


def _add_fact(G: nx.Graph, fid: str, text: str) -> tuple[str, str]:
    node = (FACT, fid)
    G.add_node(node, kind=FACT, label=text)
    return node


def ego_graph(source: Any, fact_id: str, config: Any = None) -> EgoGraph:
    """The two-hop ego graph of a fact, and its rows, walked from the graph.

    Raises KeyError for an unknown id.
    """
    reader = GraphReader(source)
    tables = reader.tables
    pos = reader.pos_of(fact_id)
    G = nx.Graph()
    sem1 = reader.semantic([pos])
    first = sorted({b if a == pos else a for a, b, _, _ in sem1})
    sem2 = [e for e in reader.semantic(first) if pos not in (e[0], e[1])] if first else []
    my_eids = [e for _, e in reader.mentions([pos])]
    shared = [s for s in reader.sharing(pos, SHARED_LIMIT + len(first)) if s[0] not in first]
    shared = shared[:SHARED_LIMIT]
    npmi = {e: reader.npmi(e, NPMI_LIMIT) for e in my_eids}
    positions = {pos, *first, *(p for a, b, _, _ in sem2 for p in (a, b)), *(s[0] for s in shared)}
    facts = reader.facts(sorted(positions))
    eids = {*my_eids, *(o for links in npmi.values() for o, _, _ in links)}
    keys = reader.entity_keys(sorted(eids))
    reader.count_naming(eids)
    rank = entity_pagerank(tables)

    fnode = {p: _add_fact(G, *facts[p]) for p in positions}
    enode = {}
    for e in eids:
        enode[e] = (ENTITY, keys[e])
        G.add_node(
            enode[e],
            kind=ENTITY,
            label=entity_name(tables, e),
            pagerank=rank.get(str(e), 0.0),
            naming=reader.naming(e),
        )
    for a, b, w, space in sem1 + sem2:
        G.add_edge(fnode[a], fnode[b], kind="semantic", weight=w, lexical=space == "lexical")
    for e in my_eids:
        G.add_edge(fnode[pos], enode[e], kind="mentions", weight=reader.specificity(e))
    for p, theirs, shared_eids in shared:
        G.nodes[fnode[p]]["entities"] = theirs
        for e in shared_eids:
            G.add_edge(fnode[p], enode[e], kind="mentions", weight=reader.specificity(e))
    for e, links in npmi.items():
        for o, w, n_ab in links:
            G.add_edge(enode[e], enode[o], kind="npmi", weight=w, n_ab=n_ab)
    return EgoGraph(fact_id, facts[pos][1], G, tuple(walk(G, fnode[pos])))


def _importance(G: nx.Graph, node: tuple[str, str]) -> str:
    """Entity PageRank as a share of all importance (it is not trust, never multiplied in)."""
    return f"importance {100 * G.nodes[node]['pagerank']:.1f}%"


def walk(G: nx.Graph, centre: tuple[str, str]) -> list[EgoRow]:
    """The rows of the view, from the graph alone: each node within two hops once, in the
    section of the strongest way it is reached; heaviest first within a section."""
    hops = nx.single_source_shortest_path_length(G, centre, cutoff=2)
    label = nx.get_node_attributes(G, "label")
    mine = {n for n in G[centre] if n[0] == ENTITY}
    rows: list[EgoRow] = []
    for node, hop in hops.items():
        if node == centre:
            continue
        kind, name = node
        if hop == 1:
            edge = G.edges[centre, node]
            if kind == FACT:
                rows.append(
                    EgoRow("semantic", FACT, name, label[node], edge["weight"], 1, lexical=edge["lexical"])
                )
            else:
                n = G.nodes[node]["naming"]
                detail = f"{n} fact{'s' if n != 1 else ''} name it · {_importance(G, node)}"
                rows.append(EgoRow("entity", ENTITY, name, label[node], edge["weight"], 1, detail=detail))
            continue
        links = [(m, G.edges[m, node]) for m in G[node] if hops.get(m) == 1]
        if kind == ENTITY:
            m, edge = max(((m, e) for m, e in links if e["kind"] == "npmi"), key=lambda x: x[1]["weight"])
            detail = f"together in {edge['n_ab']} notes · {_importance(G, node)}"
            rows.append(EgoRow("npmi", ENTITY, name, label[node], edge["weight"], 2, label[m], detail=detail))
            continue
        via_entities = [m for m, _ in links if m in mine]
        if via_entities:
            theirs = G.nodes[node].get("entities", len(via_entities))
            union = len(mine) + theirs - len(via_entities)
            names = ", ".join(sorted(label[m] for m in via_entities))
            detail = f"{len(via_entities)} of {union} entities in common"
            strength = shared_strength(G.edges[centre, m]["weight"] for m in via_entities)
            rows.append(EgoRow("shared", FACT, name, label[node], strength, 2, names, detail=detail))
            continue
        m, edge = max(
            ((m, e) for m, e in links if e["kind"] == "semantic"),
            key=lambda x: G.edges[centre, x[0]]["weight"] * x[1]["weight"],
        )
        chain = G.edges[centre, m]["weight"] * edge["weight"]
        detail = f"{G.edges[centre, m]['weight']:.2f} × {edge['weight']:.2f}"
        rows.append(
            EgoRow("second", FACT, name, label[node], chain, 2, m[1], lexical=edge["lexical"], detail=detail)
        )
    limits = {"second": SECOND_LIMIT}
    rows.sort(key=lambda r: (SECTIONS.index(r.section), -r.weight, r.node))
    out, count = [], dict.fromkeys(SECTIONS, 0)
    for r in rows:
        count[r.section] += 1
        if count[r.section] <= limits.get(r.section, len(rows)):
            out.append(r)
    return out


def whole_graph(source: Any) -> nx.Graph:
    """Every fact, entity and edge of the store in one graph, typed and weighted as above.

    Seconds at 100,000 facts: the browser never builds it (the benchmark's exact baseline
    for `path_between`, and a handle for analysis in a notebook)."""
    reader = GraphReader(source)
    tables = reader.tables
    G = nx.Graph()
    ids = {}
    for p, fid, text in tables.all_facts():
        ids[p] = _add_fact(G, fid, text)
    keys = tables.all_entity_keys()
    reader.count_naming(keys)
    naming = reader._naming
    rank = entity_pagerank(tables)
    spell = tables.top_spellings()
    for e, key in keys.items():
        G.add_node(
            (ENTITY, key),
            kind=ENTITY,
            label=spell.get(e, ""),
            pagerank=rank.get(str(e), 0.0),
            naming=naming.get(e, 0),
        )
    G.add_edges_from(
        (ids[a], ids[b], {"kind": "semantic", "weight": w, "lexical": space == "lexical"})
        for a, b, w, space in tables.all_semantic()
    )
    G.add_edges_from(
        (ids[p], (ENTITY, keys[e]), {"kind": "mentions", "weight": reader.specificity(e)})
        for p, e in tables.all_mentions()
    )
    G.add_edges_from(
        ((ENTITY, keys[a]), (ENTITY, keys[b]), {"kind": "npmi", "weight": w, "n_ab": n})
        for a, b, w, n in tables.all_npmi()
    )
    return G
