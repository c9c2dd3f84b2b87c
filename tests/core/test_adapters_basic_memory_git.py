"""Basic Memory notes kept in git (issue 24): a note whose front matter gives no time dates
from its commits instead of its file's modification time."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.ingest.adapters import basic_memory as bm
from tests.core.basic_memory_files import OLD, write
from tests.core.claude_code_files import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_undated_notes_take_their_commits_dated_ones_their_front_matter(tmp_path):
    notes = tmp_path / "notes"
    write(notes, "plain.md", "- [idea] Cache the parsed notes\n", mtime="2026-09-09T00:00:00Z")
    write(notes, "old-search.md", OLD)  # front matter `created: 2025-01-01`
    git(notes, "init", "-q")
    git(notes, "add", ".")
    git(notes, "commit", "-q", "-m", "notes", when="2026-02-01T12:00:00+02:00")
    facts = {f.text: f for f in bm.read(notes).facts}
    assert facts["Cache the parsed notes"].created_at == "2026-02-01T10:00:00Z"  # the commit, not the mtime
    assert facts["Use Elasticsearch for search"].created_at != "2026-02-01T10:00:00Z"
    (notes / "plain.md").write_text("- [idea] Cache the parsed notes\n- [idea] Not committed yet\n")
    dirty = {f.text: f for f in bm.read(notes).facts}
    assert dirty["Cache the parsed notes"].created_at != "2026-02-01T10:00:00Z"  # changed since: the mtime
