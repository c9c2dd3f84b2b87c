"""A store whose provenance is no JSON any more (a page another program overwrote, or a hand
edit): every command that reads it says so in one line naming the file, as for any other
damage, and exits 2; it said "the database could not be read or written (malformed JSON)",
naming no file and reading as a lock or a full disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.cli_run import refused, run
from tests.helpers import write_jsonl


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    facts = [
        {"id": f"f{i}", "text": f"the deploy runs on day {i}", "created_at": "2026-11-01T00:00:00Z"}
        for i in range(3)
    ]
    db = tmp_path / "broken.db"
    run("import", write_jsonl(tmp_path / "in.jsonl", facts), "--db", db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE facts SET provenance = ? WHERE id = 'f1'", ('{"x-source": "jsonl", "x-',))
    return db


@pytest.mark.parametrize("command", [["score"], ["calibrate"]])
def test_a_command_reading_a_damaged_provenance_names_the_file(broken, command):
    line = refused(command[0], broken, *command[1:])
    assert f"{broken.name}: the database is corrupt (malformed JSON)" in line, line
