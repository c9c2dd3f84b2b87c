"""Reading the stored graph: one fact's semantic neighbours and entities (`neighbours`).

Everything here reads what `graph.build` persisted and never recomputes edges; a fact's
neighbourhood is a handful of indexed queries, so it stays fast on large stores.
Entity importance is PageRank over the NPMI edges: shown next to an entity, never
multiplied into trust.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from synapse_tui.core.store.graph import GraphTables, graph_tables
from synapse_tui.core.store.ops import MetaPrefix

if TYPE_CHECKING:
    from synapse_tui.core.store.db import Store


@dataclass(frozen=True)
class SemanticNeighbour:
    id: str
    weight: float
    lexical: bool  # the edge comes from the built-in lexical embedder, not a model's


@dataclass(frozen=True)
class EntityLink:
    key: str  # matched form: trimmed, case-folded
    name: str  # most frequent spelling
    weight: float
    n_ab: int


@dataclass(frozen=True)
class EntityNeighbours:
    key: str
    name: str
    pagerank: float
    npmi: tuple[EntityLink, ...]  # heaviest first


@dataclass(frozen=True)
class Neighbours:
    id: str
    semantic: tuple[SemanticNeighbour, ...]  # heaviest first
    entities: tuple[EntityNeighbours, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "semantic": [{"id": s.id, "weight": s.weight, "lexical": s.lexical} for s in self.semantic],
            "entities": [
                {
                    "entity": e.key,
                    "name": e.name,
                    "pagerank": e.pagerank,
                    "npmi": [
                        {"entity": n.key, "name": n.name, "weight": n.weight, "n": n.n_ab} for n in e.npmi
                    ],
                }
                for e in self.entities
            ],
        }


def _pos(tables: GraphTables, fact_id: str) -> int:
    pos = tables.position(fact_id)
    if pos is None:
        raise KeyError(fact_id)
    return pos


# Entity spellings and PageRank are read per connection and kept: the most frequent
# spelling scans every mention of an entity (7 ms for one named by 9,000 facts), and the
# PageRank map is one JSON value over all entities. Each cache holds a mark of what it was
# read from and is dropped when the mark moves. Mentions are only ever appended (with
# their facts), so for spellings the last mentioning position: triage leaves the names
# alone. (A name read inside an import that then rolls back on this same connection stays
# until the next import; nothing reads names inside an import.) For PageRank, SQLite's
# data_version (another connection committed) and this connection's own change count.
# A few connections are kept, the oldest dropped.
_CACHES: dict[int, _Cache] = {}
_CACHES_LOCK = threading.Lock()
_KEEP = 8


@dataclass
class _Cache:
    conn: Any  # held, so its id is not reused while cached
    names_mark: int = -1
    names: dict[int, str] = field(default_factory=dict)
    rank_mark: tuple[int, int] = (-1, -1)
    rank: dict[str, float] = field(default_factory=dict)


def _cache(tables: GraphTables) -> _Cache:
    conn = tables.conn
    with _CACHES_LOCK:  # views on other connections may run in other threads
        cache = _CACHES.get(id(conn))
        if cache is None or cache.conn is not conn:
            while len(_CACHES) >= _KEEP:
                _CACHES.pop(next(iter(_CACHES)))
            cache = _CACHES[id(conn)] = _Cache(conn)
        return cache


def entity_names(source: Any, eids: Iterable[int]) -> dict[int, str]:
    """Each entity's most frequent spelling (ties: the first in code-point order); '' for
    an entity nobody mentions. One query for those not read before."""
    tables = graph_tables(source)
    cache = _cache(tables)
    mark = tables.mentions_mark()
    if mark != cache.names_mark:
        cache.names, cache.names_mark = {}, mark
    names = cache.names
    wanted = list(dict.fromkeys(int(e) for e in eids))
    missing = [e for e in wanted if e not in names]
    if missing:
        best: dict[int, tuple[int, str]] = {}
        for eid, spelling, n in tables.spelling_counts(missing):
            held = best.get(eid)
            if held is None or (-n, spelling) < (-held[0], held[1]):
                best[eid] = (n, spelling)
        for e in missing:
            names[e] = best[e][1] if e in best else ""
    return {e: names[e] for e in wanted}


def read_entity_names(store: Store) -> tuple[int, dict[int, str]]:
    """Every entity's name in one pass over the mentions, with the mark it stands for: a
    warm-up for a long-running reader, on a store opened for it, inside a snapshot (0.1-0.3 s
    per 200,000 mentions), handed over with `seed_entity_names`."""
    tables = store.graph
    mark = tables.mentions_mark()
    best: dict[int, tuple[int, str]] = {}
    for eid, spelling, n in tables.spelling_counts():
        held = best.get(eid)
        if held is None or (-n, spelling) < (-held[0], held[1]):
            best[eid] = (n, spelling)
    return mark, {eid: spelling for eid, (_, spelling) in best.items()}


def seed_entity_names(store: Store, mark: int, names: dict[int, str]) -> None:
    """Give `store`'s cache the names `read_entity_names` read elsewhere, if they stand for
    what `store` has seen (the same mark, or nothing read yet)."""
    cache = _cache(store.graph)
    with _CACHES_LOCK:
        if cache.names_mark in (-1, mark):
            cache.names, cache.names_mark = {**names, **cache.names}, mark


def entity_name(source: Any, eid: int) -> str:
    return entity_names(source, [eid])[int(eid)]


def entity_pagerank(source: Any) -> dict[str, float]:
    """PageRank by entity id (as a string key) from the stored graph. Shared: read only."""
    tables = graph_tables(source)
    cache = _cache(tables)
    mark = tables.pagerank_mark()
    if mark != cache.rank_mark:
        cache.rank, cache.rank_mark = tables.pagerank(), mark
    return cache.rank


def neighbours(store: Store, fact_id: str, config: Any = None, npmi_limit: int = 20) -> Neighbours:
    """A fact's semantic neighbours and its entities with their NPMI neighbours.

    Raises KeyError for an unknown id.
    """
    tables = store.graph
    pos = _pos(tables, fact_id)
    semantic = tuple(SemanticNeighbour(fid, w, kind == "lexical") for fid, w, kind in tables.semantic_of(pos))
    rank = entity_pagerank(tables)
    mine = tables.keyed_entities_at(pos)
    links = {eid: tables.keyed_npmi(eid, npmi_limit) for eid, _ in mine}
    names = entity_names(
        tables, [eid for eid, _ in mine] + [o for found in links.values() for o, *_ in found]
    )
    entities = [
        EntityNeighbours(
            key,
            names[eid],
            rank.get(str(eid), 0.0),
            tuple(EntityLink(okey, names[oeid], w, n) for oeid, okey, w, n in links[eid]),
        )
        for eid, key in mine
    ]
    return Neighbours(fact_id, semantic, tuple(entities))


def graph_built(source: Any) -> bool:
    """Whether `graph.build` has built the graph of this store (imports build it)."""
    return graph_tables(source).built()


@dataclass(frozen=True)
class GraphInfo:
    """How the stored semantic graph was built, for a view to say so (SPEC 3.1).

    `recall` is the lowest recall@10 measured over the approximate spaces (each build
    checks its lists against the exact top-10 of `sample` random facts); None when every
    space is exact. Facts added later get exact lists, so the figure stays a floor.
    """

    approximate: bool
    recall: float | None
    method: str  # 'exact', or the approximate index and its parameters
    sample: int = 0
    spaces: tuple[str, ...] = ()  # the approximate spaces: 'model', 'lexical'

    def describe(self) -> str:
        if not self.approximate:
            return "exact neighbour graph"
        return (
            f"approximate neighbour graph ({', '.join(self.spaces)}: {self.method}),"
            f" recall@10 {self.recall:.4f} measured against exact on {self.sample:,} facts"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "approximate": self.approximate,
            "recall": self.recall,
            "method": self.method,
            "sample": self.sample,
            "spaces": list(self.spaces),
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> GraphInfo:
        return cls(**{**obj, "spaces": tuple(obj.get("spaces", ()))})


# What a graph's build kept of each embedding space (its method and recall), as a read to
# ask with others (`Store.batch`): its answer goes to `graph_info_of`.
GRAPH_INFO = MetaPrefix("graph.semantic.")


def graph_info(source: Any) -> GraphInfo:
    return graph_info_of(graph_tables(source).semantic_states())


def graph_info_of(meta: list[tuple[str, Any]]) -> GraphInfo:
    """How the graph was built, from the answer of `GRAPH_INFO`."""
    approx = []
    for key, state in meta:
        if state.get("method", "exact") != "exact":
            approx.append((key.rsplit(".", 1)[1], state))
    if not approx:
        return GraphInfo(False, None, "exact")
    worst = min(approx, key=lambda kv: kv[1]["recall"])[1]
    return GraphInfo(
        True, worst["recall"], worst["method"], worst["recall_sample"], tuple(k for k, _ in approx)
    )


def store_graph_info(store: Any) -> GraphInfo:
    """`graph_info` of a `Store` (views hold the store, never its connection)."""
    return graph_info_of(store.ask(GRAPH_INFO))


NOT_BUILT = "the neighbour graph isn't built for this store yet (synapse-tui import builds it)"


@dataclass(frozen=True)
class GraphRead:
    """A read of the neighbour graph for a view: its result, or why there is none (no
    graph built yet, an unknown id), and how exact the graph is."""

    value: Any = None
    error: str | None = None
    info: GraphInfo | None = None


def read_graph(store: Any, read: Callable[[], Any]) -> GraphRead:
    """Run `read` over `store`'s graph. The two answers that are no failure come back as
    the read's `error`: the store says its graph is not built (`graph_built`), or `read`
    raised KeyError for an unknown fact. A store that cannot be read (a lock, a table gone,
    I/O, a server gone) raises what the store raised: never told as "not built", it is the
    caller's to report as a failure (the browser's worker guard says so in a notice)."""
    if not graph_built(store):
        return GraphRead(error=NOT_BUILT)
    try:
        value = read()
    except KeyError as exc:
        return GraphRead(error=f"no fact {exc.args[0]} in this store")
    return GraphRead(value, None, store_graph_info(store))


def semantic_pairs(store: Any, min_weight: float) -> list[tuple[int, int]]:
    """(a, b) positions (from 1) of the semantic edges of at least `min_weight`."""
    return store.graph.semantic_pairs(min_weight)


def shared_entities(store: Any, fact_id: str) -> dict[str, list[str]] | None:
    """The other facts naming an entity `fact_id` names, with the spellings they share
    (None for an unknown id)."""
    pos = store.graph.position(fact_id)
    if pos is None:
        return None
    out: dict[str, list[str]] = {}
    for fid, spelling in store.graph.shared_spellings(pos):
        out.setdefault(fid, []).append(spelling)
    return out


def edge_weights(store: Any, fact_id: str) -> list[tuple[str, float]]:
    """(other fact, weight) of each semantic edge of `fact_id`."""
    return store.graph.edge_weights(fact_id)
