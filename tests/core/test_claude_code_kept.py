"""Claude Code's instruction files committed in a project's git work tree: a sync replays
only the files a commit or an edit changed since the last sync (gitkept), and leaves the
store as replaying every file's whole history would (two stores side by side, compared row
for row after every sync)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from synapse_tui.core.ingest.adapters import claude_code as cc
from tests.core.claude_code_files import git
from tests.core.kept_twins import Twins, commit

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CLAUDE = "# Project\n\n- Use uv to run the tests\n- Never commit to main\n"
STYLE = "# Style\n\n- Keep functions short\n- Name things for what they do\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, {"CLAUDE.md": CLAUDE, ".claude/rules/style.md": STYLE}, "2026-01-01T09:00:00Z")
    commit(repo, {"CLAUDE.md": CLAUDE.replace("to main", "to main or release")}, "2026-01-02T09:00:00Z")
    return repo


def replayed(snap) -> set[str]:
    return {f.provenance["x-claude-code-file"] for f in snap.facts}


def twins_of(project: Path, tmp_path: Path) -> Twins:
    return Twins(lambda **kw: cc.read(None, project=project, **kw), cc.SYSTEM, tmp_path)


def test_only_the_files_changed_since_the_last_sync_are_replayed(project, tmp_path):
    twins = twins_of(project, tmp_path)
    first, _ = twins.sync()
    assert first["added"] == 5
    again, snap = twins.sync()
    assert replayed(snap) == set() and len(snap.kept) == 5 and again["unchanged"] == 5
    commit(project, {".claude/rules/style.md": STYLE + "- Prefer pure functions\n"}, "2026-01-03T09:00:00Z")
    counts, snap = twins.sync()
    assert replayed(snap) == {".claude/rules/style.md"} and counts["added"] == 1
    commit(project, {"src/app.py": "print('hi')\n"}, "2026-01-04T09:00:00Z")  # no memory changed
    counts, snap = twins.sync()
    assert replayed(snap) == set() and counts["added"] == 0


def test_an_uncommitted_edit_a_removal_and_a_rewritten_history(project, tmp_path):
    twins = twins_of(project, tmp_path)
    twins.sync()
    claude = project / "CLAUDE.md"
    claude.write_text(claude.read_text() + "- Ask before adding a dependency\n")
    counts, snap = twins.sync()
    assert replayed(snap) == {"CLAUDE.md"} and counts["added"] == 1
    git(project, "commit", "-q", "-am", "ask", when="2026-01-05T09:00:00Z")
    twins.sync()
    commit(project, {".claude/rules/style.md": None}, "2026-01-06T09:00:00Z")
    counts, _ = twins.sync()
    assert counts["newly_deleted"] == 2
    _, snap = twins.sync()
    assert replayed(snap) == set()
    git(project, "reset", "-q", "--hard", "HEAD~2")  # the last two commits taken back
    commit(project, {"CLAUDE.md": CLAUDE.replace("uv", "uv run")}, "2026-01-07T09:00:00Z")
    _, snap = twins.sync()
    assert not snap.kept


def test_a_claude_md_linked_to_agents_md_and_an_edit_of_its_target(project, tmp_path):
    """CLAUDE.md made a link to AGENTS.md: the link keeps the history it had as a file, the
    target is read through it with its own; an edit of the target, committed or not,
    replays the target alone."""
    (project / "CLAUDE.md").unlink()
    (project / "AGENTS.md").write_text(CLAUDE)
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "one file", when="2026-01-03T09:00:00Z")
    twins = twins_of(project, tmp_path)
    twins.sync()
    _, snap = twins.sync()
    assert replayed(snap) == set()
    (project / "AGENTS.md").write_text(CLAUDE + "- Ask before adding a dependency\n")  # not committed
    counts, snap = twins.sync()
    assert replayed(snap) == {"AGENTS.md"} and counts["added"] == 1
    git(project, "commit", "-q", "-am", "ask", when="2026-01-04T09:00:00Z")
    twins.sync()
