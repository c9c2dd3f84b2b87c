"""A binary file committed as a memory file (a picture saved as CLAUDE.md by mistake, then
put back): its bytes became a fact of garbage text. Now that version is passed over as no
text (the facts before it stand), and the import names the file and the commit in `left out`."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.cli_run import run

GARBAGE = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10- not a note\n"


def git(repo, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "Ann",
        "GIT_AUTHOR_EMAIL": "ann@example.org",
        "GIT_COMMITTER_NAME": "Ann",
        "GIT_COMMITTER_EMAIL": "ann@example.org",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout


def texts(db) -> list[str]:
    return [f["text"] for f in map(json.loads, run("export", db).output.splitlines())]


@pytest.mark.parametrize(
    ("system", "name"),
    [("claude-code", "CLAUDE.md"), ("markdown", "notes.md"), ("git-notes", "notes.md")],
)
def test_a_binary_version_in_history_is_no_fact_and_is_named(tmp_path, system, name):
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    note = repo / name
    note.write_text("- Use ruff for linting\n")
    git(repo, "add", name)
    git(repo, "commit", "-qm", "notes")
    note.write_bytes(GARBAGE)
    git(repo, "commit", "-qam", "oops")
    binary = git(repo, "rev-parse", "--short=7", "HEAD").strip()
    note.write_text("- Use ruff for linting\n- Pin the Python version\n")
    git(repo, "commit", "-qam", "back")
    db = tmp_path / "memory.db"
    where = ["--project", repo] if system == "claude-code" else [repo]
    done = run("import", "--from", system, *where, "--db", db)
    shown = texts(db)
    assert not [t for t in shown if "PNG" in t or "IHDR" in t or "not a note" in t], shown
    assert "Pin the Python version" in " ".join(shown)
    # passed over, not a removal: the fact before it stands, not deleted and added again
    assert shown.count("Use ruff for linting") == 1, shown
    assert "0 newly deleted" in done.output, done.output
    said = done.output + (done.stderr if hasattr(done, "stderr") else "")
    assert f"{name}: a binary file (it holds NUL bytes) in commit {binary}; not read as text" in said, said
