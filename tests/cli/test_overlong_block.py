"""A repository's docs embed an image inline (`![diagram](data:image/png;base64,...)`): one
paragraph of 160,000 characters, past the 100,000 a fact may hold. `import --from markdown`
of the repository was refused whole for it (and so would every later sync be, once someone
added one); now that block is left out and said, like a table or a code block, and the
rest is read."""

from __future__ import annotations

import base64
import json
import shutil

import pytest

from tests.cli_run import run
from tests.core.claude_code_files import git

IMAGE = "![diagram](data:image/png;base64," + base64.b64encode(bytes(range(256)) * 470).decode() + ")"


def _project(tmp_path):
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "CLAUDE.md").write_text("- Use ruff for linting\n")
    (root / "docs" / "arch.md").write_text(f"# Architecture\n\n{IMAGE}\n\n- The API talks to Postgres\n")
    return root


def _texts(db) -> list[str]:
    return sorted(json.loads(line)["text"] for line in run("export", db).output.splitlines())


def test_outside_git_an_inline_image_is_left_out_and_the_rest_read(tmp_path):
    root = _project(tmp_path)
    db = tmp_path / "memory.db"
    done = run("import", "--from", "markdown", root, "--db", db)
    assert "1 block longer than 100,000 characters (an inline image, pasted data) not read" in done.stderr
    assert _texts(db) == ["The API talks to Postgres", "Use ruff for linting"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_git_too(tmp_path):
    root = _project(tmp_path)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "docs", when="2026-02-01T10:00:00+00:00")
    db = tmp_path / "memory.db"
    done = run("import", "--from", "markdown", root, "--db", db)
    assert "1 block longer than 100,000 characters" in done.stderr
    assert _texts(db) == ["The API talks to Postgres", "Use ruff for linting"]
