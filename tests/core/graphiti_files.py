"""Graphiti dumps in the shapes graphiti-core 0.31 produces (see test_adapters_graphiti.py)."""

from __future__ import annotations

import json
from pathlib import Path

ALICE, ACME, GLOBEX, BOB = "n-alice", "n-acme", "n-globex", "n-bob"


def edge(uuid: str, fact: str, src: str, tgt: str, created: str, **extra) -> dict:
    obj = {
        "uuid": uuid,
        "group_id": "user-1",
        "source_node_uuid": src,
        "target_node_uuid": tgt,
        "created_at": created,
        "name": "WORKS_AT",
        "fact": fact,
        "fact_embedding": None,
        "episodes": ["ep-1"],
        "expired_at": None,
        "valid_at": None,
        "invalid_at": None,
        "reference_time": None,
        "attributes": {},
    }
    obj.update(extra)
    return obj


def node(uuid: str, name: str) -> dict:
    return {
        "uuid": uuid,
        "name": name,
        "group_id": "user-1",
        "labels": ["Entity"],
        "created_at": "2025-01-01T00:00:00Z",
        "name_embedding": None,
        "summary": "",
        "attributes": {},
    }


def episode(uuid: str, valid_at: str) -> dict:
    return {
        "uuid": uuid,
        "name": uuid,
        "group_id": "user-1",
        "labels": [],
        "created_at": "2025-06-01T00:00:00Z",
        "source": "message",
        "source_description": "chat",
        "content": "...",
        "valid_at": valid_at,
        "entity_edges": [],
        "episode_metadata": None,
    }


def vec(*xs: float) -> list[float]:
    return list(xs)


EDGES = [
    edge(
        "e-old",
        "Alice works at Acme",
        ALICE,
        ACME,
        "2025-01-02T03:04:05.123456Z",
        episodes=["ep-1", "ep-2", "ep-3"],
        valid_at="2025-01-01T00:00:00",
        invalid_at="2025-05-01T00:00:00Z",
        expired_at="2025-05-02T10:00:00Z",
        fact_embedding=vec(1, 0, 0),
    ),
    edge(
        "e-new",
        "Alice left Acme for Globex",
        ACME,
        ALICE,  # the same two entities, the other way round
        "2025-05-02T10:00:00Z",
        episodes=["ep-4"],
        valid_at="2025-05-01T00:00:00Z",
        fact_embedding=vec(0.6, 0.8, 0),
        attributes={"role": "engineer"},
    ),
    edge(
        "e-bob",
        "Bob knows Alice",
        BOB,
        ALICE,
        "2025-02-01T00:00:00+01:00",
        name="KNOWS",
        group_id="user-2",
        fact_embedding=vec(0, 0, 2),
    ),
]


def dump(folder: Path, edges=EDGES, nodes=True, episodes=True, as_list=False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if as_list:
        (folder / "edges.jsonl").write_text(json.dumps(edges, indent=2))
    else:
        (folder / "edges.jsonl").write_text("".join(json.dumps(e) + "\n" for e in edges))
    if nodes:
        names = [node(ALICE, "Alice"), node(ACME, "Acme"), node(BOB, "Bob"), node(GLOBEX, "Globex")]
        (folder / "nodes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in names))
    if episodes:
        eps = [
            episode("ep-1", "2025-01-02T00:00:00Z"),
            episode("ep-2", "2025-02-10T12:00:00+02:00"),
            episode("ep-3", "2025-03-01T00:00:00Z"),
            episode("ep-4", "2025-05-01T00:00:00Z"),
        ]
        (folder / "episodes.jsonl").write_text("".join(json.dumps(e) + "\n" for e in eps))
    return folder


def facts_of(snapshot) -> dict:
    return {f.id: f for f in snapshot.facts}


def regrow(folder: Path, episodes: list[str], *, times: bool = True) -> None:
    """The dump again, e-old now carrying `episodes`; ep-5 happened on 2025-08-01."""
    dump(folder, edges=[{**EDGES[0], "episodes": episodes}, *EDGES[1:]], episodes=times)
    if times:
        with open(folder / "episodes.jsonl", "a") as fh:
            fh.write(json.dumps(episode("ep-5", "2025-08-01T00:00:00Z")) + "\n")
