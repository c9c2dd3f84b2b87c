"""What Claude Code's reader remembers of the files it read (the reader's record, meta
`read.claude-code`, as the markdown and git-notes readers keep theirs), on real files and
real git, through `sync --json`:

- a file that gives no fact (headings only, imports only, front matter only) is not read
  again while it is unchanged, in git not replayed again;
- a file not read again because it is unchanged still says what it left out (`left_out`
  stays what a full read says, `left_out_new` is empty);
- the store is the one a full read (a whole replay, in git) gives."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from synapse_tui.core.ingest.adapters import claude_code as cc
from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.ingest.adapters.sync import read_record_key
from synapse_tui.core.store.db import Store
from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.core.kept_twins import Twins, commit

CLAUDE = (
    "# Project\n\n- Use uv to run the tests\n<!-- a note to self -->\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
)
RULES = {
    ".claude/rules/later.md": "# Rules to write\n\n## Soon\n",  # headings only
    "sub/CLAUDE.md": "@AGENTS.md\n",  # imports only (sub/AGENTS.md does not exist)
    ".claude/rules/paths.md": "---\npaths: [src/**\nowner: ada\n---\n- Keep handlers small\n",  # not YAML
}
INDEX = "# Memory index\n- [Testing](testing.md) — no mocks\n- Always run `make lint` first\n"
TOPIC = "---\nname: No DB mocks\ndescription: integration tests hit a real database\ntype: feedback\n---\nNo mocks.\n"


def _project(root: Path) -> Path:
    project = root / "shop"
    for rel, text in {"CLAUDE.md": CLAUDE, **RULES}.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (project / ".claude/rules/nul.md").write_text("- Deploy\x00 with make ship\n")
    return project


def _home(root: Path) -> Path:
    memory = root / "home" / "projects" / "-home-ada-shop" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "testing.md").write_text(TOPIC)
    (memory / "draft.md").write_text("Some prose Claude wrote, no bullet.\n")
    return root / "home"


def _sync(db: Path) -> dict:
    (counts,) = [json.loads(line) for line in run("sync", db, "--json").stdout.splitlines()]
    return counts


def _same_stamp(path: Path, text: str) -> None:
    """Write `text` (padded to the file's size) keeping the modification time: a file whose
    stamp says it is unchanged, whose text would give a fact if it were read."""
    st = path.stat()
    data = text.encode().ljust(st.st_size, b" ")
    assert len(data) == st.st_size
    path.write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _touch(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_outside_git_a_file_giving_no_fact_is_not_read_again_and_the_skipped_files_say_what_they_left_out(
    tmp_path,
):
    project, home, db = _project(tmp_path), _home(tmp_path), tmp_path / "m.db"
    first = json.loads(
        run("import", "--from", "claude-code", home, "--project", project, "--db", db, "--json").stdout
    )
    said = first["left_out"]
    assert any("sub/CLAUDE.md" not in line and "import line" in line for line in said)
    assert any(line.startswith(".claude/rules/nul.md: a NUL character") for line in said)
    assert any(line.startswith(".claude/rules/paths.md: front matter not read as YAML") for line in said)
    assert any(line.startswith("1 index lines point to topic files") for line in said)
    assert any("hold no front matter and no bullets" in line and "draft.md" in line for line in said)
    again = _sync(db)
    assert (again["added"], again["unchanged"], again["newly_deleted"]) == (0, first["added"], 0)
    assert again["left_out"] == said and again["left_out_new"] == []
    # the record is what says a file gave nothing: a text behind the same stamp is not read
    _same_stamp(project / ".claude/rules/later.md", "- A rule nobody read")
    assert _sync(db)["added"] == 0
    _touch(project / ".claude/rules/later.md")  # changed now: read, and its fact comes in
    changed = _sync(db)
    assert changed["added"] == 1 and changed["left_out"] == said


pytestmark_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytestmark_git
def test_in_git_a_file_giving_no_fact_is_not_replayed_again_and_a_kept_file_says_what_it_left_out(
    tmp_path, monkeypatch
):
    project = _project(tmp_path)
    (project / ".claude/rules/nul.md").unlink()  # git keeps a NUL as a binary file
    git(project, "init", "-q")
    commit(project, {}, "2026-01-01T09:00:00Z")
    commit(project, {"CLAUDE.md": CLAUDE + "- Never commit to main\n"}, "2026-01-02T09:00:00Z")
    (project / "CLAUDE.md").write_text(CLAUDE + "- Never commit to main\n- Ask\x00 first\n")  # not committed
    replayed: list[str] = []  # the files a read replayed
    one = cc._replay_one
    monkeypatch.setattr(cc, "_replay_one", lambda f, *a: replayed.append(f.file) or one(f, *a))

    twins = Twins(lambda **kw: cc.read(None, project=project, **kw), cc.SYSTEM, tmp_path)
    _, snap = twins.sync()
    said = sorted(snap.left_out)
    assert said == sorted(twins.whole_snap.left_out)
    assert any(line.startswith("CLAUDE.md: a NUL character") for line in said)
    assert any(line.startswith(".claude/rules/paths.md: front matter not read as YAML") for line in said)
    assert any("table row" in line for line in said) and any("import line" in line for line in said)
    _, snap = twins.sync()
    assert sorted(snap.left_out) == said
    with Store.open(twins.kept) as store:
        known, record = known_facts(store, cc.SYSTEM), store.meta(read_record_key(cc.SYSTEM))
    replayed.clear()
    again = cc.read(None, project=project, known=known, read_before=record)
    assert replayed == [] and not again.facts and again.kept and sorted(again.left_out) == said
    # the record says the rule gave nothing: a text behind the same stamp is not replayed
    _same_stamp(project / ".claude/rules/later.md", "- A rule nobody read")
    again = cc.read(None, project=project, known=known, read_before=record)
    assert replayed == [] and "A rule nobody read" not in {f.text for f in again.facts}
    (project / ".claude/rules/later.md").write_text("# Rules\n\n- Name things well\n")
    git(project, "commit", "-qm", "a rule", "--", ".claude/rules/later.md", when="2026-01-03T09:00:00Z")
    replayed.clear()
    again = cc.read(None, project=project, known=known, read_before=record)
    assert replayed == [".claude/rules/later.md"] and "Name things well" in {f.text for f in again.facts}
    counts, snap = twins.sync()
    assert counts["added"] == 1 and sorted(snap.left_out) == sorted(twins.whole_snap.left_out)


@pytestmark_git
def test_in_git_a_file_gone_as_synced_still_says_what_its_history_left_out(tmp_path):
    """A rule whose history holds a binary version, removed since: a whole replay names that
    commit at every sync, and so does a sync that keeps the file as synced."""
    project = tmp_path / "shop"
    project.mkdir()
    git(project, "init", "-q")
    commit(
        project,
        {"CLAUDE.md": "- Run make test\n", ".claude/rules/bin.md": "- a\x00b\n"},
        "2026-01-01T09:00:00Z",
    )
    commit(project, {".claude/rules/bin.md": "- Keep it short\n"}, "2026-01-02T09:00:00Z")
    commit(project, {".claude/rules/bin.md": None}, "2026-01-03T09:00:00Z")
    twins = Twins(lambda **kw: cc.read(None, project=project, **kw), cc.SYSTEM, tmp_path)
    _, snap = twins.sync()
    (said,) = snap.left_out
    assert said.startswith(".claude/rules/bin.md: a binary file") and "in commit" in said
    for _ in range(2):
        _, snap = twins.sync()
        assert snap.kept and not snap.facts and snap.left_out == [said] == twins.whole_snap.left_out
