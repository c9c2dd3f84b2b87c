"""The Cursor reader, on a project written here in Cursor's own shapes
(tests/core/new_sources_files.py names where each shape was read)."""

from __future__ import annotations

import shutil

import pytest

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import cursor, known_facts
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.claude_code_files import git
from tests.core.new_sources_files import CURSOR_ALWAYS, CURSOR_RULE, CURSORRULES, resync, write
from tests.store_state import exists, mark


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "app"
    write(root, ".cursorrules", CURSORRULES, mtime="2025-11-01T00:00:00Z")
    write(root, ".cursor/rules/typescript.mdc", CURSOR_RULE, mtime="2026-01-05T12:00:00Z")
    write(root, ".cursor/rules/team/00-core.mdc", CURSOR_ALWAYS, mtime="2026-01-06T12:00:00Z")
    write(root, "src/index.ts", "export {}\n")
    return root


@pytest.fixture
def store(new_store):
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def test_the_rules_open_exactly(project):
    snap = cursor.read(None, project=project)
    facts = {f.text: f for f in snap.facts}
    assert set(facts) == {
        "You are an expert in Python and FastAPI.",
        "Use type hints everywhere.",
        "Prefer type aliases over interfaces.",
        "Never use `any`.",
        "Keep diffs small and explain every change.",
    }
    assert {f.id: f.text[:12] for f in snap.facts} == {  # ids stay put: a store keeps them
        "cursor:.cursorrules#07e97f28333b": "You are an e",
        "cursor:.cursorrules#9da583699ed3": "Use type hin",
        "cursor:.cursor/rules/typescript.mdc#f3546ffe4d02": "Prefer type ",
        "cursor:.cursor/rules/typescript.mdc#3d0aa3f73b27": "Never use `a",
        "cursor:.cursor/rules/team/00-core.mdc#5c94c56e59df": "Keep diffs s",
    }
    assert {f.tier for f in snap.facts} == {"human"}  # a person writes rules
    ts = facts["Never use `any`."]
    assert ts.id.startswith("cursor:.cursor/rules/typescript.mdc#")
    assert ts.created_at == "2026-01-05T12:00:00Z" and ts.entities == ["TypeScript"]
    p = ts.provenance
    assert (p["x-source"], p["x-source-version"]) == ("cursor", 1)
    assert p["x-cursor-description"] == "TypeScript conventions for the frontend"
    assert p["x-cursor-globs"] == "src/**/*.ts, src/**/*.tsx"  # not YAML, read as Cursor reads it
    assert p["x-cursor-always-apply"] is False
    assert p["x-cursor-line"] == 9 and p["x-cursor-file"] == ".cursor/rules/typescript.mdc"
    assert p["x-cursor-time"] == "file modified; creation unknown"
    core = facts["Keep diffs small and explain every change."].provenance
    assert core["x-cursor-always-apply"] is True and "x-cursor-globs" not in core
    legacy = facts["Use type hints everywhere."]
    assert legacy.id.startswith("cursor:.cursorrules#") and legacy.created_at == "2025-11-01T00:00:00Z"
    assert not snap.left_out


def test_a_second_sync_changes_nothing_then_edits_are_versions(project, store):
    _, first = resync(store, cursor, None, project=project)
    assert first.added == 5
    before = mark(store.path)
    _, again = resync(store, cursor, None, project=project)
    assert (again.added, again.newly_deleted, again.unchanged) == (0, 0, 5)
    assert mark(store.path) == before
    rule = project / ".cursor/rules/typescript.mdc"
    rule.write_text(rule.read_text().replace("over interfaces", "over interfaces for unions"))
    (project / ".cursorrules").unlink()
    snap, third = resync(store, cursor, None, project=project)
    assert (third.added, third.newly_deleted) == (1, 2)
    edited = next(f for f in snap.facts if "for unions" in f.text)
    assert edited.id.endswith("@2") and edited.supersedes == edited.id.removesuffix("@2")
    deleted = {k.text for k in known_facts(store, "cursor") if k.deleted}
    assert deleted == {"You are an expert in Python and FastAPI.", "Use type hints everywhere."}

    shutil.rmtree(project / ".cursor")  # every rule gone: deleted, not refused
    _, last = resync(store, cursor, None, project=project)
    assert (last.added, last.newly_deleted) == (0, 3)


