"""Turn 4's readers replaying several files from git: each fact is the text of its own
file. Found on a real Cursor project (0xmichalis/nftbk), whose `markdown.mdc` showed the
rules of `general.mdc` and whose `.cursorrules` showed `rust.mdc`'s front matter."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.ingest.adapters import cursor, openclaw
from tests.core import new_sources_files as files
from tests.core.claude_code_files import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ZULU = """\
    ---
    description: Go files
    globs: **/*.go
    alwaysApply: false
    ---
    - Indent Go code with tabs.
    """
ALPHA = """\
    ---
    description: the frontend
    globs: web/**
    alwaysApply: true
    ---
    - Install the frontend's packages with pnpm.
    """


def test_each_replayed_file_keeps_its_own_text(tmp_path):
    """The file committed first sorts last: its text must not land in the other file."""
    root = tmp_path / "project"
    files.write(root, ".cursor/rules/zulu.mdc", ZULU)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "go", when="2026-03-01T10:00:00+00:00")
    files.write(root, ".cursor/rules/alpha.mdc", ALPHA)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "web", when="2026-03-02T10:00:00+00:00")
    snap = cursor.read(None, project=root)
    by_file = {f.provenance["x-cursor-file"]: f for f in snap.facts}
    assert by_file[".cursor/rules/zulu.mdc"].text == "Indent Go code with tabs."
    assert by_file[".cursor/rules/zulu.mdc"].provenance["x-cursor-globs"] == "**/*.go"
    assert by_file[".cursor/rules/alpha.mdc"].text == "Install the frontend's packages with pnpm."
    assert by_file[".cursor/rules/alpha.mdc"].created_at == "2026-03-02T10:00:00Z"


def test_a_daily_log_committed_before_the_index_keeps_its_text(tmp_path):
    root = tmp_path / "workspace"
    files.write(root, "memory/2026-04-02.md", "# 2026-04-02\n\n- The deploy moved to Tuesday.\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "day")
    files.write(root, "MEMORY.md", "# Long-term memory\n\n- Ada's timezone is Europe/London.\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "index")
    snap = openclaw.read(root)
    texts = {f.provenance["x-openclaw-file"]: f.text for f in snap.facts}
    assert texts == {
        "memory/2026-04-02.md": "The deploy moved to Tuesday.",
        "MEMORY.md": "Ada's timezone is Europe/London.",
    }
