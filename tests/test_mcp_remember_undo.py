"""An agent's `remember` is audited and undone like any triage action (SPEC 8: `undo` takes
back the last action not yet undone, whoever made it): one `undo` flags the agent's fact
deleted (it stays as history, out of the queues) and takes back the supersession it made.
The real server over stdio, undone by the CLI, on a file and on PostgreSQL."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run, write_jsonl
from tests.postgres.mcp_serving import serve

pytest.importorskip("mcp")

FACTS = [
    {"id": "old", "text": "Payments are owned by Ann", "created_at": "2026-01-01T00:00:00Z"},
    {"id": "other", "text": "Deploys go out on Tuesdays", "created_at": "2026-02-01T00:00:00Z"},
]


@pytest.fixture
def memory(new_store, tmp_path):
    location = new_store("memory")
    run("import", write_jsonl(tmp_path / "facts.jsonl", FACTS), "--db", location)
    run("corroborate", location, "other")  # a person's action before the agent's
    return location


def remember(location, **arguments) -> dict:
    async def scenario(session):
        got = await session.call_tool("remember", arguments)
        assert not got.is_error, got.content[0].text
        return got.structured_content

    return serve(location, None, scenario)


def shown(location, fact_id: str) -> dict:
    return json.loads(run("show", location, fact_id, "--json").stdout)


def deleted(location) -> set[str]:
    out = run("score", location, "--where", "is:deleted", "--json").stdout
    return {json.loads(line)["id"] for line in out.splitlines()}


def test_undo_takes_back_an_agent_s_remember(memory):
    fact = remember(memory, text="The staging host is stage1")
    assert [(h["action"], h["actor"]) for h in fact["history"]] == [("remember", "agent:scout")]
    undone = run("undo", memory)
    assert undone.stdout.strip() == (
        f"undid remember {fact['id']} (by agent:scout at 2026-12-01T00:00:00Z): flagged deleted, kept as history"
    )
    assert deleted(memory) == {fact["id"]}  # history, out of the queues
    assert [h["action"] for h in shown(memory, fact["id"])["history"]] == ["remember", "undo"]
    assert shown(memory, "other")["corroborations"] == 1  # the person's action still stands
    again = run("undo", memory)  # the one before: the person's corroboration
    assert again.stdout.startswith("undid corroborate other")


def test_one_undo_takes_back_a_remember_and_the_supersession_it_made(memory):
    fact = remember(memory, text="Payments are owned by Bob", supersedes="old")
    assert fact["supersedes"] == "old" and shown(memory, "old")["k"] == 1
    undone = run("undo", memory)
    assert undone.stdout.startswith(f"undid remember {fact['id']} (by agent:scout at ")
    assert "flagged deleted, kept as history; old: trust " in undone.stdout
    assert "k 1 -> 0" in undone.stdout
    old = shown(memory, "old")
    assert (old["k"], old["superseded_by"]) == (0, [])
    assert shown(memory, fact["id"])["supersedes"] is None
    assert deleted(memory) == {fact["id"]}
    assert run("undo", memory).stdout.startswith("undid corroborate other")
