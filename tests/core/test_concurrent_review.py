"""Two reviewers on one store, each with a connection of its own, on a file (WAL) and on a
server: an action decided on a state another writer has since changed is refused and writes
nothing, undo never writes over a later change that still stands, and the same holds with
both acting at once (issue 25, point 4)."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.review.triage import StaleError, Triage, TriageError, export_audit
from synapse_tui.core.store.db import Store
from tests.helpers import trusted_config

NOW = parse_time("2026-12-01T00:00:00Z")
STAMP = "2026-12-01T00:00:00Z"


@pytest.fixture
def two(store_location):
    """Ann's and Bob's sessions on the same store."""
    with Store.open(store_location) as ann, Store.open(store_location) as bob:
        yield (
            Triage(ann, Clock(NOW), "user:ann", config=trusted_config()),
            Triage(bob, Clock(NOW), "user:bob", config=trusted_config()),
        )


def audit(triage: Triage) -> list[tuple[str, str, str]]:
    return [(e["actor"], e["action"], e["id"]) for e in export_audit(triage.store)]


def counts(triage: Triage, fact_id: str) -> tuple[int, int]:
    fields = triage.store.review.fields(fact_id)
    return fields["corroborations"], fields["contradictions"]


def test_the_second_of_two_who_loaded_the_same_fact_is_refused(two):
    ann, bob = two
    loaded = ann.store.audit.mark(), bob.store.audit.mark()  # both look at fact e
    ann.apply("corroborate", ["e"], seen=loaded[0])
    with pytest.raises(StaleError) as refused:
        bob.apply("contradict", ["e"], seen=loaded[1])
    assert str(refused.value) == (
        f"contradict e: changed by user:ann at {STAMP} since you loaded it; reload to see it"
    )
    assert refused.value.entry.actor == "user:ann"
    # nothing of Bob's was written, and Ann's action stands
    assert audit(bob) == [("user:ann", "corroborate", "e")]
    assert bob.store.review.fields("e")["contradictions"] == 4
    assert bob.store.review.fields("e")["corroborations"] == 1
    # Bob reloads, sees Ann's corroboration, and still contradicts: both actions are kept
    bob.apply("contradict", ["e"], seen=bob.store.audit.mark())
    assert audit(ann) == [("user:ann", "corroborate", "e"), ("user:bob", "contradict", "e")]
    assert counts(ann, "e") == (1, 5)


def test_another_fact_changed_meanwhile_does_not_refuse(two):
    ann, bob = two
    loaded = bob.store.audit.mark()
    ann.apply("verify", ["a"])
    bob.apply("verify", ["e"], seen=loaded)
    assert [x[2] for x in audit(ann)] == ["a", "e"]


def test_a_sessions_own_actions_never_refuse_its_next(two):
    ann, _ = two
    loaded, own = ann.store.audit.mark(), set()
    own.add(ann.apply("corroborate", ["e"], seen=loaded).batch)
    own.add(ann.apply("verify", ["e"], seen=loaded, own=own).batch)
    assert len(audit(ann)) == 2
    with pytest.raises(StaleError, match="changed by user:ann"):  # without saying which were its own
        ann.apply("verify", ["e"], seen=loaded)


def test_own_actions_and_another_fact_changed_meanwhile_together_do_not_refuse(two):
    ann, bob = two
    loaded = ann.store.audit.mark()
    bob.apply("verify", ["a"])
    own = {ann.apply("corroborate", ["e"], seen=loaded).batch}
    ann.apply("verify", ["e"], seen=loaded, own=own)
    assert [x[2] for x in audit(bob)] == ["a", "e", "e"]


def test_a_bulk_action_with_one_changed_fact_writes_nothing(two):
    ann, bob = two
    loaded = bob.store.audit.mark()
    ann.apply("contradict", ["d"])
    with pytest.raises(StaleError, match=r"^verify d: changed by user:ann"):
        bob.apply("verify", ["a", "c", "d", "e"], seen=loaded)
    assert audit(bob) == [("user:ann", "contradict", "d")]
    assert bob.store.review.fields("a")["reinforced_at"] == ["2026-11-20T10:00:00Z"]


def test_a_supersession_checks_the_replacing_fact_too(two):
    ann, bob = two
    loaded = bob.store.audit.mark()
    ann.apply("contradict", ["d"])  # the fact Bob chose as the replacement
    with pytest.raises(StaleError, match=r"^supersede d: changed by user:ann"):
        bob.apply("supersede", ["c"], "d", seen=loaded)
    assert bob.store.review.supersedes("d") == (True, None)


def test_without_a_loaded_state_the_action_decides_now(two):
    """The CLI's one-shot verbs: no expected state, so both land."""
    ann, bob = two
    ann.apply("corroborate", ["e"])
    bob.apply("contradict", ["e"])
    assert len(audit(ann)) == 2


def test_the_browsers_undo_of_its_own_action_says_who_came_after(two):
    ann, bob = two
    mine = ann.apply("corroborate", ["e"]).batch
    bob.apply("contradict", ["e"])
    with pytest.raises(TriageError) as refused:
        ann.undo(expect=mine)
    assert str(refused.value) == (
        f"the newest live action is #{mine + 1}, not #{mine}: nothing undone"
        f" (#{mine + 1} is user:bob's contradict at {STAMP})"
    )
    assert ann.store.review.fields("e")["corroborations"] == 1


