"""A memory file that is there and cannot be read (a FIFO, a named pipe, named CLAUDE.md in a
subfolder: reading it would wait for ever): claude-code passed over it without a word, and
cursor and markdown named it but flagged the facts it gave before deleted. Now every reader
names it in `left out` and keeps those facts as they were, in a git work tree or not."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.cli_run import run

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")

TEXT = "Keep the API handlers thin"
FILES = {
    "claude-code": ("CLAUDE.md", "sub/CLAUDE.md"),
    "cursor": (".cursor/rules/style.mdc", "sub/.cursor/rules/api.mdc"),
    "markdown": ("CLAUDE.md", "sub/CLAUDE.md"),
}


def git(repo, *args: str) -> None:
    env = {
        "GIT_AUTHOR_NAME": "Ann",
        "GIT_AUTHOR_EMAIL": "ann@example.org",
        "GIT_COMMITTER_NAME": "Ann",
        "GIT_COMMITTER_EMAIL": "ann@example.org",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": "/usr/bin:/bin",
    }
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def alive(db) -> set[str]:
    lines = run("export", db).output.splitlines()
    return {f["text"] for f in map(json.loads, lines) if not f.get("deleted")}


@pytest.mark.parametrize("in_git", [False, True], ids=["folder", "git"])
@pytest.mark.parametrize("system", sorted(FILES))
def test_a_fifo_memory_file_is_named_and_its_facts_are_kept(tmp_path, system, in_git):
    project = tmp_path / "project"
    top, sub = (project / f for f in FILES[system])
    for path, text in ((top, "Use ruff for linting"), (sub, TEXT)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"- {text}\n")
    if in_git:
        git(project, "init", "-q", "-b", "main")
        git(project, "add", "-A")
        git(project, "commit", "-qm", "notes")
    db = tmp_path / "memory.db"
    where = ["--project", project] if system == "claude-code" else [project]
    run("import", "--from", system, *where, "--db", db)
    assert TEXT in alive(db)
    sub.unlink()
    os.mkfifo(sub)
    done = run("import", "--from", system, *where, "--db", db)
    assert "0 newly deleted" in done.output, done.output
    assert f"left out: {FILES[system][1]}: not a regular file; not read" in done.stderr, done.stderr
    assert TEXT in alive(db)
