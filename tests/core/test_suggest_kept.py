"""The suggestions a long-lived memory keeps (the browser's queue, MCP): a write through the
same memory is seen at the next question, and a memory read again catches the kept finder
up rather than building it over every fact."""

from __future__ import annotations

from synapse_tui.core.base.config import Config
from synapse_tui.core.review import suggestions
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.suggest_state import dismissed_entry
from synapse_tui.core.review.triage import Triage
from tests.core.two_pairs_store import NOW, two_pairs_store


def test_a_dismissal_through_the_same_memory_is_seen_at_the_next_question(tmp_path, monkeypatch):
    store = two_pairs_store(tmp_path)
    builds = []
    real = suggestions.ReplacedFinder

    class Counted(real):  # the real finder, its builds counted
        @classmethod
        def build(cls, *args, **kwargs):
            builds.append(1)
            return super().build(*args, **kwargs)

    monkeypatch.setattr(suggestions, "ReplacedFinder", Counted)
    memory = Memory(store, Config(), NOW.now())
    before = [(s.fact, s.other) for s in suggestions.of_memory(memory).found]
    assert ("d1", "d2") in before and ("b1", "b2") in before
    Triage(store, NOW, config=Config()).dismiss([("d1", dismissed_entry("replaced", "d2"))])
    after = [(s.fact, s.other) for s in suggestions.of_memory(memory).found]
    assert after == [p for p in before if p != ("d1", "d2")]  # not the answer kept from before
    again = Memory(store, Config(), NOW.now())  # read again (a reload): caught up, not built
    assert [(s.fact, s.other) for s in suggestions.of_memory(again).found] == after
    assert len(builds) == 1
    store.close()
