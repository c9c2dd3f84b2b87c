"""`store.review.deleted_when()`, asked at every catch-up of the suggestions queue: read
whole once per state of the facts, and still what the store says after whatever changed
the deletions, on both backends: a sync that flags deleted run by another process, the
source holding the fact again, an import of a fact deleted at its source, a transaction
rolled back, triage and its undo (which move no deletion: the same mapping comes back)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.location import is_server
from synapse_tui.core.store.db import Store
from tests.cli_run import run
from tests.core.basic_memory_files import write
from tests.core.claude_code_files import git
from tests.helpers import NOW, write_jsonl

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

REPO = Path(__file__).resolve().parents[2]
RULES = "- Deploy with make ship\n- Run the tests with pnpm\n- Never push on Fridays\n"


def exported(location: str) -> dict[str, float]:
    """What the store says of the deletions now, read afresh: each deleted fact's id and
    when, as a new connection reads them; the same as `export` says (to its microsecond)."""
    facts = [json.loads(line) for line in run("export", location).stdout.splitlines()]
    said = {f["id"]: parse_time(f["deleted"]) for f in facts if isinstance(f.get("deleted"), str)}
    with Store.open(location, readonly=True) as store:
        fresh = by_id(store, store.review.deleted_when())
    assert fresh == pytest.approx(said, abs=1e-6)
    return fresh


def ids(store: Store) -> list[str]:
    """The facts' ids by position from 0."""
    return [fid for (fid,) in store._conn.execute("SELECT id FROM facts ORDER BY pos").fetchall()]


def by_id(store: Store, when) -> dict[str, float]:
    held = ids(store)
    return {held[pos]: at for pos, at in when.items()}


