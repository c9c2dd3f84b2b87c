"""Reading the stored graph: one fact's neighbourhood, its ego view, the networkx graph.

Everything here reads what `graphstore` persisted and never recomputes edges; a fact's
neighbourhood is a handful of indexed queries, so it stays fast on large stores.
Entity importance is PageRank over the NPMI edges: shown next to an entity, never
multiplied into trust.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx


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


@dataclass(frozen=True)
class EgoItem:
    """One row of the browser's neighbour view."""

    kind: str  # 'semantic' (fact), 'mentions' (entity), 'npmi' (entity), 'shared' (fact)
    node: str  # fact id or entity key; `enter` on a fact row goes to it
    label: str  # fact text or entity spelling
    weight: float  # semantic/NPMI weight; 1.0 for the fact's own entities; shared share
    via: str | None  # the entity an 'npmi' or 'shared' row was reached through
    lexical: bool = False


@dataclass(frozen=True)
class EgoView:
    id: str
    text: str
    items: tuple[EgoItem, ...]  # heaviest first


def _pos(conn: sqlite3.Connection, fact_id: str) -> int:
    row = conn.execute("SELECT pos FROM facts WHERE id = ?", (fact_id,)).fetchone()
    if row is None:
        raise KeyError(fact_id)
    return row[0]


def _name(conn: sqlite3.Connection, eid: int) -> str:
    row = conn.execute(
        "SELECT spelling FROM mentions WHERE eid = ? GROUP BY spelling ORDER BY count(*) DESC, spelling LIMIT 1",
        (eid,),
    ).fetchone()
    return row[0] if row else ""


def _pagerank(conn: sqlite3.Connection) -> dict[str, float]:
    row = conn.execute("SELECT value FROM meta WHERE key = 'graph.pagerank'").fetchone()
    return json.loads(row[0]) if row else {}


def neighbours(
    conn: sqlite3.Connection, fact_id: str, config: Any = None, npmi_limit: int = 20
) -> Neighbours:
    """A fact's semantic neighbours and its entities with their NPMI neighbours.

    Raises KeyError for an unknown id.
    """
    pos = _pos(conn, fact_id)
    semantic = tuple(
        SemanticNeighbour(fid, w, kind == "lexical")
        for fid, w, kind in conn.execute(
            "SELECT f.id, s.weight, s.kind FROM ("
            " SELECT b AS o, weight, kind FROM semantic_edges WHERE a = :p"
            " UNION ALL SELECT a AS o, weight, kind FROM semantic_edges WHERE b = :p) s"
            " JOIN facts f ON f.pos = s.o ORDER BY s.weight DESC, f.id",
            {"p": pos},
        )
    )
    rank = _pagerank(conn)
    entities = []
    for eid, key in conn.execute(
        "SELECT e.eid, e.key FROM mentions m JOIN entities e ON e.eid = m.eid WHERE m.pos = ? ORDER BY e.key",
        (pos,),
    ).fetchall():
        links = tuple(
            EntityLink(okey, _name(conn, oeid), w, n)
            for oeid, okey, w, n in conn.execute(
                "SELECT n.o, e.key, n.weight, n.n_ab FROM ("
                " SELECT b AS o, weight, n_ab FROM npmi_edges WHERE a = :e"
                " UNION ALL SELECT a AS o, weight, n_ab FROM npmi_edges WHERE b = :e) n"
                " JOIN entities e ON e.eid = n.o ORDER BY n.weight DESC, e.key LIMIT :lim",
                {"e": eid, "lim": npmi_limit},
            ).fetchall()
        )
        entities.append(EntityNeighbours(key, _name(conn, eid), rank.get(str(eid), 0.0), links))
    return Neighbours(fact_id, semantic, tuple(entities))


