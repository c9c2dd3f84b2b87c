"""The kept finder's answer is of the store, not of a memory behind it: a memory asked
before it is read again (the browser's queue opened in the two seconds before its poller
reloads after another process's triage, the queue resumed before the worker rescored)
must not leave its old supersessions in the answer kept for the store's new state."""

from __future__ import annotations

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.review import suggestions
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.core.two_pairs_store import FACTS, NOW, two_pairs_store


def _pairs(memory):
    return [(s.fact, s.other) for s in suggestions.of_memory(memory).found]


def test_a_supersede_by_another_connection_is_seen_once_the_memory_is_read_again(tmp_path):
    store = two_pairs_store(tmp_path)
    memory = Memory(store, Config(), NOW.now())
    assert ("d1", "d2") in _pairs(memory)  # the finder is kept for the store
    other = Store.open(tmp_path / "memory.db")  # the CLI, another process's connection
    Triage(other, NOW, config=Config()).supersede_all([("d1", "d2")])
    other.close()
    _pairs(memory)  # asked before the poller reads the memory again
    memory.reload(NOW.now())  # the poller's reload
    assert ("d1", "d2") not in _pairs(memory)  # not the answer kept from the old memory
    assert ("b1", "b2") in _pairs(memory)
    store.close()


def test_an_undo_by_another_connection_brings_the_suggestion_back(tmp_path):
    store = two_pairs_store(tmp_path)
    Triage(store, NOW, config=Config()).supersede_all([("d1", "d2")])
    memory = Memory(store, Config(), NOW.now())
    assert ("d1", "d2") not in _pairs(memory)
    other = Store.open(tmp_path / "memory.db")
    Triage(other, NOW, config=Config()).undo()
    other.close()
    _pairs(memory)  # the old memory asks first
    memory.reload(NOW.now())
    assert ("d1", "d2") in _pairs(memory)
    store.close()


def test_a_write_through_the_same_store_asked_before_the_memory_is_rescored(tmp_path):
    store = two_pairs_store(tmp_path)
    memory = Memory(store, Config(), NOW.now())
    assert ("d1", "d2") in _pairs(memory)
    Triage(store, NOW, config=Config()).supersede_all([("d1", "d2")])
    _pairs(memory)  # the queue resumed before the worker refreshed the memory
    memory.refresh(["d1", "d2"], NOW.now())
    assert ("d1", "d2") not in _pairs(memory)
    store.close()


def test_a_reinforcement_of_the_older_fact_is_caught_up_as_a_build_finds_it(tmp_path):
    # `verify` on d1 after d2 came: d1 is still held, so (d1, d2) is not suggested
    store = two_pairs_store(tmp_path)
    memory = Memory(store, Config(), NOW.now())
    assert ("d1", "d2") in _pairs(memory)
    Triage(store, NOW, config=Config()).apply("verify", ["d1"])
    memory.refresh(["d1"], NOW.now())
    built = [(s.fact, s.other) for s in suggestions.standing(store).found]
    assert ("d1", "d2") not in built  # what a fresh pass over the store finds
    assert _pairs(memory) == built  # and the kept finder, caught up
    store.close()


def _scored(found):
    return [(s.fact, s.other, round(s.score, 6)) for s in found]


def test_a_sync_swapping_which_fact_is_deleted_is_caught_up(tmp_path):
    # a sync whose source gave one line back and dropped another: one fact restored, one
    # flagged deleted, no audit entry and no new fact (the count of deletions the same)
    store = two_pairs_store(tmp_path)
    at = {fid: parse_time(f["created_at"]) for f in FACTS for fid in [f["id"]]}
    with store.transaction():
        store.imports.flag_deleted(["b1"], NOW.now(), {"b1": at["b2"]}, [])
    memory = Memory(store, Config(), NOW.now())
    before = _scored(suggestions.of_memory(memory).found)
    other = Store.open(tmp_path / "memory.db")
    with other.transaction():
        other.imports.restore(["b1"])
        other.imports.flag_deleted(["d1"], NOW.now(), {"d1": at["d2"]}, [])
    other.close()
    memory.reload(NOW.now())
    built = _scored(suggestions.standing(store).found)
    assert built != before  # the deletion moved what is suggested, or how strongly
    assert _scored(suggestions.of_memory(memory).found) == built
    store.close()


def test_the_file_beside_the_store_is_not_read_after_such_a_sync(tmp_path, monkeypatch):
    # the next process (`show`, `score`, MCP starting) reads the file `standing` kept
    monkeypatch.setattr(suggestions, "CACHE_MIN_FACTS", 1)  # kept for this small store too
    store = two_pairs_store(tmp_path)
    at = {f["id"]: parse_time(f["created_at"]) for f in FACTS}
    with store.transaction():
        store.imports.flag_deleted(["b1"], NOW.now(), {"b1": at["b2"]}, [])
    before = _scored(suggestions.standing(store).found)
    assert suggestions._cache_file(store).exists()
    with store.transaction():
        store.imports.restore(["b1"])
        store.imports.flag_deleted(["d1"], NOW.now(), {"d1": at["d2"]}, [])
    store.close()
    later = Store.open(tmp_path / "memory.db")  # the next process
    answered = _scored(suggestions.standing(later).found)
    suggestions._cache_file(later).unlink()
    found = _scored(suggestions.standing(later).found)  # found again, no file
    assert found != before and answered == found
    later.close()
