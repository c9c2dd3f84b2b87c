"""The MCP server as an agent meets it: `synapse-tui mcp DB` in a subprocess, driven by the
SDK's own stdio client, and the store read back through the CLI afterwards."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from synapse_tui.core.base.location import is_server
from synapse_tui.core.ingest import signing
from synapse_tui.mcp_server import tidy
from tests.helpers import KEY, base_facts, json_lines, run, write_jsonl

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp_types import Implementation  # noqa: E402

AGENT = "scout-agent"
NOW = "2026-12-01T00:00:00Z"
TOOLS = {"search", "show", "neighbours", "remember", "corroborate", "contradict", "verify"}
ENVELOPE = {"trust", "band", "confidence", "freshness", "supersession", "gate", "guidance_advice", "stale"}
ENVELOPE |= {"review_due", "flags", "superseded_by", "text", "id"}


@pytest.fixture
def db(new_store, tmp_path, monkeypatch):
    """`helpers.base_facts()` imported through the CLI into a store on this test's backend,
    their signer trusted: in the config beside a file, or in the one SYNAPSE_CONFIG names
    for a server (which has no file beside it, docs/postgres.md)."""
    location = new_store("memory")
    config = f'[trust]\nsigners = ["{signing.public_key_hex(KEY)}"]\n'
    if is_server(location):
        (tmp_path / "trust.synapse.toml").write_text(config)
        monkeypatch.setenv("SYNAPSE_CONFIG", str(tmp_path / "trust.synapse.toml"))
    else:
        (tmp_path / "memory.synapse.toml").write_text(config)
    result = run("import", write_jsonl(tmp_path / "facts.jsonl", base_facts()), "--db", location)
    assert "imported 5 facts" in result.stdout
    assert "supersedes unknown id 'missing-id'" in result.stderr
    return location


def hidden_places(location) -> list[str]:
    """What an agent's error message must not name: the folder holding a file store, or a
    server's URL and the socket folder it reaches the server by."""
    if not is_server(location):
        return [str(Path(location).parent)]
    return ["postgresql://", *parse_qs(urlsplit(location).query)["host"]]


def server_params(db_path) -> StdioServerParameters:
    env = {"SYNAPSE_NOW": NOW}
    if "SYNAPSE_CONFIG" in os.environ:  # a server's config: the subprocess gets no other environment
        env["SYNAPSE_CONFIG"] = os.environ["SYNAPSE_CONFIG"]
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", "from synapse_tui.cli import main; main()", "mcp", str(db_path)],
        env=env,
    )


async def session_run(db_path, scenario):
    with anyio.fail_after(120):  # a server that never answers fails the test, not the CI job
        return await _session_run(db_path, scenario)


async def _session_run(db_path, scenario):
    async with stdio_client(server_params(db_path)) as (read, write):
        async with ClientSession(
            read, write, client_info=Implementation(name=AGENT, version="1.0")
        ) as session:
            await session.initialize()
            return await scenario(session)


def call(client, name, **arguments):
    return client.call_tool(name, arguments)


