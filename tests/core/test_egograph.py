"""The ego graph and the path between two facts, on a small store whose edges are written
by hand, so every weight and the shortest path can be worked out on paper."""

from __future__ import annotations

import math
import sqlite3

import pytest

from synapse_tui.core.base.config import Config
from synapse_tui.core.graph.ego import ego_graph, whole_graph
from synapse_tui.core.graph.path import not_connected, path_between
from synapse_tui.core.store.schema import migrate
from tests.core.graph_stores import add

# f1 -0.9- f2 -0.9- f3 -0.8- f4, and a weak shortcut f1 -0.5- f3
SEMANTIC = [("f1", "f2", 0.9), ("f2", "f3", 0.9), ("f1", "f3", 0.5), ("f3", "f4", 0.8)]
ENTITIES = {"f1": ("Ada",), "f5": ("ada", "Zed"), "f6": ("Engine",), "f4": ("Zed",)}
NPMI = [("ada", "engine", 0.7, 3)]
N = 7  # facts; f7 has no link at all


def spec(naming: int) -> float:
    """The mentions weight the module docstring defines."""
    return math.log1p(N / naming) / math.log1p(N)


@pytest.fixture
def conn() -> sqlite3.Connection:
    c = sqlite3.connect(":memory:")
    migrate(c)
    for i in range(1, N + 1):
        fid = f"f{i}"
        add(c, fid, f"fact number {i}", entities=ENTITIES.get(fid, ()))
    pos = dict(c.execute("SELECT id, pos FROM facts"))
    eid = dict(c.execute("SELECT key, eid FROM entities"))
    for a, b, w in SEMANTIC:
        x, y = sorted((pos[a], pos[b]))
        c.execute("INSERT INTO semantic_edges VALUES (?, ?, ?, 'model')", (x, y, w))
    for a, b, w, n in NPMI:
        x, y = sorted((eid[a], eid[b]))
        c.execute("INSERT INTO npmi_edges VALUES (?, ?, ?, ?)", (x, y, w, n))
    return c


def test_ego_graph_rows_and_weights(conn: sqlite3.Connection) -> None:
    ego = ego_graph(conn, "f1")
    rows = {(r.section, r.node): r for r in ego.rows}
    assert [(r.section, r.node) for r in ego.rows] == [
        ("semantic", "f2"),
        ("semantic", "f3"),
        ("shared", "f5"),
        ("second", "f4"),
        ("entity", "ada"),
        ("npmi", "engine"),
    ]
    assert rows["semantic", "f2"].weight == 0.9 and rows["semantic", "f2"].hops == 1
    # f5 names Ada and Zed, f1 only Ada: one chain f1 - Ada - f5 of two mentions links
    assert rows["shared", "f5"].weight == pytest.approx(spec(2) ** 2)
    assert rows["shared", "f5"].via == "Ada" and rows["shared", "f5"].detail == "1 of 2 entities in common"
    # f4 is two semantic links away through f3: the chain's product
    assert rows["second", "f4"].weight == pytest.approx(0.5 * 0.8) and rows["second", "f4"].via == "f3"
    assert rows["entity", "ada"].weight == pytest.approx(spec(2))
    assert rows["entity", "ada"].detail.startswith("2 facts name it · importance ")
    assert rows["npmi", "engine"].weight == 0.7 and rows["npmi", "engine"].via == "Ada"
    # the graph itself: typed nodes, typed weighted edges
    G = ego.graph
    assert G.nodes["fact", "f1"]["kind"] == "fact" and G.nodes["entity", "ada"]["kind"] == "entity"
    assert G.edges[("fact", "f1"), ("entity", "ada")]["kind"] == "mentions"
    assert G.edges[("entity", "ada"), ("entity", "engine")]["kind"] == "npmi"
    assert ("fact", "f7") not in G
    assert ego.fact_ids() == ["f2", "f3", "f5", "f4"]


