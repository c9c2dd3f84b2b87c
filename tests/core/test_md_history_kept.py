"""A sync of a reader of Markdown without a history of its own (cursor, codex, gemini-cli,
OpenClaw) in a git work tree reads the history of only the files commits changed since
the last sync: real repositories, real commits, two stores side by side (one synced as a
sync does, one replaying the whole history every time), compared row for row."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from synapse_tui.core.ingest.adapters import cursor, gitkept, gitlog
from tests.core.claude_code_files import git
from tests.core.kept_twins import Twins, commit

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TS = textwrap.dedent("""\
    ---
    description: TypeScript
    globs: src/**/*.ts
    ---
    - Prefer type aliases over interfaces.
    - Never use `any`.
    """)
PY = "---\ndescription: Python\n---\n- Type every function\n"
EMPTY = "---\ndescription: nothing yet\nalwaysApply: true\n---\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(
        repo,
        {
            ".cursorrules": "- Use type hints everywhere.\n",
            ".cursor/rules/ts.mdc": TS,
            ".cursor/rules/py.mdc": PY,
            ".cursor/rules/empty.mdc": EMPTY,
            "src/app.ts": "export {}\n",
        },
        "2026-01-01T09:00:00Z",
    )
    commit(repo, {".cursor/rules/ts.mdc": TS.replace("`any`", "`any` or `unknown`")}, "2026-01-02T09:00:00Z")
    return repo


def twins_of(project: Path, tmp: Path) -> Twins:
    def read(known, whole, read_before):
        return cursor.read(None, project=project, known=known, read_before=None if whole else read_before)

    return Twins(read, cursor.SYSTEM, tmp)


def files(snap) -> set[str]:
    """The files a read read (or replayed): those it gives facts of."""
    return {f.provenance["x-cursor-file"] for f in snap.facts}


@pytest.fixture
def walks(monkeypatch) -> list:
    """What each history read asked for: None, the whole folder; else the files named."""
    asked: list = []
    history = gitlog.Folder.history

    def spy(self, suffix="", only=None):
        asked.append(None if only is None else set(only))
        return history(self, suffix, only)

    monkeypatch.setattr(gitlog.Folder, "history", spy)
    return asked


def test_an_unchanged_folder_in_git_is_not_walked_and_counts_every_fact(project, tmp_path, walks):
    twins = twins_of(project, tmp_path)
    first, _ = twins.sync()
    assert first["added"] == 5  # two versions of the edited rule
    walks.clear()
    again, snap = twins.sync()
    assert files(snap) == set() and again["unchanged"] == 5 and again["added"] == 0
    assert walks[0] == set()  # the kept store (the whole one walks next): no history read
    assert snap.read_record[str(project.resolve())][""]["head"]


def test_a_commit_reads_the_history_of_only_the_files_it_changed(project, tmp_path, walks):
    twins = twins_of(project, tmp_path)
    twins.sync()
    commit(project, {"src/app.ts": "export const a = 1\n"}, "2026-01-03T09:00:00Z")
    _, snap = twins.sync()
    assert files(snap) == set()
    walks.clear()
    commit(project, {".cursor/rules/py.mdc": PY + "- Test every branch\n"}, "2026-01-04T09:00:00Z")
    counts, snap = twins.sync()
    assert files(snap) == {".cursor/rules/py.mdc"} and counts["added"] == 1
    assert walks[0] == {".cursor/rules/py.mdc"}


def test_a_rule_removed_is_deleted_once_then_kept_as_history(project, tmp_path):
    twins = twins_of(project, tmp_path)
    twins.sync()
    commit(project, {".cursor/rules/ts.mdc": None}, "2026-01-05T09:00:00Z")
    counts, _ = twins.sync()
    assert counts["newly_deleted"] == 2
    counts, snap = twins.sync()
    assert files(snap) == set() and counts["newly_deleted"] == 0


def test_other_rules_replay_every_file_once(project, tmp_path, monkeypatch):
    twins = twins_of(project, tmp_path)
    twins.sync()
    commit(project, {".cursor/rules/ts.mdc": None}, "2026-01-05T09:00:00Z")
    twins.sync()
    monkeypatch.setattr(gitkept, "RULES", "another release")  # the readers' code changed
    _, snap = twins.sync()
    assert files(snap) == {".cursorrules", ".cursor/rules/py.mdc", ".cursor/rules/ts.mdc"}
    _, snap = twins.sync()
    assert files(snap) == set()


def test_a_rewritten_history_is_read_whole(project, tmp_path, walks):
    twins = twins_of(project, tmp_path)
    twins.sync()
    git(project, "reset", "-q", "--hard", "HEAD~1")
    commit(project, {".cursor/rules/py.mdc": PY + "- Name things well\n"}, "2026-01-06T09:00:00Z")
    walks.clear()
    _, snap = twins.sync()  # ts.mdc's last commit is gone: replayed
    assert walks[0] is None
    assert files(snap) == {".cursor/rules/ts.mdc", ".cursor/rules/py.mdc"}
    walks.clear()
    # the new history is the one read: nothing walked again, though ts.mdc's version of the
    # dropped commit stays its record's live head (a replay leaves it: the record names it)
    counts, snap = twins.sync()
    assert files(snap) == set() and walks[0] == set() and counts["unchanged"] == 5
    walks.clear()
    _, snap = twins.sync()
    assert files(snap) == set() and walks[0] == set()


def test_after_a_rewritten_history_no_file_is_replayed_twice(project, tmp_path, walks):
    """A dropped commit that edited a rule, added one to another file and edited a file
    removed since: each file replayed once (what the dropped versions were stays as a whole
    replay leaves it: an edit's version live, a rule only that commit wrote deleted), then
    nothing, nor after a commit elsewhere."""
    commit(
        project, {".cursorrules": "- Use type hints everywhere.\n- Keep it short.\n"}, "2026-01-03T09:00:00Z"
    )
    twins = twins_of(project, tmp_path)
    commit(
        project,
        {
            ".cursor/rules/py.mdc": PY + "- Test every branch\n",
            ".cursorrules": "- Use type hints everywhere, always.\n- Keep it short.\n",
        },
        "2026-01-04T09:00:00Z",
    )
    twins.sync()
    git(project, "reset", "-q", "--hard", "HEAD~1")  # the last commit dropped
    commit(project, {".cursorrules": None}, "2026-01-05T09:00:00Z")
    counts, _ = twins.sync()  # the whole history read, once
    assert counts["newly_deleted"] == 3  # the dropped rule, and .cursorrules' two (the edit stays)
    for _ in range(2):
        walks.clear()
        counts, snap = twins.sync()
        assert files(snap) == set() and walks[0] == set() and counts["newly_deleted"] == 0
    commit(project, {"src/app.ts": "export const a = 1\n"}, "2026-01-06T09:00:00Z")
    walks.clear()
    _, snap = twins.sync()
    assert files(snap) == set() and walks[0] == {"src/app.ts"}  # what the commit changed, only


def test_a_rule_not_committed_is_read_then_replayed_once_committed(project, tmp_path):
    twins = twins_of(project, tmp_path)
    twins.sync()
    (project / ".cursor/rules/go.mdc").write_text("- Wrap every error\n")
    counts, snap = twins.sync()
    assert files(snap) == {".cursor/rules/go.mdc"} and counts["added"] == 1
    _, snap = twins.sync()
    assert files(snap) == set()
    commit(project, {}, "2026-01-07T09:00:00Z")
    counts, snap = twins.sync()
    assert files(snap) == {".cursor/rules/go.mdc"}
    _, snap = twins.sync()
    assert files(snap) == set()


def test_a_shallow_clone_reads_the_whole_history(project, tmp_path, walks):
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{project}", str(clone)],
        check=True,
        capture_output=True,
    )
    twins = twins_of(clone, tmp_path)
    twins.sync()
    commit(clone, {".cursor/rules/py.mdc": PY + "- Name things well\n"}, "2026-01-08T09:00:00Z")
    walks.clear()
    _, snap = twins.sync()
    assert files(snap) == {".cursor/rules/py.mdc"} and walks[0] is None  # the whole history