def test_an_agent_recalls_with_trust_and_adds_evidence_audited_under_its_name(db):
    seen: dict = {}

    async def scenario(session):
        tools = await session.list_tools()
        seen["tools"] = {t.name: t for t in tools.tools}

        found = await call(session, "search", query="Maria", limit=5)
        seen["search"] = found.structured_content
        seen["filtered"] = (await call(session, "search", query="is:superseded")).structured_content
        seen["show"] = (await call(session, "show", id="d")).structured_content  # d: nothing touches it
        seen["signed"] = (await call(session, "show", id="c")).structured_content
        seen["neighbours"] = await call(session, "neighbours", id="a")

        seen["bad_id"] = await call(session, "show", id="no-such-fact")
        seen["typo"] = await call(session, "search", query="trust<0.5 tier:autp")
        seen["cycle"] = await call(session, "remember", text="x", supersedes="no-such-fact")
        seen["still"] = (await call(session, "show", id="e")).structured_content  # the server still serves

        seen["corroborate"] = (await call(session, "corroborate", id="e")).structured_content
        seen["contradict"] = (await call(session, "contradict", id="c")).structured_content
        seen["verify"] = (await call(session, "verify", id="b")).structured_content
        remembered = await call(
            session,
            "remember",
            text="Maria owns the Ledger API",
            entities=["Maria", "Ledger API"],
            supersedes="b",
            model="m-1",
            session="s-42",
        )
        seen["remember"] = remembered.structured_content
        seen["after"] = (await call(session, "search", query="Ledger")).structured_content
        seen["b"] = (await call(session, "show", id="b")).structured_content

    anyio.run(session_run, db, scenario)

    assert set(seen["tools"]) == TOOLS  # no accept, no sign
    for tool in seen["tools"].values():
        assert len(tool.description) > 80 and tool.input_schema["properties"]
        assert tool.output_schema is not None

    results = seen["search"]["results"]
    assert {r["id"] for r in results} == {"a", "b"} and seen["search"]["total"] == 2
    assert all(ENVELOPE <= set(r) for r in results)
    a = next(r for r in results if r["id"] == "a")
    assert a["superseded_by"] == ["b"] and a["k"] == 1  # a superseded fact names its replacement
    assert [r["id"] for r in seen["filtered"]["results"]] == ["a"]

    show_cli = json_lines(run("show", db, "d", "--json", "--now", NOW).stdout)[0]
    # the CLI's object, its numbers to four significant digits (an agent reads no 17 digits)
    assert {k: v for k, v in seen["show"].items() if k not in ("stale", "constants")} == tidy(show_cli)
    assert seen["show"]["trust"] == round(show_cli["trust"], 4) and len(repr(seen["show"]["B"])) <= 7
    assert seen["show"]["constants"]["fitted"] is False  # the defaults: nothing fitted to verdicts here
    assert seen["show"]["stale"] == show_cli["review_overdue"]
    assert seen["signed"]["tier"] == "signed"  # the server scores with the config trusting c's signer
    assert seen["neighbours"].is_error is False
    assert seen["neighbours"].structured_content["id"] == "a"

    for bad in ("bad_id", "typo", "cycle"):
        assert seen[bad].is_error, bad
        text = seen[bad].content[0].text  # the CLI's message: no tuple, no server path
        assert "\n" not in text or bad == "typo", text  # one line, but for the filter's caret
        assert not text.startswith("(") and text.strip(), text
        assert not any(place in text for place in hidden_places(db)), text
    assert "no fact with id 'no-such-fact'" in seen["bad_id"].content[0].text
    # a filter typo keeps its query and the caret under the bad token on lines of their own
    reason, query, caret = seen["typo"].content[0].text.split("\n")
    assert "'tier:' takes one of auto, human, signed (did you mean 'auto'?)" in reason
    assert query.strip() == "trust<0.5 tier:autp" and caret.strip() == "^" * len("tier:autp")
    assert caret.index("^") == query.index("tier:autp")
    assert "no fact with id 'no-such-fact'" in seen["cycle"].content[0].text
    assert seen["still"]["id"] == "e"

    assert (
        seen["corroborate"]["corroborations"] == 1 and seen["corroborate"]["trust"] > seen["still"]["trust"]
    )
    assert seen["contradict"]["contradictions"] == 1
    assert seen["verify"]["reinforcement_count"] == 4

    new = seen["remember"]
    assert new["declared_tier"] == "auto" and new["supersedes"] == "b" and new["created_at"] == NOW
    assert new["provenance"] == {"x-ai-agent": AGENT, "x-ai-model": "m-1", "x-ai-session": "s-42"}
    assert new["entities"] == ["Maria", "Ledger API"]
    assert [r["id"] for r in seen["after"]["results"]] == [new["id"]]
    assert seen["b"]["superseded_by"] == [new["id"]] and seen["b"]["k"] == 1

    # read back through the CLI: the agent's actions, audited under its declared name
    for fid, action in (("e", "corroborate"), ("c", "contradict"), ("b", "verify"), ("b", "supersede")):
        history = json_lines(run("show", db, fid, "--json").stdout)[0]["history"]
        entry = next(h for h in history if h["action"] == action)
        assert entry["actor"] == f"agent:{AGENT}" and entry["score_before"]["trust"] > 0
    assert any(o["id"] == new["id"] for o in json_lines(run("export", db).stdout))
    # and a person can undo the agent's last action like their own
    out = run("undo", db).stdout
    assert out.startswith(f"undid supersede b by {new['id']} (by agent:{AGENT} at {NOW})")


