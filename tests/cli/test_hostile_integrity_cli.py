"""Integrity under hostile input, from the command line (issue 22, points 7 to 13): a
refusal is one `error:` line, exit 2, and leaves the store as it was."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest
from click.testing import CliRunner

from synapse_tui.cli import main
from synapse_tui.core.store.db import Store
from tests.core.graphiti_files import ACME, ALICE
from tests.core.graphiti_files import dump as gdump
from tests.core.graphiti_files import edge as gedge
from tests.core.mem0_files import ev, merged_history, story, write_history
from tests.helpers import NOW, json_lines, write_jsonl


def run(*args, code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output + result.stderr
    return result


def audit(path) -> list[dict]:
    return json_lines(run("export", path, "--audit").stdout)


# -- 7. superseding a pair already linked --------------------------------------------------


def test_superseding_a_pair_already_linked_is_refused_and_not_audited(db):
    run("supersede", db, "c", "d")
    before = audit(db)
    result = run("supersede", db, "c", "d", code=2)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "d already supersedes c" in result.stderr and "nothing to change" in result.stderr
    assert audit(db) == before
    run("undo", db)  # one undo takes the link away: there is no no-op to undo first
    assert json_lines(run("show", db, "d", "--json").stdout)[0]["supersedes"] is None


_RACER = """
import sys
from click.testing import CliRunner
from synapse_tui.cli import main
r = CliRunner().invoke(main, ["supersede", sys.argv[1], "c", "d"])
sys.exit(r.exit_code)
"""


def test_a_race_of_writers_lands_one_supersession(db):
    env = {**os.environ, "SYNAPSE_NOW": "2026-12-01T00:00:00Z"}
    racers = [
        subprocess.Popen([sys.executable, "-c", _RACER, str(db)], env=env, stderr=subprocess.PIPE)
        for _ in range(8)
    ]
    codes = sorted(p.wait(timeout=120) for p in racers)
    assert codes == [0] + [2] * 7
    assert [e["action"] for e in audit(db)] == ["supersede", "supersede"]  # one batch: old and new fact


# -- 8. a mem0 history holding its rows twice --------------------------------------------------


def test_a_conflicting_duplicate_in_a_mem0_history_is_one_error_line(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    forged = ev("m-tea", "UPDATE", "Alice likes cocoa", old="Alice likes tea", updated="2025-06-02T00:00:00Z")
    forged["id"] = "h4"
    path = merged_history(tmp_path / "history.db", [*story(), forged])
    result = run("import", "--from", "mem0", path, "--db", tmp_path / "m.db", code=2)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"error: {path}: history record 'h4'")
    assert not (tmp_path / "m.db").exists()


# -- 9. export and re-import keep `deleted` ----------------------------------------------------


def test_export_and_reimport_keep_deleted(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    first = tmp_path / "first.db"
    run("import", "--from", "mem0", write_history(tmp_path / "history.db", story()), "--db", first)
    exported = run("export", first).stdout
    paris = next(o for o in json_lines(exported) if o["id"] == "mem0:m-paris")
    assert paris["deleted"] == "2026-12-01T00:00:00Z"  # flagged by that import, at its instant

    dump = tmp_path / "dump.jsonl"
    dump.write_text(exported)
    again = tmp_path / "again.db"
    run("import", dump, "--db", again)
    assert run("export", again).stdout == exported
    deleted = json_lines(run("score", again, "--json", "--where", "is:deleted").stdout)
    assert [row["id"] for row in deleted] == ["mem0:m-paris"]
    assert "deleted" in deleted[0]["flags"]


def test_deleted_with_no_instant_round_trips_as_true(tmp_path):
    src = write_jsonl(
        tmp_path / "f.jsonl",
        [
            {"id": "a", "text": "gone", "created_at": "2025-01-01T00:00:00Z", "deleted": True},
            {"id": "b", "text": "here", "created_at": "2025-01-01T00:00:00Z", "deleted": False},
        ],
    )
    run("import", src, "--db", tmp_path / "m.db")
    objs = {o["id"]: o for o in json_lines(run("export", tmp_path / "m.db").stdout)}
    assert objs["a"]["deleted"] is True and "deleted" not in objs["b"]
    flagged = json_lines(run("score", tmp_path / "m.db", "--json", "--where", "is:deleted").stdout)
    assert [row["id"] for row in flagged] == ["a"]


@pytest.mark.parametrize("value", ["yes", 1, None, "2025-13-01T00:00:00Z"])
def test_a_bad_deleted_value_names_line_and_field(tmp_path, value):
    src = write_jsonl(
        tmp_path / "f.jsonl",
        [
            {"id": "a", "text": "t", "created_at": "2025-01-01T00:00:00Z"},
            {"id": "b", "text": "t", "created_at": "2025-01-01T00:00:00Z", "deleted": value},
        ],
    )
    result = run("import", src, "--db", tmp_path / "m.db", code=2)
    assert result.stderr.startswith(f"error: {src}:2: field 'deleted': ") and result.stderr.count("\n") == 1
    assert not (tmp_path / "m.db").exists()


# -- 10. Graphiti: no guessed successor; the old fact stays invalidated --------------------------


def test_an_invalidated_edge_with_two_candidates_is_flagged_and_survives_a_round_trip(tmp_path):
    edges = [
        gedge(
            "e-old",
            "Alice works at Acme",
            ALICE,
            ACME,
            "2025-01-02T00:00:00Z",
            valid_at="2025-01-01T00:00:00Z",
            invalid_at="2025-05-01T00:00:00Z",
        ),
        gedge("e-a", "Alice left Acme", ACME, ALICE, "2025-05-02T09:00:00Z", valid_at="2025-05-01T00:00:00Z"),
        gedge("e-b", "Alice quit Acme", ALICE, ACME, "2025-05-02T09:30:00Z", valid_at="2025-05-01T00:00:00Z"),
    ]
    first = tmp_path / "first.db"
    result = run("import", "--from", "graphiti", gdump(tmp_path / "g", edges=edges), "--db", first)
    assert "several newer edges" in result.stderr and "no successor named" in result.stderr
    flagged = json_lines(run("score", first, "--json", "--where", "is:invalidated").stdout)
    # no successor is named (k stays 0); a newer edge may only be suggested, never linked
    assert [(r["id"], r["flags"][0], r["k"]) for r in flagged] == [("graphiti:e-old", "invalidated", 0)]
    assert set(flagged[0]["flags"]) <= {"invalidated", "suggested_replaced"}
    assert "flags: invalidated" in run("show", first, "graphiti:e-old").stdout

    dump = tmp_path / "dump.jsonl"
    dump.write_text(run("export", first).stdout)
    run("import", dump, "--db", tmp_path / "again.db")
    again = json_lines(run("score", tmp_path / "again.db", "--json", "--where", "flag:invalidated").stdout)
    assert [r["id"] for r in again] == ["graphiti:e-old"]


# -- 11. a refused import changes nothing; a partial one says exactly what landed ---------------


def corrupt_index(path, index: str) -> None:
    """Overwrite the cell pointers of `index`'s root page on disk, as a failing disk would."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (index,)).fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with open(path, "r+b") as fh:
        fh.seek((root - 1) * size + 8)
        fh.write(b"\xff" * 200)


