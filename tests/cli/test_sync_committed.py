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
