"""`score --where note:NAME` finds a project's notes by their last path parts (a note is its
path: `packages/api/CLAUDE.md`), and the score table marks a fact deleted at its source as
the browser does (dim, and in words for a pipe); `--json` is unchanged. On a file and a
server."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run, write_jsonl

FACTS = [
    {"id": "api-1", "text": "Run make test in packages/api", "note": "packages/api/CLAUDE.md"},
    {"id": "web-1", "text": "The web app uses pnpm", "note": "packages/web/CLAUDE.md", "deleted": True},
    {"id": "root", "text": "Always write tests", "note": "CLAUDE.md"},
    {"id": "lookalike", "text": "Not a CLAUDE.md note", "note": "docs/NOTCLAUDE.md"},
    {"id": "plain", "text": "A note named by id", "note": "n1"},
]


@pytest.fixture
def projects(new_store, tmp_path):
    location = new_store("projects")
    rows = [{**f, "created_at": "2026-11-01T00:00:00Z"} for f in FACTS]
    run("import", write_jsonl(tmp_path / "facts.jsonl", rows), "--db", location)
    return location


def ids(location, where: str) -> set[str]:
    out = run("score", location, "--where", where, "--json").stdout
    return {json.loads(line)["id"] for line in out.splitlines()}


def test_note_finds_a_project_s_notes_by_their_last_path_parts(projects):
    assert ids(projects, "note:CLAUDE.md") == {"api-1", "web-1", "root"}
    assert ids(projects, "note:api/CLAUDE.md") == {"api-1"}
    assert ids(projects, "note:packages/api/CLAUDE.md") == {"api-1"}  # the whole path, as before
    assert ids(projects, "note:n1") == {"plain"}
    assert ids(projects, "note:PI/CLAUDE.md") == set()  # a path part whole, case and all
    assert ids(projects, "-note:CLAUDE.md") == {"lookalike", "plain"}


def test_the_score_table_marks_a_deleted_fact_and_json_stays_as_it_was(projects):
    table = run("score", projects, "--where", "note:CLAUDE.md").stdout
    rows = {line.split()[8]: line for line in table.splitlines()[1:] if len(line.split()) > 8}
    assert "(deleted) The web app uses pnpm" in rows["web-1"]
    assert "(deleted)" not in rows["api-1"] and "(deleted)" not in rows["root"]
    web = json.loads(run("score", projects, "--where", "is:deleted", "--json").stdout)
    assert web["id"] == "web-1" and web["flags"] == ["deleted"]
    assert set(web) >= {"id", "trust", "band", "k", "flags"} and "text" not in web
