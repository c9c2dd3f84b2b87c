"""`synapse-tui mcp [DB]`: the MCP server on stdio (SPEC 10), behind the `[mcp]` extra."""

from __future__ import annotations

import sys

import click

from synapse_tui.cli.commands import _sample_path, main
from synapse_tui.cli.common import FilePath, config_option, now_option, resolve_config, say
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.location import locate
from synapse_tui.core.store.db import Store


@main.command("mcp")
@click.argument("db", required=False, type=FilePath())
@click.option(
    "--scope",
    default="",
    metavar="FILTERS",
    help="Serve only the facts matching these filter terms, e.g. prov:x-mem0-user-id=alice"
    " (one user's memory) or note:ID; nothing outside is ever returned.",
)
@now_option
@config_option
def mcp_cmd(db: str | None, scope: str, now: str | None, config_path: str | None) -> None:
    """Serve DB (default: SYNAPSE_DB, else the bundled sample) to an agent over MCP on stdio.

    Tools: search, show, neighbours, remember, corroborate, contradict, verify; every
    recalled fact carries its trust. Register it in an MCP client as the command
    `synapse-tui mcp /path/to/memory.db`; with --scope the agent sees one user's memory
    (`--scope prov:x-mem0-user-id=alice`). SYNAPSE_NOW pins the clock like --now.
    """
    try:
        from synapse_tui.mcp_server import serve
    except ImportError as exc:
        raise SynapseError(
            f"the MCP server needs the mcp SDK ({exc.name} is missing): pip install 'synapse-tui[mcp]'"
        ) from None
    from synapse_tui.core.agent import Recall

    clock = Clock.from_option(now)
    path = db if db is not None else str(_sample_path())
    config = resolve_config(path, config_path)
    with Store.open(path) as store:
        recall = Recall(store, config, clock, scope=scope)
        if sys.stdin.isatty():  # a person, not a client: say why nothing shows
            say(
                f"serving {locate(path).shown} over MCP on stdio: an agent's MCP client runs"
                " this command and talks to it; there is nothing to type here (docs/mcp.md"
                " says how to register it). Ctrl-C stops.",
                err=True,
            )
        try:
            serve(recall)
        finally:  # the session ends before the store closes, whatever serve did
            recall.close()
