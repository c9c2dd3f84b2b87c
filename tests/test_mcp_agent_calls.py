"""An agent's call over MCP that used to go wrong silently (a newcomer on real memory): an
argument no tool takes (a typo, `supercedes`) was ignored and the fact saved unlinked. It is
refused now, naming the accepted arguments, and nothing is written. The real server over
stdio, on a file and on PostgreSQL."""

from __future__ import annotations

import pytest

from tests.helpers import run, write_jsonl
from tests.postgres.mcp_serving import serve
from tests.store_state import mark

pytest.importorskip("mcp")

CHAIN = [
    {"id": "x", "text": "Payments are owned by Ann", "created_at": "2026-01-01T00:00:00Z"},
    {"id": "y", "text": "Payments are owned by Bob", "created_at": "2026-02-01T00:00:00Z", "supersedes": "x"},
    {
        "id": "w",
        "text": "Payments are owned by Carl",
        "created_at": "2026-03-01T00:00:00Z",
        "supersedes": "y",
    },
]


@pytest.fixture
def chain(new_store, tmp_path):
    location = new_store("chain")
    run("import", write_jsonl(tmp_path / "chain.jsonl", CHAIN), "--db", location)
    return location


def text_of(result) -> str:
    return result.content[0].text


def test_an_unknown_argument_is_refused_naming_it_and_the_accepted_ones(chain):
    async def scenario(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        before = mark(chain)
        typo = await session.call_tool("remember", {"text": "Payments are owned by Dan", "supercedes": "w"})
        extra = await session.call_tool("show", {"id": "w", "verbose": True, "limt": 3})
        after = mark(chain)
        found = (await session.call_tool("search", {"query": "Dan"})).structured_content
        return tools, typo, extra, before == after, found

    tools, typo, extra, unchanged, found = serve(chain, None, scenario)
    assert typo.is_error and extra.is_error
    assert text_of(typo) == (
        "Error executing tool remember: unknown argument 'supercedes' (it takes: text, entities,"
        " note, supersedes, model, session); nothing changed"
    )
    assert text_of(extra) == (
        "Error executing tool show: unknown arguments 'verbose', 'limt' (it takes: id); nothing changed"
    )
    assert unchanged
    assert found["results"] == []  # the typo'd fact was not saved unlinked
    # every tool's published schema says it takes nothing else
    for name, tool in tools.items():
        assert tool.input_schema.get("additionalProperties") is False, name
