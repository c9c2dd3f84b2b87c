"""The Claude Code reader, on folders written here in Claude Code's own shapes.

The shapes follow Claude Code's memory documentation and users' own folders: auto memory in
`~/.claude/projects/<project>/memory/`, `MEMORY.md` an index of pointer lines
(`- [Title](file.md) — hook`) with, in older folders, bullets of its own; topic files with
front matter `name`, `description`, `type` (some write `metadata: {type: ...}` and
`originSessionId`); `~/.claude/CLAUDE.md` and a project's `CLAUDE.md`, `CLAUDE.local.md`,
`.claude/rules/*.md` (rules may carry `paths:` front matter).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import claude_code as cc
from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.basic_memory_files import sync, write
from tests.core.claude_code_files import INDEX, MEMORY, PROJECT, TESTING, USER_CLAUDE, git
from tests.store_state import exists, mark

ROLE = """\
    ---
    name: Ada's role
    description: data scientist, new to the frontend
    metadata:
      type: user
    ---
    Ada is a data scientist; explain frontend ideas with backend analogies.
    """


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / ".claude"
    write(root, f"{MEMORY}/MEMORY.md", INDEX, mtime="2026-03-01T10:00:00Z")
    write(root, f"{MEMORY}/feedback_testing.md", TESTING, mtime="2026-03-02T10:00:00Z")
    write(root, f"{MEMORY}/user_role.md", ROLE, mtime="2026-03-03T10:00:00Z")
    write(root, "CLAUDE.md", USER_CLAUDE, mtime="2026-01-01T00:00:00Z")
    write(root, "projects/-other/session.jsonl", "{}\n")  # transcripts are not memory
    return root


@pytest.fixture
def store(new_store):
    """An empty store on this test's backend (a file, a server: `tests/backends.py`)."""
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def by_text(snapshot) -> dict:
    return {f.text: f for f in snapshot.facts}


def resync(store: Store, root: Path, **options):
    snap = cc.read(root, known=known_facts(store, "claude-code"), **options)
    return snap, sync(store, snap)


def test_topic_files_and_bullets_become_facts(home):
    snap = cc.read(home)
    facts = by_text(snap)
    assert set(facts) == {
        "Integration tests must hit a real database, not mocks.\n\n"
        "**Why:** mocked tests passed but the prod migration failed last quarter.",
        "Ada is a data scientist; explain frontend ideas with backend analogies.",
        "Always run `make lint` before committing",
        "The staging URL is https://staging.shop.test\n(behind the VPN)",
        "Use pnpm, not npm",
        "Prefer small modules\nwith one job each",
        "Prose a person wrote is read too.",
    }  # pointer lines, code blocks and auto memory's prose are not facts
    testing = facts[next(t for t in facts if t.startswith("Integration"))]
    assert testing.id == f"claude-code:{MEMORY}/feedback_testing.md"
    assert testing.tier == "auto" and testing.note == PROJECT and testing.entities == ["No DB mocks"]
    prov = testing.provenance
    assert prov["x-source"] == "claude-code" and prov["x-source-version"] == 1
    assert prov["x-claude-code-type"] == "feedback"
    assert prov["x-claude-code-description"] == "integration tests hit a real database"
    assert prov["x-claude-code-time"] == "file modified; creation unknown"
    assert testing.created_at == "2026-03-02T10:00:00Z"
    role = facts["Ada is a data scientist; explain frontend ideas with backend analogies."]
    assert role.provenance["x-claude-code-type"] == "user"  # under `metadata:`
    pnpm = facts["Use pnpm, not npm"]
    assert pnpm.tier == "human" and pnpm.note == "user" and pnpm.entities == ["Style"]
    assert pnpm.id.startswith("claude-code:CLAUDE.md#") and pnpm.provenance["x-claude-code-line"] == 3
    assert any("2 index lines point to topic files" in line for line in snap.left_out)
    assert [f.id for f in cc.read(home).facts] == [f.id for f in snap.facts]  # stable ids


