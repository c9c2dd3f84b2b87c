"""One finder for a store, however many ask at once (issue 39): the browser's `is:suggested`
search arriving while `R` builds the finder waits for that finder rather than building a
second one beside it, with real threads on a real SQLite store and the real finder (its
builds counted by a subclass that calls the real one)."""

from __future__ import annotations

import threading

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review import query, suggestions
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl

NOW = parse_time("2026-01-01T00:00:00Z")
SERVICES = 1_500  # enough facts that a build takes a good part of a second


def _facts() -> list[dict]:
    out = []
    for k in range(SERVICES):
        note = f"services/s{k % 300}.md"
        out.append(
            {
                "id": f"old{k}",
                "text": f"the billing worker {k} listens on port {8000 + k} behind the gateway",
                "created_at": "2025-01-01T00:00:00Z",
                "note": note,
            }
        )
        out.append(
            {
                "id": f"new{k}",
                "text": f"the billing worker {k} now listens on port {9000 + k} behind the gateway",
                "created_at": f"2025-03-{1 + k % 28:02}T00:00:00Z",
                "note": note,
            }
        )
        out.append(
            {
                "id": f"other{k}",
                "text": f"queue {k} drains nightly into the warehouse table t{k}",
                "created_at": "2025-02-01T00:00:00Z",
                "note": note,
            }
        )
    return out


def test_a_search_during_a_build_waits_for_it_rather_than_building_another(tmp_path, monkeypatch):
    src = write_jsonl(tmp_path / "f.jsonl", _facts())
    store = Store.open(tmp_path / "memory.db", create=True)
    import_facts(store, parse_file(src), str(src))
    builds: list[str] = []
    real = suggestions.ReplacedFinder

    class Counted(real):  # the real finder, its builds counted by thread
        @classmethod
        def build(cls, *args, **kwargs):
            builds.append(threading.current_thread().name)
            return super().build(*args, **kwargs)

    monkeypatch.setattr(suggestions, "ReplacedFinder", Counted)
    suggestions._KEPT.clear()
    queue_memory = Memory(store, Config(), NOW)  # the browser's live memory (R)
    list_memory = Memory(store, Config(), NOW)  # the one its search runs on
    reading = threading.Event()
    got: dict[str, object] = {}

    def told(doing: str) -> None:
        if doing.startswith("reading"):
            reading.set()

    def open_queue() -> None:  # `R`: the store's lock given, let go while building
        got["queue"] = suggestions.of_memory(queue_memory, told, lock=store.lock)

    def search() -> None:  # `is:suggested` typed meanwhile: run holding the store's lock
        reading.wait(30)
        with store.lock:
            got["search"] = query.run(list_memory, "is:suggested")

    threads = [threading.Thread(target=open_queue, name="R"), threading.Thread(target=search, name="search")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "the two waited for each other"
    assert builds == ["R"]  # one finder, built by R; the search read its answer
    flagged = set(got["queue"].flagged())
    assert len(flagged) >= SERVICES  # the port changes (at least) are suggested
    assert {list_memory.ids[p] for p in got["search"]} == flagged  # the search lists the same
    store.close()
