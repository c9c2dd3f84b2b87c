"""A filter's value with a space in it, quoted (`note:"My Notes.md"`): notes named as people
name files, in the browser's search, `score --where` and MCP `search`; and the term the
browser's count by note (`F`) puts in the search box for such a note."""

from __future__ import annotations

import numpy as np
import pytest

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import QueryError
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review import frequency
from synapse_tui.core.review import query as fq
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from tests.helpers import run, write_jsonl

NOW = "2026-12-01T00:00:00Z"
FACTS = [
    ("q1", "Deploys go out on Fridays", "My Notes.md", "my app"),
    ("q2", "The payments api retries three times", "My Notes.md", "my app"),
    ("q3", "Deploys need a second reviewer", "Team Notes/On Call.md", "mem0"),
    ("q4", "The staging database is reset nightly", "My", "mem0"),
    ("q5", "Use pnpm, not npm", "progress.md", "my app"),
]


@pytest.fixture
def db(new_store, tmp_path):
    facts = [
        {"id": i, "text": t, "created_at": "2026-11-01T00:00:00Z", "note": n, "provenance": {"x-source": s}}
        for i, t, n, s in FACTS
    ]
    location = new_store("q")
    with Store.open(location, create=True) as store:
        import_facts(store, parse_file(write_jsonl(tmp_path / "q.jsonl", facts)), "q")
    return location


def ids(store: Store, query: str) -> list[str]:
    memory = Memory(store, Config(), parse_time(NOW))
    return sorted(memory.ids[p] for p in fq.run(memory, query))


def test_a_quoted_note_names_a_note_with_spaces(db):
    with Store.open(db, readonly=True) as store:
        assert ids(store, 'note:"My Notes.md"') == ["q1", "q2"]
        assert ids(store, 'note:"Team Notes/On Call.md"') == ["q3"]
        assert ids(store, '-note:"My Notes.md"') == ["q3", "q4", "q5"]
        assert ids(store, 'note:"My Notes.md" deploys') == ["q1"]
        assert ids(store, "note:My") == ["q4"]  # unquoted: one word, as before
        assert ids(store, "note:progress.md") == ["q5"]


def test_the_other_filters_take_a_quoted_value_alike(db):
    with Store.open(db, readonly=True) as store:
        assert ids(store, 'prov:x-source="my app"') == ["q1", "q2", "q5"]
        assert ids(store, 'prov:"x-source=my app"') == ["q1", "q2", "q5"]
        assert ids(store, 'tier:"auto" note:"My Notes.md"') == ["q1", "q2"]


@pytest.mark.parametrize(
    ("query", "token"),
    [
        ('note:"My Notes.md', 'note:"My'),
        ('prov:x-source="my app', 'prov:x-source="my'),
        ('-note:"', '-note:"'),
    ],
)
def test_a_quote_left_open_is_refused_pointing_at_it(db, query, token):
    with pytest.raises(QueryError) as exc:
        fq.parse(query)
    assert "opens a quote it does not close" in str(exc.value)
    assert exc.value.token == token


def test_score_where_and_mcp_search_take_it(db):
    out = run("score", db, "--where", 'note:"My Notes.md"', "--json", "--now", NOW).output
    assert sorted(line.split('"id": "')[1][:2] for line in out.splitlines() if '"id": "' in line) == [
        "q1",
        "q2",
    ]
    with Store.open(db, readonly=True) as store:
        recall = Recall(store, Config(), Clock(parse_time(NOW)))
        got = {r["id"] for r in recall.search('note:"My Notes.md" When do deploys go out?', 10)["results"]}
    assert got == {"q1"}  # not q3, which says `Deploys` too in another note


def test_counting_by_note_offers_a_term_that_lists_the_note(db):
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, Config(), parse_time(NOW))
        found = frequency.facets(store, len(memory))
        groups = frequency.count("note", np.arange(len(memory)), memory, found)
        terms = {g.value: g.term for g in groups}
        assert terms["My Notes.md"] == 'note:"My Notes.md"'
        for group in groups:
            assert ids(store, group.term) == sorted(i for i, _, n, _ in FACTS if n == group.value), group.term
