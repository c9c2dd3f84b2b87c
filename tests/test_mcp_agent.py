"""The MCP server as an agent meets it (issue 43): answers of the instant they are made,
questions never refused, evidence that commutes with other writers', the asked entity
first, and a server that introduces itself and says what was wrong with an argument.

Each test runs `synapse-tui mcp` in a subprocess and drives it with the SDK's own stdio
client; other writers are real CLI processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from importlib import metadata
from pathlib import Path

import pytest

from synapse_tui.core.ingest import signing
from tests.helpers import KEY, base_facts, json_lines, run, write_jsonl

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp_types import Implementation  # noqa: E402

NOW = "2026-12-01T00:00:00Z"
EXE = [sys.executable, "-c", "from synapse_tui.cli import main; main()"]
ROOT = Path(__file__).resolve().parents[1]


def server(location, *, now: str | None = NOW) -> StdioServerParameters:
    """The server over `location`; `now=None`: on the wall clock, as an agent runs it."""
    env = {"SYNAPSE_NOW": now} if now else {}
    for name in ("SYNAPSE_CONFIG", "PYTHONPATH"):  # the subprocess gets no other environment
        if name in os.environ:
            env[name] = os.environ[name]
    return StdioServerParameters(command=EXE[0], args=[*EXE[1:], "mcp", str(location)], env=env)


async def with_session(p: StdioServerParameters, scenario, name: str = "scout-agent"):
    with anyio.fail_after(180):  # a server that never answers fails the test, not the CI job
        async with stdio_client(p) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name=name, version="1")) as s:
                result = await s.initialize()
                return await scenario(s, result)


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The CLI in a process of its own: a writer beside the server, as a person runs it."""
    return subprocess.run([*EXE, *args], capture_output=True, text=True, env=env, check=False, timeout=120)


@pytest.fixture
def db(new_store, tmp_path, monkeypatch):
    """`helpers.base_facts()` imported through the CLI, their signer trusted."""
    from synapse_tui.core.base.location import is_server

    location = new_store("memory")
    config = f'[trust]\nsigners = ["{signing.public_key_hex(KEY)}"]\n'
    if is_server(location):
        (tmp_path / "trust.synapse.toml").write_text(config)
        monkeypatch.setenv("SYNAPSE_CONFIG", str(tmp_path / "trust.synapse.toml"))
    else:
        (tmp_path / "memory.synapse.toml").write_text(config)
    run("import", write_jsonl(tmp_path / "facts.jsonl", base_facts()), "--db", location)
    return location


def stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_on_the_wall_clock_an_agent_s_own_write_is_never_in_the_future(tmp_path):
    """A server on the wall clock: the age of a fact moves between two calls a second apart,
    and the agent's own corroborate, verify and remember never come back `clock_skew`
    (before, scores stood still for up to a minute, so a write at the wall clock's instant
    was in their future)."""
    born = datetime.now(UTC) - timedelta(minutes=3)
    facts = [
        {"id": "f", "text": "the Paylane contract renews on 2027-01-14", "created_at": stamp(born)},
        {"id": "g", "text": "Paylane invoices go to finance", "created_at": stamp(born)},
    ]
    db = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", facts), "--db", db)
    seen: dict = {}

    async def scenario(s, _init):
        seen["first"] = (await s.call_tool("show", {"id": "f"})).structured_content
        await anyio.sleep(1.2)
        seen["second"] = (await s.call_tool("show", {"id": "f"})).structured_content
        seen["search"] = (await s.call_tool("search", {"query": "Paylane contract"})).structured_content
        for action, fid in (("corroborate", "f"), ("verify", "f"), ("contradict", "g"), ("verify", "g")):
            seen[f"{action}-{fid}"] = (await s.call_tool(action, {"id": fid})).structured_content
            await anyio.sleep(0.3)  # the clock moves between calls, as it does for an agent
        seen["remember"] = (
            await s.call_tool("remember", {"text": "Paylane renews yearly", "supersedes": "g"})
        ).structured_content
        seen["after"] = (await s.call_tool("search", {"query": "Paylane"})).structured_content

    anyio.run(with_session, server(db, now=None), scenario)
    assert seen["second"]["age_days"] > seen["first"]["age_days"]  # a second later, older
    for key, answer in seen.items():
        for fact in answer.get("results", [answer]):
            assert "clock_skew" not in fact["flags"], (key, fact["id"], fact["flags"])
    assert seen["corroborate-f"]["corroborations"] == 1 and seen["verify-f"]["reinforced_at"]


