"""`synapse-tui copy`: a store to a server and back is the same store, row for row, and a
copy that cannot land whole lands not at all."""

from __future__ import annotations

import sqlite3
import time

import pytest

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.ingest.sample import ensure_sample
from synapse_tui.core.store.postgres.schema import TABLES
from synapse_tui.core.store.postgres.transfer import copy_store
from tests.helpers import run

pytestmark = pytest.mark.postgres


def exports(db) -> tuple[str, str]:
    return run("export", db).stdout, run("export", db, "--audit").stdout


def rows(db) -> dict[str, list[tuple]]:
    """Every row of every table a copy keeps, read straight from the file."""
    conn = sqlite3.connect(db)
    try:
        return {
            t.name: conn.execute(f"SELECT {', '.join(t.columns)} FROM {t.name} ORDER BY {t.key}").fetchall()
            for t in TABLES
        }
    finally:
        conn.close()


def round_trip(src, new_database, tmp_path):
    url = new_database()
    there = run("copy", src, url)
    back = tmp_path / "back.db"
    run("copy", url, back)
    return there, back


def test_the_sample_comes_back_byte_for_byte(new_database, tmp_path):
    sample = ensure_sample()
    there, back = round_trip(sample, new_database, tmp_path)
    assert there.stdout.startswith("copied 3,461 facts")
    # its config stays beside the file, and the user is told so
    assert (
        there.stderr
        == f"note: {sample.with_name('sample.synapse.toml')} (the config scoring {sample}) was not copied\n"
    )
    assert exports(back) == exports(sample)
    assert rows(back) == rows(sample)


def test_audit_supersession_and_graph_come_back(db, new_database, tmp_path):
    run("corroborate", db, "e")
    run("accept", db, "e")
    run("contradict", db, "a")
    run("supersede", db, "c", "d")
    run("verify", db, "b")
    run("undo", db)
    before = rows(db)
    assert before["audit"] and before["semantic_edges"] and before["knn"] and before["mentions"]
    assert any(row[13] is not None for row in before["facts"])  # supersedes_pos resolved
    _, back = round_trip(db, new_database, tmp_path)
    assert exports(back) == exports(db)
    assert rows(back) == before
    # the copy can go on from where the original was: new audit entries and facts number on
    run("corroborate", back, "a")
    assert rows(back)["audit"][-1][0] == before["audit"][-1][0] + 1


def test_a_server_copy_numbers_on_after_the_copied_rows(db, new_database):
    import psycopg

    url = new_database()
    run("copy", db, url)
    with psycopg.connect(url) as conn:
        (seq,) = conn.execute(
            "INSERT INTO audit (at, actor, action) VALUES ('t', 'user:x', 'verify') RETURNING seq"
        ).fetchone()
        (pos,) = conn.execute(
            "INSERT INTO facts (id, text, created_at, created_ts, r, s, events)"
            " VALUES ('new', 't', 't', 0, 0, 0, %s) RETURNING pos",
            (bytes(8),),  # its events: its creation (the epoch)
        ).fetchone()
    assert (seq, pos) == (len(rows(db)["audit"]) + 1, 6)


def test_progress_reaches_the_total(db, new_database):
    seen: list[tuple[int, int]] = []
    copy_store(db, new_database(), progress=lambda done, total: seen.append((done, total)))
    total = sum(len(v) for v in rows(db).values())
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def error_line(*args) -> str:
    result = run(*args, ok=False)
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


def test_a_destination_that_holds_a_store_is_refused_and_kept(db, store_path, new_database, tmp_path):
    url = new_database()
    run("copy", db, url)
    assert "already holds a store (5 facts" in error_line("copy", store_path, url)
    back = tmp_path / "back.db"
    run("copy", url, back)
    assert "already holds a store (5 facts" in error_line("copy", store_path, back)
    assert exports(back) == exports(db)


def test_a_copy_that_fails_midway_leaves_nothing(db, new_database, tmp_path):
    import psycopg

    url = new_database()

    def interrupt(done, total):
        if done > total // 2:
            raise StoreError("interrupted")

    with pytest.raises(StoreError):
        copy_store(db, url, progress=interrupt)
    with psycopg.connect(url) as conn:  # not even the schema: it was made in the same transaction
        assert conn.execute(
            "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace"
        ).fetchone() == (0,)
    run("copy", db, url)
    with pytest.raises(StoreError):
        copy_store(url, tmp_path / "half.db", progress=interrupt)
    assert list(tmp_path.glob("half.db*")) == []


def test_a_fact_postgresql_cannot_hold_is_one_error_line(tmp_path, new_database):
    src = tmp_path / "nul.jsonl"
    src.write_text('{"id": "n", "text": "a\\u0000b", "created_at": "2026-01-01T00:00:00Z"}\n')
    run("import", src, "--db", tmp_path / "nul.db")
    line = error_line("copy", tmp_path / "nul.db", new_database())
    assert "nothing was copied" in line and "a value holds a NUL character" in line
    assert line.endswith("(COPY facts, line 1, column text)")


def test_a_missing_source_or_folder_is_one_error_line(tmp_path, new_database):
    assert error_line("copy", tmp_path / "none.db", new_database()).endswith("none.db: no such database")
    assert "does not exist" in error_line("copy", new_database(), tmp_path / "no" / "x.db")


def test_two_copies_into_one_database_never_interleave(db, store_path, new_database):
    """The second waits on the first's lock, then finds a store there and refuses."""
    import threading

    url = new_database()
    first_started, outcome = threading.Event(), {}

    def slow(done, total):
        if done:  # rows are going in: the first holds the lock
            first_started.set()
        if done < total:
            time.sleep(0.05)

    def second():
        first_started.wait(5)
        try:
            copy_store(store_path, url)
        except StoreError as exc:
            outcome["second"] = str(exc)

    thread = threading.Thread(target=second)
    thread.start()
    copy_store(db, url, progress=slow)
    thread.join(10)
    assert "already holds a store (5 facts" in outcome["second"]
    back = db.with_name("back.db")
    run("copy", url, back)
    assert exports(back) == exports(db)  # the first copy, whole
