"""The git-notes reader, on repositories committed here with the `git` command, in the
shapes people and Letta Code write: plain notes, and Letta Code's MemFS (`system/*.md` with
front matter `description` and `read_only`, committed by `<agent-id>@letta.com`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import git_notes as gn
from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.basic_memory_files import sync
from tests.core.claude_code_files import git
from tests.store_state import exists, mark

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

AGENT = "agent-7f3a@letta.com"
PERSONA = """\
---
description: Who I am and how I speak
read_only: true
---
I am a terse assistant.
"""
HUMAN_V1 = """\
---
description: What I know about the user
---
# Sarah

- Sarah lives in Lyon
- Sarah prefers tea
"""


def commit(repo: Path, files: dict[str, str | None], when: str, email: str) -> None:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory", when=when, email=email)


@pytest.fixture
def memfs(tmp_path: Path) -> Path:
    repo = tmp_path / "agent-memory"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, {"system/persona.md": PERSONA}, "2026-01-01T09:00:00+01:00", "sarah@example.com")
    commit(repo, {"system/human.md": HUMAN_V1}, "2026-01-02T10:00:00Z", AGENT)
    commit(
        repo,
        {
            "system/human.md": HUMAN_V1.replace("lives in Lyon", "lives in Paris").replace(
                "- Sarah prefers tea\n", ""
            )
        },
        "2026-02-01T10:00:00Z",
        AGENT,
    )
    return repo


def by_text(snapshot) -> dict:
    return {f.text: f for f in snapshot.facts}


def test_each_commit_is_a_version_with_its_author(memfs):
    snap = gn.read(memfs)
    facts = by_text(snap)
    assert set(facts) == {
        "I am a terse assistant.",
        "Sarah lives in Lyon",
        "Sarah prefers tea",
        "Sarah lives in Paris",
    }
    lyon, paris = facts["Sarah lives in Lyon"], facts["Sarah lives in Paris"]
    assert paris.supersedes == lyon.id and paris.id == lyon.id + "@2"
    assert lyon.created_at == "2026-01-02T10:00:00Z" and paris.created_at == "2026-02-01T10:00:00Z"
    assert paris.provenance["x-git-notes-author"] == f"Ada <{AGENT}>"
    assert paris.provenance["x-git-notes-agent"] is True and paris.tier == "auto"
    assert len(paris.provenance["x-git-notes-commit"]) == 40
    assert paris.provenance["x-source-version"] == 2 and paris.entities == ["Sarah"]
    assert paris.provenance["x-git-notes-description"] == "What I know about the user"
    persona = facts["I am a terse assistant."]
    assert persona.tier == "human" and persona.provenance["x-git-notes-read-only"] is True
    assert persona.created_at == "2026-01-01T08:00:00Z"  # a local offset, converted to UTC
    assert snap.deleted == {facts["Sarah prefers tea"].id}
    assert snap.deleted_at == {facts["Sarah prefers tea"].id: paris.created_ts}
    assert [f.id for f in gn.read(memfs).facts] == [f.id for f in snap.facts]


def test_people_are_human_and_the_agent_pattern_is_configurable(memfs, monkeypatch):
    commit(memfs, {"notes/team.md": "Deploys happen on Tuesdays.\n"}, "2026-03-01T00:00:00Z", "bob@corp.test")
    facts = by_text(gn.read(memfs))
    assert facts["Deploys happen on Tuesdays."].tier == "human"
    assert facts["Deploys happen on Tuesdays."].provenance["x-git-notes-agent"] is False
    facts = by_text(gn.read(memfs, agents="*@corp.test"))
    assert (
        facts["Deploys happen on Tuesdays."].tier == "auto" and facts["Sarah lives in Paris"].tier == "human"
    )
    monkeypatch.setenv("SYNAPSE_GIT_AGENTS", "bob@*")
    assert by_text(gn.read(memfs))["Deploys happen on Tuesdays."].tier == "auto"


def test_sync_flags_deletions_at_the_commit_and_uncommitted_edits_last(memfs, new_store):
    location = new_store("m")
    with Store.open(location, create=True) as store:
        first = sync(store, gn.read(memfs))
        assert (first.added, first.newly_deleted) == (4, 1)
        (stamp,) = store._conn.execute("SELECT value FROM meta WHERE key LIKE 'deleted.at.%'").fetchone()
        assert json.loads(stamp) == by_text(gn.read(memfs))["Sarah lives in Paris"].created_ts
        human = memfs / "system" / "human.md"
        human.write_text(human.read_text() + "- Sarah has a cat\n")
        snap = gn.read(memfs)
        cat = by_text(snap)["Sarah has a cat"]
        assert cat.provenance["x-git-notes-time"] == "file modified; not committed" and cat.tier == "auto"
        assert "x-git-notes-author" not in cat.provenance
        assert sync(store, snap).added == 1
        git(memfs, "commit", "-q", "-am", "cat", when="2026-04-01T00:00:00Z", email=AGENT)
        before = mark(location)
        again = sync(store, gn.read(memfs))  # the same version, now committed: nothing new
        assert (again.added, again.newly_deleted) == (0, 0) and mark(location) == before
        assert len(known_facts(store, "git-notes")) == 5


def test_a_folder_outside_git_is_refused(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("- a fact\n")
    with pytest.raises(InputError, match="is not in a git work tree"):
        gn.read(tmp_path / "notes")


def test_cli_imports_and_refuses(memfs, tmp_path, new_store):
    db = new_store("g")
    out = json.loads(run("import", "--from", "git-notes", memfs, "--db", db, "--json").stdout)
    assert (out["system"], out["added"], out["newly_deleted"]) == ("git-notes", 4, 1)
    again = run("import", "--from", "git-notes", memfs, "--db", db)
    assert "0 added, 0 newly deleted, 0 re-asserted, 4 unchanged" in again.stdout
    people = json.loads(run("score", db, "--json", "--where", "tier:human").stdout.splitlines()[0])
    assert people["id"].startswith("git-notes:system/persona.md#")
    other = new_store("o")
    run("import", "--from", "git-notes", memfs, "--db", other, "--agents", "*")  # every author an agent
    humans = [
        json.loads(line)["id"]
        for line in run("score", other, "--json", "--where", "tier:human").stdout.splitlines()
    ]
    assert len(humans) == 1 and humans[0].startswith("git-notes:system/persona.md#")  # read_only: true
    plain = tmp_path / "plain"
    plain.mkdir()
    new = new_store("new")
    line = refused("import", "--from", "git-notes", plain, "--db", new)
    assert str(plain) in line and "expected a folder of Markdown notes in a git work tree" in line
    assert not exists(new)


def test_links_leaving_the_folder_are_not_read(memfs, tmp_path):
    secret = tmp_path / "outside.md"
    secret.write_text("- the deploy key is hunter2\n")
    (memfs / "system" / "secret.md").symlink_to(secret)
    commit(memfs, {}, "2026-03-01T00:00:00Z", AGENT)  # the link itself committed
    snap = gn.read(memfs)
    assert not any("hunter2" in f.text or "outside.md" in f.text for f in snap.facts)
    assert any("secret.md: a link leaving the folder" in line for line in snap.left_out)


# Issue 38: what real repositories' memory files broke (shapes taken from the corpus).


def repo_at(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    return repo


def test_front_matter_that_is_not_strict_yaml_keeps_the_note_and_names_the_field(tmp_path):
    repo = repo_at(tmp_path)
    loose = "---\nname: tone\ndescription: User asked 2026-05-14: do NOT use emoji\n---\n- Write plainly\n"
    commit(repo, {"feedback_tone.md": loose, "other.md": "- Another note\n"}, "2026-05-14T10:00:00Z", AGENT)
    snap = gn.read(repo)
    facts = by_text(snap)
    assert set(facts) == {"Write plainly", "Another note"}
    assert (
        facts["Write plainly"].provenance["x-git-notes-description"]
        == "User asked 2026-05-14: do NOT use emoji"
    )
    assert "feedback_tone.md: front matter is not strict YAML; description kept as written" in snap.left_out


def test_a_note_made_a_link_keeps_its_history_and_a_link_is_never_a_fact(tmp_path):
    repo = repo_at(tmp_path)
    commit(repo, {"CLAUDE.md": "- Use pnpm\n"}, "2026-01-01T10:00:00Z", "ann@example.com")
    commit(repo, {"CLAUDE.md": "- Use bun\n"}, "2026-01-02T10:00:00Z", "ann@example.com")
    (repo / "CLAUDE.md").unlink()
    (repo / "AGENTS.md").write_text("- Use bun\n- Run the tests before a commit\n")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "link", when="2026-01-03T10:00:00Z", email="ann@example.com")
    commit(repo, {"NOTES.md": "- A note\n"}, "2026-01-04T10:00:00Z", "ann@example.com")
    (repo / "NOTES.md").unlink()
    (repo / "NOTES.md").symlink_to("AGENTS.md")  # a link that was a file, not committed yet
    snap = gn.read(repo)
    texts = [(f.provenance["x-git-notes-file"], f.text) for f in snap.facts]
    assert ("CLAUDE.md", "Use pnpm") in texts and ("CLAUDE.md", "Use bun") in texts
    bun = next(
        f for f in snap.facts if f.text == "Use bun" and f.provenance["x-git-notes-file"] == "CLAUDE.md"
    )
    assert bun.supersedes is not None and bun.id in snap.deleted  # it became a link at 01-03
    assert not any(t in ("AGENTS.md", "CLAUDE.md") for _, t in texts)
    assert sorted(t for f, t in texts if f == "AGENTS.md") == ["Run the tests before a commit", "Use bun"]


def test_edits_pair_within_a_heading_by_likeness_one_to_one(tmp_path):
    repo = repo_at(tmp_path)
    v1 = "# Build\n\n- Run make build before pushing\n- Use Python 3.11\n\n# Style\n\n- Keep lines short\n"
    v2 = "# Build\n\n- Run make build and make test before pushing\n- Cache the venv\n- Use Python 3.12\n\n# Style\n"
    commit(repo, {"AGENTS.md": v1}, "2026-01-01T10:00:00Z", "ann@example.com")
    commit(repo, {"AGENTS.md": v2}, "2026-01-02T10:00:00Z", "ann@example.com")
    snap = gn.read(repo)
    facts = by_text(snap)
    links = {t: f.supersedes for t, f in facts.items() if f.supersedes}
    assert links == {
        "Run make build and make test before pushing": facts["Run make build before pushing"].id,
        "Use Python 3.12": facts["Use Python 3.11"].id,
    }  # 3 added in Build, 2 removed there and 1 in Style: not linked across headings
    assert facts["Cache the venv"].supersedes is None and facts["Keep lines short"].id in snap.deleted


def test_a_bullet_edited_under_a_new_heading_in_one_place_is_linked(tmp_path):
    """git's diff shows the bullet replaced in one hunk by a new heading and the edited
    bullet: that is the bullet edited (issue 38), though its heading is not the old one;
    a bullet removed in another place of the note is deleted."""
    repo = repo_at(tmp_path)
    v1 = (
        "# Setup\n\n- Install with uv sync\n- Run the tests with pytest before every commit you push\n"
        "- Keep the changelog current\n\n# Style\n\n- Run the linters with ruff before every commit you push\n"
    )
    v2 = (
        "# Setup\n\n- Install with uv sync\n\n# Testing\n\n- Run the unit tests with pytest -x before pushing a branch\n"
        "- Keep the changelog current\n\n# Style\n"
    )
    commit(repo, {"AGENTS.md": v1}, "2026-01-01T10:00:00Z", "ann@example.com")
    commit(repo, {"AGENTS.md": v2}, "2026-01-02T10:00:00Z", "ann@example.com")
    snap = gn.read(repo)
    facts = by_text(snap)
    edited = facts["Run the unit tests with pytest -x before pushing a branch"]
    assert edited.supersedes == facts["Run the tests with pytest before every commit you push"].id
    assert facts["Run the linters with ruff before every commit you push"].id in snap.deleted


def test_comments_tables_prompt_tags_and_rewraps_are_not_facts(tmp_path):
    repo = repo_at(tmp_path)
    v1 = (
        "<!-- generated: do not edit\n-->\n<guidelines>\n\n- Prefer small commits that\n  build\n\n</guidelines>\n\n"
        "| tool | use |\n|---|---|\n| uv | installs |\n\n-->\n"
    )
    commit(repo, {"CLAUDE.md": v1}, "2026-01-01T10:00:00Z", "ann@example.com")
    commit(
        repo,
        {"CLAUDE.md": v1.replace("that\n  build", "that build")},
        "2026-01-02T10:00:00Z",
        "ann@example.com",
    )
    snap = gn.read(repo)
    assert [f.text for f in snap.facts] == [
        "Prefer small commits that\nbuild"
    ]  # one version: a re-wrap is no edit
    assert {"3 table rows not read as facts", "2 prompt tag lines not read as facts"} <= set(snap.left_out)


def test_a_repository_root_reads_claude_github_and_cursor_memory(tmp_path):
    repo = repo_at(tmp_path)
    files = {
        "CLAUDE.md": "- Root rule\n",
        ".claude/memory/feedback_tests.md": "---\nname: tests\ntype: feedback\n---\nRun the tests first.\n",
        ".claude/rules/style.md": "- Keep functions short\n",
        ".claude/commands/deploy.md": "- A command prompt, not memory\n",
        ".github/copilot-instructions.md": "- Answer in English\n",
        ".cursor/rules/db.mdc": "---\ndescription: database\nglobs: *.sql\n---\n- Never drop tables\n",
        ".cursorrules": "- Prefer composition\n",
        ".venv/lib/README.md": "- not memory\n",
    }
    commit(repo, files, "2026-01-01T10:00:00Z", "ann@example.com")
    (repo / ".clinerules").write_text("- Not committed yet\n")
    got = {(f.provenance["x-git-notes-file"], f.text) for f in gn.read(repo).facts}
    assert got == {
        ("CLAUDE.md", "Root rule"),
        (".claude/memory/feedback_tests.md", "Run the tests first."),
        (".claude/rules/style.md", "Keep functions short"),
        (".github/copilot-instructions.md", "Answer in English"),
        (".cursor/rules/db.mdc", "Never drop tables"),
        (".cursorrules", "Prefer composition"),
        (".clinerules", "Not committed yet"),
    }


def test_memory_in_a_subfolders_hidden_place_is_alive_while_its_file_is_there(tmp_path):
    """A monorepo keeps Cursor rules and Claude memory below subfolders (docs/.cursor/rules/,
    packages/api/.claude/, web/.cursorrules): committed and still in the work tree, they
    are read as they stand, not flagged deleted at the end of their history."""
    repo = repo_at(tmp_path)
    files = {
        "AGENTS.md": "- Run `make test` before a pull request\n",
        "docs/.cursor/rules/writing.mdc": "---\ndescription: docs style\n---\n- Write headings in sentence case\n",
        "packages/api/.claude/rules/db.md": "- Migrations go in packages/api/migrations\n",
        "web/.cursorrules": "- Prefer server components\n",
    }
    commit(repo, files, "2026-01-01T10:00:00Z", "ann@example.com")
    edited = files["docs/.cursor/rules/writing.mdc"].replace("sentence", "title")
    commit(repo, {"docs/.cursor/rules/writing.mdc": edited}, "2026-01-02T10:00:00Z", "ann@example.com")
    snap = gn.read(repo)
    ended = snap.deleted | {f.supersedes for f in snap.facts}
    alive = {(f.provenance["x-git-notes-file"], f.text) for f in snap.facts if f.id not in ended}
    assert alive == {
        ("AGENTS.md", "Run `make test` before a pull request"),
        ("docs/.cursor/rules/writing.mdc", "Write headings in title case"),
        ("packages/api/.claude/rules/db.md", "Migrations go in packages/api/migrations"),
        ("web/.cursorrules", "Prefer server components"),
    }
    (repo / "docs/.cursor/rules/writing.mdc").unlink()  # removed, not committed yet: gone
    snap = gn.read(repo)
    gone = {f.provenance["x-git-notes-file"] for f in snap.facts if f.id in snap.deleted}
    assert gone == {"docs/.cursor/rules/writing.mdc"}


# Issue 39 (fresh2): where real repositories keep agents' memory in hidden folders.


def test_agents_memory_in_any_hidden_folder_is_read_and_tool_folders_are_not(tmp_path):
    """liam-hq/liam keeps its memory bank in `.ai-agents/memory-bank/`, claude-task-master a
    `.taskmaster/CLAUDE.md`, others `.github/workflows/CLAUDE.md` and `.ralph/AGENT.md`: read,
    with their history. A package's AGENTS.md in `.venv/` or `node_modules/`, a file inside
    `.git/`, another checkout's (Claude Code's `.claude/worktrees/<name>/`, `.worktrees/`), a
    skill's prompt and a hidden folder's other Markdown are not; a link leaving the
    repository is named, never followed."""
    repo = repo_at(tmp_path)
    bank = ".ai-agents/memory-bank/activeContext.md"
    files = {
        "CLAUDE.md": "- Root rule\n",
        bank: "# Current focus\n\n- Migrate the schema editor to the new parser\n",
        ".taskmaster/CLAUDE.md": "- Use `task-master next` to pick the next task\n",
        ".github/workflows/CLAUDE.md": "- Workflows pin actions by commit\n",
        ".ralph/AGENT.md": "- Build with `pnpm build`\n",
        ".github/workflows/notes.md": "- a workflow's own notes, not agents' memory\n",
        ".agents/skills/review/AGENTS.md": "- a skill's prompt, not memory\n",
        ".claude/agents/AGENTS.md": "- an agent's prompt, not memory\n",
        "node_modules/pkg/CLAUDE.md": "- a package's memory\n",
    }
    commit(repo, files, "2026-01-01T10:00:00Z", "ann@example.com")
    edited = files[bank].replace("new parser", "new parser and its tests")
    commit(repo, {bank: edited}, "2026-01-02T10:00:00Z", "ann@example.com")
    not_committed = {
        ".dev-docs/memory-bank/progress.md": "- Parser done; tests next\n",
        ".venv/lib/python3.11/site-packages/pkg/AGENTS.md": "- a package's rules\n",
        ".venv/AGENTS.md": "- an environment's file\n",
        ".cache/CLAUDE.md": "- a cache\n",
        ".git/AGENTS.md": "- inside git's own folder\n",
        ".claude/worktrees/feature/CLAUDE.md": "- Root rule, on a branch Claude Code checked out\n",
        ".claude/worktrees/feature/.git": "gitdir: ../../../.git/worktrees/feature\n",
        ".worktrees/fix/AGENTS.md": "- another branch's rules\n",
        ".worktrees/fix/.git": "gitdir: ../../.git/worktrees/fix\n",
    }
    for rel, text in not_committed.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("- the deploy key is hunter2\n")
    (repo / ".taskmaster/memory-bank").symlink_to(outside)
    (repo / ".ralph/CLAUDE.md").symlink_to(outside / "secret.md")
    snap = gn.read(repo)
    ended = snap.deleted | {f.supersedes for f in snap.facts}
    alive = {(f.provenance["x-git-notes-file"], f.text) for f in snap.facts if f.id not in ended}
    assert alive == {
        ("CLAUDE.md", "Root rule"),
        (bank, "Migrate the schema editor to the new parser and its tests"),
        (".taskmaster/CLAUDE.md", "Use `task-master next` to pick the next task"),
        (".github/workflows/CLAUDE.md", "Workflows pin actions by commit"),
        (".ralph/AGENT.md", "Build with `pnpm build`"),
        (".dev-docs/memory-bank/progress.md", "Parser done; tests next"),
    }
    edit = next(f for f in snap.facts if f.text.endswith("and its tests"))
    assert edit.supersedes is not None  # the bank's history replayed: an edit, not a new fact
    assert not any("hunter2" in f.text for f in snap.facts)
    assert {
        ".taskmaster/memory-bank: a link leaving the folder; not read",
        ".ralph/CLAUDE.md: a link leaving the folder; not read",
        "node_modules: a dependency folder, not this project's memory; not read",
        ".claude/worktrees/feature: another git checkout (a worktree, a clone or a submodule); not read",
        ".worktrees/fix: another git checkout (a worktree, a clone or a submodule); not read",
    } <= set(snap.left_out)
