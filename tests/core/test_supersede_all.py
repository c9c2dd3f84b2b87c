"""Accepting several `replaced` suggestions at once (the queues' `Y`) is one audited action:
one undo brings every pair back, one redo lands them again, and a pair any single
`supersede` would refuse (or a suggestion no longer standing) refuses them all, named,
with nothing written. On a SQLite file and on a real PostgreSQL."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.triage import Triage, TriageError
from synapse_tui.core.store.db import Store
from tests.helpers import write_jsonl
from tests.store_state import mark

NOW = Clock(parse_time("2026-12-01T00:00:00Z"))
FACTS = [
    *({"id": f"o{i}", "text": f"old fact {i}", "created_at": "2026-01-01T00:00:00Z"} for i in (1, 2, 3)),
    *({"id": f"n{i}", "text": f"new fact {i}", "created_at": "2026-03-01T00:00:00Z"} for i in (1, 2, 3)),
    {"id": "x", "text": "a fact between", "created_at": "2026-02-01T00:00:00Z"},
]
THREE = [("o1", "n1"), ("o2", "n2"), ("o3", "n3")]


@pytest.fixture
def store(new_store, tmp_path):
    src = write_jsonl(tmp_path / "facts.jsonl", FACTS)
    location = new_store("m")
    with Store.open(location, create=True) as made:
        import_facts(made, parse_file(src), str(src))
    opened = Store.open(location)
    yield location, opened
    opened.close()


def successors(store: Store) -> list[list[str]]:
    return [store.superseded_by(old) for old, _ in THREE]


def test_three_pairs_are_one_action_undone_and_redone_at_once(store):
    _, opened = store
    triage = Triage(opened, NOW, "tester", config=Config())
    outcome = triage.supersede_all(THREE)
    assert successors(opened) == [["n1"], ["n2"], ["n3"]]
    assert {e.batch for e in opened.audit.batch(outcome.batch)} == {outcome.batch}
    assert len(opened.audit.batch(outcome.batch)) == 6  # each pair's two entries, one batch
    triage.undo()  # one step: all three back
    assert successors(opened) == [[], [], []]
    assert [opened.review.supersedes(new)[1] for _, new in THREE] == [None, None, None]
    triage.redo()
    assert successors(opened) == [["n1"], ["n2"], ["n3"]]


@pytest.mark.parametrize(
    ("before", "pairs", "named", "why"),
    [
        ([], [("o1", "n1"), ("n1", "o1")], "n1 by o1", "cycle"),  # the batch's own pair before it
        ([("x", "o2")], [("o1", "n1"), ("o2", "x")], "o2 by x", "cycle"),  # the store's
        ([], [("o1", "n1"), ("o2", "n1")], "o2 by n1", "one predecessor"),
        ([("o3", "n3")], [("o1", "n1"), ("o2", "n3")], "o2 by n3", "one predecessor"),
        ([("o1", "x")], [("o2", "n2"), ("o1", "n1")], "o1 by n1", "already has a successor"),
        ([], [("o1", "n1"), ("o1", "n2")], "o1 by n2", "already has a successor"),
        ([], [("o2", "n2"), ("n3", "o3")], "n3 by o3", "not created after"),
        ([], [("o1", "n1"), ("o2", "nope")], "o2 by nope", "nope"),
    ],
)
def test_one_refused_pair_writes_nothing_and_is_named(store, before, pairs, named, why):
    location, opened = store
    triage = Triage(opened, NOW, "tester", config=Config())
    for old, new in before:  # the store as another action left it
        triage.apply("supersede", [old], new)
    unchanged = mark(location)
    with pytest.raises(TriageError) as refused:
        triage.supersede_all(pairs)
    said = str(refused.value)
    assert f"supersede {named}" in said and why in said and "nothing changed" in said, said
    assert mark(location) == unchanged
