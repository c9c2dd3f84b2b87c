"""`synapse-tui mcp` serving a store on a server: each tool answers as it does on the file
the store was copied from, evidence lands in the same audit entries, and `remember` (an
import) lands the fact as on the file."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run
from tests.postgres.mcp_serving import serve

mcp = pytest.importorskip("mcp")

pytestmark = pytest.mark.postgres


CALLS = [
    ("search", {"query": "Maria", "limit": 5}),
    ("search", {"query": "is:superseded"}),
    ("search", {"query": "maria owns payments api"}),
    ("show", {"id": "d"}),
    ("neighbours", {"id": "a"}),
    ("show", {"id": "no-such-fact"}),
    ("search", {"query": "trust<0.5 tier:autp"}),
    ("corroborate", {"id": "e"}),
    ("contradict", {"id": "c"}),
    ("verify", {"id": "b"}),
    ("search", {"query": "maria"}),
    ("show", {"id": "e"}),
]


async def answers(session) -> list[tuple]:
    out = []
    for name, arguments in CALLS:
        got = await session.call_tool(name, arguments)
        text = got.content[0].text if got.is_error else None
        out.append((name, got.is_error, got.structured_content, text))
    return out


def test_every_tool_answers_as_on_the_file(db, new_database):
    config = db.with_name("memory.synapse.toml")
    url = new_database()
    run("copy", db, url)
    on_file, on_server = serve(db, config, answers), serve(url, config, answers)
    for mine, theirs in zip(on_file, on_server, strict=True):
        name, error, answer, _ = mine
        assert (theirs[1], theirs[2]) == (error, answer), name
    assert run("export", url, "--audit").stdout == run("export", db, "--audit").stdout
    assert run("export", url).stdout == run("export", db).stdout


def test_remember_on_a_server_answers_as_on_the_file(db, new_database):
    """The new fact lands (its id is new each time: the rest of the answer is the file's),
    supersedes what it names in the same transaction, and the graph catches up."""
    config = db.with_name("memory.synapse.toml")
    url = new_database()
    run("copy", db, url)

    async def remember(session):
        got = await session.call_tool(
            "remember", {"text": "Maria owns the Ledger API", "entities": ["Maria"], "supersedes": "b"}
        )
        return got.is_error, got.structured_content

    answers = [serve(where, config, remember) for where in (db, url)]
    for error, answer in answers:
        assert not error and answer["text"] == "Maria owns the Ledger API"
    new_ids = [answer["id"] for _, answer in answers]
    (on_file, on_server) = (
        json.dumps(a).replace(i, "NEW") for (_, a), i in zip(answers, new_ids, strict=True)
    )
    assert on_server == on_file
    exports = [
        run("export", where, "--audit").stdout.replace(i, "NEW")
        for where, i in zip((db, url), new_ids, strict=True)
    ]
    assert exports[1] == exports[0] and "NEW" in exports[0]
    exports = [
        run("export", where).stdout.replace(i, "NEW") for where, i in zip((db, url), new_ids, strict=True)
    ]
    assert exports[1] == exports[0]
