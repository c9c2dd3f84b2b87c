"""The Codex reader, on a memories folder written here in Codex's own shapes
(tests/core/new_sources_files.py names where each shape was read)."""

from __future__ import annotations

import pytest

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import codex, known_facts
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.new_sources_files import (
    CODEX_MEMORY,
    CODEX_MEMORY_TASKS,
    CODEX_ROLLOUT,
    CODEX_SUMMARY,
    CODEX_SUMMARY_V1,
    resync,
    write,
)
from tests.store_state import exists, mark

ROLLOUT = "rollout_summaries/2026-03-10T08-00-00-Pp01-release.md"


@pytest.fixture
def memories(tmp_path):
    root = tmp_path / "memories"
    write(root, "MEMORY.md", CODEX_MEMORY, mtime="2026-03-11T00:00:00Z")
    write(root, "memory_summary.md", CODEX_SUMMARY, mtime="2026-03-12T00:00:00Z")
    write(root, ROLLOUT, CODEX_ROLLOUT)
    write(root, "raw_memories.md", "# Raw Memories\n\nNo raw memories yet.\n")
    write(root, "skills/release/SKILL.md", "---\nname: release\n---\n- step one\n")
    return root


@pytest.fixture
def store(new_store):
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def test_the_folder_opens_exactly(memories):
    snap = codex.read(memories)
    facts = {f.text: f for f in snap.facts}
    assert set(facts) == {
        "Run the test suite with `make test`, never bare pytest: the Makefile sets the database URL.",
        "The CI cache key includes the lock file hash; bump it after dependency changes.",
        "Releases are tagged vX.Y.Z on main only.",
        "Ada maintains a small web shop and likes short answers.",
        "Check MEMORY.md for the repository before searching the code.",
    }  # the summary's index, raw_memories.md and skills/ are not memories
    assert {f.id: f.text[:12] for f in snap.facts} == {  # ids stay put: a store keeps them
        "codex:MEMORY.md#4eb28aec63db": "Run the test",
        "codex:MEMORY.md#8a6af6606896": "The CI cache",
        "codex:MEMORY.md#23ada21b5a42": "Releases are",
        "codex:memory_summary.md#15d97dd1dd19": "Ada maintain",
        "codex:memory_summary.md#6208f173968d": "Check MEMORY",
    }
    ci = facts["Releases are tagged vX.Y.Z on main only."]
    assert ci.id.startswith("codex:MEMORY.md#") and ci.tier == "auto"
    assert ci.note == "MEMORY: Releases"  # a block is its own note: its facts go together
    # the block's annotation gives no updated_at: the cited rollout summary's header does
    assert ci.created_at == "2026-03-10T08:45:00Z"
    cache = facts["The CI cache key includes the lock file hash; bump it after dependency changes."]
    # the block cites two sessions: the first dates it, the second re-asserted it (UTC)
    assert cache.created_at == "2026-03-01T09:30:00Z"
    assert cache.reinforced_at == ["2026-03-04T13:00:00Z"]
    assert cache.r == 0 and cache.s == 0  # Codex counts neither
    p = cache.provenance
    assert p["x-source"] == "codex" and p["x-source-version"] == 1
    assert p["x-source-id"] == cache.id.removeprefix("codex:")
    assert p["x-codex-cwd"] == "/home/ada/shop"
    assert p["x-codex-description"] == "CI of the shop repository"
    assert p["x-codex-keywords"] == "ci, pytest, cache"
    assert p["x-codex-rollout-summary-files"] == (
        "2026-03-01T09-00-00-aB3d-flaky_ci.md, 2026-03-04T14-00-00-Zq9k-ci_cache.md"
    )
    assert p["x-codex-time"] == "updated_at of the cited rollouts"
    profile = facts["Ada maintains a small web shop and likes short answers."]
    assert profile.created_at == "2026-03-12T00:00:00Z"
    assert profile.provenance["x-codex-time"] == "file modified; creation unknown"
    assert any("What's in Memory" in line for line in snap.left_out)


def test_a_second_sync_changes_nothing_then_edits_are_versions(memories, store):
    _, first = resync(store, codex, memories)
    assert first.added == 5
    before = mark(store.path)
    _, again = resync(store, codex, memories)
    assert (again.added, again.newly_deleted, again.unchanged) == (0, 0, 5)
    assert mark(store.path) == before
    text = (memories / "MEMORY.md").read_text()
    text = text.replace("bump it after dependency changes", "bump it after every dependency change")
    text = text.replace("- Releases are tagged vX.Y.Z on main only.\n", "")
    (memories / "MEMORY.md").write_text(text)
    snap, third = resync(store, codex, memories)
    assert (third.added, third.newly_deleted) == (1, 1)
    edited = next(f for f in snap.facts if "every dependency change" in f.text)
    assert edited.id.endswith("@2") and edited.supersedes == edited.id.removesuffix("@2")
    assert edited.provenance["x-source-version"] == 2
    # an edit is dated by the latest session the block cites, not the first
    assert edited.created_at == "2026-03-04T13:00:00Z"
    assert edited.provenance["x-codex-time"] == "updated_at of the latest cited rollout"
    gone = next(k for k in known_facts(store, "codex") if "Releases" in k.text)
    assert gone.deleted  # deleted at the source: flagged, kept


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: (p.mkdir(), p)[1], "holds no MEMORY.md, memory_summary.md or rollout_summaries/"),
        (lambda p: p, "no such folder"),
        (lambda p: (p.write_text("x"), p)[1], "is a file, not a folder"),
    ],
)
def test_a_folder_that_is_not_codex_is_refused(tmp_path, make, expected):
    with pytest.raises(InputError, match=expected):
        codex.read(make(tmp_path / "not-codex"))


