"""Turn 4's readers replaying several files from git: each fact is the text of its own
file. Found on a real Cursor project (0xmichalis/nftbk), whose `markdown.mdc` showed the
rules of `general.mdc` and whose `.cursorrules` showed `rust.mdc`'s front matter."""

from __future__ import annotations

import json
import shutil

import pytest

from synapse_tui.core.ingest.adapters import cursor, gemini_cli, openclaw
from synapse_tui.core.store.db import Store
from tests.cli_run import run
from tests.core import new_sources_files as files
from tests.core.claude_code_files import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ZULU = """\
    ---
    description: Go files
    globs: **/*.go
    alwaysApply: false
    ---
    - Indent Go code with tabs.
    """
ALPHA = """\
    ---
    description: the frontend
    globs: web/**
    alwaysApply: true
    ---
    - Install the frontend's packages with pnpm.
    """


def test_each_replayed_file_keeps_its_own_text(tmp_path):
    """The file committed first sorts last: its text must not land in the other file."""
    root = tmp_path / "project"
    files.write(root, ".cursor/rules/zulu.mdc", ZULU)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "go", when="2026-03-01T10:00:00+00:00")
    files.write(root, ".cursor/rules/alpha.mdc", ALPHA)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "web", when="2026-03-02T10:00:00+00:00")
    snap = cursor.read(None, project=root)
    by_file = {f.provenance["x-cursor-file"]: f for f in snap.facts}
    assert by_file[".cursor/rules/zulu.mdc"].text == "Indent Go code with tabs."
    assert by_file[".cursor/rules/zulu.mdc"].provenance["x-cursor-globs"] == "**/*.go"
    assert by_file[".cursor/rules/alpha.mdc"].text == "Install the frontend's packages with pnpm."
    assert by_file[".cursor/rules/alpha.mdc"].created_at == "2026-03-02T10:00:00Z"


