"""A text a sync read from a git work tree before anyone committed it, committed since: the
next sync gives it what a first import of the folder gives it, its commit's provenance and
the tier of who committed it (it kept "file modified; not committed" and tier `auto` for
good). The tier a person's commit raises is the source's audited `accept`: `undo` takes it
back, and undone stays undone."""

from __future__ import annotations

import os
import shutil

import pytest

from synapse_tui.core.base.clock import parse_time
from tests.cli.openclaw_pages import ONE, REBUILD, page, rebuild, region, shown, vault
from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.helpers import json_lines

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

NOTE = "# Deploys\n\n- Deploys run on Fridays.\n"
LATER = "- The cache is Redis 7.\n"


def folder_with_uncommitted_line(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "deploys.md").write_text(NOTE)
    git(notes, "init", "-q")
    git(notes, "add", ".")
    git(notes, "commit", "-q", "-m", "first", when="2026-03-01T10:00:00+00:00")
    (notes / "deploys.md").write_text(NOTE + LATER)  # not committed yet
    edited = parse_time("2026-03-01T12:00:00Z")  # before the tests' clock (SYNAPSE_NOW)
    os.utime(notes / "deploys.md", (edited, edited))
    return notes


def redis(db) -> dict:
    """`show --json` of the Redis line."""
    shown = [
        json_lines(run("show", db, r["id"], "--json").stdout)[0]
        for r in json_lines(run("score", db, "--json").stdout)
    ]
    (info,) = [i for i in shown if "Redis" in i["text"]]
    return info


def test_a_text_committed_since_gets_the_commits_provenance_and_tier(tmp_path):
    notes = folder_with_uncommitted_line(tmp_path)
    db = tmp_path / "m.db"
    run("import", "--from", "markdown", notes, "--db", db)
    first = redis(db)
    assert first["tier"] == "auto"
    assert first["provenance"]["x-git-notes-time"] == "file modified; not committed"

    git(notes, "commit", "-q", "-am", "cache", when="2026-03-02T10:00:00+00:00")
    out = run("sync", db).stdout
    assert out.rstrip().endswith("0 added, 0 newly deleted, 0 re-asserted, 1 unchanged, 1 now tier human")
    synced = redis(db)
    fresh = tmp_path / "fresh.db"
    run("import", "--from", "markdown", notes, "--db", fresh)
    imported = redis(fresh)
    assert synced["id"] == imported["id"] == first["id"]
    # before: "file modified; not committed", no author, no commit, tier auto
    assert synced["provenance"] == imported["provenance"]
    assert synced["provenance"]["x-git-notes-author"] == "Ada <ada@shop.test>"
    assert (synced["tier"], synced["declared_tier"]) == ("human", "human")
    assert [(h["action"], h["actor"]) for h in synced["history"]] == [("accept", "source:git-notes")]
    assert "0 re-asserted, 2 unchanged" in run("sync", db).stdout  # said once

    assert "undid accept" in run("undo", db).stdout
    assert redis(db)["tier"] == "auto"
    run("sync", db)
    assert redis(db)["tier"] == "auto"  # undone stays undone
    assert redis(db)["provenance"] == imported["provenance"]


def test_an_agents_commit_refreshes_the_provenance_and_keeps_tier_auto(tmp_path):
    notes = folder_with_uncommitted_line(tmp_path)
    db = tmp_path / "m.db"
    run("import", "--from", "markdown", notes, "--db", db)
    git(notes, "commit", "-q", "-am", "cache", when="2026-03-02T10:00:00+00:00", email="agent-7@letta.com")
    assert "0 re-asserted, 2 unchanged" in run("sync", db).stdout
    synced = redis(db)
    assert synced["tier"] == "auto" and synced["history"] == []
    assert synced["provenance"]["x-git-notes-time"] == "git commit"
    assert synced["provenance"]["x-git-notes-agent"] is True


@pytest.mark.parametrize(
    ("system", "folder", "name"),
    [
        ("gemini-cli", ".gemini", "GEMINI.md"),
        ("codex", "memories", "MEMORY.md"),
        ("openclaw", "workspace", "MEMORY.md"),
    ],
)
def test_other_readers_in_git_give_a_committed_text_its_commit(tmp_path, system, folder, name):
    """The readers that replay their files from git as `markdown` does (Gemini CLI, Codex,
    an OpenClaw workspace): their tier does not hang on who committed, the provenance does."""
    root = tmp_path / folder
    root.mkdir()
    (root / name).write_text(NOTE)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first", when="2026-03-01T10:00:00+00:00")
    (root / name).write_text(NOTE + LATER)
    edited = parse_time("2026-03-01T12:00:00Z")
    os.utime(root / name, (edited, edited))
    db = tmp_path / "m.db"
    run("import", "--from", system, root, "--db", db)
    assert "x-" + system + "-commit" not in redis(db)["provenance"]
    git(root, "commit", "-q", "-am", "cache", when="2026-03-02T10:00:00+00:00")
    run("sync", db)
    fresh = tmp_path / "fresh.db"
    run("import", "--from", system, root, "--db", fresh)
    synced, imported = redis(db), redis(fresh)
    assert synced["id"] == imported["id"]
    assert synced["provenance"] == imported["provenance"]  # before: no commit, no author
    assert synced["tier"] == imported["tier"]


def test_a_wiki_claim_committed_since_keeps_the_status_the_page_has_now(tmp_path):
    """A claim a sync read contested before anyone committed it, committed since as
    supported, contested again in the work tree: the commit's keys arrive, and the status
    stays the page's (contested), as a fresh import reads it."""
    folder = vault(tmp_path, page(region("supported", ONE)))
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "wiki", when="2026-04-03T10:00:00+00:00")
    vault(tmp_path, page(region("supported", ONE), rebuild("contested", ONE)))  # not committed
    db = tmp_path / "m.db"
    run("import", "--from", "openclaw", folder, "--db", db)
    vault(tmp_path, page(region("supported", ONE), rebuild("supported", ONE)))
    git(folder, "commit", "-q", "-am", "rebuild", when="2026-04-04T10:00:00+00:00")
    vault(tmp_path, page(region("supported", ONE), rebuild("contested", ONE)))
    run("sync", db)
    fresh = tmp_path / "fresh.db"
    run("import", "--from", "openclaw", folder, "--db", fresh)
    synced, imported = shown(db, REBUILD), shown(fresh, REBUILD)
    assert synced["provenance"] == imported["provenance"]
    assert synced["provenance"]["x-openclaw-status"] == "contested"
    assert (synced["corroborations"], synced["contradictions"]) == (0, 1)