def test_the_cli_refuses_foreign_input_in_one_line_and_creates_nothing(tmp_path, new_store, memories):
    bad = tmp_path / "photos"
    bad.mkdir()
    (bad / "cat.jpg").write_bytes(b"\xff\xd8")
    db = new_store("new")
    line = refused("import", "--from", "codex", bad, "--db", db)
    assert str(bad) in line and "expected a ~/.codex/memories folder" in line
    assert not exists(db)
    out = run("import", "--from", "codex", memories, "--db", db).output
    assert "5 added" in out


@pytest.fixture
def current(tmp_path):
    """A memories folder in Codex's current shapes (Task Group blocks, summary `v1`)."""
    root = tmp_path / "current"
    write(root, "MEMORY.md", CODEX_MEMORY_TASKS, mtime="2026-03-11T00:00:00Z")
    write(root, "memory_summary.md", CODEX_SUMMARY_V1, mtime="2026-03-12T00:00:00Z")
    write(root, ROLLOUT, CODEX_ROLLOUT)
    return root


def test_the_current_shape_opens_exactly(current):
    snap = codex.read(current)
    facts = {f.text: f for f in snap.facts}
    assert set(facts) == {
        'when CI fails, the user asked: "show me the failing test first" -> lead with the failing test',
        "Run the test suite with `make test`, never bare pytest.",
        "CI runs on every push to main.",
        "Retrying a flaky test hid a real race -> fix the fixture instead",
        "Releases are tagged vX.Y.Z on main only.",
        "Ada maintains a small web shop and likes short answers.",
        "Lead with the failing test when CI breaks.",
    }  # task sections (their rollouts and keywords), `v1` and the index are not memories
    both = facts["CI runs on every push to main."]
    assert both.id.startswith("codex:MEMORY.md#") and both.tier == "auto"
    # it rests on tasks 1 and 2: their sessions date it (UTC) and re-assert it
    assert both.created_at == "2026-03-01T09:30:00Z" and both.reinforced_at == ["2026-03-04T13:00:00Z"]
    assert both.entities == ["shop repository CI"] and both.note == "MEMORY: shop repository CI"
    p = both.provenance
    assert p["x-codex-task-group"] == "shop repository CI"
    assert p["x-codex-scope"] == "running and fixing the shop's test suite in CI"
    assert p["x-codex-section"] == "shop repository CI: Reusable knowledge"
    assert p["x-codex-tasks"] == "1, 2" and p["x-codex-cwd"] == "/home/ada/shop"
    assert p["x-codex-keywords"] == "pytest, flaky, retry, cache, lockfile"
    assert p["x-codex-rollout-summary-files"] == (
        "rollout_summaries/2026-03-01T09-00-00-aB3d-flaky_ci.md,"
        " rollout_summaries/2026-03-04T14-00-00-Zq9k-ci_cache.md"
    )
    one = facts["Run the test suite with `make test`, never bare pytest."]
    assert one.created_at == "2026-03-01T09:30:00Z" and one.reinforced_at is None
    assert one.provenance["x-codex-keywords"] == "pytest, flaky, retry"
    # no task named: the block's tasks; the annotation gives no time, the summary file does
    lines = (current / "MEMORY.md").read_text().split("\n")
    release_line = lines.index("- Releases are tagged vX.Y.Z on main only.") + 1
    assert facts["Releases are tagged vX.Y.Z on main only."].provenance["x-codex-line"] == release_line
    assert p["x-codex-line"] == lines.index("- CI runs on every push to main. [Task 1][Task 2]") + 1
    release = facts["Releases are tagged vX.Y.Z on main only."]
    assert release.created_at == "2026-03-10T08:45:00Z" and "x-codex-tasks" not in release.provenance
    assert (
        facts["Lead with the failing test when CI breaks."].provenance["x-codex-section"]
        == "User preferences"
    )


def test_renumbered_tasks_are_no_edit(current, store):
    _, first = resync(store, codex, current)
    assert first.added == 7
    text = (
        (current / "MEMORY.md")
        .read_text()
        .replace("never bare pytest. [Task 1]", "never bare pytest. [Task 2]")
    )
    (current / "MEMORY.md").write_text(text)
    _, again = resync(store, codex, current)
    assert (again.added, again.newly_deleted) == (0, 0)
