"""Recall, the headless half of the MCP server: envelopes, freshness beside other writers,
an agent's writes (without the `mcp` SDK, so CI checks this even where it is missing)."""

from __future__ import annotations

import numpy as np
import pytest

from synapse_tui.core.agent import Recall, agent_actor
from synapse_tui.core.base.clock import Clock, format_time, parse_time
from synapse_tui.core.base.errors import InputError, QueryError, SynapseError
from synapse_tui.core.ingest.interchange import export_facts, import_facts, parse_file
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import Action, Triage, TriageError, export_audit
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.score import review_due, review_dues
from tests.helpers import trusted_config, write_jsonl

NOW = parse_time("2026-12-01T00:00:00Z")
AGENT = "agent:scout"


@pytest.fixture
def recall(store_location):
    store = Store.open(store_location)
    recall = Recall(store, trusted_config(), Clock(NOW))
    yield recall
    recall.settle()
    store.close()


def test_search_carries_the_trust_envelope_and_ranks_by_trust_without_words(recall):
    found = recall.search("", limit=3)
    rows = recall.memory.rows()
    best = sorted(rows, key=lambda r: -r["trust"])[:3]
    assert [r["id"] for r in found["results"]] == [r["id"] for r in best] and found["total"] == 5
    a = recall.search("Payments")["results"][0]
    assert a["id"] == "a" and a["superseded_by"] == ["b"] and a["k"] == 1
    assert a["text"] == "Maria owns the Payments API"
    assert a["review_due"] == recall.memory.review_due(recall.memory.index["a"])
    assert a["stale"] == (a["freshness"] < 0.5) and a["guidance_advice"].startswith(a["guidance"])
    # an agent's question is never a filter typo: a name that is no field reads as words
    assert any("'trsut<0.3' read as words" in s for s in recall.search("trsut<0.3")["signals"])
    with pytest.raises(QueryError, match="did you mean 'auto'"):  # a real filter's bad value is
        recall.search("tier:autp")


def test_review_dates_in_a_batch_equal_one_at_a_time(store_location):
    with Store.open(store_location) as store:
        memory = Memory(store, trusted_config(), NOW)
        positions = np.arange(len(memory))
        batch = review_dues(memory.arrays, positions, memory.config)
        assert [review_due(memory.arrays, int(i), memory.config) for i in positions] == batch.tolist()


def test_another_writers_triage_and_import_are_seen_on_the_next_call(recall, tmp_path, store_location):
    assert recall.show("e")["corroborations"] == 0
    with Store.open(store_location) as other:
        Triage(other, Clock(NOW), "user:someone", config=trusted_config()).apply(Action.CORROBORATE, ["e"])
    e = recall.show("e")
    assert e["corroborations"] == 1 and e["history"][-1]["actor"] == "user:someone"
    src = write_jsonl(
        tmp_path / "late.jsonl", [{"id": "late", "text": "a late fact", "created_at": "2026-11-30T00:00:00Z"}]
    )
    with Store.open(store_location) as other:
        import_facts(other, parse_file(src), str(src))
    assert [r["id"] for r in recall.search("late")["results"]] == ["late"]
    # what the partial refresh and the reload built equals a fresh load
    assert recall.memory.rows() == Memory(recall.store, trusted_config(), NOW).rows()


def test_the_answer_to_an_agents_verify_dates_the_next_review_from_it(recall, store_location):
    """A verify adds a reinforcement now: the answer's review date moves with it, as a fresh
    reading of the store says (it was read from the events before the action)."""
    before = recall.show("e")["review_due"]
    e = recall.triage(Action.VERIFY, "e", AGENT)
    with Store.open(store_location) as store:
        fresh = Memory(store, trusted_config(), NOW)
        assert e["review_due"] == fresh.review_due(fresh.index["e"]) != before
    assert recall.show("e")["review_due"] == e["review_due"]


def test_an_agent_adds_evidence_but_does_not_accept(recall):
    e = recall.triage(Action.VERIFY, "e", AGENT)
    assert e["reinforced_at"] == [format_time(NOW)] and e["history"][-1]["actor"] == AGENT
    assert e["history"][-1]["score_before"]["reinforcement_count"] == 1
    with pytest.raises(TriageError, match="person's decision"):
        recall.triage(Action.ACCEPT, "e", AGENT)
    with pytest.raises(TriageError, match="no fact with id 'zz'"):
        recall.triage(Action.CORROBORATE, "zz", AGENT)


def test_remember_creates_an_auto_fact_naming_the_agent_and_supersedes_in_one_step(recall):
    new = recall.remember("Maria owns the Ledger API", AGENT, entities=["Maria"], supersedes="c", model="m1")
    assert new["declared_tier"] == "auto" and new["provenance"] == {"x-ai-agent": "scout", "x-ai-model": "m1"}
    assert new["supersedes"] == "c" and recall.show("c")["superseded_by"] == [new["id"]]
    entry = recall.show("c")["history"][-1]
    assert (entry["action"], entry["actor"], entry["score_before"]["k"]) == ("supersede", AGENT, 0)
    # the neighbour graph catches up behind the write, without a reload of the scores
    arrays = recall.memory.arrays
    recall.settle()
    from synapse_tui.core.graph.build import load_edges

    assert any(new["id"] in (e.a, e.b) for e in load_edges(recall.store))
    recall.show("c")
    assert (
        recall.memory.arrays is arrays
        and recall.memory.rows() == Memory(recall.store, trusted_config(), NOW).rows()
    )
    # a person undoes the agent's supersession like their own; the fact stays
    Triage(recall.store, Clock(NOW), "user:me", config=trusted_config()).undo()
    assert recall.show("c")["superseded_by"] == [] and recall.show(new["id"])["supersedes"] is None


def test_a_refused_remember_changes_nothing(recall):
    before = list(export_facts(recall.store)), list(export_audit(recall.store))
    with pytest.raises(TriageError, match="no fact with id 'gone'"):
        recall.remember("text", AGENT, supersedes="gone")
    with pytest.raises(InputError, match="field 'text'"):
        recall.remember("   ", AGENT)
    with pytest.raises(InputError, match="field 'entities'"):
        recall.remember("ok", AGENT, entities=[""])
    assert (list(export_facts(recall.store)), list(export_audit(recall.store))) == before


def test_agent_names_are_one_printable_line():
    assert agent_actor("Claude Desktop") == "agent:Claude Desktop"
    assert agent_actor("evil\x1b[31m\nname") == "agent:evil [31m name"
    assert agent_actor(None) == agent_actor("  ") == "agent:unknown"


def test_a_read_only_store_serves_reads_and_refuses_writes(store_location):
    with Store.open(store_location, readonly=True) as store:
        recall = Recall(store, trusted_config(), Clock(NOW))
        assert recall.show("a")["id"] == "a"
        with pytest.raises(TriageError, match="read-only"):
            recall.triage(Action.CORROBORATE, "a", AGENT)
        with pytest.raises(SynapseError, match="read-only"):
            recall.remember("a new fact", AGENT)
        assert recall.show("a")["corroborations"] == 3
