"""Reads asked together (`Store.batch`) answer what each asked alone answers, on a file
and on a server, where they go in one round trip; and an agent's action, whose reads go
together, lands and answers as the same action taken by the CLI."""

from __future__ import annotations

import numpy as np

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.review.triage import Action, Triage
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.ops import (
    AuditSince,
    ChangedSince,
    CurrentMarks,
    DataVersion,
    Detail,
    FactInputs,
    Inputs,
    Marks,
    Meta,
    MetaPrefix,
    NextBatch,
    Supersession,
    Supersessors,
    TriageFields,
)
from tests.helpers import NOW, trusted_config


def _same(x, y) -> bool:
    """Equal answers; the arithmetic's inputs hold numpy arrays."""
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.array_equal(x, y)
    return x == y


def test_reads_together_answer_as_each_alone(store_location):
    config = trusted_config()
    with Store.open(store_location) as store:
        mark = store.audit.mark()
        Triage(store, Clock.from_option(NOW), "user:ann", config=config).apply("corroborate", ["a", "e"])
        ids = ["a", "b", "e", "no-such-fact"]
        ops = [
            *(TriageFields(fid) for fid in ids),
            FactInputs.of(ids, config),
            Supersessors(tuple(ids)),
            CurrentMarks(),
            ChangedSince(mark),
            AuditSince(tuple(ids), mark),
        ]
        together = store.batch(ops)
        alone = [
            *(store.review.fields(fid) for fid in ids),
            store.fact_inputs(ids, config),
            store.supersessors(ids),
            store.marks(),
            store.audit.facts_since(mark),
            store.audit.about_since(ids, mark),
        ]
        assert _same(together, alone)
        assert _same(together, [store.ask(op) for op in ops])
        assert together[ids.index("no-such-fact")] is None
        inputs, above, marks = together[len(ids) : len(ids) + 3]
        # typed answers: a fact's inputs by name, supersessions as (old, new), the marks
        assert all(isinstance(row, Inputs) for row in inputs.values())
        assert {row.id for row in inputs.values()} == {"a", "b", "e"}
        assert all(isinstance(pair, Supersession) for pair in above)
        assert isinstance(marks, Marks) and marks.audit > mark
        assert sorted(together[len(ids) + 3]) == ["a", "e"]  # facts_since: what the action changed
        assert [e.fact_id for e in together[-1]] == ["a", "e"]
        # what `show` asks together, and the number the next action's entries take
        version, batch, detail = store.batch([DataVersion(), NextBatch(), Detail("a")])
        assert version == store.data_version()
        assert detail == store.ask(Detail("a")) and detail.record == store.record("a")
        landed = Triage(store, Clock.from_option(NOW), "user:ann", config=config).apply("contradict", ["b"])
        assert landed.batch == batch


def test_an_agents_action_lands_as_the_clis(new_store, tmp_path):
    """The same corroborate by an agent's session and by Triage on two copies of one store:
    the same fact, audit entry and answer; and an action another writer overtook is
    refused, decided on the state the agent was shown."""
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.review.triage import StaleError
    from tests.helpers import base_facts, write_jsonl

    src = write_jsonl(tmp_path / "facts.jsonl", base_facts())
    config, clock = trusted_config(), Clock.from_option(NOW)
    stores = []
    for name in ("agent", "cli"):
        location = new_store(name)
        with Store.open(location, create=True) as store:
            import_facts(store, parse_file(src), str(src))
        stores.append(Store.open(location))
    agent_store, cli_store = stores
    try:
        recall = Recall(agent_store, config, clock)
        recall.show("a")
        shown = recall.triage(Action.CORROBORATE, "a", "agent:scout")
        Triage(cli_store, clock, "agent:scout", config=config).apply("corroborate", ["a"])
        assert agent_store.review.fields("a") == cli_store.review.fields("a")
        assert list(agent_store.audit.entries()) == list(cli_store.audit.entries())
        assert shown["corroborations"] == cli_store.review.fields("a")["corroborations"]
        assert shown["history"][-1]["actor"] == "agent:scout"
        # the action's answer, read inside its transaction, is what a new session's `show`
        # says once it landed
        assert shown == Recall(agent_store, config, clock).show("a")
        # another writer adds evidence after the agent was shown the fact: evidence commutes,
        # so the agent's lands on the fact as it stands (issue 43); a decision is refused
        with Store.open(agent_store.path) as other:
            Triage(other, clock, "user:bob", config=config).apply("contradict", ["a"])
        after = recall.triage(Action.CORROBORATE, "a", "agent:scout")
        assert (after["corroborations"], after["contradictions"]) == (5, 1)
        with Store.open(agent_store.path) as other:
            Triage(other, clock, "user:bob", config=config).apply("contradict", ["a"])
        before = agent_store.review.fields("a")
        try:
            recall.remember("Maria owns the Ledger API", "agent:scout", supersedes="a")
        except StaleError as refused:
            assert refused.entry.actor == "user:bob"
        else:
            raise AssertionError("an overtaken supersede was not refused")
        assert agent_store.review.fields("a") == before
    finally:
        for store in stores:
            store.close()


def test_reads_after_an_action_see_the_store_as_it_leaves_it(store_location):
    """`Triage.apply`'s reads_after are answered inside the action's transaction, after its
    writes: the same answers as the reads asked once it has landed."""
    with Store.open(store_location) as store:
        triage = Triage(store, Clock.from_option(NOW), "agent:scout", config=trusted_config())
        reads = [TriageFields("a"), CurrentMarks(), ChangedSince(0)]
        landed = triage.apply("corroborate", ["a"], reads_after=reads)
        assert landed.read_after == [store.review.fields("a"), store.marks(), ["a"]]
        assert landed.read_after[0]["corroborations"] == 4  # the fact's 3, and this action's


def test_reads_sent_soon_answer_in_their_snapshot(store_location):
    """`Store.batch_soon` inside a snapshot: answered once the snapshot's next read has gone,
    as `batch` answers (a server sends them together)."""
    with Store.open(store_location) as store:
        store.set_meta("test.kept", {"n": 1})
        store.set_meta("test_p.one", 1)
        store.set_meta("testXp.two", 2)  # LIKE 'test_p.%' would match it: a prefix does not
        with store.snapshot():
            soon = store.batch_soon([Meta("test.kept"), Meta("test.absent"), MetaPrefix("test_p.")])
            detail = store.ask(Detail("a"))
            assert soon() == [{"n": 1}, None, [("test_p.one", 1)]]
        assert detail == store.ask(Detail("a"))
