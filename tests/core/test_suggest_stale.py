"""The kept finder's answer is of the store, not of a memory behind it: a memory asked
before it is read again (the browser's queue opened in the two seconds before its poller
reloads after another process's triage, the queue resumed before the worker rescored)
must not leave its old supersessions in the answer kept for the store's new state."""

from __future__ import annotations

from synapse_tui.core.base.config import Config
from synapse_tui.core.review import suggestions
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.core.test_suggest_kept import NOW, _store


def _pairs(memory):
    return [(s.fact, s.other) for s in suggestions.of_memory(memory).found]


def test_a_supersede_by_another_connection_is_seen_once_the_memory_is_read_again(tmp_path):
    store = _store(tmp_path)
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
    store = _store(tmp_path)
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
    store = _store(tmp_path)
    memory = Memory(store, Config(), NOW.now())
    assert ("d1", "d2") in _pairs(memory)
    Triage(store, NOW, config=Config()).supersede_all([("d1", "d2")])
    _pairs(memory)  # the queue resumed before the worker refreshed the memory
    memory.refresh(["d1", "d2"], NOW.now())
    assert ("d1", "d2") not in _pairs(memory)
    store.close()


def test_a_reinforcement_of_the_older_fact_is_caught_up_as_a_build_finds_it(tmp_path):
    # `verify` on d1 after d2 came: d1 is still held, so (d1, d2) is not suggested
    store = _store(tmp_path)
    memory = Memory(store, Config(), NOW.now())
    assert ("d1", "d2") in _pairs(memory)
    Triage(store, NOW, config=Config()).apply("verify", ["d1"])
    memory.refresh(["d1"], NOW.now())
    built = [(s.fact, s.other) for s in suggestions.standing(store).found]
    assert ("d1", "d2") not in built  # what a fresh pass over the store finds
    assert _pairs(memory) == built  # and the kept finder, caught up
    store.close()
