"""The safe git reader's own API (core/base/safegit.py), on a repository built here with
real git: what the git readers and the referent checks build on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from synapse_tui.core.base.safegit import Repo, git_path
from tests.core.claude_code_files import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "code"
    (root / "src" / "auth").mkdir(parents=True)
    (root / "src" / "auth" / "login.py").write_text("def login():\n    return True\n" * 20)
    (root / "README.md").write_text("# Shop\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first", when="2026-01-01T00:00:00Z")
    git(root, "mv", "src/auth/login.py", "src/login.py")
    git(root, "rm", "-q", "README.md")
    git(root, "commit", "-q", "-m", "move", when="2026-02-01T00:00:00Z")
    return root


def test_history_trees_blobs_and_renames(repo):
    r = Repo.find(repo / "src")
    assert r is not None and r.top == repo.resolve() and r.rel(repo / "src") == "src"
    log = r.log()
    assert [c.at for c in log] == [1769904000.0, 1767225600.0]  # newest first, author times
    assert log[0].parents == (log[1].sha,)
    first, second = log[1].sha, log[0].sha
    assert [e.path for e in r.ls_tree(first)] == ["README.md", "src/auth/login.py"]
    assert [e.path for e in r.ls_tree(second, ["src"])] == ["src/login.py"]
    changes = r.changes([second], renames=True)[second]
    assert {(c.status, c.path, c.source) for c in changes} == {
        ("R", "src/login.py", "src/auth/login.py"),
        ("D", "README.md", None),
    }
    plain = r.changes([second])[second]
    assert {(c.status, c.path) for c in plain} == {
        ("A", "src/login.py"),
        ("D", "src/auth/login.py"),
        ("D", "README.md"),
    }
    data = r.blob("HEAD", "src/login.py")
    assert data is not None and data.startswith(b"def login")
    assert r.blob("HEAD", "README.md") is None and r.blob(first, "README.md") == b"# Shop\n"
    assert r.blob_id(data) == r.ls_tree("HEAD", ["src/login.py"])[0].sha
    assert set(r.blame("HEAD", "src/login.py")) == {first}  # a move keeps its lines' commit
    assert r.resolve("HEAD~1") == first and r.resolve("--output=/tmp/x") is None
    assert r.rev_list("--all") == [] and r.ls_tree("--name-only") == []  # a rev is never an option


def test_paths_outside_the_repository_are_not_paths():
    assert git_path("src/a.py") and git_path("two\nlines.md")
    for bad in ("/etc/passwd", "../x", "a/../../x", "a//b", ".git/config", "a/.GIT/x", "", "./a"):
        assert not git_path(bad), bad


def test_outside_a_repository_there_is_none(tmp_path):
    assert Repo.find(tmp_path) is None
    assert Repo.find(tmp_path / "missing") is None
