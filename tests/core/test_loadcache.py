"""The load cache beside a large store: the same inputs as the SQL load, never stale.

Every test here uses real store files and, for writes "elsewhere", a real second
connection or a second process. `MIN_FACTS` is lowered so a few facts get a cache.
"""

from __future__ import annotations

import hashlib
import itertools
import sqlite3
import subprocess
import sys
from dataclasses import fields

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config, TrustConfig
from synapse_tui.core.ingest import signing
from synapse_tui.core.ingest.interchange import export_facts, import_facts, parse_file
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store import loadcache
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.schema import CHANGE_LOG_KEEP, SCHEMA_VERSION
from tests.core.chains import chain_facts
from tests.helpers import KEY, base_facts, write_jsonl

CFG = Config()


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(loadcache, "MIN_FACTS", 1)


@pytest.fixture
def db(tmp_path, small_threshold):
    path = tmp_path / "memory.db"
    facts = base_facts() + [dict(f, id="x" + f["id"]) for f in chain_facts()]
    for f in facts[5:]:
        if "supersedes" in f:
            f["supersedes"] = "x" + f["supersedes"]
    with Store.open(path, create=True) as store:
        src = write_jsonl(tmp_path / "facts.jsonl", facts)
        import_facts(store, parse_file(src), str(src))
    return path


def sql_load(store: Store, config: Config = CFG):
    """What the store holds now, read by SQL (the reference the cache must equal)."""
    import json

    with store.snapshot():
        return store._load_sql(json.dumps(list(config.trust.signers)))


def exact_cache(store: Store) -> bool:
    """A cache beside the store, whole, for the store as it is now."""
    path = loadcache.cache_path(store.path)
    header = loadcache.read_header(path, "[]")
    return bool(header) and header["token"] == store.generation() and loadcache.read(path, header) is not None


def same(a, b) -> bool:
    (ids_a, arr_a), (ids_b, arr_b) = a, b
    return ids_a == ids_b and all(
        np.array_equal(getattr(arr_a, f.name), getattr(arr_b, f.name))
        and getattr(arr_a, f.name).dtype == getattr(arr_b, f.name).dtype
        for f in fields(arr_a)
        if f.name not in ("moved", "kind", "kind_names")  # kinds: read beside the load (trust/kinds.py)
    )


def test_the_second_open_reads_the_cache_and_gets_what_sql_reads(db):
    cache = loadcache.cache_path(db)
    with Store.open(db, readonly=True) as store:
        first = store.load(CFG)
        assert cache.exists()
        assert exact_cache(store)
        second = store.load(CFG)
        assert same(second, first) and same(second, sql_load(store))
        now = Clock.from_option("2026-12-01T00:00:00Z").now()
        warm = Memory(store, CFG, now)
        cache.unlink()
        cold = Memory(store, CFG, now)
    assert warm.rows() == cold.rows() and warm.ids[3] in warm.index


def test_a_small_store_gets_no_cache_file(tmp_path):
    path = tmp_path / "memory.db"
    with Store.open(path, create=True) as store:
        src = write_jsonl(tmp_path / "facts.jsonl", base_facts())
        import_facts(store, parse_file(src), str(src))
        store.load(CFG)
    assert sorted(p.name for p in tmp_path.iterdir() if "cache" in p.name) == []


WRITES = {
    "update": "UPDATE facts SET r = r + 7 WHERE id = 'a'",
    "delete": "DELETE FROM facts WHERE pos = (SELECT max(pos) FROM facts)",
    "insert": "INSERT INTO facts (pos, id, text, created_at, created_ts, tier, r, s, events, sig_state)"
    " SELECT (SELECT max(pos) + 1 FROM facts), 'new', 'new fact', created_at, created_ts, tier, 1, 0, events, 0"
    " FROM facts WHERE id = 'a'",
    "events": "UPDATE facts SET events = (SELECT events FROM facts WHERE id = 'a') WHERE id = 'xf03'",
}


@pytest.mark.parametrize("kind", sorted(WRITES))
def test_a_write_by_another_process_makes_the_cache_stale(db, kind):
    with Store.open(db, readonly=True) as store:
        before = store.load(CFG)
        store.load(CFG)  # from the cache
        code = f"import sqlite3; c = sqlite3.connect({str(db)!r}); c.execute({WRITES[kind]!r}); c.commit()"
        subprocess.run([sys.executable, "-c", code], check=True)
        after = store.load(CFG)
        assert not same(after, before)
        assert same(after, sql_load(store))
        assert same(store.load(CFG), after)  # the rewritten cache


def test_a_rolled_back_write_leaves_the_cache_valid_and_right(db):
    with Store.open(db, readonly=True) as store:
        before = store.load(CFG)
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN")
        other.execute(WRITES["update"])
        other.execute("ROLLBACK")
        assert same(store.load(CFG), before) and same(before, sql_load(store))


