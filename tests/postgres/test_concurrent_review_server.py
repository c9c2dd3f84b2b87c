"""Two reviewers on one store on a server, each with a connection of its own: the second of
two who loaded the same fact is refused and nothing is lost; undo never writes over a later
change that stands; and the same holds with both acting at once (issue 25, point 4)."""

from __future__ import annotations

import threading

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.review.triage import StaleError, Triage, TriageError, export_audit
from synapse_tui.core.store.db import Store
from tests.helpers import run

pytestmark = pytest.mark.postgres

NOW = parse_time("2026-12-01T00:00:00Z")
STAMP = "2026-12-01T00:00:00Z"


@pytest.fixture
def server(db, new_database):
    url = new_database()
    run("copy", db, url)
    return url


@pytest.fixture
def two(server):
    with Store.open(server) as ann, Store.open(server) as bob:
        yield Triage(ann, Clock(NOW), "user:ann"), Triage(bob, Clock(NOW), "user:bob")


def audit(triage: Triage) -> list[tuple[str, str, str]]:
    return [(e["actor"], e["action"], e["id"]) for e in export_audit(triage.store)]


def counts(triage: Triage, fact_id: str) -> tuple[int, int]:
    fields = triage.store.review.fields(fact_id)
    return fields["corroborations"], fields["contradictions"]


def test_the_second_of_two_who_loaded_the_same_fact_is_refused(two):
    ann, bob = two
    loaded = ann.store.audit.mark(), bob.store.audit.mark()
    ann.apply("corroborate", ["e"], seen=loaded[0])
    with pytest.raises(StaleError) as refused:
        bob.apply("contradict", ["e"], seen=loaded[1])
    assert str(refused.value) == (
        f"contradict e: changed by user:ann at {STAMP} since you loaded it; reload to see it"
    )
    assert audit(bob) == [("user:ann", "corroborate", "e")]
    assert counts(bob, "e") == (1, 4)
    bob.apply("contradict", ["e"], seen=bob.store.audit.mark())  # after a reload
    assert audit(ann) == [("user:ann", "corroborate", "e"), ("user:bob", "contradict", "e")]
    assert counts(ann, "e") == (1, 5)


def test_own_actions_and_other_facts_do_not_refuse(two):
    ann, bob = two
    loaded = ann.store.audit.mark()
    bob.apply("verify", ["a"])
    own = {ann.apply("corroborate", ["e"], seen=loaded).batch}
    ann.apply("verify", ["e"], seen=loaded, own=own)
    assert [x[2] for x in audit(bob)] == ["a", "e", "e"]


def test_undo_refuses_over_a_later_change_that_stands(two):
    ann, bob = two
    contradicted = ann.apply("contradict", ["e"]).batch
    corroborated = bob.apply("corroborate", ["e"]).batch
    bob.undo(expect=corroborated)
    ann.undo(expect=contradicted)
    bob.redo(expect=corroborated)
    ann.redo(expect=contradicted)
    before = audit(bob)
    with pytest.raises(TriageError, match=r"^cannot undo corroborate on e: changed by user:ann at "):
        bob.undo()
    assert audit(bob) == before
    assert counts(bob, "e") == (1, 5)


def test_the_browsers_undo_of_its_own_action_says_who_came_after(two):
    ann, bob = two
    mine = ann.apply("corroborate", ["e"]).batch
    bob.apply("contradict", ["e"])
    with pytest.raises(TriageError, match=f"nothing undone \\(#{mine + 1} is user:bob's contradict at "):
        ann.undo(expect=mine)
    assert counts(ann, "e") == (1, 5)


def test_both_acting_at_once_on_what_they_loaded_lose_nothing(server):
    """Each reviewer loads, acts, and on a refusal reloads and acts again: every action
    either lands or is refused whole, and in the end all of them landed."""
    rounds, failures, refusals = 8, [], []
    start = threading.Barrier(2)

    def review(who: str) -> None:
        try:
            with Store.open(server) as store:
                triage = Triage(store, Clock(NOW), f"user:{who}")
                own: set[int] = set()
                start.wait()
                for _ in range(rounds):
                    while True:
                        loaded = store.audit.mark()
                        try:
                            own.add(triage.apply("corroborate", ["a"], seen=loaded, own=own).batch)
                            break
                        except StaleError:
                            refusals.append(who)
        except Exception as exc:  # noqa: BLE001 - the test reports it below
            failures.append(exc)

    with Store.open(server, readonly=True) as store:
        before = store.review.fields("a")["corroborations"]
    threads = [threading.Thread(target=review, args=(who,)) for who in ("ann", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert failures == []
    with Store.open(server, readonly=True) as store:
        entries = list(export_audit(store))
        assert store.review.fields("a")["corroborations"] == before + 2 * rounds
    assert sorted(e["batch"] for e in entries) == list(range(1, 2 * rounds + 1))
    assert sorted(e["actor"] for e in entries) == ["user:ann"] * rounds + ["user:bob"] * rounds