def test_edits_are_versions_and_removals_deletions(home, store):
    first, result = resync(store, home)
    assert result.added == 7
    topic = home / MEMORY / "feedback_testing.md"
    topic.write_text(topic.read_text().replace("not mocks", "never mocks"))
    os.utime(topic, (parse_time("2026-04-01T00:00:00Z"),) * 2)
    claude = home / "CLAUDE.md"
    claude.write_text(claude.read_text().replace("Use pnpm, not npm", "Use bun, not npm"))
    (home / MEMORY / "user_role.md").unlink()
    snap, result = resync(store, home)
    assert (result.added, result.newly_deleted) == (2, 1)
    facts = by_text(snap)
    v2 = facts[next(t for t in facts if "never mocks" in t)]
    assert v2.id == f"claude-code:{MEMORY}/feedback_testing.md@2"
    assert v2.supersedes == f"claude-code:{MEMORY}/feedback_testing.md"
    assert v2.created_at == "2026-04-01T00:00:00Z" and v2.provenance["x-source-version"] == 2
    bun = facts["Use bun, not npm"]
    assert bun.supersedes == by_text(first)["Use pnpm, not npm"].id and bun.id.endswith("@2")
    deleted = {k.id for k in known_facts(store, "claude-code") if k.deleted}
    assert deleted == {f"claude-code:{MEMORY}/user_role.md"}
    before = store._conn.total_changes
    again, result = resync(store, home)
    assert (result.added, result.newly_deleted) == (0, 0) and store._conn.total_changes == before


def test_project_files_are_human_instructions(tmp_path):
    project = tmp_path / "shop"
    write(project, "CLAUDE.md", "- Run `make test` before pushing\n")
    write(project, "CLAUDE.local.md", "- My sandbox is sandbox-7\n")
    write(
        project, ".claude/rules/api.md", "---\npaths:\n  - src/api/**\n---\n- Every handler validates input\n"
    )
    snap = cc.read(None, project=project)
    facts = by_text(snap)
    assert set(facts) == {
        "Run `make test` before pushing",
        "My sandbox is sandbox-7",
        "Every handler validates input",
    }
    assert {f.tier for f in snap.facts} == {"human"}
    rule = facts["Every handler validates input"]
    assert (
        rule.provenance["x-claude-code-file"] == ".claude/rules/api.md"
        and rule.provenance["x-claude-code-line"] == 5
    )
    slug = str(project.resolve()).replace("/", "-")
    assert rule.note == slug and rule.id.startswith(f"claude-code:{slug}/.claude/rules/api.md#")


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@needs_git
def test_times_come_from_git_when_the_folder_is_a_work_tree(home):
    git(home, "init", "-q")
    git(home, "add", ".")
    git(home, "commit", "-q", "-m", "memory")
    claude = home / "CLAUDE.md"
    claude.write_text(claude.read_text() + "- Not committed yet\n")
    facts = by_text(cc.read(home))
    pnpm = facts["Use pnpm, not npm"]
    assert pnpm.created_at == "2026-02-01T10:00:00Z"  # the commit's instant, in UTC
    assert pnpm.provenance["x-claude-code-time"] == "git commit"
    assert pnpm.provenance["x-claude-code-author"] == "Ada <ada@shop.test>"
    assert len(pnpm.provenance["x-claude-code-commit"]) == 40
    topic = facts[next(t for t in facts if t.startswith("Integration"))]
    assert (
        topic.created_at == "2026-02-01T10:00:00Z" and topic.provenance["x-claude-code-time"] == "git commit"
    )
    fresh = facts["Not committed yet"]
    assert fresh.provenance["x-claude-code-time"] == "file modified; creation unknown"
    assert "x-claude-code-author" not in fresh.provenance


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: p, "no such folder"),
        (lambda p: (p.mkdir(), p)[1], "holds neither projects/ nor CLAUDE.md"),
        (lambda p: (p.write_text("x"), p)[1], "is a file, not a folder"),
    ],
)
def test_a_folder_that_is_not_claude_code_is_refused(tmp_path, make, expected):
    source = make(tmp_path / "not-claude")
    with pytest.raises(InputError, match=expected):
        cc.read(source)


def test_front_matter_aliases_are_left_out_not_expanded(home):
    bomb = "---\na: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nname: *b\ntype: user\n---\nbody\n"
    (home / MEMORY / "bomb.md").write_text(bomb)
    snap = cc.read(home)
    assert by_text(snap)["body"].entities is None  # the list never became a title
    assert any(
        line.endswith(
            "bomb.md: front matter not read as YAML; name (a list, not text) kept as written or left out"
        )
        for line in snap.left_out
    )
    assert "Ada is a data scientist; explain frontend ideas with backend analogies." in by_text(
        snap
    )  # the others are read


