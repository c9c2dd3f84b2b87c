"""Real check: a Kuzu-backed Graphiti graph, dumped with the README's snippet, read here.

    python benchmarks/real_graphiti.py [GRAPHITI_PYTHON]

GRAPHITI_PYTHON (default /work/venv-graphiti/bin/python) is an interpreter with
graphiti-core and kuzu installed: `python3.12 -m venv /work/venv-graphiti &&
/work/venv-graphiti/bin/pip install graphiti-core kuzu`. This script runs itself there with
`--dump DIR`: graphiti-core's own classes build the graph (EntityNode, EpisodicNode,
EntityEdge saved through KuzuDriver; a re-asserting episode appended to `episodes` as
Graphiti's dedup does; `resolve_edge_contradictions`, Graphiti's own invalidation, marks the
old edge), then `dump_graph` (the README's few lines) writes edges/nodes/episodes.jsonl.
No LLM is involved: extraction is what an LLM would do, and the stand-in embedder below
(hash-seeded unit vectors) only gives the edges a `fact_embedding` to carry over.

Back in this interpreter the dump is read, synced into a new store and shown, then read
again to show the second sync changes nothing. A scale figure follows: 10,000 edges read
against parsing the same facts as interchange JSON Lines (the baseline).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


async def dump_graph(driver, group_ids: list[str], folder: str) -> None:
    """The README's snippet: a running Graphiti's graph as three JSON Lines files."""
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodicNode

    for name, items in (
        ("edges", await EntityEdge.get_by_group_ids(driver, group_ids, with_embeddings=True)),
        ("nodes", await EntityNode.get_by_group_ids(driver, group_ids)),
        ("episodes", await EpisodicNode.get_by_group_ids(driver, group_ids)),
    ):
        with open(f"{folder}/{name}.jsonl", "w") as fh:
            fh.writelines(json.dumps(x.model_dump(mode="json")) + "\n" for x in items)


def _vector(text: str, dim: int = 32) -> list[float]:
    import hashlib
    import random

    rng = random.Random(hashlib.sha256(text.encode()).digest())
    v = [rng.gauss(0, 1) for _ in range(dim)]
    n = sum(x * x for x in v) ** 0.5
    return [x / n for x in v]


async def build_and_dump(folder: str) -> None:
    """Runs inside the graphiti interpreter."""
    from datetime import UTC, datetime

    from graphiti_core.driver.kuzu_driver import KuzuDriver
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
    from graphiti_core.utils.maintenance.edge_operations import resolve_edge_contradictions

    def at(s: str) -> datetime:
        return datetime.fromisoformat(s).replace(tzinfo=UTC)

    driver = KuzuDriver(db=f"{folder}/graph.kuzu")
    group = "user-1"
    people = {
        n: EntityNode(name=n, group_id=group, labels=["Entity"], name_embedding=_vector(n))
        for n in ("Alice", "Acme", "Globex", "Bob")
    }
    eps = [
        EpisodicNode(
            name=f"chat {i}",
            group_id=group,
            source=EpisodeType.message,
            source_description="chat",
            content=text,
            valid_at=at(when),
            created_at=at(when),
        )
        for i, (when, text) in enumerate(
            [
                ("2025-01-02T09:00:00", "Alice: I just started at Acme."),
                ("2025-02-10T12:00:00", "Alice: still loving Acme."),
                ("2025-03-01T08:00:00", "Bob: Alice from Acme helped me."),
                ("2025-06-01T10:00:00", "Alice: I moved to Globex."),
            ]
        )
    ]
    works = EntityEdge(
        group_id=group,
        source_node_uuid=people["Alice"].uuid,
        target_node_uuid=people["Acme"].uuid,
        name="WORKS_AT",
        fact="Alice works at Acme",
        episodes=[eps[0].uuid],
        valid_at=at("2025-01-02T09:00:00"),
        created_at=at("2025-01-02T09:00:05"),
    )
    works.fact_embedding = _vector(works.fact)
    for ep in eps[1:3]:  # Graphiti's dedup: a duplicate edge only gains the episode
        works.episodes.append(ep.uuid)
    knows = EntityEdge(
        group_id=group,
        source_node_uuid=people["Bob"].uuid,
        target_node_uuid=people["Alice"].uuid,
        name="KNOWS",
        fact="Bob knows Alice",
        episodes=[eps[2].uuid],
        valid_at=at("2025-03-01T08:00:00"),
        created_at=at("2025-03-01T08:00:04"),
        fact_embedding=_vector("Bob knows Alice"),
    )
    moved = EntityEdge(
        group_id=group,
        source_node_uuid=people["Alice"].uuid,
        target_node_uuid=people["Globex"].uuid,
        name="WORKS_AT",
        fact="Alice works at Globex",
        episodes=[eps[3].uuid],
        valid_at=at("2025-06-01T10:00:00"),
        created_at=at("2025-06-01T10:00:06"),
        fact_embedding=_vector("Alice works at Globex"),
    )
    invalidated = resolve_edge_contradictions(moved, [works])  # Graphiti sets invalid_at / expired_at
    assert invalidated == [works], invalidated
    for node in [*people.values(), *eps]:
        await node.save(driver)
    for edge in (works, knows, moved):
        await edge.save(driver)
    await dump_graph(driver, [group], folder)


def scale(n: int = 10_000) -> None:
    sys.path.insert(0, str(HERE.parent))
    from synapse_tui.core.ingest.adapters import graphiti
    from synapse_tui.core.ingest.interchange import export_facts, import_facts, parse_file, write_jsonl
    from synapse_tui.core.store.db import Store

    root = Path(tempfile.mkdtemp(prefix="graphiti-scale-"))
    with open(root / "edges.jsonl", "w") as fh:
        for i in range(n):
            edge = {
                "uuid": f"e{i}",
                "group_id": f"g{i % 50}",
                "source_node_uuid": f"n{i % 700}",
                "target_node_uuid": f"n{(i * 7) % 701}",
                "created_at": f"2025-01-01T00:00:{i % 60:02d}Z",
                "name": "RELATES_TO",
                "fact": f"entity {i % 700} relates to entity {(i * 7) % 701} ({i})",
                "fact_embedding": None,
                "episodes": [f"ep{i}", f"ep{i + 1}"],
                "expired_at": None,
                "valid_at": None,
                "invalid_at": None,
                "reference_time": None,
                "attributes": {},
            }
            fh.write(json.dumps(edge) + "\n")
    t0 = time.perf_counter()
    snap = graphiti.read(root)
    read_s = time.perf_counter() - t0
    with Store.open(root / "m.db", create=True) as store:
        import_facts(store, snap.facts, snap.source)
        write_jsonl(export_facts(store), root / "same.jsonl")
    t0 = time.perf_counter()
    parse_file(root / "same.jsonl")
    base_s = time.perf_counter() - t0
    print(
        f"scale: {n} edges read in {read_s:.2f} s; the same facts as interchange JSON Lines parse in"
        f" {base_s:.2f} s (baseline); ratio {read_s / base_s:.1f}x"
    )


def main(python: str) -> None:
    sys.path.insert(0, str(HERE.parent))
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.graph.build import update_graph
    from synapse_tui.core.ingest.adapters import graphiti, known_facts
    from synapse_tui.core.ingest.interchange import import_facts
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.store.db import Store

    folder = Path(tempfile.mkdtemp(prefix="graphiti-dump-"))
    t0 = time.perf_counter()
    out = subprocess.run(
        [python, "-W", "ignore", __file__, "--dump", str(folder)], capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"graphiti side failed:\n{out.stderr[-3000:]}")
    print(f"graphiti-core built a Kuzu graph and dumped it in {time.perf_counter() - t0:.1f} s into {folder}")
    for name in ("edges", "nodes", "episodes"):
        lines = (folder / f"{name}.jsonl").read_text().splitlines()
        print(f"--- {name}.jsonl: {len(lines)} lines; first: {lines[0][:300]}...")
    with Store.open(folder / "memory.db", create=True) as store:
        for run in (1, 2):
            snap = graphiti.read(folder, known=known_facts(store, "graphiti"))
            have = {r[0] for r in store._conn.execute("SELECT id FROM facts")}
            try:  # sync_snapshot once it is merged; until then what it is specified to do
                from synapse_tui.core.ingest.adapters.sync import sync_snapshot

                sync_snapshot(store, snap, Config())
            except ImportError:
                result = import_facts(store, [f for f in snap.facts if f.id not in have], snap.source)
                with store.transaction() as conn:
                    update_graph(conn, result.new_positions, Config())
            print(
                f"sync {run}: {len(snap.facts)} facts in the dump, {store.count() - len(have)} imported;"
                f" left out: {snap.left_out}"
            )
        memory = Memory(store, Config(), time.time())
        for fid in memory.ids:
            info = memory.explain(fid)
            print(
                f"   {fid}: {info['text']!r} r={info['corroborations']} reinforced_at={info['reinforced_at']}"
                f" entities={info['entities']} supersedes={info['supersedes']} k={info['k']}"
                f" trust={info['trust']:.2f} ({info['band']})"
            )
        dims = store._conn.execute(
            "SELECT count(*), max(length(vec)) / 4 FROM embeddings WHERE kind='model'"
        ).fetchone()
        print(f"   {dims[0]} fact_embeddings of dimension {dims[1]} carried over")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--dump":
        import asyncio

        asyncio.run(build_and_dump(sys.argv[2]))
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "/work/venv-graphiti/bin/python")
        scale()
