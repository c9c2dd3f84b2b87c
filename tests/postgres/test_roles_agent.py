"""The agent's role of docs/postgres.md at work (issue 25, point 5): the MCP server's
evidence and `remember` land under it; `accept` (and the other person-only moves) is
refused in one line naming the role and what it lacks, before anything is tried."""

from __future__ import annotations

import sys

import pytest

from synapse_tui.core.browser.triage import refusal
from synapse_tui.core.store.db import Store
from tests.helpers import NOW, json_lines, run, write_jsonl
from tests.postgres.mcp_serving import serve
from tests.postgres.roles import scout_login

pytestmark = pytest.mark.postgres


@pytest.fixture
def scout(db, new_database):
    """(the file, its copy on a server, that server as the agent `scout`, the config)."""
    url = new_database()
    run("copy", db, url)
    return db, url, scout_login(url), db.with_name("memory.synapse.toml")


def test_accept_under_the_agent_role_is_one_error_line(scout):
    _, url, as_scout, config = scout
    before = run("export", url, "--audit").stdout
    for args in (("accept", "e"), ("supersede", "c", "d")):
        got = run(args[0], as_scout, *args[1:], "--now", NOW, "--config", config, ok=False)
        assert got.exit_code == 2
        assert got.stderr.startswith("error: ") and got.stderr.count("\n") == 1, got.stderr
        assert "role scout lacks UPDATE on facts." in got.stderr and "psycopg" not in got.stderr
    assert "facts.tier" in run("accept", as_scout, "e", ok=False).stderr
    assert run("export", url, "--audit").stdout == before  # nothing was written
    # the evidence an agent gives lands
    run("corroborate", as_scout, "e", "--now", NOW, "--config", config)
    # as the agent it logs in as: the server refuses that login the audit as a person
    assert [e["actor"] for e in json_lines(run("export", url, "--audit").stdout)][-1] == "agent:scout"


def test_the_browser_says_which_moves_the_role_cannot_make(scout):
    _, url, as_scout, _ = scout
    with Store.open(as_scout) as store:
        said = refusal(store, None, "accept")
        assert said and "role scout" in said and "facts.tier" in said
        assert "supersedes" in refusal(store, None, "supersede")
        for move in ("corroborate", "contradict", "verify", "undo", None):
            assert refusal(store, None, move) is None
    with Store.open(url) as store:  # the owner may do all
        assert refusal(store, None, "accept") is None


def test_the_mcp_server_works_under_the_agent_role(scout):
    pytest.importorskip("mcp")
    file, url, as_scout, config = scout

    async def evidence(session):
        out = []
        for name, arguments in (
            ("corroborate", {"id": "e"}),
            ("contradict", {"id": "c"}),
            ("verify", {"id": "b"}),
            ("remember", {"text": "Scout saw the Ledger API", "entities": ["Ledger API"]}),
            ("show", {"id": "e"}),
        ):
            got = await session.call_tool(name, arguments)
            out.append((name, got.is_error, got.content[0].text if got.is_error else ""))
        return out

    for name, error, text in serve(as_scout, config, evidence):
        assert not error, (name, text)
    actors = {e["actor"] for e in json_lines(run("export", url, "--audit").stdout)}
    assert actors == {"agent:scout"}
    with Store.open(url, readonly=True) as store:
        assert {e.role for e in store.audit.entries()} == {"scout"}
    assert sys.executable  # served by this interpreter


def test_an_import_under_the_agent_role_builds_the_graph_as_the_owners(db, new_database, tmp_path):
    """A small store's import rebuilds its graph, which once dropped an index: only its
    owner may, so the agent's import stopped at the graph (exit 3)."""
    facts = [{"id": "z1", "text": "Scout saw the Ledger API go down", "created_at": "2026-11-01T00:00:00Z"}]
    source = write_jsonl(tmp_path / "more.jsonl", facts)
    owners, agents = new_database(), new_database()
    for url in (owners, agents):
        run("copy", db, url)
    run("import", source, "--db", owners)
    assert "imported 1 fact into" in run("import", source, "--db", scout_login(agents)).stdout
    for args in (("edges",), ("score", "--json", "--now", NOW)):
        assert run(args[0], agents, *args[1:]).stdout == run(args[0], owners, *args[1:]).stdout