def test_a_daily_log_committed_before_the_index_keeps_its_text(tmp_path):
    root = tmp_path / "workspace"
    files.write(root, "memory/2026-04-02.md", "# 2026-04-02\n\n- The deploy moved to Tuesday.\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "day")
    files.write(root, "MEMORY.md", "# Long-term memory\n\n- Ada's timezone is Europe/London.\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "index")
    snap = openclaw.read(root)
    texts = {f.provenance["x-openclaw-file"]: f.text for f in snap.facts}
    assert texts == {
        "memory/2026-04-02.md": "The deploy moved to Tuesday.",
        "MEMORY.md": "Ada's timezone is Europe/London.",
    }


def _heads(store, system: str) -> dict[str, tuple[str, bool]]:
    """Each fact of `system` in the store: id -> (text, deleted)."""
    return {k.id: (k.text, k.deleted) for k in files.known_facts(store, system)}


def test_an_uncommitted_edit_edited_again_is_read_again(tmp_path, new_store):
    """A Gemini CLI folder in git: a bullet edited by hand and synced, then edited again
    before any commit. The second text is a fact of its own, superseding the first (see
    test_an_uncommitted_edit_edited_again_supersedes_the_first_edit): nothing deleted."""
    root = tmp_path / ".gemini"
    gemini = root / "GEMINI.md"
    files.write(root, "GEMINI.md", files.GEMINI_GLOBAL)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "memory")
    with Store.open(new_store("again"), create=True) as store:
        files.resync(store, gemini_cli, root)
        gemini.write_text(gemini.read_text().replace("is called shop.", "is called shop-api."))
        _, first = files.resync(store, gemini_cli, root)
        assert first.added == 1
        gemini.write_text(gemini.read_text().replace("is called shop-api.", "is called shop-web."))
        _, second = files.resync(store, gemini_cli, root)
        assert (second.added, second.newly_deleted) == (1, 0)
        held = _heads(store, "gemini-cli")
        alive = {text for text, deleted in held.values() if not deleted}
        assert "The project I'm working on is called shop-web." in alive
        # undone by hand: the committed text is what the file says again
        gemini.write_text(gemini.read_text().replace("is called shop-web.", "is called shop."))
        _, third = files.resync(store, gemini_cli, root)
        assert third.newly_deleted == 1  # the last edit, the head; the first is history under it
        alive = {text for text, deleted in _heads(store, "gemini-cli").values() if not deleted}
        assert "The project I'm working on is called shop-web." not in alive
        _, fourth = files.resync(store, gemini_cli, root)
        assert (fourth.added, fourth.newly_deleted) == (0, 0)


AGENTS = "# Agent rules\n\n- Use bun, never npm or pnpm.\n- Run `bun test` before each commit.\n"


@pytest.mark.parametrize("in_git", [False, True], ids=["plain folder", "git, a file that became a link"])
def test_a_rule_linked_to_a_file_of_the_project_is_read_as_that_file(tmp_path, in_git):
    """letta-ai/letta-code's `.cursor/rules/use-bun-instead-of-node-vite-npm-pnpm.mdc` is a
    link to `../../AGENTS.md` (a file first, a link since): Cursor loads AGENTS.md as the
    rule. It was refused as "holds no .cursorrules and no .cursor/rules/*.mdc"."""
    root = tmp_path / "project"
    files.write(root, "AGENTS.md", AGENTS)
    rule = root / ".cursor/rules/use-bun.mdc"
    if in_git:
        files.write(root, ".cursor/rules/use-bun.mdc", "---\nalwaysApply: true\n---\n- Use bun.\n")
        git(root, "init", "-q")
        git(root, "add", ".")
        git(root, "commit", "-q", "-m", "rule", when="2026-03-01T10:00:00+00:00")
        rule.unlink()
    rule.parent.mkdir(parents=True, exist_ok=True)
    rule.symlink_to("../../AGENTS.md")
    (tmp_path / "secret.md").write_text("- The vault password is hunter2.\n")
    (root / ".cursor/rules/secret.mdc").symlink_to("../../../secret.md")
    if in_git:
        git(root, "add", ".")
        git(root, "commit", "-q", "-m", "link", when="2026-03-02T10:00:00+00:00")
    snap = cursor.read(None, project=root)
    alive = {f.text for f in snap.facts if f.id not in snap.deleted}
    assert {"Use bun, never npm or pnpm.", "Run `bun test` before each commit."} <= alive
    assert not any("hunter2" in f.text for f in snap.facts)  # a link leaving the project: never read
    assert any("secret.mdc: a link leaving the folder" in line for line in snap.left_out)


def test_gemini_md_imports_are_read_as_the_files_they_name(tmp_path):
    """Gemini CLI's memory import processor reads `@./AGENTS.md` in a GEMINI.md as that
    file's text (a common GEMINI.md is `@./AGENTS.md` and a few overrides). The import line
    was read as a fact, and AGENTS.md, which Gemini loads, not at all."""
    root = tmp_path / "project"
    files.write(
        root, "GEMINI.md", "# GEMINI.md\n\n@./AGENTS.md\n\n## Gemini\n\n- Read the whole repo at once.\n"
    )
    files.write(root, "AGENTS.md", AGENTS + "\n@./docs/style.md @../outside.md\n")
    files.write(root, "docs/style.md", "- Wrap lines at 100 columns.\n")
    (tmp_path / "outside.md").write_text("- Never read me.\n")
    snap = gemini_cli.read(None, project=root)
    texts = {f.text for f in snap.facts}
    assert texts == {
        "Read the whole repo at once.",
        "Use bun, never npm or pnpm.",
        "Run `bun test` before each commit.",
        "Wrap lines at 100 columns.",
    }
    assert {f.provenance["x-gemini-cli-file"] for f in snap.facts} == {
        "GEMINI.md",
        "AGENTS.md",
        "docs/style.md",
    }
    assert any("@../outside.md outside the folder" in line for line in snap.left_out)


def _chain(db, system: str) -> dict[str, dict]:
    """`export`'s facts of `system`, by text: each with its id, `supersedes` and the flags
    `score --json` gives it (`superseded`: its supersession below 1)."""
    exported = [json.loads(line) for line in run("export", db).stdout.splitlines() if line.strip()]
    scored = [json.loads(line) for line in run("score", db, "--json").stdout.splitlines() if line.strip()]
    flags = {s["id"]: set(s["flags"]) | ({"superseded"} if s["supersession"] < 1 else set()) for s in scored}
    return {
        f["text"]: {
            "id": f["id"],
            "version": f["provenance"]["x-source-version"],
            "supersedes": f.get("supersedes"),
            "flags": flags[f["id"]],
        }
        for f in exported
        # `--from markdown` in a git work tree reads as git-notes
        if f.get("provenance", {}).get("x-source") == {"markdown": "git-notes"}.get(system, system)
    }


SHOP = "The project I'm working on is called shop"


# (reader, its folder, the file it reads there)
READERS = [
    ("gemini-cli", ".gemini", "GEMINI.md"),
    ("codex", "memories", "MEMORY.md"),
    ("markdown", "project", "AGENTS.md"),
    ("claude-code", ".claude", "CLAUDE.md"),
    ("git-notes", "notes", "GEMINI.md"),
]


@pytest.mark.parametrize(("system", "folder", "name"), READERS, ids=[r[0] for r in READERS])
def test_an_uncommitted_edit_edited_again_supersedes_the_first_edit(tmp_path, system, folder, name):
    """A memory line edited, synced, edited again and synced before any commit: the second
    edit is version 3, superseding the first edit, as two commits would make it; committed
    later, the chain and the ids stay. Before: the first edit was flagged deleted, linked to
    nothing, and the second edit superseded the committed text."""
    root = tmp_path / folder
    note = root / name
    files.write(root, name, files.GEMINI_GLOBAL)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "memory")
    db = tmp_path / "store.db"

    def sync() -> dict[str, dict]:
        run("import", "--from", system, root, "--db", db)
        return _chain(db, system)

    def edit(old: str, new: str) -> None:
        note.write_text(note.read_text().replace(f"is called {old}.", f"is called {new}."))

    first = sync()
    edit("shop", "shop-api")
    sync()
    edit("shop-api", "shop-web")
    chain = sync()
    v1, v2, v3 = (chain[f"{SHOP}{tail}."] for tail in ("", "-api", "-web"))
    assert v3["supersedes"] == v2["id"] and v2["supersedes"] == v1["id"]
    assert (v1["version"], v2["version"], v3["version"]) == (1, 2, 3)
    assert "superseded" in v1["flags"] and "superseded" in v2["flags"]
    assert not ({"deleted"} & (v1["flags"] | v2["flags"] | v3["flags"]))
    assert not ({"superseded"} & v3["flags"])
    assert len(chain) == len(first) + 2  # nothing else changed
    # committed as it stands: the same facts, the same ids, the same chain
    git(root, "commit", "-q", "-am", "rename")
    assert sync() == chain
    assert sync() == chain
    edit("shop-web", "shop-app")  # and on: the next version of the committed one
    v4 = sync()[f"{SHOP}-app."]
    assert (v4["supersedes"], v4["version"]) == (v3["id"], 4)


