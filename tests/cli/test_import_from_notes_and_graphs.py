"""`import --from basic-memory` and `--from graphiti`, the whole command as a user runs it:
first import, a second run that changes nothing, an edit at the source, and refusals."""

from __future__ import annotations

import json
import os

import pytest

from synapse_tui.core.base.clock import parse_time
from tests.cli_run import refused, run
from tests.core.basic_memory_files import OLD, SEARCH, write
from tests.core.graphiti_files import ACME, ALICE, EDGES, dump, edge, regrow
from tests.core.mem0_files import story, write_history, write_ts_vectors


def imported(*args, env: dict | None = None) -> dict:
    return json.loads(run("import", *args, "--json", env=env).stdout)


def show(db, fid) -> tuple[str, dict]:
    return run("show", db, fid).stdout, json.loads(run("show", db, fid, "--json").stdout)


def ids_by_text(db) -> dict[str, dict]:
    rows = [json.loads(line) for line in run("export", db).stdout.splitlines()]
    return {r["text"]: r for r in rows}


def test_basic_memory_import_sync_edit_and_triage_kept(tmp_path):
    notes, db = tmp_path / "notes", tmp_path / "memory.db"
    write(notes, "specs/Search Design.md", SEARCH)
    old = write(notes, "old-search.md", OLD, mtime="2025-02-01T00:00:00Z")
    first = imported("--from", "basic-memory", notes, "--db", db)
    assert (first["system"], first["added"], first["newly_deleted"], first["unchanged"]) == (
        "basic-memory",
        5,
        0,
        0,
    )
    before = db.read_bytes()
    human = run("import", "--from", "basic-memory", notes, "--db", db)
    assert "0 added, 0 newly deleted, 0 re-asserted, 5 unchanged" in human.stdout
    assert db.read_bytes() == before  # not one byte written
    cluster = ids_by_text(db)["Search runs on a separate cluster"]["id"]
    run("corroborate", db, cluster, "--now", "2026-06-01T00:00:00Z")
    old.write_text(old.read_text().replace("Use Elasticsearch for search", "Use OpenSearch for search"))
    os.utime(old, (parse_time("2026-07-01T00:00:00Z"),) * 2)
    third = imported("--from", "basic-memory", notes, "--db", db)
    assert (third["added"], third["newly_deleted"], third["unchanged"]) == (1, 0, 4)
    facts = ids_by_text(db)
    v1, v2 = facts["Use Elasticsearch for search"]["id"], facts["Use OpenSearch for search"]["id"]
    assert v2 == v1 + "@2"
    text, info = show(db, v2)
    assert info["supersedes"] == v1 and info["created_at"] == "2026-07-01T00:00:00Z"
    assert json.loads(run("show", db, cluster, "--json").stdout)["corroborations"] == 1  # triage kept
    record = v1.removeprefix("basic-memory:")
    assert f"from basic-memory: record {record} version 2\n" in text  # Basic Memory names no author
    assert "written by" not in text
    assert "basic-memory does not record corroborations, contradictions, reinforcements, acceptance" in text
    assert info["source"] == {
        "system": "basic-memory",
        "record": record,
        "version": 2,
        "author": None,
        "unrecorded": ["corroborations", "contradictions", "reinforcements", "acceptance"],
    }


def test_graphiti_import_sync_edit_and_triage_kept(tmp_path):
    folder, db = dump(tmp_path / "g"), tmp_path / "memory.db"
    first = imported("--from", "graphiti", folder, "--db", db)
    assert (first["system"], first["added"], first["unchanged"]) == ("graphiti", 3, 0)
    before = db.read_bytes()
    assert (
        "0 added, 0 newly deleted, 0 re-asserted, 3 unchanged"
        in run("import", "--from", "graphiti", folder, "--db", db).stdout
    )
    assert db.read_bytes() == before
    run("contradict", db, "graphiti:e-bob", "--now", "2026-01-01T00:00:00Z")
    # Graphiti learns Alice is back at Acme: it invalidates e-new and writes a newer edge
    e_new = {**EDGES[1], "invalid_at": "2025-09-01T00:00:00Z", "expired_at": "2025-09-02T00:00:00Z"}
    back = edge(
        "e-back",
        "Alice is back at Acme",
        ALICE,
        ACME,
        "2025-09-02T00:00:00Z",
        valid_at="2025-09-01T00:00:00Z",
    )
    dump(folder, edges=[EDGES[0], e_new, EDGES[2], back])
    third = imported("--from", "graphiti", folder, "--db", db)
    assert (third["added"], third["newly_deleted"], third["unchanged"]) == (1, 0, 3)
    text, info = show(db, "graphiti:e-back")
    assert info["supersedes"] == "graphiti:e-new"
    assert json.loads(run("show", db, "graphiti:e-bob", "--json").stdout)["contradictions"] == 1
    assert "from graphiti: record e-back version 1, written by chat" in text
    assert "graphiti does not record contradictions, acceptance" in text
    assert info["source"] == {
        "system": "graphiti",
        "record": "e-back",
        "version": 1,
        "author": "chat",
        "unrecorded": ["contradictions", "acceptance"],
    }