def test_a_question_is_never_a_filter_typo_through_mcp(db):
    """`CS:GO` and `3:30` are words in a question; the answer says how it was read. A typo in
    a real filter's value is still refused, with its caret (the browser and CLI keep the
    hint for every filter-shaped token: `score --where` still refuses `CS:GO`)."""
    seen: dict = {}

    async def scenario(s, _init):
        for q in ("Which tournaments besides CS:GO?", "Did Maria call at 3:30?", "Maria ratio=5:1 x<0.3"):
            seen[q] = await s.call_tool("search", {"query": q})
        seen["filtered"] = await s.call_tool("search", {"query": "Maria CS:GO tier:human"})
        seen["typo"] = await s.call_tool("search", {"query": "Maria tier:humn"})

    anyio.run(with_session, server(db), scenario)
    cs = seen["Which tournaments besides CS:GO?"]
    assert not cs.is_error and any(
        "'CS:GO?' read as words" in sig for sig in cs.structured_content["signals"]
    )
    maria = seen["Did Maria call at 3:30?"].structured_content
    assert {r["id"] for r in maria["results"]} >= {"a", "b"}
    odd = seen["Maria ratio=5:1 x<0.3"].structured_content
    assert [r["id"] for r in odd["results"]][:2] == ["b", "a"] and len(odd["signals"]) >= 2
    filtered = seen["filtered"].structured_content  # the real filter still restricts
    assert [r["id"] for r in filtered["results"]] == ["b"]
    assert seen["typo"].is_error and "'tier:' takes one of" in seen["typo"].content[0].text
    refused = run("score", db, "--where", "CS:GO", "--json", ok=False)
    assert refused.exit_code != 0 and "unknown filter 'CS:'" in refused.stderr


def test_twenty_concurrent_corroborations_beside_a_contradicting_cli_all_land(db, tmp_path):
    """Two agents (two server processes) corroborate fact `e` ten times each, all at once,
    after reading it, while CLI processes contradict it. Evidence commutes: every one of
    the twenty lands and counts; nothing is refused as changed since it was read."""
    env = {**os.environ, "SYNAPSE_NOW": NOW}
    results: dict[str, list] = {"scout": [], "ranger": []}
    contradicted = []
    reads = threading.Barrier(3)  # both agents have read `e` before any contradiction

    def contradict_meanwhile():
        reads.wait(timeout=120)
        for _ in range(4):
            contradicted.append(cli("contradict", str(db), "e", env=env))

    def agent(name: str):
        async def scenario(s, _init):
            await s.call_tool("search", {"query": "not markup"})  # read it: the server now holds it as seen
            await s.call_tool("show", {"id": "e"})
            await anyio.to_thread.run_sync(lambda: reads.wait(timeout=120))
            await anyio.sleep(0.5)  # a contradiction lands after the read

            async def one():
                results[name].append(await s.call_tool("corroborate", {"id": "e"}))

            async with anyio.create_task_group() as tg:
                for _ in range(10):
                    tg.start_soon(one)

        anyio.run(with_session, server(db), scenario, name)

    threads = [threading.Thread(target=agent, args=(n,)) for n in results]
    threads.append(threading.Thread(target=contradict_meanwhile))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert all(c.returncode == 0 for c in contradicted), [c.stderr for c in contradicted]
    answers = results["scout"] + results["ranger"]
    assert len(answers) == 20
    refused = [a.content[0].text for a in answers if a.is_error]
    assert not refused, refused[:3]
    shown = json_lines(run("show", db, "e", "--json").stdout)[0]
    assert shown["corroborations"] == 20 and shown["contradictions"] == 4 + 4
    by = [h["actor"] for h in shown["history"] if h["action"] == "corroborate"]
    assert sorted(set(by)) == ["agent:ranger", "agent:scout"] and len(by) == 20


