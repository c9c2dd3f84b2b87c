"""`synapse-tui mcp LOCATION` in a subprocess, driven by the MCP SDK's own client."""

from __future__ import annotations

import sys

from tests.helpers import NOW


def serve(location, config, scenario):
    """`scenario(session)`'s result, against a server started on `location` with `config`
    (the [mcp] extra: its callers skip without it)."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp_types import Implementation

    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from synapse_tui.cli import main; main()", "mcp", str(location)],
        env={"SYNAPSE_NOW": NOW, "SYNAPSE_CONFIG": str(config)},
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