def test_a_folder_without_rules_is_refused(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(InputError, match="holds no .cursorrules and no .cursor/rules"):
        cursor.read(None, project=tmp_path / "plain")


def test_the_cli_refuses_foreign_input_in_one_line_and_creates_nothing(tmp_path, new_store, project):
    bad = tmp_path / "gemini"
    write(bad, "GEMINI.md", "- not Cursor\n")
    db = new_store("new")
    line = refused("import", "--from", "cursor", "--project", bad, "--db", db)
    assert str(bad) in line and "expected a project folder holding .cursorrules" in line
    assert not exists(db)
    assert "needs --project" in refused("import", "--from", "cursor", "--db", db)
    out = run("import", "--from", "cursor", "--project", project, "--db", db).output
    assert "5 added" in out
    (project / ".cursor/rules/team/00-core.mdc").unlink()
    # the store remembers the project: `sync` reads it again, with no SOURCE
    out = run("sync", db).output
    assert "0 added, 1 newly deleted" in out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_a_git_work_tree_the_rules_history_is_replayed(project):
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "rules", when="2025-12-24T10:00:00+01:00", email="bo@team.test")
    rule = project / ".cursor/rules/typescript.mdc"
    rule.write_text(rule.read_text().replace("- Never use `any`.", "- Never use `any`; use `unknown`."))
    git(project, "commit", "-qam", "unknown", when="2026-01-10T08:00:00+00:00", email="bo@team.test")
    rule.write_text(rule.read_text() + "- Run tsc before pushing.\n")  # not committed
    facts = {f.text: f for f in cursor.read(None, project=project).facts}
    edited = facts["Never use `any`; use `unknown`."]  # the history is replayed
    assert edited.created_at == "2026-01-10T08:00:00Z" and edited.supersedes == facts["Never use `any`."].id
    committed = facts["Never use `any`."]
    assert committed.created_at == "2025-12-24T09:00:00Z"  # the commit's author time, in UTC
    p = committed.provenance
    assert p["x-cursor-time"] == "git commit" and p["x-cursor-author"] == "Ada <bo@team.test>"
    assert len(p["x-cursor-commit"]) == 40
    fresh = facts["Run tsc before pushing."].provenance
    assert fresh["x-cursor-time"] == "file modified; creation unknown" and "x-cursor-author" not in fresh


def test_md_rules_and_a_subfolders_own_rules_are_read_as_cursor_reads_them(tmp_path, new_store):
    """Cursor's documentation (docs.cursor.com/context/rules): a rule in `.cursor/rules/` is
    `.mdc` or plain `.md`, in subfolders of it too, and a subfolder may hold its own
    `.cursor/rules/`, scoped to it. HL8-ORG/oksai.cc's only rule was `.cursor/rules/AGENTS.md`
    (refused: "holds no .cursorrules and no .cursor/rules/*.mdc"); jlowin/fastmcp keeps its
    docs' rules in `docs/.cursor/rules/mintlify.mdc`. Rules inside `node_modules/`, `.venv/`
    or another hidden folder are a package's or a tool's, not read; a rule linked out of
    the project is named, never followed."""
    root = tmp_path / "monorepo"
    write(root, ".cursor/rules/AGENTS.md", "# Project\n\n- Answer in Chinese\n- Use pnpm workspaces\n")
    write(root, ".cursor/rules/frontend/components.md", "- Components are function components\n")
    write(
        root,
        "docs/.cursor/rules/mintlify.mdc",
        "---\ndescription: docs\nglobs: docs/**\n---\n- Use sentence case\n",
    )
    write(
        root,
        "packages/api/.cursor/rules/db.mdc",
        "---\nalwaysApply: true\n---\n- Migrations are reversible\n",
    )
    write(root, "node_modules/pkg/.cursor/rules/theirs.mdc", "- a package's rule\n")
    write(root, ".venv/lib/.cursor/rules/theirs.mdc", "- an environment's rule\n")
    write(root, ".github/.cursor/rules/odd.mdc", "- not where Cursor looks\n")
    write(root, ".cursor/rules/notes.txt", "- not a rule\n")
    (tmp_path / "secret.md").write_text("- The vault password is hunter2.\n")
    (root / "docs/.cursor/rules/secret.md").symlink_to(tmp_path / "secret.md")
    snap = cursor.read(None, project=root)
    got = {(f.provenance["x-cursor-file"], f.text) for f in snap.facts}
    assert got == {
        (".cursor/rules/AGENTS.md", "Answer in Chinese"),
        (".cursor/rules/AGENTS.md", "Use pnpm workspaces"),
        (".cursor/rules/frontend/components.md", "Components are function components"),
        ("docs/.cursor/rules/mintlify.mdc", "Use sentence case"),
        ("packages/api/.cursor/rules/db.mdc", "Migrations are reversible"),
    }
    db = next(f for f in snap.facts if "reversible" in f.text)
    assert db.provenance["x-cursor-always-apply"] is True and db.tier == "human"
    assert "docs/.cursor/rules/secret.md: a link leaving the folder; not read" in snap.left_out
    out = run("import", "--from", "cursor", "--project", root, "--db", new_store("rules")).output
    assert "5 added" in out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_subfolders_rules_history_is_replayed_and_a_removal_deletes(tmp_path):
    root = tmp_path / "repo"
    write(root, "docs/.cursor/rules/mintlify.mdc", "- Use sentence case for headings\n")
    write(root, "src/main.py", "print()\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "rule", when="2026-02-01T10:00:00+00:00")
    rule = root / "docs/.cursor/rules/mintlify.mdc"
    rule.write_text("- Use sentence case for headings and titles\n")
    git(root, "commit", "-qam", "edit", when="2026-02-02T10:00:00+00:00")
    snap = cursor.read(None, project=root)
    edited = next(f for f in snap.facts if f.text.endswith("and titles"))
    assert edited.supersedes is not None and edited.created_at == "2026-02-02T10:00:00Z"
    rule.unlink()
    git(root, "commit", "-qam", "gone", when="2026-02-03T10:00:00+00:00")
    snap = cursor.read(None, project=root)  # the rules are gone: deleted, not refused
    assert {f.id for f in snap.facts} <= snap.deleted | {f.supersedes for f in snap.facts}