def test_front_matter_that_is_not_strict_yaml_is_read_leniently(home):
    loose = "---\nname: tone\ndescription: User asked 2026-05-14: do NOT use emoji\ntype: feedback\n---\nWrite plainly.\n"
    (home / MEMORY / "feedback_tone.md").write_text(loose)
    (home / MEMORY / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    snap = cc.read(home)
    facts = by_text(snap)
    tone = facts["Write plainly."]
    assert tone.provenance["x-claude-code-description"] == "User asked 2026-05-14: do NOT use emoji"
    assert tone.entities == ["tone"] and tone.provenance["x-claude-code-type"] == "feedback"
    assert (
        "body" in facts and "Ada is a data scientist; explain frontend ideas with backend analogies." in facts
    )
    assert any(
        "feedback_tone.md: front matter not read as YAML; description" in line for line in snap.left_out
    )
    assert any("broken.md: front matter not read as YAML; name" in line for line in snap.left_out)


def test_links_leaving_the_folder_are_skipped(home, tmp_path):
    secret = tmp_path / "outside" / "secret.md"
    write(secret.parent, "secret.md", "- the password is hunter2\n")
    (home / MEMORY / "secret.md").symlink_to(secret)
    snap = cc.read(home)
    assert "the password is hunter2" not in by_text(snap)
    assert any("secret.md: a link leaving the folder" in line for line in snap.left_out)


def test_cli_imports_resyncs_and_refuses(home, tmp_path, new_store):
    db = new_store("cc")
    out = json.loads(run("import", "--from", "claude-code", home, "--db", db, "--json").stdout)
    assert (out["system"], out["added"]) == ("claude-code", 7)
    before = mark(db)
    again = run("import", "--from", "claude-code", home, "--db", db)
    assert "0 added, 0 newly deleted, 0 re-asserted, 7 unchanged" in again.stdout
    assert mark(db) == before
    fid = f"claude-code:{MEMORY}/feedback_testing.md"
    shown = run("show", db, fid).stdout
    assert f"from claude-code: record {MEMORY}/feedback_testing.md version 1" in shown
    assert "x-claude-code-time: file modified; creation unknown" in shown
    bad = tmp_path / "empty"
    bad.mkdir()
    new = new_store("new")
    line = refused("import", "--from", "claude-code", bad, "--db", new)
    assert str(bad) in line and "expected a ~/.claude folder" in line
    assert not exists(new)
    line = refused("import", "--from", "mem0", bad, "--project", bad, "--db", new)
    assert "--project does not apply to --from mem0" in line


def test_a_second_sync_reads_only_the_files_that_changed(home, store, monkeypatch):
    resync(store, home)
    topic = home / MEMORY / "feedback_testing.md"
    topic.write_text(topic.read_text() + "\nAlso for the staging database.\n")
    parsed = []
    real = cc._parse
    monkeypatch.setattr(cc, "_parse", lambda f, text: (parsed.append(f.file), real(f, text))[1])
    snap, result = resync(store, home)
    assert parsed == [f"{MEMORY}/feedback_testing.md"]  # size and mtime of the others unchanged
    assert (result.added, result.newly_deleted, result.unchanged) == (1, 0, 6)


def test_without_dir_it_reads_the_users_claude_folder(home, new_store, monkeypatch):
    monkeypatch.setenv("HOME", str(home.parent))
    db = new_store("default")
    out = json.loads(run("import", "--from", "claude-code", "--db", db, "--json").stdout)
    assert (out["added"], out["source"]) == (7, str(home))


def test_a_file_that_is_not_utf8_is_named_and_the_others_read(home, store):
    """One bad byte in one file of a folder: the others are read, that file is named with
    its line, and the facts it gave before stay as they were (not deleted)."""
    first, _ = resync(store, home)
    testing = home / MEMORY / "feedback_testing.md"
    kept = [
        f.id for f in first.facts if f.provenance.get("x-claude-code-file") == f"{MEMORY}/feedback_testing.md"
    ]
    assert kept
    testing.write_bytes(b"- fine\n- caf\xe9\n")
    (home / MEMORY / "new_note.md").write_text("- Use uv for Python installs\n")
    snap, result = resync(store, home)
    assert f"{MEMORY}/feedback_testing.md: not valid UTF-8 at line 2; not read" in snap.left_out
    assert "Use uv for Python installs" in by_text(snap)  # the rest is read
    assert (result.added, result.newly_deleted) == (1, 0)  # its facts are not taken for deleted
    assert not any(f.deleted for f in known_facts(store, "claude-code") if f.id in kept)


def test_an_uncommitted_edit_that_is_not_utf8_keeps_the_history(tmp_path, new_store):
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_claude(repo, "# Build\n\n- Use pnpm for installs\n", "2026-01-01T10:00:00Z")
    (repo / "CLAUDE.md").write_bytes(b"# Build\n\n- Use pnpm f\xf6r installs\n")
    snap = cc.read(None, project=repo)
    assert "Use pnpm for installs" in by_text(snap)
    assert "CLAUDE.md: not valid UTF-8 at line 3; its uncommitted edit not read" in snap.left_out
    git(repo, "commit", "-q", "-am", "the bad bytes committed", when="2026-01-02T10:00:00Z")
    snap = cc.read(None, project=repo)
    assert "CLAUDE.md: not valid UTF-8; its bad bytes left out (read as U+FFFD, \ufffd)" in snap.left_out


def commit_claude(repo: Path, text: str, when: str) -> None:
    (repo / "CLAUDE.md").write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory", when=when)


def test_a_project_in_git_is_replayed_and_an_edit_is_linked_once(tmp_path, new_store):
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_claude(repo, "# Build\n\n- Use pnpm for installs\n- Run the tests first\n", "2026-01-01T10:00:00Z")
    commit_claude(repo, "# Build\n\n- Use bun for installs\n- Run the tests first\n", "2026-01-02T10:00:00Z")
    snap = cc.read(None, project=repo)
    facts = by_text(snap)
    assert set(facts) == {"Use pnpm for installs", "Use bun for installs", "Run the tests first"}
    pnpm, bun = facts["Use pnpm for installs"], facts["Use bun for installs"]
    assert bun.supersedes == pnpm.id and not snap.deleted
    assert (pnpm.created_at, bun.created_at) == ("2026-01-01T10:00:00Z", "2026-01-02T10:00:00Z")
    assert (
        bun.provenance["x-claude-code-time"] == "git commit"
        and len(bun.provenance["x-claude-code-commit"]) == 40
    )
    with Store.open(new_store("memory"), create=True) as store:
        sync(store, snap)
        commit_claude(
            repo,
            "# Build\n\n- Use bun for installs\n- Run the tests first\n- Keep commits small\n",
            "2026-01-03T10:00:00Z",
        )
        again = cc.read(None, project=repo, known=known_facts(store, "claude-code"))
        result = sync(store, again)
        assert result.added == 1 and not result.newly_deleted
        links = [k for k in known_facts(store, "claude-code") if k.provenance.get("x-source-version", 1) > 1]
        assert [k.text for k in links] == ["Use bun for installs"]  # linked once, to the text it replaced


def test_project_files_gone_from_the_work_tree_keep_their_history_deleted(tmp_path):
    """A rule removed in a commit, and a CLAUDE.local.md removed but not committed yet:
    their bullets are read from git and deleted (at the commit, where it says when)."""
    repo = tmp_path / "shop"
    (repo / ".claude" / "rules").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "CLAUDE.local.md").write_text("- My sandbox is on port 8081\n")
    (repo / ".claude" / "rules" / "style.md").write_text("- Prefer small pure functions\n")
    commit_claude(repo, "# Build\n\n- Use pnpm for installs\n", "2026-01-01T10:00:00Z")
    (repo / ".claude" / "rules" / "style.md").unlink()
    commit_claude(repo, "# Build\n\n- Use pnpm for installs\n", "2026-01-02T10:00:00Z")
    (repo / "CLAUDE.local.md").unlink()
    snap = cc.read(None, project=repo)
    facts = by_text(snap)
    rule, local = facts["Prefer small pure functions"], facts["My sandbox is on port 8081"]
    assert rule.id in snap.deleted and local.id in snap.deleted
    assert facts["Use pnpm for installs"].id not in snap.deleted
    assert snap.deleted_at[rule.id] == parse_time("2026-01-02T10:00:00Z") and local.id not in snap.deleted_at
    assert rule.provenance["x-claude-code-file"] == ".claude/rules/style.md"


