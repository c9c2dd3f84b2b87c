"""A Graphiti dump synced again after the agent's graph re-asserted an edge already here:
the new episodes reach the fact on top of its triage, as an audited, undoable action by
`source:graphiti`, and nothing else changes (SPEC 9: only what is new at the source)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.ingest.adapters import graphiti, known_facts
from synapse_tui.core.ingest.adapters.sync import sync_snapshot
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.core.graphiti_files import EDGES, dump, episode, regrow
from tests.store_state import mark

SOURCE_TIMES = ["2025-02-10T10:00:00Z", "2025-03-01T00:00:00Z"]  # ep-2, ep-3 of e-old
TRIAGED = "2026-01-01T00:00:00Z"
SYNCED = "2026-02-01T00:00:00Z"


def resync(store: Store, folder: Path, at: str = SYNCED):
    snap = graphiti.read(folder, known=known_facts(store, "graphiti"))
    return snap, sync_snapshot(store, snap, Config(), clock=Clock(parse_time(at)))


def fact(store: Store) -> dict:
    return Memory(store, Config(), parse_time("2026-03-01T00:00:00Z")).explain("graphiti:e-old")


@pytest.fixture
def location(new_store) -> str:
    """The store's location on this test's backend (a file, a server: `tests/backends.py`)."""
    return new_store("memory")


def imported_and_corroborated(tmp_path: Path, location: str) -> tuple[Path, Store]:
    folder = dump(tmp_path / "g")
    store = Store.open(location, create=True)
    resync(store, folder)
    Triage(store, Clock(parse_time(TRIAGED)), "user:ann").apply("corroborate", ["graphiti:e-old"])
    return folder, store


def test_a_re_assertion_adds_on_top_of_triage_audited_and_undoable(tmp_path, location):
    folder, store = imported_and_corroborated(tmp_path, location)
    with store:
        assert fact(store)["corroborations"] == 3  # the source's 2 + triage's 1
        regrow(folder, ["ep-1", "ep-2", "ep-3", "ep-5"])
        snap, result = resync(store, folder)
        assert (result.added, result.reasserted, result.unchanged) == (0, 1, 2)
        assert not any("re-assertion" in line for line in snap.left_out)
        old = fact(store)
        assert old["corroborations"] == 4  # the source's 3 + triage's 1
        assert old["reinforced_at"] == [*SOURCE_TIMES, TRIAGED, "2025-08-01T00:00:00Z"]
        assert old["provenance"]["x-graphiti-episodes"] == ["ep-1", "ep-2", "ep-3", "ep-5"]
        entry = old["history"][-1]
        assert (entry["actor"], entry["action"], entry["at"]) == ("source:graphiti", "corroborate", SYNCED)
        assert entry["before"] == {"corroborations": 3, "reinforced_at": [*SOURCE_TIMES, TRIAGED]}
        assert entry["after"]["corroborations"] == 4
        assert entry["score_before"]["r"] == 3 and entry["score_before"]["trust"] > 0
        assert old["history"][0]["actor"] == "user:ann"
        assert [h["action"] for h in fact(store)["history"]] == ["corroborate", "corroborate"]

        before = mark(location)
        again, result = resync(store, folder)
        assert again.evidence == [] and result.reasserted == 0  # nothing new: not one byte written
        assert mark(location) == before

        undone = Triage(store, Clock(parse_time("2026-02-02T00:00:00Z")), "user:ann").undo()
        assert undone.undone_actor == "source:graphiti"
        old = fact(store)
        assert old["corroborations"] == 3 and old["reinforced_at"] == [*SOURCE_TIMES, TRIAGED]
        before = mark(location)
        resync(store, folder)  # the episode stays counted: an undone re-assertion stays undone
        assert mark(location) == before


def test_without_episode_times_the_corroboration_counts_and_the_time_is_said_missing(tmp_path, location):
    folder, store = imported_and_corroborated(tmp_path, location)
    with store:
        regrow(folder, ["ep-1", "ep-2", "ep-3", "ep-5"], times=False)
        snap, result = resync(store, folder)
        assert result.reasserted == 1
        old = fact(store)
        assert old["corroborations"] == 4 and old["reinforced_at"] == [*SOURCE_TIMES, TRIAGED]
        assert old["history"][-1]["after"] == {"corroborations": 4}  # no time invented
        assert any(line.startswith("1 new re-assertion(s) of facts already here") for line in result.left_out)


def test_a_source_that_shrinks_changes_nothing_and_counts_nothing_twice(tmp_path, location):
    folder, store = imported_and_corroborated(tmp_path, location)
    with store:
        before = mark(location)
        regrow(folder, ["ep-1", "ep-3"])  # Graphiti removed episode ep-2
        snap, result = resync(store, folder)
        assert result.reasserted == 0 and mark(location) == before
        assert any("1 edge(s) already here lost episodes" in line for line in result.left_out)
        regrow(folder, ["ep-1", "ep-3", "ep-2"])  # back again: it was counted already
        resync(store, folder)
        assert mark(location) == before
        assert fact(store)["corroborations"] == 3


def test_an_edge_first_seen_with_one_episode_gains_two(tmp_path, location):
    """Both new episodes corroborate; the first episode of an edge asserts it, never counts."""
    folder = dump(tmp_path / "g")
    with Store.open(location, create=True) as store:
        resync(store, folder)
        dump(folder, edges=[EDGES[0], EDGES[1], {**EDGES[2], "episodes": ["ep-1", "ep-4", "ep-5"]}])
        with open(folder / "episodes.jsonl", "a") as fh:
            fh.write(json.dumps(episode("ep-5", "2025-08-01T00:00:00Z")) + "\n")
        resync(store, folder)
        bob = Memory(store, Config(), parse_time("2026-03-01T00:00:00Z")).explain("graphiti:e-bob")
        assert bob["corroborations"] == 2
        assert bob["reinforced_at"] == ["2025-05-01T00:00:00Z", "2025-08-01T00:00:00Z"]
        assert [h["actor"] for h in bob["history"]] == ["source:graphiti"]


def test_two_syncs_of_one_re_assertion_at_once_count_it_once(tmp_path, location):
    """Both read the store before either wrote: the second finds the episode counted, and
    refuses whole rather than add the corroboration twice."""
    folder, store = imported_and_corroborated(tmp_path, location)
    with store:
        regrow(folder, ["ep-1", "ep-2", "ep-3", "ep-5"])
        first = graphiti.read(folder, known=known_facts(store, "graphiti"))
        second = graphiti.read(folder, known=known_facts(store, "graphiti"))
        sync_snapshot(store, first, Config(), clock=Clock(parse_time(SYNCED)))
        before = mark(location)
        with pytest.raises(StoreError, match="graphiti:e-old changed while its source was read"):
            sync_snapshot(store, second, Config(), clock=Clock(parse_time(SYNCED)))
        assert mark(location) == before and fact(store)["corroborations"] == 4
