"""What an agent is told of a fact its source deleted: `synapse-tui mcp` in a subprocess,
driven by the SDK's stdio client, over a store imported from a real Gemini CLI folder whose
line was then removed and synced. `show` said "uncertain: go corroborate" and nothing
else: an agent would go and corroborate a fact nobody holds any more."""

from __future__ import annotations

import os
import sys

import pytest

from tests.core import new_sources_files as files
from tests.helpers import json_lines, run

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

NOW = "2030-01-01T00:00:00Z"

GONE = "I use uv to manage Python environments."
CAUTION = "deleted at its source: do not rely on it"


def _store(tmp_path):
    root = tmp_path / ".gemini"
    path = files.write(root, "GEMINI.md", files.GEMINI_GLOBAL + f"- {GONE}\n")
    db = tmp_path / "m.db"
    run("import", "--from", "gemini-cli", root, "--db", db)
    path.write_text(path.read_text().replace(f"- {GONE}\n", ""))
    run("sync", db)
    return db


async def session_run(db, scenario):
    """`synapse-tui mcp DB` in a process of its own, its clock pinned, and one session."""
    server = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from synapse_tui.cli import main; main()", "mcp", str(db)],
        env={"SYNAPSE_NOW": NOW, **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}},
    )
    with anyio.fail_after(120):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await scenario(session)


def test_show_and_search_tell_an_agent_not_to_rely_on_a_deleted_fact(tmp_path):
    db = _store(tmp_path)

    async def scenario(session):
        found = (
            await session.call_tool("search", {"query": "Do I use uv for Python?", "limit": 5})
        ).structured_content
        gone = next(r for r in found["results"] if r["text"] == GONE)
        live = next(r for r in found["results"] if r["text"] != GONE)
        shown = (await session.call_tool("show", {"id": gone["id"]})).structured_content
        return gone, live, shown

    gone, live, shown = anyio.run(session_run, db, scenario)
    assert "deleted" in shown["flags"] and shown["caution"] == CAUTION
    # the guidance is the opinion's, as SPEC 2.1 words it: the caution is what says "don't"
    assert shown["guidance_advice"] == "uncertain: go corroborate"
    assert gone["caution"] == CAUTION
    assert "caution" not in live and "deleted" not in live["flags"]
    cli = json_lines(run("show", db, gone["id"], "--json", "--now", NOW).stdout)[0]
    assert cli["caution"] == CAUTION  # `show --json` is the same object
