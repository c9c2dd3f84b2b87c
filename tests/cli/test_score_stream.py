"""`score --json` streams in chunks: the same lines, in the same order, as one pass."""

from __future__ import annotations

import json

from synapse_tui.cli import commands
from synapse_tui.core.clock import parse_time
from synapse_tui.core.config import config_path_for, load_config
from synapse_tui.core.memory import Memory
from synapse_tui.core.store import Store
from tests.cli.test_cli import db, run  # noqa: F401


def test_chunks_join_into_every_row_in_order(db, monkeypatch):  # noqa: F811
    now = "2026-12-01T00:00:00Z"
    whole = run("score", db, "--json", "--sort", "-trust", "--now", now).stdout
    monkeypatch.setattr(commands, "JSON_CHUNK", 2)  # five facts: three writes
    chunked = run("score", db, "--json", "--sort", "-trust", "--now", now).stdout
    assert chunked == whole
    rows = [json.loads(line) for line in chunked.splitlines()]
    assert [r["trust"] for r in rows] == sorted((r["trust"] for r in rows), reverse=True)
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, load_config(config_path_for(db)), parse_time(now))
        by_id = {r["id"]: r for r in memory.rows()}
        assert rows == [by_id[r["id"]] for r in rows] and len(rows) == len(memory)
        assert memory.rows([3, 0]) == [memory.row(3), memory.row(0)]
