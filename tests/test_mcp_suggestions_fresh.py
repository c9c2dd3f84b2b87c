"""What an agent is told of a fact's suggestions while the CLI triages beside the MCP
server: `synapse-tui mcp` in a subprocess (the SDK's stdio client), the CLI's `dismiss`,
`undo` and `supersede` on the same SQLite file between two calls. Each `show` and `search`
answers as the store stands then, never the suggestions kept from before the write."""

from __future__ import annotations

import os
import sys

import pytest

from tests.helpers import run, write_jsonl

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

NOW = "2030-01-01T00:00:00Z"
FACTS = [
    {"id": "d1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "d2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
    {"id": "b1", "text": "backups run at 02:00 UTC", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {"id": "b2", "text": "backups now run at 03:00 UTC", "created_at": "2025-04-01T00:00:00Z", "note": "ops"},
]


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


def _others(shown: dict) -> list[str]:
    return sorted(s["by"] for s in shown["suggestions"])


def test_show_and_search_follow_the_clis_triage(tmp_path):
    src = write_jsonl(tmp_path / "f.jsonl", FACTS)
    db = tmp_path / "m.db"
    run("import", src, "--db", db)

    async def scenario(session):
        async def show() -> dict:
            return (await session.call_tool("show", {"id": "d1"})).structured_content

        async def searched() -> list[str]:
            found = (
                await session.call_tool("search", {"query": "deploys Fridays", "limit": 5})
            ).structured_content
            row = next(r for r in found["results"] if r["id"] == "d1")
            return sorted(s["by"] for s in row["suggestions"])

        seen = [(_others(await show()), await searched())]
        run("dismiss", db, "d1", "d2", "--now", NOW)
        seen.append((_others(await show()), await searched()))
        run("undo", db, "--now", NOW)
        seen.append((_others(await show()), await searched()))
        run("supersede", db, "d1", "d2", "--now", NOW)
        seen.append((_others(await show()), await searched()))
        return seen

    seen = anyio.run(session_run, db, scenario)
    assert seen == [(["d2"], ["d2"]), ([], []), (["d2"], ["d2"]), ([], [])]