def test_ego_graph_of_an_isolated_fact_and_an_unknown_id(conn: sqlite3.Connection) -> None:
    assert ego_graph(conn, "f7").rows == ()
    with pytest.raises(KeyError):
        ego_graph(conn, "nope")


def test_shortest_path_takes_the_strongest_chain(conn: sqlite3.Connection) -> None:
    path = path_between(conn, "f1", "f4", Config())
    assert path is not None
    assert [n.id for n in path.nodes] == ["f1", "f2", "f3", "f4"]  # not the weak shortcut via f3
    assert [(s.kind, s.weight) for s in path.steps] == [
        ("semantic", 0.9),
        ("semantic", 0.9),
        ("semantic", 0.8),
    ]
    assert path.cost == pytest.approx(-math.log(0.9 * 0.9 * 0.8))
    assert path.strength == pytest.approx(0.9 * 0.9 * 0.8)


def test_path_through_entities(conn: sqlite3.Connection) -> None:
    path = path_between(conn, "f1", "f6", Config())
    assert path is not None
    assert [(n.kind, n.id) for n in path.nodes] == [
        ("fact", "f1"),
        ("entity", "ada"),
        ("entity", "engine"),
        ("fact", "f6"),
    ]
    assert [n.label for n in path.nodes][1:3] == ["Ada", "Engine"]
    assert [s.kind for s in path.steps] == ["mentions", "npmi", "mentions"]
    assert [s.weight for s in path.steps] == pytest.approx([spec(2), 0.7, spec(1)])
    assert spec(1) == 1.0


def test_not_connected(conn: sqlite3.Connection) -> None:
    assert path_between(conn, "f1", "f7", Config()) is None
    assert not_connected("f1", "f7", Config()) == (
        "f1 and f7 are not connected within 6 hops (reading at most 25 links per entity)"
    )
    # connected, but further than the hops allowed
    near = Config().with_values("graph", path_max_hops=2)
    assert path_between(conn, "f1", "f6", near) is None
    assert path_between(conn, "f1", "f6", Config().with_values("graph", path_max_hops=3)) is not None
    with pytest.raises(KeyError):
        path_between(conn, "f1", "nope", Config())


def test_path_to_itself(conn: sqlite3.Connection) -> None:
    path = path_between(conn, "f2", "f2", Config())
    assert path is not None and path.hops == 0 and path.strength == 1.0


def test_bounded_search_agrees_with_the_whole_graph(conn: sqlite3.Connection) -> None:
    import networkx as nx

    G = whole_graph(conn)
    ids = [f"f{i}" for i in range(1, N + 1)]
    for a in ids:
        for b in ids:
            path = path_between(conn, a, b, Config())
            try:
                want = nx.shortest_path_length(
                    G, ("fact", a), ("fact", b), weight=lambda u, v, d: -math.log(d["weight"])
                )
            except nx.NetworkXNoPath:
                assert path is None, (a, b)
                continue
            assert path is not None and path.cost == pytest.approx(want), (a, b)


def test_sharing_a_rare_entity_outweighs_sharing_a_hub() -> None:
    c = sqlite3.connect(":memory:")
    migrate(c)
    add(c, "a", "names both", entities=("Rare", "Hub"))
    add(c, "b", "names the rare one", entities=("Rare",))
    for fid in ("c", "d", "e"):
        add(c, fid, "names the hub", entities=("Hub",))
    shared = [(r.node, r.weight) for r in ego_graph(c, "a").rows if r.section == "shared"]
    n = 5
    rare, hub = math.log1p(n / 2) / math.log1p(n), math.log1p(n / 4) / math.log1p(n)
    assert shared == [
        ("b", pytest.approx(rare**2)),
        ("c", pytest.approx(hub**2)),  # ties listed by id
        ("d", pytest.approx(hub**2)),
        ("e", pytest.approx(hub**2)),
    ]
    assert all(w < 1.0 for _, w in shared)
