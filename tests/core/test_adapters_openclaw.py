"""The OpenClaw reader, on a state folder written here in OpenClaw's own shapes: the
workspace's memory files and the memory-wiki plugin's vault beside it
(tests/core/new_sources_files.py names where each shape was read)."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import known_facts, openclaw
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.claude_code_files import git
from tests.core.new_sources_files import (
    OPENCLAW_DAY,
    OPENCLAW_MEMORY,
    OPENCLAW_PAGE,
    resync,
    wiki_page,
    write,
)
from tests.store_state import exists, mark

PAGE = "entities/staging-server.md"


@pytest.fixture
def state(tmp_path):
    root = tmp_path / ".openclaw"
    write(root, "workspace/MEMORY.md", OPENCLAW_MEMORY, mtime="2026-04-05T07:00:00Z")
    write(root, "workspace/memory/2026-04-02.md", OPENCLAW_DAY, mtime="2026-04-06T07:00:00Z")
    write(root, "workspace/AGENTS.md", "- workspace instructions, not memory\n")
    write(root, f"wiki/main/{PAGE}", wiki_page(OPENCLAW_PAGE), mtime="2026-04-07T07:00:00Z")
    write(root, "wiki/main/index.md", "# Index\n")
    return root


@pytest.fixture
def store(new_store):
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def test_the_workspace_and_its_wiki_open_exactly(state):
    snap = openclaw.read(state / "workspace")
    facts = {f.text: f for f in snap.facts}
    assert set(facts) == {
        "Ada's timezone is Europe/London.",
        "Moved the staging server to the new region.",
        "Ada asked for weekly summaries on Fridays.",
        "The staging server runs in eu-west-2.",
        "The staging server runs in us-east-1.",
        "Staging is rebuilt every night.",
    }  # page bodies, AGENTS.md and index.md are not memories
    page = "openclaw:wiki/main/entities/staging-server.md"
    assert {f.id: f.text[:12] for f in snap.facts} == {  # ids stay put: a store keeps them
        "openclaw:MEMORY.md#d7d0d3e250b2": "Ada's timezo",
        "openclaw:memory/2026-04-02.md#dd0cbb182ef6": "Moved the st",
        "openclaw:memory/2026-04-02.md#ba6c2a1ac938": "Ada asked fo",
        f"{page}#staging.region": "The staging ",
        f"{page}#staging.region.old": "The staging ",
        f"{page}#claim-3": "Staging is r",
    }
    assert {f.tier for f in snap.facts} == {"auto"}
    day = facts["Moved the staging server to the new region."]
    assert day.id.startswith("openclaw:memory/2026-04-02.md#")
    assert day.created_at == "2026-04-02T00:00:00Z"  # dated by its name, not its mtime
    assert day.provenance["x-openclaw-time"] == "date in the file name"
    long_term = facts["Ada's timezone is Europe/London."]
    assert long_term.created_at == "2026-04-05T07:00:00Z"
    assert long_term.provenance["x-openclaw-time"] == "file modified; creation unknown"

    region = facts["The staging server runs in eu-west-2."]
    assert region.id == "openclaw:wiki/main/entities/staging-server.md#staging.region"
    assert region.created_at == "2026-04-02T18:00:00Z"  # the claim's updatedAt
    assert region.r == 1  # two evidence entries: the first asserted it, one corroborates
    assert region.reinforced_at == ["2026-04-03T09:00:00Z"]
    assert region.s == 0
    p = region.provenance
    assert (p["x-source"], p["x-source-version"]) == ("openclaw", 1)
    assert p["x-openclaw-status"] == "supported" and p["x-openclaw-confidence"] == 0.9
    assert p["x-openclaw-evidence"] == "source.daily-2026-04-02, source.ops-chat"
    assert p["x-openclaw-page-id"] == "entity.staging" and p["x-openclaw-time"] == "claim updatedAt"
    old = facts["The staging server runs in us-east-1."]
    # the claim names its successor: the successor supersedes it, nothing else is linked
    assert region.supersedes == old.id
    assert old.created_at == "2026-04-03T10:00:00Z"  # no updatedAt of its own: the page's
    assert old.provenance["x-openclaw-status"] == "superseded" and old.r == 0
    assert old.provenance["x-openclaw-superseded-by"] == "staging.region"
    contested = facts["Staging is rebuilt every night."]
    assert contested.id.endswith("#claim-3") and contested.s == 1 and contested.r == 0
    assert contested.supersedes is None and day.supersedes is None


def test_a_second_sync_changes_nothing_then_edits_are_versions(state, store):
    workspace = state / "workspace"
    _, first = resync(store, openclaw, workspace)
    assert first.added == 6
    before = mark(store.path)
    _, again = resync(store, openclaw, workspace)
    assert (again.added, again.newly_deleted, again.unchanged) == (0, 0, 6)
    assert mark(store.path) == before
    page = copy.deepcopy(OPENCLAW_PAGE)
    page["claims"][0]["text"] = "The staging server runs in eu-west-1."
    del page["claims"][2]
    (state / "wiki/main" / PAGE).write_text(wiki_page(page))
    day = "memory/2026-04-02.md"
    text = (workspace / day).read_text().replace("new region.", "new region (eu-west-1).")
    write(workspace, day, text, mtime="2026-04-03T20:00:00Z")
    snap, third = resync(store, openclaw, workspace)
    assert (third.added, third.newly_deleted) == (2, 1)
    claim = next(f for f in snap.facts if "eu-west-1." in f.text)
    assert claim.id == "openclaw:wiki/main/entities/staging-server.md#staging.region@2"
    assert claim.supersedes == "openclaw:wiki/main/entities/staging-server.md#staging.region"
    moved = next(f for f in snap.facts if "(eu-west-1)" in f.text)
    # an edit is dated when it was made (the file's change), not by the log's name
    assert moved.id.endswith("@2") and moved.created_at == "2026-04-03T20:00:00Z"
    assert {k.text for k in known_facts(store, "openclaw") if k.deleted} == {
        "Staging is rebuilt every night."
    }


def test_a_lowercase_memory_md_is_read_too_once_where_it_is_the_other(state):
    workspace = state / "workspace"
    write(workspace, "memory.md", "- Ada's editor is Helix.\n")
    texts = [f.text for f in openclaw.read(workspace).facts]
    assert "Ada's editor is Helix." in texts and texts.count("Ada's timezone is Europe/London.") == 1
    (workspace / "memory.md").unlink()
    (workspace / "memory.md").symlink_to("MEMORY.md")
    texts = [f.text for f in openclaw.read(workspace).facts]
    assert texts.count("Ada's timezone is Europe/London.") == 1  # one file, read once


def test_the_state_folder_reads_as_its_workspace(state):
    ids = {f.id for f in openclaw.read(state / "workspace").facts}
    assert {f.id for f in openclaw.read(state).facts} == ids


def test_a_page_whose_front_matter_is_not_yaml_loses_only_its_claims(state):
    (state / "wiki/main/concepts").mkdir()
    (state / "wiki/main/concepts/broken.md").write_text("---\nclaims: [\n---\nbody\n")
    snap = openclaw.read(state / "workspace")
    assert len(snap.facts) == 6
    assert any("concepts/broken.md" in line and "not YAML" in line for line in snap.left_out)


def test_a_claim_naming_one_on_another_page_supersedes_it(state, store):
    """The plugin's `supersedes` and `supersededBy` name claims anywhere in the vault: a
    claim on a new page replacing one of the staging page is linked to it, in the same read
    and at a later sync (the staging page then unchanged, not read again); an id found
    nowhere links nothing (no successor or predecessor is invented)."""
    page = OPENCLAW_PAGE["claims"][0]["id"]  # staging.region, on the staging page
    ops = {
        "id": "concept.ops",
        "title": "Operations",
        "updatedAt": "2026-04-09T10:00:00.000Z",
        "claims": [
            {"id": "ops.region", "text": "Staging now runs in eu-central-1.", "supersedes": [page]},
            {"id": "ops.rebuild", "text": "Staging is rebuilt weekly.", "supersedes": ["nowhere.claim"]},
        ],
    }
    write(state, "wiki/main/concepts/ops.md", wiki_page(ops), mtime="2026-04-09T10:00:00Z")
    snap = openclaw.read(state / "workspace")
    facts = {f.text: f for f in snap.facts}
    assert facts["Staging now runs in eu-central-1."].supersedes == f"openclaw:wiki/main/{PAGE}#{page}"
    assert facts["Staging is rebuilt weekly."].supersedes is None
    (state / "wiki/main/concepts/ops.md").unlink()
    resync(store, openclaw, state / "workspace")
    later = copy.deepcopy(ops)
    later["claims"] = [{"id": "ops.region2", "text": "Staging moved to eu-north-1.", "supersedes": [page]}]
    write(state, "wiki/main/concepts/ops.md", wiki_page(later), mtime="2026-04-10T10:00:00Z")
    snap, _ = resync(store, openclaw, state / "workspace")
    moved = next(f for f in snap.facts if f.text == "Staging moved to eu-north-1.")
    assert moved.supersedes == f"openclaw:wiki/main/{PAGE}#{page}"  # the staging page was kept, not read


def test_a_folder_that_is_not_openclaw_is_refused(tmp_path):
    (tmp_path / "w").mkdir()
    with pytest.raises(InputError, match="holds no MEMORY.md, memory/\\*.md or wiki pages"):
        openclaw.read(tmp_path / "w")


def test_the_cli_refuses_foreign_input_in_one_line_and_creates_nothing(tmp_path, new_store, state):
    bad = tmp_path / "codex"
    write(bad, "memory_summary.md", "## User Profile\n\nnot OpenClaw\n")
    db = new_store("new")
    line = refused("import", "--from", "openclaw", bad, "--db", db)
    assert str(bad) in line and "expected an OpenClaw workspace" in line
    assert not exists(db)
    out = run("import", "--from", "openclaw", state / "workspace", "--db", db, "--json").output
    assert json.loads(out)["added"] == 6


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_workspace_whose_memory_files_are_all_deleted_in_git_is_replayed_not_refused(tmp_path):
    ws = tmp_path / "workspace"
    write(ws, "MEMORY.md", OPENCLAW_MEMORY)
    git(ws, "init", "-q")
    git(ws, "add", ".")
    git(ws, "commit", "-q", "-m", "memory", when="2026-04-01T10:00:00+00:00")
    git(ws, "rm", "-q", "MEMORY.md")
    git(ws, "commit", "-q", "-m", "forget", when="2026-04-09T10:00:00+00:00")
    snap = openclaw.read(ws)  # before: "holds no MEMORY.md, memory/*.md or wiki pages"
    facts = {f.text: f for f in snap.facts}
    assert "Ada's timezone is Europe/London." in facts
    assert facts["Ada's timezone is Europe/London."].created_at == "2026-04-01T10:00:00Z"
    assert {f.id for f in snap.facts} <= snap.deleted  # each gone at the commit that removed it


def test_a_second_sync_after_every_memory_file_is_deleted_records_the_deletions(tmp_path, store):
    ws = tmp_path / "workspace"
    write(ws, "MEMORY.md", OPENCLAW_MEMORY)
    write(ws, "memory/2026-04-02.md", OPENCLAW_DAY)
    _, first = resync(store, openclaw, ws)
    for path in [ws / "MEMORY.md", ws / "memory/2026-04-02.md"]:
        path.unlink()
    _, again = resync(store, openclaw, ws)  # before: refused, so the store kept serving them
    assert (again.added, again.newly_deleted) == (0, 3)
    assert all(k.deleted for k in known_facts(store, "openclaw"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="holds no MEMORY.md"):  # a folder it never read: refused
        resync(store, openclaw, empty)