def test_triage_refresh_on_cached_arrays_equals_a_full_reload_and_leaves_the_file_alone(db):
    cache = loadcache.cache_path(db)
    now = Clock.from_option("2026-12-01T00:00:00Z").now()
    with Store.open(db) as store:
        store.load(CFG)  # writes the cache
        digest = hashlib.sha256(cache.read_bytes()).hexdigest()
        memory = Memory(store, CFG, now)  # from the cache
        triage = Triage(store, Clock(now), actor="test")
        for action, ids, by in (
            ("corroborate", ["a", "xf05"], None),
            ("verify", ["xf03"], None),
            ("supersede", ["xf10"], "xf12"),
            ("contradict", ["b"], None),
        ):
            memory.refresh(triage.apply(action, ids, by).fact_ids)
        assert hashlib.sha256(cache.read_bytes()).hexdigest() == digest  # copy-on-write map
        fresh = Memory(store, CFG, now)
        assert memory.rows() == fresh.rows()


def test_a_cache_for_other_signers_is_not_served(db):
    trusted = Config(trust=TrustConfig(signers=(signing.public_key_hex(KEY),)))
    with Store.open(db, readonly=True) as store:
        plain = store.load(CFG)
        signed = store.load(trusted)
        assert signed[1].sig_trusted.sum() == 1 and plain[1].sig_trusted.sum() == 0
        assert same(store.load(trusted), sql_load(store, trusted))
        assert same(store.load(CFG), plain)


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage", "empty", "header"])
def test_a_damaged_cache_is_ignored_and_replaced(db, damage):
    cache = loadcache.cache_path(db)
    with Store.open(db, readonly=True) as store:
        good = store.load(CFG)
        raw = bytearray(cache.read_bytes())
        if damage == "flip":
            raw[-100] ^= 0x40  # inside the data (the ids), which the CRC covers
        elif damage == "truncate":
            raw = raw[: len(raw) // 2]
        elif damage == "garbage":
            raw = bytearray(b"not a cache at all" * 100)
        elif damage == "empty":
            raw = bytearray()
        else:
            raw[12:20] = b"{{{{{{{{"
        cache.write_bytes(bytes(raw))
        assert not exact_cache(store)
        assert same(store.load(CFG), good)
        assert exact_cache(store)  # written anew


def test_ids_holding_the_separator_survive_the_cache(db):
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE facts SET id = 'x\x1ey' WHERE id = 'c'")
    with Store.open(db, readonly=True) as store:
        cold = store.load(CFG)
        warm = store.load(CFG)
        assert "x\x1ey" in warm[0] and same(warm, cold) and same(warm, sql_load(store))


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_store_is_loaded_by_sql_and_gets_no_cache(db, what):
    target, mode = (db, 0o444) if what == "file" else (db.parent, 0o555)
    before = target.stat().st_mode
    with Store.open(db) as store:
        reference = sql_load(store)
    target.chmod(mode)
    try:
        with Store.open(db, readonly=True) as store:
            assert same(store.load(CFG), reference)
        assert not loadcache.cache_path(db).exists()
    finally:
        target.chmod(before)


def downgrade_to_v2(path) -> None:
    """Make the store what schema 2 wrote: no token table, no triggers, no embeddings or
    audit batch index, version 2 (the audit's role column, m005, stays: a column is not
    dropped)."""
    conn = sqlite3.connect(path, isolation_level=None)
    for name in ("changed_insert", "changed_update", "changed_delete", "changes_pruned"):
        conn.execute(f"DROP TRIGGER facts_{name}")
    conn.execute("DROP TABLE facts_changes")
    conn.execute("DROP INDEX embeddings_kind")
    conn.execute("DROP INDEX audit_batch")
    conn.execute(
        "DELETE FROM _sqlite_migrations"
        " WHERE name IN ('m003_facts_changes', 'm004_embeddings_kind', 'm006_audit_batch')"
    )
    conn.execute("PRAGMA user_version = 2")
    conn.close()


def test_an_older_store_opens_read_only_as_it_is_and_upgrades_in_place_when_writable(db):
    with Store.open(db) as store:
        exported = list(export_facts(store))
        reference = sql_load(store)
    downgrade_to_v2(db)
    loadcache.cache_path(db).unlink(missing_ok=True)
    with Store.open(db, readonly=True) as store:  # read-only: no upgrade, no cache, same data
        assert store.generation() is None
        assert same(store.load(CFG), reference)
    assert not loadcache.cache_path(db).exists()
    with Store.open(db) as store:  # writable: upgraded in place
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        # a triage action's batch number comes from the index, not a scan of the whole audit
        plan = store._conn.execute("EXPLAIN QUERY PLAN " + store.audit.next_batch_read().sql).fetchall()
        assert "USING COVERING INDEX audit_batch" in plan[0][-1]
        assert store.generation() is not None
        assert list(export_facts(store)) == exported
        assert same(store.load(CFG), reference) and loadcache.cache_path(db).exists()
        token = store.generation()
        with store.transaction() as conn:
            conn.execute("UPDATE facts SET s = s + 1 WHERE id = 'b'")
        assert store.generation() != token


def test_a_reader_inside_its_snapshot_gets_the_snapshot_not_the_newer_store(db):
    with Store.open(db, readonly=True) as store:
        before = store.load(CFG)
        with store.snapshot():
            other = sqlite3.connect(db)
            with other:
                other.execute(WRITES["update"])
            assert same(store.load(CFG), before)
        assert not same(store.load(CFG), before)


def cache_token(path) -> int | None:
    header = loadcache.read_header(loadcache.cache_path(path), "[]")
    return None if header is None else header["token"]


STEPS = itertools.count()  # unique ids across examples (they share the store)
EDITS = st.lists(
    st.tuples(
        st.sampled_from(["r", "tier", "events", "supersedes", "deleted", "id", "insert", "delete", "noop"]),
        st.integers(1, 21),
    ),
    min_size=1,
    max_size=6,
)


def apply_edit(conn: sqlite3.Connection, kind: str, pos: int, step: int) -> None:
    if kind == "r":
        conn.execute("UPDATE facts SET r = r + 1, s = s + 2 WHERE pos = ?", (pos,))
    elif kind == "tier":
        conn.execute("UPDATE facts SET tier = 'human' WHERE pos = ?", (pos,))
    elif kind == "events":  # another fact's reinforcement list, longer or shorter
        conn.execute(
            "UPDATE facts SET events = (SELECT events FROM facts WHERE pos = 1) WHERE pos = ?", (pos,)
        )
    elif kind == "supersedes":
        conn.execute("UPDATE facts SET supersedes_pos = NULL WHERE pos = ?", (pos,))
    elif kind == "deleted":
        conn.execute("UPDATE facts SET deleted = 1 - deleted WHERE pos = ?", (pos,))
    elif kind == "id":
        conn.execute("UPDATE facts SET id = id || ? WHERE pos = ?", (f"-{step}", pos))
    elif kind == "insert":
        conn.execute(WRITES["insert"].replace("'new'", f"'new{step}'").replace("id = 'a'", "pos = 1"))
    elif kind == "delete":
        conn.execute(WRITES["delete"])
    else:
        conn.execute("UPDATE facts SET r = r WHERE pos = ?", (pos,))  # a write that changes nothing


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(EDITS, min_size=1, max_size=4))
def test_the_cache_patched_with_the_logged_changes_equals_the_sql_load(db, batches):
    """Whatever another connection changes (in place, appended, deleted, ids), the next
    load equals SQL's; small in-place changes and appends are patched in (the cache file
    stays as it was), a delete forces a full load."""
    with Store.open(db) as store:
        loadcache.cache_path(db).unlink(missing_ok=True)
        store.load(CFG)  # a fresh cache
        other = sqlite3.connect(db, isolation_level=None)
        try:
            for batch in batches:
                written = cache_token(db)
                other.execute("BEGIN")
                for kind, pos in batch:
                    apply_edit(other, kind, min(pos, store.count()), next(STEPS))
                other.execute("COMMIT")
                loaded = store.load(CFG)
                assert same(loaded, sql_load(store))
                if not any(kind == "delete" for kind, _ in batch):
                    assert cache_token(db) == written  # patched: not rewritten
        finally:
            if other.in_transaction:
                other.execute("ROLLBACK")
            other.close()


