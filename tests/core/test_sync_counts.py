"""What a sync reports adds up: each fact is counted once (docs/adapters.md). A fact the run
flags deleted is newly deleted, not also unchanged (a git replay and mem0 still list it as
history) and not also added (a record that arrives already deleted), so a second run that
changes nothing counts as many facts as the first. Through the CLI, on a file and a server."""

from __future__ import annotations

import json

from synapse_tui.core.base.location import is_server
from tests.core.claude_code_files import git
from tests.helpers import run


def counts(location, folder) -> dict:
    out = json.loads(run("import", "--from", "codex", folder, "--db", location, "--json").stdout)
    return {k: out[k] for k in ("added", "newly_deleted", "reasserted", "restored", "unchanged")}


def held(location) -> int:
    return len(run("score", location, "--json").stdout.splitlines())


def test_a_codex_folder_in_git_counts_each_fact_once(tmp_path, new_store):
    memories = tmp_path / "memories"
    memories.mkdir()
    git(memories, "init", "-q")
    lines = ["Run make test before pushing", "The CI cache key includes the lock hash", "Tags go on main"]
    (memories / "MEMORY.md").write_text("".join(f"- {line}\n" for line in lines))
    git(memories, "add", "-A")
    git(memories, "commit", "-qm", "one", when="2026-03-01T00:00:00Z")
    location = new_store("codex")
    first = counts(location, memories)
    assert first == {"added": 3, "newly_deleted": 0, "reasserted": 0, "restored": 0, "unchanged": 0}
    # one memory removed, two added, in one commit
    lines = [lines[0], lines[2], "Deploys go out on Tuesdays", "The staging host is stage1"]
    (memories / "MEMORY.md").write_text("".join(f"- {line}\n" for line in lines))
    git(memories, "commit", "-qam", "two", when="2026-03-02T00:00:00Z")
    second = counts(location, memories)
    # before: 2 added, 1 newly deleted, 3 unchanged: the removed memory counted twice
    assert second == {"added": 2, "newly_deleted": 1, "reasserted": 0, "restored": 0, "unchanged": 2}
    assert sum(second.values()) == held(location) == 5
    third = counts(location, memories)
    assert third == {"added": 0, "newly_deleted": 0, "reasserted": 0, "restored": 0, "unchanged": 5}

    # the same history read into a new store at once: the removed memory arrives deleted
    fresh = new_store("fresh") if is_server(location) else str(tmp_path / "fresh.db")
    once = counts(fresh, memories)
    assert once == {"added": 4, "newly_deleted": 1, "reasserted": 0, "restored": 0, "unchanged": 0}
    assert sum(once.values()) == held(fresh) == 5
