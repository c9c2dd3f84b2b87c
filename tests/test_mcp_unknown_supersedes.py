"""`remember` with a `supersedes` id the store does not hold, as an agent calls it over MCP:
the tool error reads as `show`'s for an unknown id, naming the store (a file by its name, a
server by its database, never its host, user or socket), and nothing is written. A scoped
server says the same of a fact outside its scope: to the agent it is no fact at all."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from synapse_tui.core.base.location import is_server
from tests.helpers import NOW, base_facts, run, write_jsonl
from tests.postgres.mcp_serving import serve
from tests.store_state import mark

pytest.importorskip("mcp")


def name_of(location: str) -> str:
    """What the message must call the store: the file's name, or the server's database."""
    if not is_server(location):
        return Path(location).name
    return unquote(urlsplit(location).path.lstrip("/"))


def hidden(location: str) -> list[str]:
    """What it must not say: the folder of a file; a server's URL, user and socket folder."""
    if not is_server(location):
        return [str(Path(location).parent)]
    parts = urlsplit(location)
    return ["postgresql://", "search_path", f"{parts.username}@", *parse_qs(parts.query)["host"]]


def remember_over(location: str, supersedes: str, *, scope: str | None = None) -> tuple:
    """The tool error of `remember(supersedes=...)`, what a `show` of the id said, and the
    store's state just before the call and just after, taken while the server runs."""

    async def scenario(session):
        shown = await session.call_tool("show", {"id": supersedes})
        before = mark(location)
        got = await session.call_tool(
            "remember", {"text": "Maria owns the Ledger API", "supersedes": supersedes}
        )
        after = mark(location)
        searched = (await session.call_tool("search", {"query": "Ledger"})).structured_content
        return got, shown, before, after, searched

    got, shown, before, after, searched = serve(
        location, None, scenario, args=() if scope is None else ("--scope", scope)
    )
    assert got.is_error and shown.is_error
    said, told = got.content[0].text, shown.content[0].text
    # the SDK's prefix names the tool; the rest is ours
    assert said.startswith("Error executing tool remember: ") and told.startswith(
        "Error executing tool show: "
    )
    return said.split(": ", 1)[1], told.split(": ", 1)[1], before == after, searched


@pytest.fixture
def memory(new_store, tmp_path):
    location = new_store("memory")
    run("import", write_jsonl(tmp_path / "facts.jsonl", base_facts()), "--db", location)
    return location


def test_an_unknown_supersedes_names_the_store_and_writes_nothing(memory):
    exported = run("export", memory, "--audit").stdout
    said, shown, unchanged, searched = remember_over(memory, "no-such-fact")
    assert said == f"no fact with id 'no-such-fact' in {name_of(memory)}"
    assert said == shown  # the words `show` uses for the same id
    assert not any(place in said for place in hidden(memory)), said
    assert unchanged  # not one byte (a file) or row (a server) written
    assert searched["results"] == []  # the new fact did not land
    assert run("export", memory, "--audit").stdout == exported


def test_a_scoped_server_names_the_store_for_a_fact_outside_its_scope(new_store, tmp_path):
    rows = [
        {"id": "a-job", "text": "Maria works at Tidewell", "created_at": NOW, "provenance": {"u": "alice"}},
        {"id": "b-job", "text": "Bob works at Tidewell", "created_at": NOW, "provenance": {"u": "bob"}},
    ]
    store = new_store("two")
    run("import", write_jsonl(tmp_path / "two.jsonl", rows), "--db", store)
    exported = run("export", store, "--audit").stdout
    said, shown, unchanged, _ = remember_over(store, "b-job", scope="prov:u=alice")
    # bob's fact exists, but not for alice's agent: the words of an id no store holds
    assert said == shown == f"no fact with id 'b-job' in {name_of(store)}"
    assert not any(place in said for place in hidden(store)), said
    assert unchanged
    assert run("export", store, "--audit").stdout == exported  # bob's fact not superseded