def test_the_entity_asked_about_ranks_first_on_the_sample(tmp_path):
    """`When does the Paylane contract renew?` on the bundled sample: every fact naming
    Paylane comes before any other vendor's (before, Cloudnest's, Cliente Alfa's and Orla
    Logistics' renewals filled ranks 2-14), and the current answer (f-00921, which replaced
    the old renewal date f-00071) comes first: also above f-00621, a copy of the old date
    that nobody marked replaced (it ranked first), whose reason names the suggestion the
    ranking read, not applied (f-00621 stays current)."""
    db = tmp_path / "sample.db"
    run("import", ROOT / "sample_db" / "facts.jsonl", "--db", db)
    seen: dict = {}

    async def scenario(s, _init):
        seen["q"] = (
            await s.call_tool("search", {"query": "When does the Paylane contract renew?", "limit": 15})
        ).structured_content

    anyio.run(with_session, server(db, now="2026-11-30T18:00:00Z"), scenario)
    texts = [r["text"] for r in seen["q"]["results"]]
    assert all("Paylane" in t for t in texts), texts  # Paylane holds far more than 15 facts
    ids = [r["id"] for r in seen["q"]["results"]]
    assert ids[0] == "f-00921" and ids.index("f-00921") < ids.index("f-00071"), ids
    old = seen["q"]["results"][ids.index("f-00621")]
    assert "probably replaced by f-00921" in old["rank_reason"] and "not applied" in old["rank_reason"]
    assert old["k"] == 0 and old["superseded_by"] == []


def test_the_server_introduces_itself_and_names_a_wrong_argument_in_one_line(db):
    seen: dict = {}

    async def scenario(s, init):
        seen["init"] = init
        seen["limit"] = await s.call_tool("search", {"query": "Maria", "limit": "ten"})
        seen["missing"] = await s.call_tool("show", {})
        seen["typed"] = await s.call_tool("remember", {"text": "x", "entities": "Maria"})
        seen["ok"] = (await s.call_tool("search", {"query": "Maria"})).structured_content

    anyio.run(with_session, server(db), scenario)
    assert seen["init"].server_info.name == "synapse-tui"
    assert seen["init"].server_info.version == metadata.version("synapse-tui")
    for key, arg in (("limit", "limit"), ("missing", "id"), ("typed", "entities")):
        text = seen[key].content[0].text
        assert seen[key].is_error and "\n" not in text and f"argument '{arg}'" in text, text
        assert "pydantic" not in text and "http" not in text and "input_value" not in text, text
    for fact in seen["ok"]["results"]:  # numbers an agent reads: a few digits, not 17
        for name in ("trust", "confidence", "freshness", "B", "b", "u"):
            assert len(repr(fact[name]).lstrip("-").lstrip("0.")) <= 5, (name, fact[name])


def test_time_words_raise_the_facts_of_the_time_asked_about(tmp_path):
    """`in May` and `last year` name spans of time: the fact created then comes first,
    where the words alone rank the three hikes about alike, and `signals` says so."""
    facts = [
        {"id": "tam", "text": "Maria went hiking at Mount Tam", "created_at": "2026-05-10T09:00:00Z"},
        {"id": "reyes", "text": "Maria went hiking at Point Reyes", "created_at": "2026-09-01T09:00:00Z"},
        {
            "id": "yose",
            "text": "Maria went hiking in Yosemite with her brother",
            "created_at": "2025-07-01T09:00:00Z",
        },
    ]
    db = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", facts), "--db", db)
    seen: dict = {}

    async def scenario(s, _init):
        for q in (
            "Where did Maria go hiking in May?",
            "Where did Maria go hiking last year?",
            "Where did Maria hike?",
        ):
            seen[q] = (await s.call_tool("search", {"query": q})).structured_content

    anyio.run(with_session, server(db, now="2026-11-30T18:00:00Z"), scenario)
    may, last, plain = seen.values()
    assert [r["id"] for r in may["results"]][0] == "tam" and "time" in may["signals"]
    assert [r["id"] for r in last["results"]][0] == "yose" and "time" in last["signals"]
    assert "time" not in plain["signals"] and len(plain["results"]) == 3
