"""A formatter re-wrapping a memory file is no edit (SPEC 9: "a version that only re-wraps a
line is not a version"), for the readers of files that keep no history of their own
(cursor, gemini-cli: mdfolder, mditems, mdhistory), as for git-notes. The shape: a project's
GEMINI.md and Cursor rule committed, then run through a formatter that wraps prose at 80
columns (what Prettier's `proseWrap: always` does to a long bullet or paragraph)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from synapse_tui.core.ingest.adapters import cursor, gemini_cli
from tests.core.claude_code_files import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

LONG = (
    "Only write a comment where the code cannot say it: why a workaround exists, which issue it "
    "tracks, what breaks if it goes."
)
WRAPPED = (
    "Only write a comment where the code cannot say it: why a workaround exists,\n"
    "which issue it tracks, what breaks if it goes."
)
GEMINI_V1 = f"# Project\n\n## Comments\n\n{LONG}\n\n- Run `npm run preflight` before a pull request\n"
RULE_V1 = f"---\ndescription: comments\nalwaysApply: true\n---\n- {LONG}\n- Prefer named exports\n"


def _project(tmp_path: Path, path: str, v1: str, indent: str = "") -> Path:
    """`v1` committed, then the long text wrapped (continuation lines at `indent`)."""
    root = tmp_path / "app"
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(v1)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "memory", when="2026-01-05T10:00:00+00:00")
    (root / path).write_text(v1.replace(LONG, WRAPPED.replace("\n", "\n" + indent)))
    git(root, "commit", "-qam", "format", when="2026-02-01T10:00:00+00:00")
    return root


def _one_version_each(facts) -> None:
    texts = [" ".join(f.text.split()) for f in facts]
    assert sorted(texts) == sorted(set(texts)), "a re-wrapped text came back as a version of itself"
    assert not [f for f in facts if f.supersedes]


def test_a_cursor_rule_re_wrapped_by_a_formatter_keeps_one_version(tmp_path):
    root = _project(tmp_path, ".cursor/rules/comments.mdc", RULE_V1, indent="  ")
    snap = cursor.read(None, project=root)
    assert len(snap.facts) == 2
    _one_version_each(snap.facts)
    assert not snap.deleted


def test_a_gemini_md_re_wrapped_by_a_formatter_keeps_one_version(tmp_path):
    root = _project(tmp_path, "GEMINI.md", GEMINI_V1)
    home = tmp_path / "home-gemini"
    home.mkdir()
    (home / "GEMINI.md").write_text("- I prefer short answers\n")
    snap = gemini_cli.read(home, project=root)
    project = [f for f in snap.facts if "I prefer" not in f.text]
    assert len(project) == 2
    _one_version_each(project)
    assert not snap.deleted
