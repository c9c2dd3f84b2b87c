"""A search whose best match is an older version points the agent at `stale_premise.current`,
"the fact to use instead". On Roo-Code's own repository the current version of a rule
(`.clinerules`, edited, then the file removed) was deleted at its source, and the premise
named it with no word of it: an agent would switch to a fact nobody holds any more. The
premise now carries the same `caution` the fact does. `synapse-tui mcp` in a subprocess,
driven by the SDK's stdio client, over a real git repository."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from tests.core.claude_code_files import git
from tests.helpers import run

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

NOW = "2030-01-01T00:00:00Z"
CAUTION = "deleted at its source: do not rely on it"
OLD = "The staging API listens on port 8080 behind the internal load balancer."
NEW = "The staging API listens on port 9443 with TLS since the migration."


def _store(tmp_path, delete: bool):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "AGENTS.md").write_text("- Run the linter before committing\n")
    (repo / ".clinerules").write_text(f"- {OLD}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rules", when="2025-01-01T12:00:00Z")
    (repo / ".clinerules").write_text(f"- {NEW}\n")
    git(repo, "commit", "-q", "-am", "port", when="2025-03-01T12:00:00Z")
    if delete:
        git(repo, "rm", "-q", ".clinerules")
        git(repo, "commit", "-q", "-m", "moved to .roo", when="2025-05-01T12:00:00Z")
    db = tmp_path / "m.db"
    run("import", "--from", "markdown", repo, "--db", db)
    return db


async def _premise(db):
    server = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from synapse_tui.cli import main; main()", "mcp", str(db)],
        env={"SYNAPSE_NOW": NOW, **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}},
    )
    with anyio.fail_after(120):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            query = {"query": "Does the staging API listen on port 8080 behind the load balancer?"}
            found = (await session.call_tool("search", query)).structured_content
            return found.get("stale_premise")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_premise_whose_current_fact_was_deleted_says_so(tmp_path):
    premise = anyio.run(_premise, _store(tmp_path, delete=True))
    assert premise is not None and premise["current"].endswith("@2"), premise
    assert premise["caution"] == CAUTION, premise


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_premise_whose_current_fact_stands_has_no_caution(tmp_path):
    premise = anyio.run(_premise, _store(tmp_path, delete=False))
    assert premise is not None and premise["current"].endswith("@2"), premise
    assert "caution" not in premise
