"""The Gemini CLI reader, on a ~/.gemini folder and a project written here in Gemini CLI's
own shapes (tests/core/new_sources_files.py names where each shape was read)."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import gemini_cli, known_facts
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.claude_code_files import git
from tests.core.new_sources_files import GEMINI_GLOBAL, GEMINI_PROJECT, resync, write
from tests.store_state import exists, mark


@pytest.fixture
def home(tmp_path):
    root = tmp_path / ".gemini"
    write(root, "GEMINI.md", GEMINI_GLOBAL, mtime="2026-02-01T08:00:00Z")
    write(root, "settings.json", "{}\n")
    # memoryTool.ts: save_memory with scope project appends `- <fact>` to this index
    write(
        root,
        "tmp/3f2a9c/memory/MEMORY.md",
        "- The shop's staging URL needs the VPN.\n",
        mtime="2026-02-04T08:00:00Z",
    )
    return root


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "shop"
    write(root, "GEMINI.md", GEMINI_PROJECT, mtime="2026-02-02T08:00:00Z")
    write(root, "api/GEMINI.md", "- The API speaks JSON only.\n", mtime="2026-02-03T08:00:00Z")
    write(root, "README.md", "- not a context file\n")
    write(root, "node_modules/pkg/GEMINI.md", "- a package's own context, not the project's\n")
    write(root, ".venv/GEMINI.md", "- hidden, not read\n")
    return root


@pytest.fixture
def store(new_store):
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def test_the_global_file_and_a_project_open_exactly(home, project):
    snap = gemini_cli.read(home, project=project)
    facts = {f.text: f for f in snap.facts}
    assert {t: f.tier for t, f in facts.items()} == {
        "Answer in British English.": "human",
        "My preferred programming language is Python.": "auto",  # save_memory's section
        "The project I'm working on is called shop.": "auto",
        "Use pnpm for the frontend.": "human",
        "Integration tests need the local database running.": "human",
        "The API speaks JSON only.": "human",
        "The shop's staging URL needs the VPN.": "auto",  # the project's memory index
    }
    home_ids = {f.id: f.text[:12] for f in snap.facts if not f.id.startswith("gemini-cli:-")}
    assert home_ids == {  # ids stay put: a store keeps them
        "gemini-cli:GEMINI.md#8a45211ff9a0": "Answer in Br",
        "gemini-cli:GEMINI.md#1e0de3c48d2d": "My preferred",
        "gemini-cli:GEMINI.md#f2254737c4bd": "The project ",
        "gemini-cli:tmp/3f2a9c/memory/MEMORY.md#a59b03183cee": "The shop's s",
    }
    saved = facts["My preferred programming language is Python."]
    assert saved.id.startswith("gemini-cli:GEMINI.md#")
    assert saved.created_at == "2026-02-01T08:00:00Z"
    p = saved.provenance
    assert (p["x-source"], p["x-source-version"], p["x-gemini-cli-file"]) == ("gemini-cli", 1, "GEMINI.md")
    assert (
        p["x-gemini-cli-section"] == "Gemini Added Memories" and p["x-gemini-cli-added-by"] == "save_memory"
    )
    assert p["x-gemini-cli-time"] == "file modified; creation unknown"
    api = facts["The API speaks JSON only."]
    note = str(project.resolve()).replace("/", "-")
    assert api.id == f"gemini-cli:{note}/api/GEMINI.md#" + api.id.rsplit("#", 1)[1]
    assert api.created_at == "2026-02-03T08:00:00Z" and api.note == f"{note}/api/GEMINI.md"
    assert "x-gemini-cli-added-by" not in api.provenance
    indexed = facts["The shop's staging URL needs the VPN."]
    assert indexed.id.startswith("gemini-cli:tmp/3f2a9c/memory/MEMORY.md#") and indexed.note == "tmp/3f2a9c"
    assert (
        indexed.created_at == "2026-02-04T08:00:00Z"
        and indexed.provenance["x-gemini-cli-added-by"] == "save_memory"
    )


def test_a_second_sync_changes_nothing_then_edits_are_versions(home, store):
    _, first = resync(store, gemini_cli, home)
    assert first.added == 4
    before = mark(store.path)
    _, again = resync(store, gemini_cli, home)
    assert (again.added, again.newly_deleted, again.unchanged) == (0, 0, 4)
    assert mark(store.path) == before
    text = (home / "GEMINI.md").read_text()
    text = text.replace("called shop.", "called shop, a web store.")
    text = text.replace("- My preferred programming language is Python.\n", "")
    (home / "GEMINI.md").write_text(text + "- Deploys happen on Tuesdays.\n")
    snap, third = resync(store, gemini_cli, home)
    assert (third.added, third.newly_deleted) == (2, 1)
    edited = next(f for f in snap.facts if "a web store" in f.text)
    assert edited.id.endswith("@2") and edited.supersedes == edited.id.removesuffix("@2")
    assert edited.tier == "auto"
    new = next(f for f in snap.facts if "Tuesdays" in f.text)
    assert new.tier == "auto" and new.supersedes is None
    gone = next(k for k in known_facts(store, "gemini-cli") if "Python" in k.text)
    assert gone.deleted


def test_a_folder_that_is_not_gemini_is_refused(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="holds no GEMINI.md"):
        gemini_cli.read(empty)
    with pytest.raises(InputError, match="holds no GEMINI.md; expected a project folder"):
        gemini_cli.read(None, project=empty)


def test_the_cli_refuses_foreign_input_in_one_line_and_creates_nothing(tmp_path, new_store, home, project):
    bad = tmp_path / "claude"
    write(bad, "CLAUDE.md", "- not Gemini\n")
    db = new_store("new")
    line = refused("import", "--from", "gemini-cli", bad, "--db", db)
    assert str(bad) in line and "holds no GEMINI.md" in line
    assert not exists(db)
    out = run("import", "--from", "gemini-cli", home, "--project", project, "--db", db).output
    assert "7 added" in out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_a_git_work_tree_the_history_is_replayed(tmp_path, new_store):
    root = tmp_path / ".gemini"
    section = "## Gemini Added Memories\n"
    write(root, "GEMINI.md", section + "- Alpha runs on Mondays.\n- Beta ships with the green build.\n")
    write(root, "tmp/p1/memory/MEMORY.md", "- The p1 project uses tabs.\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "one", when="2026-01-01T10:00:00+01:00")
    (root / "GEMINI.md").write_text(
        section
        + "- Alpha runs on Mondays.\n- Beta ships with the blue build.\n- Gamma is the new codename.\n"
    )
    git(root, "commit", "-qam", "two", when="2026-01-05T10:00:00+00:00")
    (root / "GEMINI.md").write_text(
        section + "- Beta ships with the blue build.\n- Gamma is the new codename.\n"
    )
    git(root, "rm", "-q", "tmp/p1/memory/MEMORY.md")
    git(root, "commit", "-qam", "three", when="2026-01-09T10:00:00+00:00")
    (root / "GEMINI.md").write_text((root / "GEMINI.md").read_text() + "- Delta is not committed.\n")

    snap = gemini_cli.read(root)
    facts = {f.text: f for f in snap.facts}
    assert {t: f.created_at for t, f in facts.items()} == {
        "Alpha runs on Mondays.": "2026-01-01T09:00:00Z",
        "Beta ships with the green build.": "2026-01-01T09:00:00Z",
        "The p1 project uses tabs.": "2026-01-01T09:00:00Z",
        "Beta ships with the blue build.": "2026-01-05T10:00:00Z",
        "Gamma is the new codename.": "2026-01-05T10:00:00Z",
        "Delta is not committed.": facts["Delta is not committed."].created_at,
    }
    green, blue = facts["Beta ships with the green build."], facts["Beta ships with the blue build."]
    assert blue.id == green.id + "@2" and blue.supersedes == green.id  # edited in commit two
    assert blue.provenance["x-gemini-cli-time"] == "git commit" and blue.tier == "auto"
    assert blue.provenance["x-gemini-cli-author"] == "Ada <ada@shop.test>"
    alpha, tabs = facts["Alpha runs on Mondays."], facts["The p1 project uses tabs."]
    # removed in commit three (a line, and a whole file gone from the work tree)
    assert snap.deleted == {alpha.id, tabs.id}  # the green build was edited, not deleted
    assert snap.deleted_at[alpha.id] == snap.deleted_at[tabs.id] == parse_time("2026-01-09T10:00:00Z")
    assert (
        facts["Delta is not committed."].provenance["x-gemini-cli-time"] == "file modified; creation unknown"
    )
    assert {f.id for f in gemini_cli.read(root).facts} == {f.id for f in snap.facts}  # every read alike

    with Store.open(new_store("git"), create=True) as store:
        _, first = resync(store, gemini_cli, root)
        # each fact once: the two removed in commit three are newly deleted, not added too
        assert (first.added, first.newly_deleted) == (4, 2)
        before = mark(store.path)
        _, again = resync(store, gemini_cli, root)
        assert (again.added, again.newly_deleted) == (0, 0)
        assert mark(store.path) == before