def test_claude_md_imports_are_followed_inside_the_project_only(tmp_path):
    project = tmp_path / "shop"
    outside = tmp_path / "secret.md"
    outside.write_text("- the password is hunter2\n")
    write(
        project,
        "CLAUDE.md",
        "@AGENTS.md\n\nSee @docs/style.md and @../secret.md, mail ada@shop.test, `@not/code.md`.\n",
    )
    write(project, "AGENTS.md", "- Use bun for installs\n\n@docs/deep.md\n")
    write(project, "docs/style.md", "- Keep lines short\n")
    write(project, "docs/deep.md", "- Deep rule\n")
    snap = cc.read(None, project=project)
    assert {(f.provenance["x-claude-code-file"], f.text) for f in snap.facts} == {
        ("CLAUDE.md", "See @docs/style.md and @../secret.md, mail ada@shop.test, `@not/code.md`."),
        ("AGENTS.md", "Use bun for installs"),
        ("docs/style.md", "Keep lines short"),
        ("docs/deep.md", "Deep rule"),
    }
    assert "CLAUDE.md: @../secret.md outside the folder or no such file; not read" in snap.left_out


def test_a_claude_md_paragraph_edited_in_git_is_one_version_linked_once(tmp_path, new_store):
    """A person's CLAUDE.md is read as Claude Code loads it, paragraphs too: a paragraph
    edited across two commits is the next version of the one it replaced, linked once, at
    every later sync; read outside git the same text is the same fact."""
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q")
    first = "# Build\n\nInstall with pnpm;\nnever with npm.\n\n- Run the tests first\n"
    commit_claude(repo, first, "2026-01-01T10:00:00Z")
    commit_claude(repo, first.replace("pnpm", "bun"), "2026-01-02T10:00:00Z")
    snap = cc.read(None, project=repo)
    facts = by_text(snap)
    assert set(facts) == {
        "Install with pnpm;\nnever with npm.",
        "Install with bun;\nnever with npm.",
        "Run the tests first",
    }
    pnpm, bun = facts["Install with pnpm;\nnever with npm."], facts["Install with bun;\nnever with npm."]
    assert bun.supersedes == pnpm.id and bun.created_at == "2026-01-02T10:00:00Z" and not snap.deleted
    with Store.open(new_store("memory"), create=True) as store:
        sync(store, snap)
        commit_claude(repo, first.replace("pnpm", "bun") + "\nKeep commits small.\n", "2026-01-03T10:00:00Z")
        result = sync(store, cc.read(None, project=repo, known=known_facts(store, "claude-code")))
        assert result.added == 1 and not result.newly_deleted
        links = [k for k in known_facts(store, "claude-code") if k.provenance.get("x-source-version", 1) > 1]
        assert [k.text for k in links] == ["Install with bun;\nnever with npm."]
    plain = tmp_path / "plain"
    write(plain, "CLAUDE.md", first)
    with Store.open(new_store("plain"), create=True) as store:
        snap = cc.read(None, project=plain)
        assert {f.text for f in snap.facts} == {"Install with pnpm;\nnever with npm.", "Run the tests first"}
        sync(store, snap)
        write(plain, "CLAUDE.md", first.replace("pnpm", "bun"), mtime="2026-02-01T00:00:00Z")
        again = by_text(cc.read(None, project=plain, known=known_facts(store, "claude-code")))
        old = by_text(snap)["Install with pnpm;\nnever with npm."]
        assert again["Install with bun;\nnever with npm."].supersedes == old.id  # outside git too


