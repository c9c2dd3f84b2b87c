"""SuperClaude_Framework's CHANGELOG.md is valid UTF-8 today; one commit of July 2025 held a
byte that is not. `left out` said `CHANGELOG.md: not valid UTF-8` and no more: a user who
opens the file finds nothing wrong with it. The line now names the commit, and says the file
as it stands is fine; a file bad as it stands is said as before."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.ingest.adapters import claude_code as cc
from tests.cli_run import run
from tests.core.claude_code_files import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

TAIL = "its bad bytes left out (read as U+FFFD, \ufffd)"


def _repo(tmp_path, name):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / name).write_bytes(b"- Caf\xe9 opens at nine\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "bad bytes", when="2025-07-14T12:00:00Z")
    bad = _head(repo)
    (repo / name).write_bytes("- Café opens at nine\n".encode())
    git(repo, "commit", "-q", "-am", "fixed", when="2025-08-01T12:00:00Z")
    return repo, bad


def _head(repo):
    import subprocess

    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_markdown_names_the_commit_that_held_the_bad_bytes(tmp_path, new_store):
    repo, bad = _repo(tmp_path, "CHANGELOG.md")
    out = run("import", "--from", "markdown", repo, "--db", new_store("m")).output
    assert f"CHANGELOG.md: not valid UTF-8 in commit {bad} (not as it stands); {TAIL}" in out, out


def test_claude_code_names_it_too(tmp_path):
    repo, bad = _repo(tmp_path, "CLAUDE.md")
    snap = cc.read(None, project=repo)
    assert f"CLAUDE.md: not valid UTF-8 in commit {bad} (not as it stands); {TAIL}" in snap.left_out


def test_a_file_bad_as_it_stands_is_said_as_before(tmp_path, new_store):
    repo, _ = _repo(tmp_path, "CHANGELOG.md")
    (repo / "CHANGELOG.md").write_bytes(b"- Caf\xe9 opens at ten\n")
    git(repo, "commit", "-q", "-am", "bad again", when="2025-09-01T12:00:00Z")
    out = run("import", "--from", "markdown", repo, "--db", new_store("m")).output
    assert f"CHANGELOG.md: not valid UTF-8; {TAIL}" in out, out
