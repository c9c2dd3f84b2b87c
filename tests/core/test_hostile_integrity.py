"""Integrity under hostile input, in the core (issue 22, points 7 to 13): sources that
repeat themselves, round trips that must keep what they carry, stores that are damaged or
only half writable. Real SQLite files, sources in each system's documented shape."""

from __future__ import annotations

import sqlite3

import pytest

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import mem0
from tests.core.mem0_files import SHAPES, ev, story, write_history


@pytest.fixture(autouse=True)
def _no_home_mem0(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


# -- 8. a mem0 history holding its rows twice -----------------------------------------------


def merged_history(path, events: list[dict]):
    """A history table as a merge of two copies leaves it: mem0's columns, no primary key."""
    conn = sqlite3.connect(path)
    conn.execute(SHAPES["now"].replace(" PRIMARY KEY", ""))
    conn.commit()
    conn.close()
    return write_history(path, events)


def texts(snapshot) -> dict[str, str]:
    return {f.id: f.text for f in snapshot.facts}


def test_a_history_holding_its_rows_twice_reads_each_record_once(tmp_path):
    once = mem0.read(write_history(tmp_path / "once.db", story()))
    twice = mem0.read(merged_history(tmp_path / "twice.db", story() + story()))
    assert texts(twice) == texts(once)  # no invented versions; coffee is still the head
    assert texts(twice)["mem0:m-tea@2"] == "Alice likes coffee" and "mem0:m-tea@3" not in texts(twice)
    assert twice.deleted == once.deleted
    assert any("5 history records appear twice" in line for line in twice.left_out)


def test_a_conflicting_duplicate_history_record_is_refused_by_its_id(tmp_path):
    forged = ev("m-tea", "UPDATE", "Alice likes cocoa", old="Alice likes tea", updated="2025-06-02T00:00:00Z")
    forged["id"] = "h4"
    path = merged_history(tmp_path / "history.db", [*story(), forged])
    with pytest.raises(InputError, match="history record 'h4'.*appears twice with different content"):
        mem0.read(path)