def test_a_claude_md_that_became_a_link_keeps_its_history(tmp_path):
    """CLAUDE.md edited as a file, then made a link to AGENTS.md: its own versions stay,
    linked, deleted when it became a link; AGENTS.md is read through the link as itself."""
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_claude(repo, "Install with pnpm, never with npm.\n", "2026-01-01T10:00:00Z")
    commit_claude(repo, "Install with bun, never with npm.\n", "2026-01-02T10:00:00Z")
    (repo / "CLAUDE.md").unlink()
    (repo / "AGENTS.md").write_text("Install with bun, never with npm.\n\n- Run the tests first\n")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one file for every agent", when="2026-01-03T10:00:00Z")
    snap = cc.read(None, project=repo)
    got = {(f.provenance["x-claude-code-file"], f.text): f for f in snap.facts}
    assert set(got) == {
        ("CLAUDE.md", "Install with pnpm, never with npm."),
        ("CLAUDE.md", "Install with bun, never with npm."),
        ("AGENTS.md", "Install with bun, never with npm."),
        ("AGENTS.md", "Run the tests first"),
    }
    pnpm, bun = (
        got[("CLAUDE.md", "Install with pnpm, never with npm.")],
        got[("CLAUDE.md", "Install with bun, never with npm.")],
    )
    assert bun.supersedes == pnpm.id
    assert snap.deleted == {bun.id} and snap.deleted_at[bun.id] == parse_time("2026-01-03T10:00:00Z")
    assert not any(f.text == "AGENTS.md" for f in snap.facts)  # a link's text is no fact