def test_a_store_restored_from_a_backup_is_not_patched_from_its_future(db, tmp_path):
    backup = tmp_path / "backup.db"
    with Store.open(db) as store:
        store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        backup.write_bytes(db.read_bytes())
        with store.transaction() as conn:
            for pos in (1, 2, 3):
                apply_edit(conn, "r", pos, pos)
        loadcache.cache_path(db).unlink(missing_ok=True)
        store.load(CFG)  # the cache now holds the three changes, at the log's third entry
    db.write_bytes(backup.read_bytes())  # the backup, then four other changes: the log passes
    with Store.open(db) as store:  # the cache's entry, holding another token there
        with store.transaction() as conn:
            for pos in (4, 5, 6, 7):
                apply_edit(conn, "tier", pos, pos)
        assert same(store.load(CFG), sql_load(store))


def test_the_change_log_keeps_its_newest_entries_and_an_older_cache_loads_by_sql(db):
    with Store.open(db) as store:
        store.load(CFG)
        with store.transaction() as conn:
            conn.executemany(
                "UPDATE facts SET r = r + 1 WHERE pos = ?",
                [(1 + i % 20,) for i in range(CHANGE_LOG_KEEP + 2048)],
            )
        (kept,) = store._conn.execute("SELECT count(*) FROM facts_changes").fetchone()
        assert CHANGE_LOG_KEEP <= kept < CHANGE_LOG_KEEP + 1024  # pruned every 1,024 entries
        before = cache_token(db)
        assert same(store.load(CFG), sql_load(store))
        assert cache_token(db) != before  # loaded by SQL and written anew


def test_an_import_leaves_the_cache_the_first_open_maps(tmp_path, small_threshold):
    from click.testing import CliRunner

    from synapse_tui.cli import main

    path = tmp_path / "memory.db"
    src = write_jsonl(tmp_path / "facts.jsonl", base_facts())
    result = CliRunner().invoke(main, ["import", str(src), "--db", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    with Store.open(path, readonly=True) as store:
        assert exact_cache(store)  # the browser's first open reads no row by SQL
        assert same(store.load(CFG), sql_load(store))
