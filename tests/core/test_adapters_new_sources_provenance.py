"""`provenance.SYSTEMS` says what each of issue 24's readers writes, as
test_adapters_provenance.py holds it for the first three: its author keys are keys the
reader writes, and its `unrecorded` inputs are exactly those the reader never sets."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.base.provenance import SYSTEMS
from synapse_tui.core.ingest.adapters import claude_code, git_notes, langgraph, mcp_memory
from tests.core.claude_code_files import git
from tests.core.provenance_inputs import INPUTS, inputs_written


def claude_code_snapshot(tmp_path):
    from tests.core.basic_memory_files import write
    from tests.core.claude_code_files import INDEX, MEMORY, TESTING, USER_CLAUDE

    root = tmp_path / ".claude"
    write(root, f"{MEMORY}/MEMORY.md", INDEX)
    write(root, f"{MEMORY}/feedback_testing.md", TESTING)
    write(root, "CLAUDE.md", USER_CLAUDE)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "memory")
    return claude_code.read(root)


def git_notes_snapshot(tmp_path):
    repo = tmp_path / "notes"
    repo.mkdir()
    (repo / "team.md").write_text("- Deploys happen on Tuesdays\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "notes", email="bob@corp.test")
    return git_notes.read(repo)


def langgraph_snapshot(tmp_path):
    pytest.importorskip("langgraph.store.sqlite")
    from tests.core.langgraph_files import put

    return langgraph.read(put(tmp_path / "s.db", ("k1", {"content": "Alice prefers tea"})))


def mcp_memory_snapshot(tmp_path):
    from tests.core.mcp_memory_files import save

    return mcp_memory.read(save(tmp_path / "memory.jsonl"))


READERS = {
    "claude-code": claude_code_snapshot,
    "git-notes": git_notes_snapshot,
    "langgraph": langgraph_snapshot,
    "mcp-memory": mcp_memory_snapshot,
}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("system", sorted(READERS))
def test_systems_table_matches_what_the_reader_writes(tmp_path, system):
    snap = READERS[system](tmp_path)
    assert snap.system == system
    keys = {k for f in snap.facts for k in f.provenance}
    entry = SYSTEMS[system]
    for key in entry["author"] + entry["role"]:
        assert key in keys, f"{system}: SYSTEMS names {key}, which its reader never writes"
    written = set().union(*(inputs_written(f) for f in snap.facts))
    assert set(entry["unrecorded"]) == set(INPUTS) - written
