"""The session log over a real store: entries since the mark, newest first, who did what,
and which one undo would revert."""

from __future__ import annotations

from pathlib import Path

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.sessionlog import describe_change, session_batch, session_log, session_mark
from synapse_tui.core.review.triage import Triage, TriageError
from synapse_tui.core.store.db import Store

FACTS = Path(__file__).parents[1] / "ui" / "fixtures" / "facts.jsonl"
CLOCK = Clock(parse_time("2026-12-01T00:00:00Z"))


def test_session_log(tmp_path: Path) -> None:
    with Store.open(tmp_path / "m.db", create=True) as store:
        import_facts(store, parse_file(FACTS), "facts.jsonl")
        Triage(store, CLOCK, actor="user:old").apply("verify", ["f-sso"])
        since = session_mark(store)
        assert since == 1
        me, agent = Triage(store, CLOCK, actor="user:ada"), Triage(store, CLOCK, actor="agent:scribe")
        me.apply("corroborate", ["f-deploy"])
        agent.apply("contradict", ["f-pay-02", "f-pay-03"])
        me.apply("accept", ["f-pay-02"])
        me.undo()
        log = session_log(store, since)
        # one row per action: the agent's contradiction of two facts is one row
        assert [(e.what, e.fact_id, e.actor, e.facts) for e in log] == [
            ("undo of #4", "f-pay-02", "user:ada", 1),
            ("accept", "f-pay-02", "user:ada", 1),
            ("contradict", "f-pay-02", "agent:scribe", 2),
            ("corroborate", "f-deploy", "user:ada", 1),
        ]
        assert [(e.what, e.fact_id) for e in session_batch(store, log[2].batch)] == [
            ("contradict", "f-pay-02"),
            ("contradict", "f-pay-03"),
        ]
        assert [e.undone for e in log] == [False, True, False, False]
        # undo now reverts the agent's batch (both of its facts), whoever made it
        assert [e.next_undo for e in log] == [False, False, True, False]
        assert log[-1].change == "r 1 -> 2, reinforcements 1 -> 2"
        assert log[1].change == "tier auto -> human"
        assert session_log(store, session_mark(store)) == ()
        # undo of a chosen row: only while it is still the newest live action
        with pytest.raises(TriageError, match="the newest live action is #3, not #2: nothing undone"):
            me.undo(expect=2)
        assert store.record("f-pay-02").contradictions == 1
        assert me.undo(expect=3).fact_ids == ["f-pay-02", "f-pay-03"]


def test_describe_change() -> None:
    assert describe_change({"contradictions": 0}, {"contradictions": 1}) == "s 0 -> 1"
    assert describe_change({"reinforcement_count": 4}, {"reinforcement_count": 5}) == "reinforcements 4 -> 5"
    assert describe_change({"supersedes": None}, {"supersedes": "f-a"}) == "supersedes — -> f-a"
    assert describe_change({}, {"superseded_by": "f-b"}) == "superseded by — -> f-b"
    assert describe_change({"tier": "human"}, {"tier": "human"}) == "no change"
