"""`synapse-tui import --from mem0`: the whole command, on real files, as a user runs it."""

from __future__ import annotations

import json
import sqlite3

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.ingest.adapters import READERS
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.mem0_files import ev, story, write_history, write_ts_vectors
from tests.helpers import NOW, write_jsonl


@pytest.fixture(autouse=True)
def _no_home_mem0(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # not the user's ~/.mem0


def test_import_then_sync_again_changes_nothing(tmp_path):
    history = write_history(tmp_path / "history.db", story())
    db = tmp_path / "memory.db"
    out = json.loads(run("import", "--from", "mem0", history, "--db", db, "--json").stdout)
    assert (out["added"], out["newly_deleted"], out["unchanged"]) == (3, 1, 0)  # 4 facts, each once
    assert out["system"] == "mem0" and any("no vector store" in line for line in out["left_out"])
    export = run("export", db).stdout
    audit = run("export", db, "--audit").stdout
    human = run("import", "--from", "mem0", history, "--db", db)
    assert "0 added, 0 newly deleted, 0 re-asserted, 4 unchanged" in human.stdout
    # said at the first import (in --json there), counted at the next: nothing new to say
    assert "no vector store" not in human.stderr
    assert "left out: 1 more, as at the last sync (--json lists every line)" in human.stderr
    assert run("export", db).stdout == export and run("export", db, "--audit").stdout == audit


def test_deleted_at_the_source_is_flagged_and_filterable(tmp_path):
    db = tmp_path / "memory.db"
    run("import", "--from", "mem0", write_history(tmp_path / "history.db", story()), "--db", db)
    rows = [
        json.loads(line) for line in run("score", db, "--json", "--where", "is:deleted").stdout.splitlines()
    ]
    assert [(r["id"], r["flags"]) for r in rows] == [("mem0:m-paris", ["deleted"])]


def test_triage_between_syncs_is_kept(tmp_path):
    history = write_history(tmp_path / "history.db", story())
    db = tmp_path / "memory.db"
    run("import", "--from", "mem0", history, "--db", db)
    with Store.open(db) as store:  # triage here (the browser's `x`)
        Triage(store, Clock(parse_time(NOW)), actor="user:tester").apply("contradict", ["mem0:m-dog"])
    write_history(history, [ev("m-new", "ADD", "Alice moved to Lyon", created="2026-11-01T00:00:00+01:00")])
    out = json.loads(run("import", "--from", "mem0", history, "--db", db, "--json").stdout)
    assert (out["added"], out["unchanged"]) == (1, 4)
    dog = json.loads(run("show", db, "mem0:m-dog", "--json").stdout)
    assert dog["contradictions"] == 1 and [h["action"] for h in dog["history"]] == ["contradict"]
    lyon = json.loads(run("show", db, "mem0:m-new", "--json").stdout)
    assert lyon["created_at"] == "2026-10-31T23:00:00Z"


def test_show_says_where_it_came_from_and_what_mem0_never_records(tmp_path):
    db = tmp_path / "memory.db"
    run("import", "--from", "mem0", write_history(tmp_path / "history.db", story()), "--db", db)
    text = run("show", db, "mem0:m-tea@2").stdout
    assert "from mem0: record m-tea version 2, written by alice (user)" in text
    assert "mem0 does not record corroborations, contradictions, reinforcements, acceptance" in text
    info = json.loads(run("show", db, "mem0:m-tea@2", "--json").stdout)
    assert info["source"]["unrecorded"] == [
        "corroborations",
        "contradictions",
        "reinforcements",
        "acceptance",
    ]


def test_no_source_reads_mem0s_default_history(tmp_path):
    home = tmp_path / "mem0home"
    home.mkdir()
    write_history(home / "history.db", story())
    db = tmp_path / "memory.db"
    out = run("import", "--from", "mem0", "--db", db, "--json", env={"MEM0_DIR": str(home)}).stdout
    assert json.loads(out)["source"] == str(home / "history.db")


def test_a_foreign_sqlite_file_is_refused_and_nothing_created(tmp_path):
    foreign = tmp_path / "history.db"
    sqlite3.connect(foreign).execute("CREATE TABLE moz_places (id, url)")
    db = tmp_path / "memory.db"
    line = refused("import", "--from", "mem0", foreign, "--db", db)
    assert str(foreign) in line and "expected mem0's history.db" in line
    assert not db.exists()
    line = refused("import", "--from", "mem0", tmp_path / "missing.db", "--db", db)
    assert "no such file" in line and not db.exists()


def test_a_malformed_record_changes_nothing(tmp_path):
    history = write_history(tmp_path / "history.db", story())
    db = tmp_path / "memory.db"
    run("import", "--from", "mem0", history, "--db", db)
    before = run("export", db).stdout
    write_history(history, [ev("m-x", "UPDATE", "later", updated="soon", hid="rec-77")])
    line = refused("import", "--from", "mem0", history, "--db", db)
    assert "history record 'rec-77'" in line and "field 'updated_at'" in line
    assert run("export", db).stdout == before


def test_bad_vectors_are_refused_before_anything_is_created(tmp_path):
    history = write_history(tmp_path / "history.db", story())
    db = tmp_path / "memory.db"
    (tmp_path / "empty").mkdir()
    line = refused("import", "--from", "mem0", history, "--db", db, "--vectors", tmp_path / "empty")
    assert "expected a mem0 vector store" in line and not db.exists()


def test_options_that_do_not_fit_are_refused(tmp_path, monkeypatch):
    facts = write_jsonl(
        tmp_path / "f.jsonl", [{"id": "a", "text": "t", "created_at": "2026-01-01T00:00:00Z"}]
    )
    db = tmp_path / "memory.db"
    assert "--vectors applies only to --from mem0" in refused(
        "import", facts, "--db", db, "--vectors", tmp_path
    )
    assert "unknown system" in refused("import", "--from", "letta", tmp_path, "--db", db)
    monkeypatch.setitem(READERS, "graphiti", "no_such_reader")
    assert "not available in this version" in refused("import", "--from", "graphiti", tmp_path, "--db", db)
    assert "needs FILE.jsonl" in refused("import", "--db", db)
    assert not db.exists()
    run("import", facts, "--db", db)  # the plain import is unchanged


def test_typescript_sdk_files_with_their_vectors(tmp_path):
    history = write_history(tmp_path / "history.db", story(), "ts")
    write_ts_vectors(
        tmp_path / "vector_store.db",  # where the TypeScript SDK puts it, beside history.db
        {
            "m-tea": ([0.3, 0.1, 0.9], {"data": "Alice likes coffee", "userId": "alice"}),
            "m-dog": ([0.2, 0.9, 0.1], {"data": "Alice has a dog named Rex", "userId": "alice"}),
        },
    )
    db = tmp_path / "memory.db"
    out = json.loads(run("import", "--from", "mem0", history, "--db", db, "--json").stdout)
    assert (out["added"], out["newly_deleted"], out["left_out"]) == (3, 1, [])
    coffee = json.loads(run("show", db, "mem0:m-tea@2", "--json").stdout)
    assert coffee["embedding"] == "model" and coffee["note"] == "alice"
    assert json.loads(run("show", db, "mem0:m-tea", "--json").stdout)["embedding"] != "model"


def test_vectors_found_later_do_not_change_facts_already_here(tmp_path):
    history = write_history(tmp_path / "history.db", story(), "ts")
    db = tmp_path / "memory.db"
    run("import", "--from", "mem0", history, "--db", db)  # no vectors yet
    export = run("export", db).stdout
    write_ts_vectors(
        tmp_path / "vector_store.db", {"m-dog": ([0.2, 0.9], {"data": "Alice has a dog named Rex"})}
    )
    out = json.loads(run("import", "--from", "mem0", history, "--db", db, "--json").stdout)
    assert out["added"] == 0 and run("export", db).stdout == export
    assert out["left_out"] == [
        "embeddings the source now gives for facts imported earlier without one: 1,"
        " not carried over (facts already in the store are never changed)"
    ]


def test_a_sync_after_an_import_by_a_relative_path_does_not_say_its_left_out_lines_again(
    tmp_path, monkeypatch
):
    """`import --from mem0 history.db` in the folder, then `sync` (which reads the source by
    the absolute path the store records): the line said at the import is counted, not said
    again (the two keyed what they said by the path as typed and as recorded)."""
    write_history(tmp_path / "history.db", story())
    monkeypatch.chdir(tmp_path)
    first = run("import", "--from", "mem0", "history.db", "--db", "memory.db")
    assert "no vector store" in first.stderr
    again = run("sync", "memory.db", "--yes")
    assert "no vector store" not in again.stderr
    assert "left out: 1 more, as at the last sync (--json lists every line)" in again.stderr