def test_claude_md_files_of_subfolders_are_read_as_claude_code_loads_them(tmp_path):
    """A subfolder's CLAUDE.md (Claude Code loads it when it works there) is read, in git
    with its history; others' packages and hidden folders are not walked."""
    repo = tmp_path / "shop"
    write(repo, "packages/api/CLAUDE.md", "Every handler validates its input.\n")
    write(repo, "node_modules/left-pad/CLAUDE.md", "- not ours\n")
    write(repo, ".cache/CLAUDE.md", "- not ours either\n")
    snap = cc.read(None, project=repo)  # no CLAUDE.md at the top: not refused
    assert {(f.provenance["x-claude-code-file"], f.text) for f in snap.facts} == {
        ("packages/api/CLAUDE.md", "Every handler validates its input.")
    }
    git(repo, "init", "-q")
    git(repo, "add", "packages")
    git(repo, "commit", "-q", "-m", "api rules", when="2026-01-01T10:00:00Z")
    write(repo, "packages/api/CLAUDE.md", "Every handler validates its input first.\n")
    git(repo, "commit", "-q", "-am", "api rules", when="2026-01-02T10:00:00Z")
    facts = by_text(cc.read(None, project=repo))
    old, new = facts["Every handler validates its input."], facts["Every handler validates its input first."]
    assert new.supersedes == old.id and new.provenance["x-claude-code-time"] == "git commit"


def test_a_hidden_subfolders_claude_md_is_read_and_tool_folders_are_not(tmp_path):
    """Claude Code loads a subtree's CLAUDE.md when it reads a file there, a hidden subtree
    too: claude-task-master's `.taskmaster/CLAUDE.md`, a `.github/workflows/CLAUDE.md`. Not
    a package's in `.venv/` or `node_modules/`, nor one inside `.git/`, another checkout
    (`.worktrees/fix/`), a skill's folder or `.claude/agents/` (prompts); a link leaving the project is named, never read."""
    repo = tmp_path / "shop"
    write(repo, "CLAUDE.md", "- Root rule\n")
    write(repo, ".taskmaster/CLAUDE.md", "- Pick the next task with `task-master next`\n")
    write(repo, ".github/workflows/CLAUDE.md", "- Pin actions by commit\n")
    write(repo, ".venv/lib/python3.11/site-packages/pkg/CLAUDE.md", "- a package's\n")
    write(repo, ".venv/CLAUDE.md", "- an environment's\n")
    write(repo, ".agents/skills/review/CLAUDE.md", "- a skill's prompt\n")
    write(repo, ".claude/agents/CLAUDE.md", "- an agent's prompt\n")
    write(repo, ".worktrees/fix/CLAUDE.md", "- Root rule, on another branch\n")
    write(repo, ".worktrees/fix/.git", "gitdir: ../../.git/worktrees/fix\n")
    git(repo, "init", "-q")
    write(repo, ".git/hooks/CLAUDE.md", "- inside git's own folder\n")
    (tmp_path / "secret.md").write_text("- the deploy key is hunter2\n")
    (repo / ".github/CLAUDE.local.md").symlink_to(tmp_path / "secret.md")
    snap = cc.read(None, project=repo)
    assert {(f.provenance["x-claude-code-file"], f.text) for f in snap.facts} == {
        ("CLAUDE.md", "Root rule"),
        (".taskmaster/CLAUDE.md", "Pick the next task with `task-master next`"),
        (".github/workflows/CLAUDE.md", "Pin actions by commit"),
    }
    assert ".github/CLAUDE.local.md: a link leaving the folder; not read" in snap.left_out


