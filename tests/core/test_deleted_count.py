"""`Store.deleted_count`, asked at every question of a kept memory (issue 39's queue): counted
once per state of the facts, and exact whatever writer changed them, on both backends."""

from __future__ import annotations

import pytest

from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl

FACTS = [
    {"id": f"f{i}", "text": f"fact number {i}", "created_at": "2025-01-01T00:00:00Z", "note": "n"}
    for i in range(5)
]


def _location(new_store, tmp_path) -> str:
    location = new_store("d")
    with Store.open(location, create=True) as store:
        import_facts(store, parse_file(write_jsonl(tmp_path / "d.jsonl", FACTS)), "d")
    return location


def test_another_writers_deletions_are_counted_at_the_next_question(new_store, tmp_path):
    location = _location(new_store, tmp_path)
    with Store.open(location) as reader, Store.open(location) as writer:
        assert reader.deleted_count() == 0
        assert reader.deleted_count() == 0  # asked again in the same state
        with writer.transaction():
            writer.imports.flag_deleted(["f1", "f3"], 1.0e9, {}, [])
        assert reader.deleted_count() == 2
        with writer.transaction():
            writer.imports.restore(["f3"])
        assert reader.deleted_count() == 1
        # its own write, seen inside its transaction and gone with it when it is rolled back
        with pytest.raises(RuntimeError), reader.transaction():
            reader.imports.flag_deleted(["f0", "f2", "f4"], 1.0e9, {}, [])
            assert reader.deleted_count() == 4
            raise RuntimeError("rolled back")
        assert reader.deleted_count() == 1
        with writer.transaction():  # the next change takes the rolled-back one's seq
            writer.imports.flag_deleted(["f0"], 1.0e9, {}, [])
        assert reader.deleted_count() == 2


def test_asked_again_in_one_state_the_facts_are_not_counted_again(tmp_path):
    location = _location(lambda name: str(tmp_path / f"{name}.db"), tmp_path)
    with Store.open(location) as store:
        store.deleted_count()
        ran: list[str] = []
        store._conn.set_trace_callback(ran.append)
        try:
            assert store.deleted_count() == 0
        finally:
            store._conn.set_trace_callback(None)
    assert not [sql for sql in ran if "FROM facts " in sql]  # only the change log's newest entry
