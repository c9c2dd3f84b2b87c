"""`synapse-tui sync DB [--watch]`: a store remembers what it was imported from and runs
those imports again; `--watch` does so as the sources change."""

from __future__ import annotations

import json
import threading
import time

import pytest

from synapse_tui.cli.sync import sources_of, watch_sources
from synapse_tui.core.base.config import Config
from tests.cli_run import refused, run
from tests.core.basic_memory_files import write
from tests.core.mcp_memory_files import ENTITIES, RELATIONS, save


@pytest.fixture
def sources(tmp_path):
    memory = save(tmp_path / "memory.jsonl")
    project = tmp_path / "shop"
    write(project, "CLAUDE.md", "- Run `make test` before pushing\n")
    db = tmp_path / "memory.db"
    run("import", "--from", "mcp-memory", memory, "--db", db)
    run("import", "--from", "claude-code", "--project", project, "--db", db)
    return db, memory, project


def test_sync_reruns_every_recorded_source(sources):
    db, memory, project = sources
    assert [s["system"] for s in sources_of(str(db))] == ["mcp-memory", "claude-code"]
    assert sources_of(str(db))[1] == {
        "system": "claude-code",
        "source": None,
        "project": str(project.resolve()),
    }
    before = db.read_bytes()
    out = run("sync", db).stdout
    assert (
        out.count("0 added, 0 newly deleted") == 2 and db.read_bytes() == before
    )  # nothing new, nothing written
    save(
        memory,
        [{**ENTITIES[0], "observations": [*ENTITIES[0]["observations"], "Moved to Lyon"]}, *ENTITIES[1:]],
    )
    (project / "CLAUDE.md").write_text("- Run `make test` before pushing\n- Never push on Fridays\n")
    results = [json.loads(line) for line in run("sync", db, "--json").stdout.splitlines()]
    assert [(r["system"], r["added"]) for r in results] == [("mcp-memory", 1), ("claude-code", 1)]
    run("import", "--from", "mcp-memory", memory, "--db", db)
    assert len(sources_of(str(db))) == 2  # a source is recorded once


def test_sync_refuses_a_store_without_sources(tmp_path):
    db = tmp_path / "plain.db"
    facts = tmp_path / "f.jsonl"
    facts.write_text(json.dumps({"id": "a", "text": "x", "created_at": "2026-01-01T00:00:00Z"}) + "\n")
    run("import", facts, "--db", db)
    assert "records no sources" in refused("sync", db)
    assert "no such store" in refused("sync", tmp_path / "missing.db")


def test_watch_syncs_when_a_source_changes(sources):
    db, memory, _ = sources
    stop, done = threading.Event(), threading.Event()
    thread = threading.Thread(
        target=watch_sources,
        args=(str(db), sources_of(str(db)), Config(), True),
        kwargs={"stop": stop, "debounce_ms": 100, "synced": lambda s: done.set()},
    )
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not done.is_set() and time.monotonic() < deadline:  # the change again, until the
            # watcher (started in its thread, with no signal that it is up) sees one and syncs
            save(
                memory,
                [{**ENTITIES[1], "observations": ["Builds rockets", "Opened a Lyon office"]}],
                RELATIONS,
            )
            done.wait(0.5)
        assert done.is_set(), "the watch never synced"
    finally:
        stop.set()
        thread.join(10)
    exported = [json.loads(line)["text"] for line in run("export", db).stdout.splitlines()]
    assert "Opened a Lyon office" in exported