def facts_on_disk(path) -> list[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [row[0] for row in conn.execute("SELECT id FROM facts ORDER BY pos")]
    finally:
        conn.close()


def test_an_import_into_a_store_with_a_corrupt_audit_index_is_refused_whole(db, tmp_path):
    for fid in ("a", "b", "c", "d", "e") * 8:
        run("corroborate", db, fid)
    corrupt_index(db, "audit_fact")
    before = facts_on_disk(db)
    new = write_jsonl(
        tmp_path / "new.jsonl", [{"id": "n1", "text": "new", "created_at": "2025-01-01T00:00:00Z"}]
    )
    result = run("import", new, "--db", db, code=2)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"error: {db}: ")
    assert "corrupt" in result.stderr and "nothing was written" in result.stderr
    assert facts_on_disk(db) == before

    history = write_history(tmp_path / "history.db", story())
    result = run("import", "--from", "mem0", history, "--db", db, code=2)
    assert "corrupt" in result.stderr and "nothing was written" in result.stderr
    assert facts_on_disk(db) == before


def test_a_graph_failure_after_the_facts_landed_says_so_with_its_own_status(db, tmp_path, monkeypatch):
    import synapse_tui.core.graph.build as build

    def full_disk(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(build, "update_graph", full_disk)
    new = write_jsonl(
        tmp_path / "new.jsonl", [{"id": "n1", "text": "new", "created_at": "2025-01-01T00:00:00Z"}]
    )
    result = run("import", new, "--db", db, code=3)
    assert result.stderr.count("\n") == 1
    assert "1 fact imported" in result.stderr and "neighbour graph was not updated" in result.stderr
    assert "database or disk is full" in result.stderr
    assert facts_on_disk(db)[-1] == "n1"


# -- 12. `embed` run again finishes a store left with vectors but the old graph -----------------


def test_embed_run_again_finishes_the_graph_of_a_stuck_store(tmp_path, monkeypatch):
    from synapse_tui.core.graph import embed as embedder
    from synapse_tui.core.store.db import Store
    from tests.core.graph_stores import fake_model

    monkeypatch.setattr(embedder, "missing_extra", lambda: None)  # torch is not installed here
    monkeypatch.setattr(embedder, "encode", fake_model)
    facts = [
        {"id": f"f{i}", "text": f"fact {i} on topic {i % 9}", "created_at": "2025-01-01T00:00:00Z"}
        for i in range(60)
    ]
    db = tmp_path / "m.db"
    run("import", write_jsonl(tmp_path / "f.jsonl", facts), "--db", db)
    with Store.open(db) as store:  # what an earlier embed left: its vectors committed, the graph not
        todo = store._conn.execute("SELECT pos, text FROM facts ORDER BY pos").fetchall()
        with store.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embeddings (pos, kind, vec) VALUES (?, 'model', ?)",
                [
                    (p, bytes(v.astype("float32")))
                    for (p, _), v in zip(todo, fake_model([t for _, t in todo]), strict=True)
                ],
            )
            embedder.record_model(conn)
    out = run("embed", db).stdout
    assert "the neighbour graph built on them was not up to date and now is" in out
    with Store.open(db, readonly=True) as store:
        kinds = {kind for (kind,) in store._conn.execute("SELECT DISTINCT kind FROM semantic_edges")}
    assert kinds == {"model"}  # the graph is the model's now, not the lexical one
    assert "nothing to do" in run("embed", db).stdout  # and the next run has none left