def sharing_facts(conn: sqlite3.Connection, pos: int, n_entities: int, limit: int) -> list[EgoItem]:
    """Other facts that mention the entities of the fact at 1-based `pos`, most shared
    first; weight = the share of its entities they mention, `via` the first shared one."""
    if not n_entities:
        return []
    return [
        EgoItem("shared", fid, text, shared / n_entities, first)
        for fid, text, shared, first in conn.execute(
            "SELECT f.id, f.text, count(*), min(e.key) FROM mentions m"
            " JOIN mentions mine ON mine.eid = m.eid AND mine.pos = :p"
            " JOIN entities e ON e.eid = m.eid JOIN facts f ON f.pos = m.pos"
            " WHERE m.pos != :p GROUP BY m.pos ORDER BY count(*) DESC, m.pos DESC LIMIT :lim",
            {"p": pos, "lim": limit},
        )
    ]


def ego_view(conn: sqlite3.Connection, fact_id: str, config: Any = None, limit: int = 50) -> EgoView:
    """The fact's neighbourhood as one list ranked by weight, for the browser.

    Rows: semantic neighbours (edge weight), the fact's entities (1.0), their NPMI
    neighbours (NPMI weight), and other facts sharing entities with it (weight = the share
    of this fact's entities they mention). Ties by kind, then node.
    """
    pos = _pos(conn, fact_id)
    nb = neighbours(conn, fact_id, config)
    texts = dict(
        conn.execute(
            f"SELECT id, text FROM facts WHERE id IN ({','.join('?' * len(nb.semantic))})",
            [s.id for s in nb.semantic],
        )
    )
    items = [EgoItem("semantic", s.id, texts.get(s.id, ""), s.weight, None, s.lexical) for s in nb.semantic]
    for e in nb.entities:
        items.append(EgoItem("mentions", e.key, e.name, 1.0, None))
        items.extend(EgoItem("npmi", n.key, n.name, n.weight, e.key) for n in e.npmi)
    items.extend(sharing_facts(conn, pos, len(nb.entities), limit))
    order = {"semantic": 0, "mentions": 1, "npmi": 2, "shared": 3}
    items.sort(key=lambda it: (-it.weight, order[it.kind], it.node))
    text = conn.execute("SELECT text FROM facts WHERE pos = ?", (pos,)).fetchone()[0]
    return EgoView(fact_id, text, tuple(items[:limit]))


def build_nx_graph(conn: sqlite3.Connection) -> nx.Graph:
    """Facts ('fact', id), entities ('entity', key); edges typed by `kind`, each weighted."""
    import networkx as nx  # only the graph object needs it; lookups stay light

    G = nx.Graph()
    ids = dict(conn.execute("SELECT pos, id FROM facts"))
    G.add_nodes_from((("fact", fid), {"kind": "fact"}) for fid in ids.values())
    rank = _pagerank(conn)
    keys = {}
    for eid, key in conn.execute("SELECT eid, key FROM entities"):
        keys[eid] = key
        G.add_node(("entity", key), kind="entity", name=_name(conn, eid), pagerank=rank.get(str(eid), 0.0))
    G.add_edges_from(
        (("fact", ids[a]), ("fact", ids[b]), {"kind": "semantic", "weight": w, "lexical": kind == "lexical"})
        for a, b, w, kind in conn.execute("SELECT a, b, weight, kind FROM semantic_edges")
    )
    G.add_edges_from(
        (("fact", ids[p]), ("entity", keys[e]), {"kind": "mentions", "weight": 1.0})
        for p, e in conn.execute("SELECT pos, eid FROM mentions")
    )
    G.add_edges_from(
        (("entity", keys[a]), ("entity", keys[b]), {"kind": "npmi", "weight": w, "n_ab": n})
        for a, b, w, n in conn.execute("SELECT a, b, weight, n_ab FROM npmi_edges")
    )
    return G


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


def graph_info(conn: sqlite3.Connection) -> GraphInfo:
    approx = []
    for key, value in conn.execute(
        "SELECT key, value FROM meta WHERE key LIKE 'graph.semantic.%' ORDER BY key"
    ):
        state = json.loads(value)
        if state.get("method", "exact") != "exact":
            approx.append((key.rsplit(".", 1)[1], state))
    if not approx:
        return GraphInfo(False, None, "exact")
    worst = min(approx, key=lambda kv: kv[1]["recall"])[1]
    return GraphInfo(
        True, worst["recall"], worst["method"], worst["recall_sample"], tuple(k for k, _ in approx)
    )