def test_the_server_sees_what_another_process_wrote(db, tmp_path):
    seen = {}

    async def scenario(session):
        seen["before"] = (await call(session, "show", id="e")).structured_content
        run("corroborate", db, "e")  # the CLI writes while the server runs
        seen["after"] = (await call(session, "show", id="e")).structured_content
        src = tmp_path / "more.jsonl"
        src.write_text(json.dumps({"id": "late", "text": "written by an import", "created_at": NOW}) + "\n")
        run("import", src, "--db", db)
        seen["late"] = (await call(session, "search", query="import")).structured_content

    anyio.run(session_run, db, scenario)
    assert seen["after"]["corroborations"] == seen["before"]["corroborations"] + 1
    assert seen["after"]["history"][-1]["actor"].startswith("user:")
    assert [r["id"] for r in seen["late"]["results"]] == ["late"]


def test_a_scoped_server_shows_one_users_memory_and_refuses_bad_queries(tmp_path, new_store):
    """`mcp DB --scope prov:x-mem0-user-id=alice` over a store holding two users' facts:
    nothing of bob's comes back by any tool; a question finds its fact; a NUL or a huge
    query is a tool error about the query, and the server keeps serving (issue 22.5, 22.6)."""
    rows = [
        {"id": "a-gym", "text": "Maria started at the climbing gym in March", "created_at": NOW},
        {"id": "a-job", "text": "Maria works at Tidewell as a data engineer", "created_at": NOW},
        {"id": "b-gym", "text": "Bob started at the climbing gym in May", "created_at": NOW},
        {"id": "b-code", "text": "Bob's locker code at the gym is 4471", "created_at": NOW},
    ]
    for row in rows:
        row["provenance"] = {"x-mem0-user-id": "alice" if row["id"].startswith("a-") else "bob"}
    src = tmp_path / "two.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = new_store("two")
    run("import", src, "--db", store)
    seen: dict = {}

    async def scenario(session):
        seen["tools"] = (await session.list_tools()).tools
        seen["question"] = (
            await call(session, "search", query="When did Maria start at the climbing gym?")
        ).structured_content
        seen["all"] = (await call(session, "search", query="", limit=100)).structured_content
        seen["bob"] = (await call(session, "search", query="Bob locker code 4471 gym")).structured_content
        seen["show_bob"] = await call(session, "show", id="b-code")
        seen["nul"] = await call(session, "search", query="climbing\x00gym")
        seen["huge"] = await call(session, "search", query=" ".join(f"w{i}" for i in range(200_000)))
        seen["many"] = await call(session, "search", query=" ".join(f"w{i}" for i in range(65)))
        seen["still"] = (await call(session, "search", query="gym")).structured_content

    params = server_params(store)
    params.args.extend(["--scope", "prov:x-mem0-user-id=alice"])

    async def scoped():
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write):
                async with ClientSession(
                    read, write, client_info=Implementation(name=AGENT, version="1")
                ) as s:
                    await s.initialize()
                    await scenario(s)

    anyio.run(scoped)
    assert all("scoped to `prov:x-mem0-user-id=alice`" in t.description for t in seen["tools"])
    question = seen["question"]
    assert question["results"][0]["id"] == "a-gym" and question["results"][0]["rank_reason"]
    assert "bm25" in question["signals"]
    assert {r["id"] for r in seen["all"]["results"]} == {"a-gym", "a-job"}
    assert all(r["id"].startswith("a-") for r in seen["bob"]["results"] + seen["still"]["results"])
    assert seen["show_bob"].is_error and "no fact with id 'b-code'" in seen["show_bob"].content[0].text
    nul = seen["nul"].content[0].text
    assert seen["nul"].is_error and "control character" in nul and "corrupt" not in nul
    assert seen["huge"].is_error and "query has 200,000 words; at most 64" in seen["huge"].content[0].text
    assert len(seen["huge"].content[0].text) < 300
    assert seen["many"].is_error and "query has 65 words; at most 64" in seen["many"].content[0].text
    assert [r["id"] for r in seen["still"]["results"]] == ["a-gym"]  # the server kept serving