def test_a_redo_is_a_change_of_its_own_the_next_undo_undoes_it(two):
    """Bob's corroboration is the newest action by number, but Ann's older contradiction was
    redone after it: the next undo takes back Ann's redo, the one after it Bob's (issue 42:
    it used to refuse for good, "changed by user:ann since (redo, #n)")."""
    ann, bob = two
    contradicted = ann.apply("contradict", ["e"]).batch
    corroborated = bob.apply("corroborate", ["e"]).batch
    bob.undo(expect=corroborated)
    ann.undo(expect=contradicted)
    bob.redo(expect=corroborated)
    ann.redo(expect=contradicted)
    assert ann.undo_target() == contradicted
    assert bob.undo().action == "undo contradict"
    assert counts(bob, "e") == (1, 4)
    assert bob.undo().action == "undo corroborate"
    assert counts(bob, "e") == (0, 4)
    with pytest.raises(TriageError, match="nothing to undo"):
        bob.undo()


def test_undo_after_a_change_that_was_itself_undone_goes_ahead(two):
    ann, bob = two
    ann.apply("corroborate", ["e"])
    bob.apply("contradict", ["e"])
    bob.undo()  # Bob takes his back: the fact is as Ann's action left it
    out = ann.undo()
    assert out.action == "undo corroborate"
    assert counts(ann, "e") == (0, 4)


def test_an_agent_acts_on_the_fact_as_it_was_shown_it(store_location):
    """MCP: evidence commutes (issue 43): another writer's action since the agent's `show`
    does not refuse the agent's evidence, which lands on the fact as it stands and counts."""
    from synapse_tui.core.agent import Recall

    with Store.open(store_location) as mine, Store.open(store_location) as theirs:
        recall = Recall(mine, trusted_config(), Clock(NOW))
        person = Triage(theirs, Clock(NOW), "user:ann", config=trusted_config())
        recall.show("e")
        person.apply("corroborate", ["e"])
        after = recall.triage("contradict", "e", "agent:scout")
        assert (after["corroborations"], after["contradictions"]) == (1, 5)
        # its own action is what it was shown last: the next one lands too
        recall.triage("verify", "e", "agent:scout")
        # a fact it was never shown is acted on as it stands, as the CLI does
        person.apply("verify", ["a"])
        recall.triage("corroborate", "a", "agent:scout")
        assert [x[0] for x in audit(person)] == [
            "user:ann",
            "agent:scout",
            "agent:scout",
            "user:ann",
            "agent:scout",
        ]


def test_an_agent_acts_on_what_a_search_showed_it(store_location):
    """A search's results are what the agent decided on: its evidence lands whatever
    another writer did since, but a decision (a supersede) taken on what it was shown is
    refused once another writer changed the fact, and lands once it has looked again."""
    from synapse_tui.core.agent import Recall

    with Store.open(store_location) as mine, Store.open(store_location) as theirs:
        recall = Recall(mine, trusted_config(), Clock(NOW))
        person = Triage(theirs, Clock(NOW), "user:ann", config=trusted_config())
        recall.search("Maria")
        person.apply("contradict", ["a"])
        recall.triage("verify", "a", "agent:scout")
        assert recall.show("a")["contradictions"] == 1
        recall.search("Maria")
        person.apply("contradict", ["a"])
        with pytest.raises(StaleError, match=f"changed by user:ann at {STAMP} since you loaded it"):
            recall.remember("Maria owns the Ledger API", "agent:scout", supersedes="a")
        recall.show("a")
        recall.remember("Maria owns the Ledger API", "agent:scout", supersedes="a")


def test_both_acting_at_once_on_what_they_loaded_lose_nothing(store_location):
    """Two threads, a connection each: every action lands or is refused whole; a refused
    reviewer reloads and acts again, and in the end every action landed once."""
    import threading

    rounds, failures = 8, []
    start = threading.Barrier(2)

    def review(who: str) -> None:
        try:
            with Store.open(store_location) as store:
                triage = Triage(store, Clock(NOW), f"user:{who}", config=trusted_config())
                own: set[int] = set()
                start.wait()
                for _ in range(rounds):
                    while True:
                        loaded = store.audit.mark()
                        try:
                            own.add(triage.apply("corroborate", ["a"], seen=loaded, own=own).batch)
                            break
                        except StaleError:
                            continue  # reload and act again
        except Exception as exc:  # noqa: BLE001 - the test reports it below
            failures.append(exc)

    threads = [threading.Thread(target=review, args=(who,)) for who in ("ann", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert failures == []
    with Store.open(store_location, readonly=True) as store:
        entries = list(export_audit(store))
        assert store.review.fields("a")["corroborations"] == 3 + 2 * rounds
    assert sorted(e["batch"] for e in entries) == list(range(1, 2 * rounds + 1))
    assert sorted(e["actor"] for e in entries) == ["user:ann"] * rounds + ["user:bob"] * rounds


def test_an_agent_remembering_a_replacement_for_a_changed_fact_writes_nothing(store_location):
    from synapse_tui.core.agent import Recall

    with Store.open(store_location) as mine, Store.open(store_location) as theirs:
        recall = Recall(mine, trusted_config(), Clock(NOW))
        person = Triage(theirs, Clock(NOW), "user:ann", config=trusted_config())
        recall.show("e")
        person.apply("verify", ["e"])
        with pytest.raises(StaleError, match="^supersede e: changed by user:ann"):
            recall.remember("the newer fact", "agent:scout", supersedes="e")
        assert theirs.count() == 5 and [x[1] for x in audit(person)] == ["verify"]
        recall.show("e")
        shown = recall.remember("the newer fact", "agent:scout", supersedes="e")
        assert theirs.count() == 6 and shown["supersedes"] == "e"
        recall.settle()
