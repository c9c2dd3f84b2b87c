"""A suggestion dismissed twice (a script run again, a second `d` from the shell): the
second wrote another `dismiss`, so one `undo` said "undid dismiss" and the suggestion
stayed away. Like `accept` and `supersede` done twice, the second now changes nothing."""

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
    db = new_store("s")
    run("import", write_jsonl(tmp_path / "f.jsonl", FACTS), "--db", db)
    assert _suggested(db) == [("a1", "a2")]
    run("dismiss", db, "a1", "a2", "--now", NOW)
    line = refused("dismiss", db, "a1", "a2", "--now", NOW)
    assert "nothing to change (already dismissed)" in line, line
    assert "undid dismiss a1" in run("undo", db, "--now", NOW).output
    assert _suggested(db) == [("a1", "a2")]
