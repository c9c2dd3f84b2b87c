"""`provenance.SYSTEMS` says what each reader writes: its author keys are keys the reader
writes, and its `unrecorded` inputs are exactly those the reader never sets."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.provenance import SYSTEMS
from synapse_tui.core.ingest.adapters import basic_memory, graphiti, mem0
from tests.core.basic_memory_files import NEW, OLD, SEARCH, write
from tests.core.graphiti_files import dump
from tests.core.mem0_files import story, write_history, write_ts_vectors
from tests.core.provenance_inputs import INPUTS, inputs_written


def mem0_snapshot(tmp_path):
    history = write_history(tmp_path / "history.db", story())  # actor_id and role on events
    payload = {"data": "Alice likes coffee", "user_id": "alice", "agent_id": "barista", "run_id": "r1"}
    vectors = write_ts_vectors(tmp_path / "vector_store.db", {"m-tea": ([1.0, 0.0], payload)})
    return mem0.read(history, vectors=vectors)


def basic_memory_snapshot(tmp_path):
    folder = tmp_path / "notes"
    for name, text in (("search.md", SEARCH), ("old-search.md", OLD), ("search-v2.md", NEW)):
        write(folder, name, text)
    return basic_memory.read(folder)


def graphiti_snapshot(tmp_path):
    return graphiti.read(dump(tmp_path / "g"))


READERS = {"mem0": mem0_snapshot, "basic-memory": basic_memory_snapshot, "graphiti": graphiti_snapshot}


@pytest.mark.parametrize("system", sorted(READERS))
def test_systems_table_matches_what_the_reader_writes(tmp_path, monkeypatch, system):
    snap = READERS[system](tmp_path)
    assert snap.system == system
    keys = {k for f in snap.facts for k in f.provenance}
    entry = SYSTEMS[system]
    for key in entry["author"] + entry["role"]:
        assert key in keys, f"{system}: SYSTEMS names {key}, which its reader never writes"
    written = set().union(*(inputs_written(f) for f in snap.facts))
    assert set(entry["unrecorded"]) == set(INPUTS) - written