def test_a_project_whose_claude_md_is_gone_is_read_from_git_not_refused(tmp_path):
    """Every instruction file removed in a commit: the project is read from its history,
    the facts deleted at the removing commit; with no such history it is refused."""
    repo = tmp_path / "shop"
    repo.mkdir()
    with pytest.raises(InputError, match="holds no CLAUDE.md"):
        cc.read(None, project=repo)
    git(repo, "init", "-q")
    commit_claude(repo, "Install with pnpm, never with npm.\n", "2026-01-01T10:00:00Z")
    git(repo, "rm", "-q", "CLAUDE.md")
    git(repo, "commit", "-q", "-m", "no more rules", when="2026-01-02T10:00:00Z")
    snap = cc.read(None, project=repo)
    (fact,) = snap.facts
    assert fact.text == "Install with pnpm, never with npm." and snap.deleted == {fact.id}
    assert snap.deleted_at[fact.id] == parse_time("2026-01-02T10:00:00Z")


def test_tables_and_comments_in_instructions_are_named_not_facts(tmp_path):
    """Paragraphs are read, junk is not: table rows, HTML comments and lone prompt tags are
    passed over and counted under `left out`, in the current text and in git alike."""
    repo = tmp_path / "shop"
    text = (
        "<!--\ngenerated: do not edit\n-->\n# Build\n\n| tool | use |\n| --- | --- |\n| bun | installs |\n\n"
        "<rules>\n\nInstall with bun.\n\n</rules>\n"
    )
    write(repo, "CLAUDE.md", text)
    for committed in (False, True):
        if committed:
            git(repo, "init", "-q")
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", "rules")
        snap = cc.read(None, project=repo)
        assert [f.text for f in snap.facts] == ["Install with bun."]
        assert {"3 table rows not read as facts", "1 HTML comment not read as facts"} <= set(snap.left_out)
        assert "2 prompt tag lines not read as facts" in snap.left_out


@needs_git
def test_a_claude_md_kept_inside_one_bullet_is_read_as_the_note_it_holds(tmp_path):
    """A real CLAUDE.md (a public repository's) kept its whole text under one bullet,
    `- #memory`, every heading and bullet indented under it. Read as one block, it was one
    fact of 49 instructions, and each edit replaced all of it; read as the note it holds,
    each instruction is a fact under its heading, and an edit is that instruction's."""
    repo = tmp_path / "shop"
    repo.mkdir()
    git(repo, "init", "-q")
    held = (
        "- #memory\n\n  ## Project Context\n  - This is a Flask + React project\n"
        "  - Database location: backend/data/db/app.db\n\n  ## Release\n"
        "  1. **Draft notes**: is there a draft?\n     - If no, offer to create one\n\n"
        "  ```sh\n  # not a heading: code\n  ```\n"
    )
    commit_claude(repo, held, "2026-01-01T10:00:00Z")
    snap = cc.read(None, project=repo)
    facts = {f.text: f for f in snap.facts}
    assert set(facts) == {
        "#memory",
        "This is a Flask + React project",
        "Database location: backend/data/db/app.db",
        "**Draft notes**: is there a draft?\n- If no, offer to create one",
    }
    assert facts["This is a Flask + React project"].provenance["x-claude-code-section"] == "Project Context"
    commit_claude(repo, held.replace("Flask + React", "FastAPI + React"), "2026-01-02T10:00:00Z")
    edited = {f.text: f for f in cc.read(None, project=repo).facts}
    now = edited["This is a FastAPI + React project"]
    assert now.supersedes == facts["This is a Flask + React project"].id
    assert (
        edited["Database location: backend/data/db/app.db"].id
        == facts["Database location: backend/data/db/app.db"].id
    )  # the other instructions are untouched
