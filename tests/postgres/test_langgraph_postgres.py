"""`import --from langgraph postgresql://...`: LangGraph's store on PostgreSQL, written by
langgraph's own `PostgresStore` (langgraph-checkpoint-postgres, in the test extra), read by
us over a read-only connection. Unlike SQLite's, its upsert keeps `created_at`, so a row
never updated is dated from its creation."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from synapse_tui.cli import main
from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.location import locate
from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.ingest.adapters import langgraph as lg
from synapse_tui.core.ingest.adapters.sync import sync_snapshot
from synapse_tui.core.ingest.sources import recorded
from synapse_tui.core.store.db import Store
from tests.helpers import run

pytestmark = pytest.mark.postgres
PostgresStore = pytest.importorskip("langgraph.store.postgres").PostgresStore
NS = ("memories", "alice")


def put(url: str, *items: tuple, delete: tuple[str, ...] = (), index: dict | None = None) -> None:
    """Write through langgraph's own store, as an agent would."""
    with PostgresStore.from_conn_string(url, index=index) as store:
        store.setup()
        for key, value, *ttl in items:
            store.put(NS, key, value, ttl=ttl[0] if ttl else None)
        for key in delete:
            store.delete(NS, key)


def times(url: str) -> dict[str, tuple[datetime, datetime, datetime | None]]:
    import psycopg

    with psycopg.connect(url) as conn:
        return {
            k: (c, u, e)
            for k, c, u, e in conn.execute("SELECT key, created_at, updated_at, expires_at FROM store")
        }


@pytest.fixture
def agent_store(new_database) -> str:
    url = new_database()
    put(
        url,
        ("k1", {"content": "Alice prefers green tea"}),
        ("k2", {"kind": "Memory", "content": {"content": "Alice's cat is called Bob"}}),
        ("k3", {"content": "Alice is on holiday this week"}, 60),  # expires in an hour
    )
    return url


def by_text(snapshot) -> dict:
    return {f.text: f for f in snapshot.facts}


def test_rows_become_facts_dated_from_their_creation(agent_store):
    facts = by_text(lg.read(agent_store))
    assert set(facts) == {
        "Alice prefers green tea",
        "Alice's cat is called Bob",
        "Alice is on holiday this week",
    }
    tea = facts["Alice prefers green tea"]
    created, _, _ = times(agent_store)["k1"]
    assert tea.id == "langgraph:memories.alice:k1" and tea.note == "memories.alice"
    assert tea.created_at == format_time(created.timestamp())
    assert tea.provenance["x-langgraph-time"] == "created_at"
    assert "x-langgraph-created-at" not in tea.provenance  # the same instant as updated_at
    assert facts["Alice's cat is called Bob"].provenance["x-langgraph-kind"] == "Memory"
    assert facts["Alice is on holiday this week"].provenance["x-langgraph-ttl-minutes"] == 60


def test_updates_versions_deletes_and_expiry_through_the_cli(agent_store, tmp_path):
    db = tmp_path / "memory.db"
    first = json.loads(run("import", "--from", "langgraph", agent_store, "--db", db, "--json").stdout)
    assert first["added"] == 3
    put(agent_store, ("k1", {"content": "Alice prefers oolong"}), delete=("k2",))
    _, _, expires = times(agent_store)["k3"]
    later = (expires + timedelta(minutes=1)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    again = run_at(later, "import", "--from", "langgraph", agent_store, "--db", db, "--json")
    out = json.loads(again.stdout)
    assert (out["added"], out["newly_deleted"]) == (1, 2)
    with Store.open(db) as store:
        facts = {k.id: k for k in known_facts(store, "langgraph")}
        v2 = facts["langgraph:memories.alice:k1@2"]
        assert v2.text == "Alice prefers oolong" and v2.provenance["x-langgraph-time"] == "updated_at"
        assert {i for i, k in facts.items() if k.deleted} == {
            "langgraph:memories.alice:k2",
            "langgraph:memories.alice:k3",
        }
        assert store.meta("deleted.why.langgraph:memories.alice:k3") == "expired"  # k2: the agent's delete
        (source,) = recorded(store)
    assert source == {"system": "langgraph", "source": locate(agent_store).shown}  # no password
    put(agent_store, ("k5", {"content": "Alice moved to Lyon"}))
    run_at(later, "sync", db)  # reconnects to the recorded server
    with Store.open(db) as store:
        assert "langgraph:memories.alice:k5" in {k.id for k in known_facts(store, "langgraph")}


def run_at(now: str, *args):
    """The CLI with its clock pinned (SYNAPSE_NOW), as the expiry check reads it."""
    result = CliRunner().invoke(main, [str(a) for a in args], env={"SYNAPSE_NOW": now})
    assert result.exit_code == 0, result.output + result.stderr
    return result


def test_a_row_updated_before_the_first_import_keeps_its_creation_in_provenance(new_database):
    url = new_database()
    put(url, ("k1", {"content": "Alice prefers green tea"}))
    put(url, ("k1", {"content": "Alice prefers oolong"}))
    created, updated, _ = times(url)["k1"]
    (fact,) = lg.read(url).facts
    assert fact.text == "Alice prefers oolong" and fact.created_at == format_time(updated.timestamp())
    assert fact.provenance["x-langgraph-time"] == "updated_at; created earlier, its first text unknown"
    assert fact.provenance["x-langgraph-created-at"] == created.astimezone(UTC).isoformat()


def test_embeddings_from_pgvector_only_with_a_model(new_database, tmp_path):
    url = new_database()

    def embed(texts: list[str]) -> list[list[float]]:
        return [[0.6, 0.8, 0.0] if "tea" in t else [0.0, 0.0, 1.0] for t in texts]

    put(
        url,
        ("k1", {"content": "Alice prefers green tea"}),
        index={"dims": 3, "embed": embed, "fields": ["content"]},
    )
    plain = lg.read(url)
    assert plain.facts[0].embedding is None and any("--model NAME" in line for line in plain.left_out)
    named = lg.read(url, model="toy-3d")
    assert named.space == "toy-3d" and named.facts[0].embedding.tolist() == pytest.approx([0.6, 0.8, 0.0])
    with Store.open(tmp_path / "memory.db", create=True) as store:
        result = sync_snapshot(store, named, Config())
        assert result.added == 1


def test_a_database_without_langgraphs_store_is_refused_in_one_line(new_database, tmp_path):
    url = new_database()
    result = run("import", "--from", "langgraph", url, "--db", tmp_path / "m.db", ok=False)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and "has no `store` table" in lines[0]
    assert not (tmp_path / "m.db").exists()


def test_a_password_never_reaches_the_message(pg_server, tmp_path):
    url = pg_server.get_uri("postgres").replace("postgresql://", "postgresql://nobody:s3cret-pw@", 1)
    result = run("import", "--from", "langgraph", url, "--db", tmp_path / "m.db", ok=False)
    assert result.exit_code == 2 and "s3cret-pw" not in result.stderr + result.stdout
    assert result.stderr.startswith("error: ")
