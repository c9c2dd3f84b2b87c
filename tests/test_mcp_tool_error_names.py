"""What a tool error calls the store: a file by its name, a server by its database, never
its host, its socket or a password (mcp_server.tool_error). The errors are the real ones
the driver raises for a server that is not there."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.store.db import Store

pytest.importorskip("mcp")
pytest.importorskip("psycopg")

from synapse_tui.mcp_server import tool_error  # noqa: E402


@pytest.mark.parametrize(
    "location",
    [
        "postgresql://ursula:s3cret@/team_memory?host=/tmp/synapse-no-such-socket-dir",
        "postgresql://ursula:s3cret@127.0.0.1:1/team_memory",
    ],
)
def test_a_server_store_that_cannot_be_reached_is_named_by_its_database(location):
    with pytest.raises(StoreError) as caught:
        Store.open(location)
    text = tool_error(caught.value, location)
    assert text.startswith("cannot connect to team_memory: "), text
    assert "connection to server failed: " in text
    for hidden in ("s3cret", "ursula", "synapse-no-such-socket-dir", "127.0.0.1", "postgresql://"):
        assert hidden not in text, text
    assert len(text.splitlines()) == 1


def test_a_file_store_is_named_by_its_file_name(tmp_path):
    location = tmp_path / "deep" / "memory.db"
    text = tool_error(StoreError(f"{location}: not a synapse store"), location)
    assert text == "memory.db: not a synapse store"