def test_graphiti_re_assertion_reaches_a_triaged_fact_and_undo_takes_it_back(tmp_path):
    folder, db = dump(tmp_path / "g"), tmp_path / "memory.db"
    run("import", "--from", "graphiti", folder, "--db", db)
    run("corroborate", db, "graphiti:e-old", "--now", "2026-01-01T00:00:00Z")
    regrow(folder, ["ep-1", "ep-2", "ep-3", "ep-5"])  # a new episode re-asserts e-old
    second = imported("--from", "graphiti", folder, "--db", db, env={"SYNAPSE_NOW": "2026-02-01T00:00:00Z"})
    assert (second["added"], second["reasserted"], second["unchanged"]) == (0, 1, 2)
    info = json.loads(run("show", db, "graphiti:e-old", "--json").stdout)
    assert info["corroborations"] == 4 and info["reinforced_at"][-1] == "2025-08-01T00:00:00Z"
    last = info["history"][-1]
    assert (last["actor"], last["action"], last["at"]) == (
        "source:graphiti",
        "corroborate",
        "2026-02-01T00:00:00Z",
    )
    assert "source:graphiti" in run("show", db, "graphiti:e-old").stdout  # a person sees who did it
    before = db.read_bytes()
    assert (
        "0 added, 0 newly deleted, 0 re-asserted, 3 unchanged"
        in run("import", "--from", "graphiti", folder, "--db", db).stdout
    )
    assert db.read_bytes() == before
    run("undo", db)
    info = json.loads(run("show", db, "graphiti:e-old", "--json").stdout)
    assert info["corroborations"] == 3 and info["reinforced_at"][-1] == "2026-01-01T00:00:00Z"


def test_graphiti_without_episodes_names_no_author(tmp_path):
    """The group id is the note (a partition of the graph), never taken for an author."""
    folder, db = dump(tmp_path / "g", episodes=False), tmp_path / "memory.db"
    run("import", "--from", "graphiti", folder, "--db", db)
    text, info = show(db, "graphiti:e-old")
    assert "from graphiti: record e-old version 1\n" in text and info["source"]["author"] is None
    assert info["note"] == "user-1"


@pytest.mark.parametrize(
    "system, make, expected",
    [
        ("basic-memory", lambda p: p, "no such folder; expected a Basic Memory folder"),
        ("basic-memory", lambda p: (p.mkdir(), p)[1], "holds no Markdown notes"),
        ("basic-memory", lambda p: write(p, "a.md", "---\ntitle: [oops\n---\n- [fact] x\n"), "is a file"),
        ("graphiti", lambda p: p, "no such folder; expected a Graphiti dump"),
        ("graphiti", lambda p: (p.mkdir(), p)[1], "holds no edges.jsonl"),
        (
            "graphiti",
            lambda p: (dump(p), (p / "edges.jsonl").write_text('{"a": 1}\n'), p)[2],
            "edges.jsonl:1",
        ),
        ("graphiti", lambda p: dump(p, edges=[{**EDGES[0], "created_at": "soon"}]), "created_at"),
    ],
)
def test_each_refusal_leaves_no_db(tmp_path, system, make, expected):
    source, db = make(tmp_path / "src"), tmp_path / "memory.db"
    line = refused("import", "--from", system, source, "--db", db)
    assert expected in line
    assert not db.exists() and not list(tmp_path.glob("memory.db*"))


def test_a_note_whose_front_matter_is_not_yaml_is_read_and_named(tmp_path):
    """SPEC 9: front matter that is not strict YAML never refuses the import."""
    source, db = tmp_path / "src", tmp_path / "memory.db"
    write(source, "a.md", "---\ntitle: [oops\n---\n- [fact] x\n")
    write(source, "b.md", "- [fact] y\n")
    out = run("import", "--from", "basic-memory", source, "--db", db)
    assert "2 added" in out.stdout
    assert "a.md:3: front matter is not strict YAML; title kept as written" in out.stderr


def test_another_sources_embeddings_are_left_out_and_said(tmp_path):
    """A Graphiti store takes mem0's facts but not their vectors: two spaces never mix."""
    db = tmp_path / "memory.db"
    run("import", "--from", "graphiti", dump(tmp_path / "g"), "--db", db)
    (tmp_path / "mem0").mkdir()
    history = write_history(tmp_path / "mem0" / "history.db", story(), "ts")
    write_ts_vectors(
        tmp_path / "mem0" / "vector_store.db",
        {"m-dog": ([0.0, 1.0, 0.0], {"data": "Alice has a dog named Rex"})},
    )
    out = run("import", "--from", "mem0", history, "--db", db)
    assert "3 added, 1 newly deleted" in out.stdout
    assert (
        "left out: 1 embedding of mem0:vector_store not carried over: the store's 3 embeddings are"
        " those of graphiti" in out.stderr
    )
    again = run("import", "--from", "mem0", history, "--db", db)  # said again on every sync
    assert "0 added" in again.stdout
    assert (
        "left out: 1 embedding of mem0:vector_store for facts imported earlier not carried over"
        in again.stderr
    )
    neighbours = json.loads(run("neighbours", db, "mem0:m-dog", "--json").stdout)
    assert all(not n["id"].startswith("graphiti:") for n in neighbours["semantic"])