def sync_elsewhere(location: str, tmp_path: Path) -> str:
    """`synapse-tui sync LOCATION --yes` in a process of its own (this checkout's code)."""
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(REPO),
        "SYNAPSE_NOW": NOW,
        "SYNAPSE_DATA_DIR": os.environ["SYNAPSE_DATA_DIR"],
        "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"],
        "HOME": str(tmp_path / "home"),
        "TZ": "UTC",
    }
    done = subprocess.run(
        [sys.executable, "-m", "synapse_tui", "sync", location, "--yes"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def project(tmp_path, new_store):
    folder = tmp_path / "shop"
    write(folder, "CLAUDE.md", RULES)
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "rules")
    location = new_store("memory")
    (tmp_path / "home").mkdir()
    run("import", "--from", "markdown", folder, "--db", location, env={"HOME": str(tmp_path / "home")})
    return folder, location


def test_every_change_of_the_deletions_is_seen_by_a_long_lived_reader(project, tmp_path):
    folder, location = project
    with Store.open(location) as reader:
        first = reader.review.deleted_when()
        assert dict(first) == {} and reader.review.deleted_when() is first

        # a sync that flags deleted, by another process
        write(folder, "CLAUDE.md", "- Deploy with make ship\n- Run the tests with pnpm\n")
        assert "1 newly deleted" in sync_elsewhere(location, tmp_path)
        flagged = by_id(reader, reader.review.deleted_when())
        assert flagged == exported(location) and len(flagged) == 1
        (gone_id,) = flagged

        # triage and its undo change the facts, not the deletions: the same mapping
        kept = reader.review.deleted_when()
        live = next(fid for fid in ids(reader) if fid != gone_id)
        run("corroborate", location, live)
        assert reader.review.deleted_when() is kept
        run("undo", location)
        assert reader.review.deleted_when() is kept

        # the source holds it again: no longer deleted
        write(folder, "CLAUDE.md", RULES)
        assert "1 back at the source" in sync_elsewhere(location, tmp_path)
        assert by_id(reader, reader.review.deleted_when()) == exported(location) == {}

        # an import of a fact its source deleted, with when
        src = write_jsonl(
            tmp_path / "late.jsonl",
            [{"id": "late", "text": "an old rule", "created_at": NOW, "deleted": "2026-11-20T08:00:00Z"}],
        )
        run("import", src, "--db", location)
        assert by_id(reader, reader.review.deleted_when()) == {"late": parse_time("2026-11-20T08:00:00Z")}

        # its own deletion, seen inside its transaction and gone with it when rolled back
        before = reader.review.deleted_when()
        with pytest.raises(RuntimeError), reader.transaction():
            reader.imports.flag_deleted([gone_id], 1.0e9, {}, [])
            assert by_id(reader, reader.review.deleted_when())[gone_id] == 1.0e9
            raise RuntimeError("rolled back")
        # another writer's change next (on a file it takes the rolled-back entry's seq)
        run("corroborate", location, live)
        assert reader.review.deleted_when() == before
        assert by_id(reader, reader.review.deleted_when()) == exported(location)


def test_asked_again_in_one_state_the_deletion_times_are_not_read_again(project, tmp_path, backend):
    if backend != "file":
        pytest.skip("the statements run are traced on SQLite")
    folder, location = project
    write(folder, "CLAUDE.md", "- Deploy with make ship\n")
    assert "2 newly deleted" in sync_elsewhere(location, tmp_path)
    with Store.open(location) as store:
        first = store.review.deleted_when()
        assert len(first) == 2
        ran: list[str] = []
        store._conn.set_trace_callback(ran.append)
        try:
            assert store.review.deleted_when() is first
            assert sorted(store.review.deleted_at()) == sorted(first.items())
        finally:
            store._conn.set_trace_callback(None)
    assert ran and not [sql for sql in ran if "meta" in sql]  # only the change log's newest entry


def test_after_a_few_changes_only_their_facts_are_read_again(project, tmp_path, backend):
    """A triage action or a sync changes a few facts: the times of those are read again,
    not all of them; a change the log cannot patch (more than PATCH_MAX facts) reads all."""
    if backend != "file":
        pytest.skip("the statements run are traced on SQLite")
    folder, location = project
    with Store.open(location) as store:
        assert dict(store.review.deleted_when()) == {}
        write(folder, "CLAUDE.md", "- Deploy with make ship\n")
        assert "2 newly deleted" in sync_elsewhere(location, tmp_path)
        ran: list[str] = []
        store._conn.set_trace_callback(ran.append)
        try:
            flagged = store.review.deleted_when()
            assert by_id(store, flagged) == exported(location) and len(flagged) == 2
            assert [sql for sql in ran if "meta" in sql and "LEFT JOIN" in sql]  # the two facts
            assert not [sql for sql in ran if "substr(m.key, 1, 11)" in sql]  # not every time
            ran.clear()
            run("corroborate", location, ids(store)[0])
            assert store.review.deleted_when() is flagged
            assert not [sql for sql in ran if "substr(m.key, 1, 11)" in sql]
            many = [
                {"id": f"m{i}", "text": f"rule {i}", "created_at": NOW, "deleted": "2026-11-20T08:00:00Z"}
                for i in range(store.PATCH_MAX + 1)
            ]
            run("import", write_jsonl(tmp_path / "many.jsonl", many), "--db", location)
            ran.clear()
            assert by_id(store, store.review.deleted_when()) == exported(location)
            assert len(store.review.deleted_when()) == 2 + len(many)
            assert [sql for sql in ran if "substr(m.key, 1, 11)" in sql]  # read whole
        finally:
            store._conn.set_trace_callback(None)


def test_a_fact_removed_by_hand_is_gone_from_the_times(new_store, tmp_path):
    """A row deleted by hand (sqlite3, psql) is logged by the store's own triggers: the
    times are read whole again, and its time is no longer given."""
    location = new_store("hand")
    rows = [
        {"id": f"h{i}", "text": f"rule {i}", "created_at": NOW, "deleted": f"2026-11-2{i}T08:00:00Z"}
        for i in range(3)
    ]
    run("import", write_jsonl(tmp_path / "hand.jsonl", rows), "--db", location)
    with Store.open(location) as reader:
        assert len(reader.review.deleted_when()) == 3
        if is_server(location):
            import psycopg

            with psycopg.connect(location, autocommit=True) as conn:
                conn.execute("DELETE FROM facts WHERE id = 'h2'")
        else:
            import sqlite3

            with contextlib.closing(sqlite3.connect(location)) as conn, conn:
                conn.execute("DELETE FROM facts WHERE id = 'h2'")
        assert by_id(reader, reader.review.deleted_when()) == exported(location)
        assert set(by_id(reader, reader.review.deleted_when())) == {"h0", "h1"}
