"""What an agent is told of a fact's suggestions while the CLI triages beside the MCP
server: `synapse-tui mcp` in a subprocess (the SDK's stdio client), the CLI's `dismiss`,
`undo` and `supersede` on the same SQLite file between two calls. Each `show` and `search`
answers as the store stands then, never the suggestions kept from before the write."""

from __future__ import annotations

import pytest

from tests.core.test_suggest_kept import FACTS
from tests.helpers import run, write_jsonl
from tests.test_mcp_deleted import session_run

pytest.importorskip("mcp")

import anyio  # noqa: E402

NOW = "2030-01-01T00:00:00Z"


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
