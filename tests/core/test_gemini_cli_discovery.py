"""`--from gemini-cli --project P` reads the GEMINI.md files Gemini CLI itself loads from a
project (memoryDiscovery.ts: a search down the project that enters hidden folders and
leaves out what `.geminiignore` lists), with and without the project's `.git`."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.ingest.adapters import gemini_cli
from tests.core.claude_code_files import git
from tests.core.new_sources_files import write


def _project(root):
    write(root, "GEMINI.md", "- The shop runs on Postgres 16.\n")
    write(root, ".gemini/GEMINI.md", "- Answer in British English.\n")  # Gemini's search enters it
    write(root, "docs/GEMINI.md", "- Drafts, listed in .geminiignore\n")
    write(root, "tmp/scratch/GEMINI.md", "- Scratch, listed in .geminiignore\n")
    write(root, ".geminiignore", "# not for the agent\ndocs/\n/tmp\n")
    write(root, "node_modules/pkg/GEMINI.md", "- a package's own context\n")
    write(root, ".venv/lib/GEMINI.md", "- an environment's file\n")
    write(root, "api/CLAUDE.md", "- Claude's file, not Gemini's\n")


def _texts(snap):
    return sorted(f.text for f in snap.facts)


EXPECTED = ["Answer in British English.", "The shop runs on Postgres 16."]


def test_a_project_gives_what_gemini_cli_loads(tmp_path):
    root = tmp_path / "shop"
    _project(root)
    snap = gemini_cli.read(None, project=root)
    assert _texts(snap) == EXPECTED
    assert "node_modules: a dependency folder, not this project's memory; not read" in snap.left_out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_same_project_in_git_gives_the_same_facts(tmp_path):
    plain, repo = tmp_path / "plain", tmp_path / "repo"
    _project(plain)
    shutil.copytree(plain, repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "-m", "first")
    assert _texts(gemini_cli.read(None, project=repo)) == _texts(gemini_cli.read(None, project=plain))
    assert _texts(gemini_cli.read(None, project=repo)) == EXPECTED


def test_an_unreadable_geminiignore_is_named_and_ignores_nothing(tmp_path):
    root = tmp_path / "shop"
    _project(root)
    (root / ".geminiignore").write_bytes(b"docs/\n\xff\n")
    snap = gemini_cli.read(None, project=root)
    assert ".geminiignore: not valid UTF-8; nothing ignored" in snap.left_out
    assert "Drafts, listed in .geminiignore" in _texts(snap)


def test_the_project_s_own_gemini_md_is_read_whatever_geminiignore_says(tmp_path):
    """Gemini CLI finds the folder's own GEMINI.md by its search upwards, which lists
    nothing out; `.geminiignore` leaves out only the files below."""
    root = tmp_path / "shop"
    _project(root)
    write(root, ".geminiignore", "GEMINI.md\n")
    assert _texts(gemini_cli.read(None, project=root)) == ["The shop runs on Postgres 16."]
