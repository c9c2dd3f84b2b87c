"""`synapse-tui mcp LOCATION` in a subprocess, driven by the MCP SDK's own client."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.helpers import NOW

REPO = Path(__file__).resolve().parents[2]


def serve(location, config, scenario, args=()):
    """`scenario(session)`'s result, against `synapse-tui mcp LOCATION` (this checkout's code)
    started with `config` (None: the one beside a file store) and driven by the MCP SDK's
    client (the [mcp] extra: its callers skip without it). `args`: more of the command's
    options (`--scope ...`)."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp_types import Implementation

    env = {"SYNAPSE_NOW": NOW, "PYTHONPATH": str(REPO)}
    if config is not None:
        env["SYNAPSE_CONFIG"] = str(config)
    if "SYNAPSE_DATA_DIR" in os.environ:  # the tests' own data folder (conftest)
        env["SYNAPSE_DATA_DIR"] = os.environ["SYNAPSE_DATA_DIR"]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from synapse_tui.cli import main; main()", "mcp", str(location), *args],
        env=env,
    )

    async def session_run():
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write):
                async with ClientSession(
                    read, write, client_info=Implementation(name="scout", version="1")
                ) as session:
                    await session.initialize()
                    return await scenario(session)

    return anyio.run(session_run)
