"""`--from markdown DIR` reads the same files of a repository with and without its `.git`
(a zip download, a copy without history): agents' memory in hidden places (`.claude/`,
`.cursor/rules/`, `.github/` instructions, `.cursorrules`) was read in git and passed over
outside it. A plain notes folder keeps what it gave, and its trash is not live memory."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.ingest.adapters import markdown
from tests.core.claude_code_files import git
from tests.core.new_sources_files import write

TREE = {
    "CLAUDE.md": "- Run the tests with pnpm\n",
    "notes/team.md": "# Team\n\n- Deploys happen on Tuesdays\n",
    ".claude/CLAUDE.md": "- Never push to main on Fridays\n",
    ".claude/rules/style.md": "- Indent with four spaces\n",
    ".claude/commands/deploy.md": "- Deploy with make ship\n",  # a prompt, not memory
    ".cursor/rules/python.mdc": "---\ndescription: Python\nglobs: '*.py'\n---\n- Type every function\n",
    ".cursorrules": "- Prefer small commits\n",
    ".github/copilot-instructions.md": "- Answer in English\n",
    ".github/instructions/api.instructions.md": "- The API returns JSON\n",
    ".github/workflows/README.md": "- CI runs on Ubuntu\n",  # not memory
    "memory-bank/activeContext.md": "# Active Context\n\n- The search page ships Friday\n",
    ".venv/lib/AGENTS.md": "- A package's agent file\n",
    "web/node_modules/left-pad/README.md": "- Pads a string on the left\n",
}
MEMORY = {
    "Run the tests with pnpm",
    "Deploys happen on Tuesdays",
    "Never push to main on Fridays",
    "Indent with four spaces",
    "Type every function",
    "Prefer small commits",
    "Answer in English",
    "The API returns JSON",
    "The search page ships Friday",
}


def _tree(root):
    for rel, text in TREE.items():
        write(root, rel, text)
    (root / "bad.md").write_bytes(b"- caf\xe9 is closed\n")  # not UTF-8: named, never refusing


def _latest(snap):
    """Each file's texts as they stand (the versions nothing superseded), by file."""
    gone = {f.supersedes for f in snap.facts if f.supersedes} | set(snap.deleted)
    return sorted((f.note.rsplit("/", 1)[-1], f.text) for f in snap.facts if f.id not in gone)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_repository_without_its_git_gives_the_facts_it_gives_in_git(tmp_path):
    plain, repo = tmp_path / "plain", tmp_path / "repo"
    _tree(plain)
    shutil.copytree(plain, repo, symlinks=True)
    git(repo, "init", "-q")
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "-m", "first")
    write(repo, "CLAUDE.md", "- Run the tests with pnpm\n- Lint with ruff\n")  # history in git
    git(repo, "commit", "-q", "-am", "second", when="2026-03-01T12:00:00Z")
    write(plain, "CLAUDE.md", "- Run the tests with pnpm\n- Lint with ruff\n")

    outside, inside = markdown.read(plain), markdown.read(repo)
    assert (outside.system, inside.system) == ("markdown", "git-notes")
    assert {f.text for f in outside.facts} == MEMORY | {"Lint with ruff"}
    # a note not in UTF-8 is named by both; git's reader keeps its good bytes (U+FFFD)
    assert _latest(outside) == [t for t in _latest(inside) if t[0] != "bad.md"]
    for snap in (outside, inside):  # the broken note named, the rest read
        assert any(line.startswith("bad.md: not valid UTF-8") for line in snap.left_out)
        assert "web/node_modules: a dependency folder, not this project's memory; not read" in snap.left_out
    # git's history is the one difference: the edit is dated by its commit
    dated = {f.text: f.provenance.get("x-git-notes-time") for f in inside.facts}
    assert dated["Lint with ruff"] == "git commit"


def test_a_notes_folder_keeps_its_ids_and_its_trash_stays_deleted(tmp_path):
    """An Obsidian vault: `.obsidian/` holds its settings, `.trash/` the notes deleted in
    it. A deleted CLAUDE.md or memory bank there is not a live fact; the folder is named."""
    vault = tmp_path / "vault"
    write(vault, "ideas.md", "- Try a dark theme.\n")
    write(vault, ".obsidian/app.json", '{"promptDelete": false}')
    write(vault, ".obsidian/plugins/calendar/README.md", "- A plugin's readme\n")
    write(vault, ".trash/CLAUDE.md", "- Use tabs\n")
    write(vault, ".trash/memory-bank/progress.md", "- The old plan\n")
    write(vault, "old/.Trash-1000/files/AGENTS.md", "- Deleted on a USB drive\n")
    snap = markdown.read(vault)
    assert {f.id: f.text for f in snap.facts} == {"markdown:ideas.md#746716744b62": "Try a dark theme."}
    assert ".trash: a trash folder (notes someone deleted); not read" in snap.left_out
    assert "old/.Trash-1000: a trash folder (notes someone deleted); not read" in snap.left_out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_vault_kept_in_git_keeps_its_trash_out_of_memory_and_its_history(tmp_path):
    """The same vault committed (Obsidian with a git plugin commits `.trash/` too): a note
    deleted to the trash is neither a live fact of the work tree nor of any commit."""
    vault = tmp_path / "vault"
    write(vault, "ideas.md", "- Try a dark theme.\n")
    write(vault, ".trash/CLAUDE.md", "- Use tabs\n")
    write(vault, ".trash/memory-bank/progress.md", "- The old plan\n")
    git(vault, "init", "-q")
    git(vault, "add", "-A", "-f")
    git(vault, "commit", "-q", "-m", "a note trashed")
    snap = markdown.read(vault)
    assert snap.system == "git-notes"
    assert [f.text for f in snap.facts] == ["Try a dark theme."]
    assert ".trash: a trash folder (notes someone deleted); not read" in snap.left_out


def test_a_checkout_inside_a_plain_folder_is_named_as_in_git(tmp_path):
    """A clone kept inside a plain folder is another repository: named, as a work tree's
    reading names it, not read without its history."""
    folder = tmp_path / "folder"
    write(folder, "notes.md", "- Mine\n")
    write(folder, "clone/README.md", "- Theirs\n")
    (folder / "clone" / ".git").mkdir()
    snap = markdown.read(folder)
    assert [f.text for f in snap.facts] == ["Mine"]
    assert any(line.startswith("clone: another git checkout") for line in snap.left_out)