# (reader, its folder, the file it reads there)
READERS = [
    ("gemini-cli", ".gemini", "GEMINI.md"),
    ("codex", "memories", "MEMORY.md"),
    ("markdown", "project", "AGENTS.md"),
    ("claude-code", ".claude", "CLAUDE.md"),
    ("git-notes", "notes", "GEMINI.md"),
]


@pytest.mark.parametrize(("system", "folder", "name"), READERS, ids=[r[0] for r in READERS])
def test_an_uncommitted_chain_undone_leaves_the_committed_text_live(tmp_path, system, folder, name):
    """Edited twice without a commit, then put back as committed: the last edit (the head)
    is deleted at the source, the first stays history under it, the committed text live."""
    root = tmp_path / folder
    note = root / name
    files.write(root, name, files.GEMINI_GLOBAL)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "memory")
    db = tmp_path / "store.db"
    committed = note.read_text()
    run("import", "--from", system, root, "--db", db)
    for tail in ("-api", "-web"):
        note.write_text(committed.replace("is called shop.", f"is called shop{tail}."))
        run("import", "--from", system, root, "--db", db)
    note.write_text(committed)
    run("import", "--from", system, root, "--db", db)
    chain = _chain(db, system)
    v1, v2, v3 = (chain[f"{SHOP}{tail}."] for tail in ("", "-api", "-web"))
    assert v3["supersedes"] == v2["id"] and "deleted" in v3["flags"]
    assert "deleted" not in v1["flags"] and "deleted" not in v2["flags"]
    again = json.loads(run("import", "--from", system, root, "--db", db, "--json").stdout)
    assert _chain(db, system) == chain and again.get("added", 0) == 0
