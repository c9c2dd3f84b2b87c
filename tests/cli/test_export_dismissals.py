"""`export` then `import`: a suggestion people dismissed stays dismissed. Tried on a real
Claude Code project's store (4444J99/application-pipeline): after the round trip the
dismissed suggestion was back in `suggest` and the R queue."""

from __future__ import annotations

import json

from tests.cli_run import refused, run
from tests.helpers import json_lines, write_jsonl

FACTS = [
    {
        "id": "db-1",
        "text": "The primary database is Postgres 14 on db-1",
        "created_at": "2026-01-01T00:00:00Z",
        "note": "ops",
    },
    {
        "id": "db-2",
        "text": "The primary database is Postgres 16 on db-2",
        "created_at": "2026-03-01T00:00:00Z",
        "note": "ops",
    },
]


def _suggested(db) -> list[tuple[str, str]]:
    return [
        (s["fact"], s["by"])
        for s in json_lines(run("suggest", db, "--json", "--now", "2026-04-01T00:00:00Z").stdout)
    ]


def test_a_dismissal_survives_export_and_import(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", FACTS)
    db, copy = tmp_path / "a.db", tmp_path / "b.db"
    run("import", src, "--db", db)
    assert _suggested(db) == [("db-1", "db-2")]
    run("dismiss", db, "db-1", "db-2")
    assert _suggested(db) == []
    out = tmp_path / "out.jsonl"
    run("export", db, "-o", out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["dismissed"] == [{"kind": "replaced", "other": "db-2"}]
    run("import", out, "--db", copy, "--now", "2026-04-01T00:00:00Z")
    assert _suggested(copy) == []  # still dismissed
    run("export", copy, "-o", tmp_path / "again.jsonl")
    assert (tmp_path / "again.jsonl").read_text() == out.read_text()  # the round trip is exact
    entry = json_lines(run("export", copy, "--audit").stdout)[-1]
    assert (entry["actor"], entry["action"], entry["id"]) == ("source:import", "dismiss", "db-1")
    run("undo", copy)  # the import's dismissals are one step: undone, the suggestion is back
    assert _suggested(copy) == [("db-1", "db-2")]


def test_a_malformed_dismissal_is_named_and_nothing_lands(tmp_path):
    bad = [FACTS[0], {**FACTS[1], "dismissed": [{"kind": "renamed", "other": "db-1"}]}]
    db = tmp_path / "a.db"
    line = refused("import", write_jsonl(tmp_path / "bad.jsonl", bad), "--db", db)
    assert ":2" in line and "dismissed" in line and "renamed" in line
    assert not db.exists()
