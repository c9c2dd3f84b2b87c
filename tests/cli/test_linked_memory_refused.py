"""A project whose memory file is a link to a shared file outside it (a CLAUDE.md kept in a
dotfiles repository, `.cursor/rules` linked to a team's rules): the link is never followed,
and the refusal says so, instead of claiming the project holds no CLAUDE.md."""

from __future__ import annotations

import shutil

import pytest

from tests.cli_run import refused
from tests.core.claude_code_files import git


@pytest.fixture
def shared(tmp_path):
    """A folder outside the project, holding what the project's links point to."""
    out = tmp_path / "dotfiles"
    (out / "rules").mkdir(parents=True)
    (out / "CLAUDE.md").write_text("- Run the tests before every commit\n")
    (out / "rules" / "style.mdc").write_text("- Prefer small functions\n")
    return out


@pytest.mark.parametrize(
    ("system", "link", "target"),
    [
        ("claude-code", "CLAUDE.md", "CLAUDE.md"),
        ("cursor", ".cursor/rules", "rules"),
        ("markdown", "CLAUDE.md", "CLAUDE.md"),
    ],
)
def test_a_memory_file_linked_from_outside_is_named_in_the_refusal(tmp_path, shared, system, link, target):
    project = tmp_path / "project"
    (project / link).parent.mkdir(parents=True)
    (project / link).symlink_to(shared / target)
    db = tmp_path / "memory.db"
    where = ["--project", project] if system != "markdown" else [project]
    line = refused("import", "--from", system, *where, "--db", db)
    assert f"{link}: a link leaving the folder; not read" in line, line
    assert not db.exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_git_too_the_link_committed_is_named(tmp_path, shared):
    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").symlink_to(shared / "CLAUDE.md")
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "link the shared instructions", when="2026-02-01T10:00:00+00:00")
    db = tmp_path / "memory.db"
    line = refused("import", "--from", "markdown", project, "--db", db)
    assert "CLAUDE.md: a link leaving the folder; not read" in line, line
    assert not db.exists()


def test_notes_saved_as_utf16_are_named_in_the_refusal(tmp_path):
    """Notes Windows' Notepad saved as UTF-16: each is left out as not UTF-8, and the folder
    was refused as holding "no Markdown notes" without saying why; the refusal names them."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "CLAUDE.md").write_text("# Rules\n\n- Run the tests before every commit\n", encoding="utf-16")
    db = tmp_path / "memory.db"
    line = refused("import", "--from", "markdown", notes, "--db", db)
    assert "holds no Markdown notes" in line and "CLAUDE.md: not valid UTF-8 at line 1" in line, line
    assert "(it is UTF-16: save it as UTF-8); not read" in line, line  # what to do about it
    assert not db.exists()
