"""Several sources of one system in one store: each sync flags as deleted only what its own
source deleted (a Basic Memory folder, a mem0 history; a Graphiti dump's group ids are
tested in test_adapters_graphiti)."""

from __future__ import annotations

import pytest

from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.store.db import Store
from tests.core.basic_memory_files import resync, write
from tests.core.mem0_files import ev, story, sync, write_history


@pytest.fixture
def store(new_store):
    """An empty store on this test's backend (a file, a server: `tests/backends.py`)."""
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def test_two_folders_synced_into_one_store_never_delete_each_others_facts(tmp_path, store):
    work, home = tmp_path / "work", tmp_path / "home"
    write(work, "standup.md", "---\npermalink: work/standup\n---\n- [fact] Standup is at ten\n")
    write(home, "garden.md", "---\npermalink: home/garden\n---\n- [fact] Tomatoes need sun\n")
    write(home, "books.md", "- [fact] Reading Middlemarch\n")
    for folder in (work, home, work, home):
        snap = resync(store, folder)
        assert not snap.deleted
    assert not any(k.deleted for k in known_facts(store, "basic-memory"))
    (home / "books.md").unlink()  # a note gone from one folder: only its fact is deleted
    resync(store, work)
    assert not any(k.deleted for k in known_facts(store, "basic-memory"))
    snap = resync(store, home)
    gone = [k.text for k in known_facts(store, "basic-memory") if k.deleted]
    assert gone == ["Reading Middlemarch"] and len(snap.deleted) == 1


def test_two_histories_in_one_store_delete_only_what_each_deleted(tmp_path, new_store):
    """mem0 flags a memory deleted only on its own DELETE event: a memory absent from the
    history.db being read (another user's mem0, another MEM0_DIR) is not this history's to
    delete, so two histories synced into one store leave each other alone."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    alice = write_history(tmp_path / "a" / "history.db", story())
    bob = write_history(
        tmp_path / "b" / "history.db",
        [
            ev("m-bob-1", "ADD", "Bob plays chess", created="2025-04-01T00:00:00Z"),
            ev("m-bob-2", "ADD", "Bob lives in Oslo", created="2025-04-02T00:00:00Z"),
        ],
    )
    db = new_store("memory")
    assert sync(db, alice).newly_deleted == 1  # Alice's own DELETE of m-paris
    for history in (bob, alice, bob):
        assert sync(db, history).newly_deleted == 0
    write_history(bob, [ev("m-bob-2", "DELETE", old="Bob lives in Oslo", updated="2025-05-01T00:00:00Z")])
    assert sync(db, bob).newly_deleted == 1
    with Store.open(db, readonly=True) as opened:
        deleted = [r[0] for r in opened._conn.execute("SELECT id FROM facts WHERE deleted = 1 ORDER BY id")]
    assert deleted == ["mem0:m-bob-2", "mem0:m-paris"]
