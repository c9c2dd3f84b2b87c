"""`dismiss` as a newcomer types it: twice, or with the wrong other side."""

from __future__ import annotations

from tests.cli_run import refused, run
from tests.helpers import NOW, json_lines, write_jsonl

FACTS = [
    {"id": "a1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "a2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
]


def _suggested(db) -> list[tuple[str, str]]:
    return [(s["fact"], s["by"]) for s in json_lines(run("suggest", db, "--json", "--now", NOW).stdout)]


def test_a_second_dismissal_changes_nothing_and_one_undo_brings_it_back(tmp_path, new_store):
    """The second wrote another `dismiss`, so one `undo` said "undid dismiss" and the
    suggestion stayed away. Like `accept` and `supersede` done twice, it now changes nothing."""
    db = new_store("s")
    run("import", write_jsonl(tmp_path / "f.jsonl", FACTS), "--db", db)
    assert _suggested(db) == [("a1", "a2")]
    run("dismiss", db, "a1", "a2", "--now", NOW)
    line = refused("dismiss", db, "a1", "a2", "--now", NOW)
    assert "nothing to change (already dismissed)" in line, line
    assert "undid dismiss a1" in run("undo", db, "--now", NOW).output
    assert _suggested(db) == [("a1", "a2")]


def test_dismissing_a_pair_not_suggested_says_so(tmp_path, new_store):
    """A typo'd other side (another fact, a path the queue does not name) said "dismissed 1
    suggestion" while the real one stayed; it still remembers the pair (never suggested),
    and says that nothing suggested it now."""
    db = new_store("s")
    more = [
        *FACTS,
        {"id": "b1", "text": "the office wifi rotates monthly", "created_at": "2025-04-01T00:00:00Z"},
    ]
    run("import", write_jsonl(tmp_path / "f.jsonl", more), "--db", db)
    out = run("dismiss", db, "a1", "b1", "--now", NOW).output
    assert "a1 by b1" in out and "not suggested now" in out, out
    assert _suggested(db) == [("a1", "a2")]
    out = run("dismiss", db, "a1", "a2", "--now", NOW).output
    assert "not suggested now" not in out, out
