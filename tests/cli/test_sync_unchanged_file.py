"""A file of the Markdown readers without a history of their own (Codex, Gemini CLI, an
OpenClaw workspace, Cursor's rules, Markdown outside git) that changed once stayed "not as
synced": the facts the change left alone kept the commit and the size and time of the file
they were first read from, so every later sync read (in git, replayed) the whole file
again. A sync now gives them what a fresh import gives (`show --json`), and the next sync
reads nothing of a file unchanged since, with the same counts."""

from __future__ import annotations

import os
import shutil

import pytest

from synapse_tui.core.ingest.adapters import (
    claude_code,
    codex,
    cursor,
    gemini_cli,
    known_facts,
    markdown,
    openclaw,
)
from synapse_tui.core.store.db import Store
from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.helpers import json_lines

NOTE = "# Deploys\n\n- Deploys run on Fridays.\n- Builds take ten minutes.\n"
EDITED = "# Deploys\n\n- The cache is Redis 7.\n- Deploys run on Fridays.\n- Builds take ten minutes.\n"

# (system, the reader, the folder read, the file written there, kept in git)
READERS = [
    ("codex", codex, "memories", "MEMORY.md", True),
    ("gemini-cli", gemini_cli, ".gemini", "GEMINI.md", True),
    ("openclaw", openclaw, "workspace", "MEMORY.md", True),
    ("cursor", cursor, "app", ".cursor/rules/deploys.md", True),
    ("codex", codex, "memories", "MEMORY.md", False),
    ("markdown", markdown, "notes", "deploys.md", False),
    ("claude-code", claude_code, "app", "CLAUDE.md", False),  # a project's, read as it stands
]


def facts(db) -> dict[str, dict]:
    """`show --json` of every fact, by text, less its history."""
    out = {}
    for r in json_lines(run("score", db, "--json").stdout):
        (info,) = json_lines(run("show", db, r["id"], "--json").stdout)
        out[info["text"]] = info["provenance"]
    return out


@pytest.mark.parametrize(
    ("system", "reader", "folder", "name", "in_git"),
    READERS,
    ids=[f"{r[0]}{'' if r[4] else '-outside-git'}" for r in READERS],
)
def test_a_file_unchanged_since_the_last_sync_is_not_read_again(
    tmp_path, system, reader, folder, name, in_git
):
    if in_git and shutil.which("git") is None:
        pytest.skip("needs git")
    root = tmp_path / folder
    (root / name).parent.mkdir(parents=True)
    (root / name).write_text(NOTE)
    os.utime(root / name, (1_770_000_000, 1_770_000_000))
    if in_git:
        git(root, "init", "-q")
        git(root, "add", ".")
        git(root, "commit", "-q", "-m", "first", when="2026-03-01T10:00:00+00:00")
    db = tmp_path / "m.db"
    where = ("--project", root) if system == "claude-code" else (root,)
    run("import", "--from", system, *where, "--db", db)
    (root / name).write_text(EDITED)
    os.utime(root / name, (1_770_100_000, 1_770_100_000))
    if in_git:
        git(root, "commit", "-q", "-am", "cache", when="2026-03-02T10:00:00+00:00")
    assert "1 added" in run("sync", db).stdout

    fresh = tmp_path / "fresh.db"
    run("import", "--from", system, *where, "--db", fresh)
    # before: the two facts the commit left alone kept the first commit, size and time
    assert facts(db) == facts(fresh)

    with Store.open(db, readonly=True) as store:
        known = known_facts(store, "git-notes" if system == "markdown" and in_git else system)
    snap = (
        claude_code.read(None, project=root, known=known)
        if reader is claude_code
        else reader.read(root, known=known)
    )
    assert snap.facts == [] and snap.evidence == []  # before: the file replayed whole
    assert snap.kept == {k.id for k in known}
    out = run("sync", db).stdout
    assert out.rstrip().endswith("0 added, 0 newly deleted, 0 re-asserted, 3 unchanged")
