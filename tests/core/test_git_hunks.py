"""Edits are placed where git's own diff puts its hunks (issue 38): read with `diff-tree -p
-U0`, whose drivers never run, and used by the replay to decide which removed and added
blocks are one place of the note."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from synapse_tui.core.base.safegit import Repo
from synapse_tui.core.ingest.adapters import markdown_memory as mm
from tests.core.claude_code_files import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def blob(repo: Path, rev: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), "rev-parse", rev], check=True, capture_output=True)
    return out.stdout.decode().strip()


def test_hunks_are_gits_own_and_no_driver_runs(tmp_path):
    repo = tmp_path / "notes"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.md").write_text("a\nb\nc\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    (repo / "a.md").write_text("a\nB\nc\nd\n")
    git(repo, "commit", "-q", "-am", "two")
    marker = tmp_path / "ran"
    bait = tmp_path / "bait.sh"
    bait.write_text(f'#!/bin/sh\ntouch "{marker}"\ncat "$1"\n')
    bait.chmod(0o755)
    (repo / ".git" / "info" / "attributes").write_text("*.md diff=evil\n")
    for key, value in (
        ("diff.evil.textconv", str(bait)),
        ("diff.evil.command", str(bait)),
        ("diff.external", str(bait)),
        ("diff.algorithm", "patience"),
    ):
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
    found = Repo.find(repo)
    assert found is not None
    hunks = found.hunks(found.rev_list("HEAD", reverse=True))
    # line 2 changed in place; a line added after line 3 (an empty old side sits after it)
    assert hunks[(blob(repo, "HEAD~1:a.md"), blob(repo, "HEAD:a.md"))] == [(1, 2, 1, 2), (3, 3, 3, 4)]
    assert not marker.exists()


OLD = "## Release\n- Deploys run on Fridays from the main branch\n## Tests\n- x\n"
NEW = "## Release\n## Tests\n- x\n- Deploys run on Tuesdays from the main branch\n"


def replayed(hunks: list[tuple[int, int, int, int]]) -> list[tuple[str, int]]:
    found = mm.Replay()
    states = [("c1", 1.0, OLD), ("c2", 2.0, NEW)]
    mm.replay("n.md", states, found, places=mm.Places(["b1", "b2"], {("b1", "b2"): hunks}))
    return [(v.block.text, v.version) for v in found.versions]


def test_the_replay_pairs_only_within_the_places_git_gives():
    # git saying the removal and the addition are two places: a deletion and a new record
    apart = replayed([(1, 2, 1, 1), (4, 4, 3, 4)])
    assert ("Deploys run on Tuesdays from the main branch", 1) in apart
    # the same blocks in one place, as if git had put them in one hunk: one block edited
    together = replayed([(1, 4, 1, 4)])
    assert ("Deploys run on Tuesdays from the main branch", 2) in together
