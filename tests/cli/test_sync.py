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
    assert f"{tmp_path / 'missing.db'}: no such database" in refused("sync", tmp_path / "missing.db")


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


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="needs git")
@pytest.mark.parametrize("system", ["markdown", "claude-code"])
def test_each_uncommitted_edit_arrives_and_the_one_it_replaced_is_gone(tmp_path, system, new_store):
    """An agent edits CLAUDE.md and nobody commits: each sync must bring the text the work
    tree holds. The second edit before a commit had the first's id (`@2`), so `sync` said
    "0 added" and the store kept the first edit's text as the current one, for good."""
    from tests.core.claude_code_files import git

    project = tmp_path / "shop"
    write(project, "CLAUDE.md", "- Deploy with make ship\n- Run the tests with pnpm\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "rules")
    db = new_store("memory")  # a file and a server: the flag is cleared on both
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    source = ["--project", project] if system == "claude-code" else [project]
    run("import", "--from", system, *source, "--db", db, env={"HOME": str(home)})

    def live() -> dict[str, str]:  # the store's current texts: not deleted, nor replaced by one that is not
        facts = [json.loads(line) for line in run("export", db).stdout.splitlines()]
        replaced = {f.get("supersedes") for f in facts if not f.get("deleted")}
        return {f["text"]: f["id"] for f in facts if not f.get("deleted") and f["id"] not in replaced}

    def sync(text: str) -> str:
        (project / "CLAUDE.md").write_text(f"- {text}\n- Run the tests with pnpm\n")
        return run("sync", db, "--yes", env={"HOME": str(home)}).stdout

    assert "1 added" in sync("Deploy with make release")
    # edited again before a commit: the first edit is superseded (history), not deleted
    assert "1 added, 0 newly deleted" in sync("Deploy with make release-all")
    assert set(live()) == {"Deploy with make release-all", "Run the tests with pnpm"}
    synced = live()["Deploy with make release-all"]
    git(project, "commit", "-q", "-am", "deploy")  # committed as synced: the same fact
    assert "0 added" in run("sync", db, "--yes", env={"HOME": str(home)}).stdout
    assert live()["Deploy with make release-all"] == synced
    assert "1 added" in sync("Deploy with make release-all, then tag it")
    (project / "CLAUDE.md").write_text("- Deploy with make release-all\n- Run the tests with pnpm\n")
    assert "1 newly deleted" in run("sync", db, "--yes", env={"HOME": str(home)}).stdout  # undone
    assert set(live()) == {"Deploy with make release-all", "Run the tests with pnpm"}
    # a bullet removed and put back before a commit (an editor's undo under `sync --watch`)
    (project / "CLAUDE.md").write_text("- Deploy with make release-all\n")
    assert "1 newly deleted" in run("sync", db, "--yes", env={"HOME": str(home)}).stdout
    assert set(live()) == {"Deploy with make release-all"}
    (project / "CLAUDE.md").write_text("- Deploy with make release-all\n- Run the tests with pnpm\n")
    out = run("sync", db, "--yes", env={"HOME": str(home)}).stdout
    assert "0 added" in out and "1 back at the source (no longer deleted)" in out
    assert set(live()) == {"Deploy with make release-all", "Run the tests with pnpm"}


def test_one_source_gone_does_not_keep_the_others_from_syncing(tmp_path):
    """Two recorded folders, the first moved away: `sync` ended at it with one line, and the
    second folder's new note never arrived. Now each source is synced; the gone one is named
    in an `error:` line, nothing read from it, and the exit status is still 2."""
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, text in ((first, "- Alpha ships on Mondays\n"), (second, "- Beta ships on Fridays\n")):
        folder.mkdir()
        (folder / "notes.md").write_text(text)
    db = tmp_path / "two.db"
    run("import", "--from", "markdown", first, "--db", db)
    run("import", "--from", "markdown", second, "--db", db)
    first.rename(tmp_path / "moved")
    (second / "notes.md").write_text("- Beta ships on Fridays\n- Beta freezes in December\n")
    done = run("sync", db, code=2)
    assert done.stdout.startswith(f"markdown {second} -> ") and "1 added" in done.stdout
    assert done.stderr.splitlines() == [
        f"error: sync of markdown {first} failed, nothing read from it: {first}: no such folder;"
        " expected a folder of Markdown notes (*.md)"
    ]
    texts = [json.loads(line)["text"] for line in run("export", db).stdout.splitlines()]
    assert sorted(texts) == ["Alpha ships on Mondays", "Beta freezes in December", "Beta ships on Fridays"]
    # one source alone, gone: the one line it always was
    alone = tmp_path / "alone.db"
    run("import", "--from", "markdown", second, "--db", alone)
    second.rename(tmp_path / "second-moved")
    assert (
        refused("sync", alone)
        == f"error: {second}: no such folder; expected a folder of Markdown notes (*.md)"
    )