# -- 13. a store in a folder that cannot be written opens read-only and says why -------------


@pytest.fixture
def read_only_folder(db, tmp_path):
    """`db` seen through a folder that cannot be written while the file itself can: the
    folder bind-mounted read-only, the file bind-mounted writable over it. Real for root,
    who may write into any folder that permissions alone close (skipped where mounting is
    not allowed)."""
    shutil.rmtree(db.parent / (db.name + "-graph"), ignore_errors=True)  # one file, like a copy
    with Store.open(db) as store:
        store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    real, view = tmp_path / "real", tmp_path / "view"
    real.mkdir()
    shutil.copy(db, real / "memory.db")
    mounted = []

    def mount(*args):
        done = subprocess.run(["mount", *map(str, args)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot bind-mount here: {done.stderr.strip()}")
        mounted.append(args[-1])

    view.mkdir()
    try:
        mount("--bind", real, view)
        mount("-o", "remount,ro,bind", view)
        mounted.pop()  # the same mount point, once
        mount("--bind", real / "memory.db", view / "memory.db")
        assert os.access(view / "memory.db", os.W_OK) and not os.access(view, os.W_OK)
        yield view / "memory.db"
    finally:
        for point in reversed(mounted):
            subprocess.run(["umount", str(point)], check=False)


def test_a_store_in_a_read_only_folder_is_read_and_says_why_it_is_not_written(read_only_folder):
    shown = run("show", read_only_folder, "a")
    assert shown.stdout.startswith("a ")
    result = run("corroborate", read_only_folder, "a", code=2)
    assert result.stderr.count("\n") == 1 and "not a SQLite database" not in result.stderr
    assert "opened read-only (its folder" in result.stderr and "cannot be written" in result.stderr
    assert "-wal and -shm files" in result.stderr
    new = write_jsonl(
        read_only_folder.parent.parent / "new.jsonl", [{"id": "n", "text": "t", "created_at": NOW}]
    )
    result = run("import", new, "--db", read_only_folder, code=2)
    assert "opened read-only (its folder" in result.stderr and "nothing can be changed" in result.stderr


def test_a_folder_the_user_cannot_write_is_named_before_sqlite_is_asked(db, monkeypatch):
    real_access = os.access
    folder = os.fspath(db.parent)
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if os.fspath(p) == folder else real_access(p, mode)
    )
    with Store.open(db) as store:  # as a user other than root would find it
        assert store.readonly and f"its folder {folder} cannot be written" in store.readonly_why
        assert run("score", db).exit_code == 0
