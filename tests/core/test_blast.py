"""The blast radius of a supersession: shared entities and semantic neighbours, with why."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from synapse_tui.core.review.blast import blast_radius
from synapse_tui.core.store.db import SqliteStore
from synapse_tui.core.store.schema import migrate
from tests.core.graph_stores import add


@pytest.fixture
def conn() -> sqlite3.Connection:
    c = sqlite3.connect(":memory:")
    migrate(c)
    add(c, "old", "db is pg 12", entities=("Postgres", "Ledger"))
    add(c, "new", "db is pg 14", entities=("postgres",))
    add(c, "ledger", "ledger owner", entities=("ledger",))
    add(c, "near", "something close")
    add(c, "far", "unrelated", entities=("office",))
    # semantic edges as graphstore stores them: positions a < b
    c.executemany(
        "INSERT INTO semantic_edges (a, b, weight, kind) VALUES (?, ?, ?, 'lexical')",
        [(1, 2, 0.95), (1, 4, 0.83), (3, 5, 0.5)],
    )
    return c


def test_shared_entities_and_semantic_neighbours_with_why(conn: sqlite3.Connection) -> None:
    radius = blast_radius(SqliteStore(Path("blast.db"), conn, readonly=True), "old")
    by_id = {r.id: r for r in radius.related}
    assert set(by_id) == {"new", "ledger", "near"}
    assert by_id["new"].entities == ("Postgres",) and by_id["new"].weight is not None
    assert by_id["ledger"].entities == ("Ledger",) and by_id["ledger"].weight is None
    assert by_id["ledger"].why == "shares Ledger"
    assert by_id["near"].entities == () and by_id["near"].why == "semantic neighbour w=0.83"
    # both reasons first, then the heaviest edge
    assert radius.related[0].id == "new"
    assert radius.related[0].why == "shares Postgres; semantic neighbour w=0.95"
    assert radius.total == 3


def test_exclude_and_limit(conn: sqlite3.Connection) -> None:
    radius = blast_radius(SqliteStore(Path("blast.db"), conn, readonly=True), "old", exclude=["new"], limit=1)
    assert radius.total == 2 and len(radius.related) == 1
    assert "new" not in {r.id for r in radius.related}


def test_an_isolated_fact_has_no_blast_radius_and_unknown_ids_raise(conn: sqlite3.Connection) -> None:
    add(conn, "alone", "nothing shared")
    assert blast_radius(SqliteStore(Path("blast.db"), conn, readonly=True), "alone").related == ()
    with pytest.raises(KeyError):
        blast_radius(SqliteStore(Path("blast.db"), conn, readonly=True), "nope")


def test_a_supersede_preview_refuses_what_apply_would_and_writes_nothing(tmp_path) -> None:
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.review.triage import Triage, TriageError
    from synapse_tui.core.store.db import Store

    src = tmp_path / "facts.jsonl"
    src.write_text(
        '{"id": "v1", "text": "pg 12", "created_at": "2026-01-01T00:00:00Z"}\n'
        '{"id": "v2", "text": "pg 14", "created_at": "2026-02-01T00:00:00Z", "supersedes": "v1"}\n'
        '{"id": "x", "text": "other", "created_at": "2026-02-01T00:00:00Z"}\n',
        encoding="utf-8",
    )
    with Store.open(tmp_path / "m.db", create=True) as store:
        import_facts(store, parse_file(src), str(src))
        triage = Triage(store, Clock(parse_time("2026-12-01T00:00:00Z")), actor="t")
        with pytest.raises(TriageError, match="cycle"):
            triage.check_supersede("v2", "v1")
        with pytest.raises(TriageError, match="already supersedes"):
            triage.check_supersede("x", "v2")
        with pytest.raises(TriageError, match="no fact"):
            triage.check_supersede("nope", "x")
        triage.check_supersede("x", "v1")  # allowed: no error
        assert store._conn.execute("SELECT count(*) FROM audit").fetchone()[0] == 0
        assert store._conn.execute("SELECT supersedes FROM facts WHERE id = 'v1'").fetchone()[0] is None
