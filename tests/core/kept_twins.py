"""Two stores of one source side by side, for the tests of a sync that replays only what
changed (gitkept): one synced as a sync does, one replaying every file whole each time;
after each sync both are compared row for row and count for count."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.ingest.adapters.sync import read_record_key
from synapse_tui.core.store.db import Store
from tests.core.basic_memory_files import sync
from tests.core.claude_code_files import git

COUNTS = ("added", "newly_deleted", "unchanged", "reasserted", "restored", "accepted")


def commit(repo: Path, files: dict[str, str | None], when: str) -> None:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "notes", when=when)


class Twins:
    """Two stores of one source (`read(known=, whole=, read_before=)`): `kept` synced as a
    sync does, `whole` replaying every file."""

    def __init__(self, read: Callable[..., Any], system: str, tmp: Path) -> None:
        self.read, self.system = read, system
        self.kept, self.whole = tmp / "kept.db", tmp / "whole.db"
        self.whole_snap: Any = None  # the last snapshot of the whole replay

    def sync(self) -> tuple[dict, object]:
        """Sync both; the counts of the kept one, and its snapshot."""
        results = []
        for location, whole in ((self.kept, False), (self.whole, True)):
            with Store.open(location, create=True) as store:
                record = store.meta(read_record_key(self.system)) or {}  # as `sync` passes it
                snap = self.read(known=known_facts(store, self.system), whole=whole, read_before=record)
                results.append((sync(store, snap), snap))
        (kept, snap), (whole, self.whole_snap) = results
        assert {k: getattr(kept, k) for k in COUNTS} == {k: getattr(whole, k) for k in COUNTS}
        assert rows(self.kept) == rows(self.whole)
        return {k: getattr(kept, k) for k in COUNTS}, snap


def rows(location: Path) -> tuple[list, list]:
    """Every fact as stored (text, time, tier, link, provenance with its lines, deleted
    flag) and every deletion's time."""
    with sqlite3.connect(location) as conn:
        facts = conn.execute(
            "SELECT id, text, created_at, tier, supersedes, note, entities, provenance, deleted"
            " FROM facts ORDER BY id"
        ).fetchall()
        deleted = conn.execute(
            "SELECT key, value FROM meta WHERE key LIKE 'deleted.%' ORDER BY key"
        ).fetchall()
    return facts, deleted
