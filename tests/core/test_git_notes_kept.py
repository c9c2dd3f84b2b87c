"""A sync of Markdown in git replays only the notes that changed since the last sync
(gitkept), and leaves the store exactly as a replay of the whole history would: real
repositories, real commits, two stores side by side (one synced note by note, one replayed
whole every time), compared row for row."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from synapse_tui.core.ingest.adapters import git_notes as gn
from synapse_tui.core.ingest.adapters import gitkept, known_facts
from synapse_tui.core.store.db import Store
from tests.core.claude_code_files import git
from tests.core.kept_twins import Twins, commit

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

PEOPLE = "# Team\n\n- Ada owns the deploys\n- Bob writes the docs\n"
RULES = "# Rules\n\n- Run the tests before a commit\n- Keep functions short\n"


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    repo = tmp_path / "notes"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, {"team.md": PEOPLE, "rules.md": RULES}, "2026-01-01T09:00:00Z")
    commit(repo, {"team.md": PEOPLE.replace("the docs", "the docs and the blog")}, "2026-01-02T09:00:00Z")
    return repo


def replayed(snap) -> set[str]:
    """The notes a read replayed: those it gives facts of."""
    return {f.provenance["x-git-notes-file"] for f in snap.facts}


def test_a_sync_with_nothing_new_replays_no_note_and_counts_every_fact(notes, tmp_path):
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    first, _ = twins.sync()
    assert first["added"] == 5 and first["newly_deleted"] == 0
    again, snap = twins.sync()
    assert replayed(snap) == set() and len(snap.kept) == 5
    assert again == {
        "added": 0,
        "newly_deleted": 0,
        "unchanged": 5,
        "reasserted": 0,
        "restored": 0,
        "accepted": 0,
    }


def test_commits_after_the_last_sync_replay_only_the_notes_they_changed(notes, tmp_path):
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    twins.sync()
    commit(notes, {"rules.md": RULES.replace("short", "short and named")}, "2026-01-03T09:00:00Z")
    counts, snap = twins.sync()
    assert replayed(snap) == {"rules.md"} and counts["added"] == 1
    edited = next(f for f in snap.facts if f.text == "Keep functions short and named")
    assert edited.supersedes is not None and edited.created_at == "2026-01-03T09:00:00Z"
    # a commit that touches another file only: nothing replayed, the new HEAD recorded
    commit(notes, {"src/app.py": "print('hi')\n"}, "2026-01-04T09:00:00Z")
    counts, snap = twins.sync()
    assert replayed(snap) == set() and counts["added"] == 0
    # a note removed in a commit: its facts deleted at that commit, then kept as they are
    commit(notes, {"team.md": None}, "2026-01-05T09:00:00Z")
    counts, snap = twins.sync()
    assert counts["newly_deleted"] == 2  # Ada's line and Bob's second version
    counts, snap = twins.sync()
    assert replayed(snap) == set() and counts["newly_deleted"] == 0


def test_an_uncommitted_edit_then_its_commit_agree_with_a_whole_replay(notes, tmp_path):
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    twins.sync()
    team = notes / "team.md"
    team.write_text(team.read_text() + "- Cleo runs the standup\n")
    counts, snap = twins.sync()
    assert replayed(snap) == {"team.md"} and counts["added"] == 1
    cleo = next(f for f in snap.facts if f.text == "Cleo runs the standup")
    assert cleo.provenance["x-git-notes-time"] == "file modified; not committed"
    team.write_text(team.read_text().replace("Cleo runs", "Cleo leads"))
    twins.sync()  # the uncommitted edit edited again: its next version, in both stores
    git(notes, "commit", "-q", "-am", "cleo", when="2026-01-06T09:00:00Z")
    twins.sync()
    twins.sync()
    team.write_text(PEOPLE)  # the work tree put back: the committed lines removed, uncommitted
    twins.sync()


def test_a_rewritten_history_is_replayed_whole(notes, tmp_path):
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    twins.sync()
    git(notes, "reset", "-q", "--hard", "HEAD~1")  # the edit to team.md taken back
    commit(notes, {"team.md": PEOPLE.replace("Bob", "Bea")}, "2026-01-07T09:00:00Z")
    counts, snap = twins.sync()
    # rules.md did not change, yet is replayed: the history read at the last sync is gone
    assert replayed(snap) == {"team.md", "rules.md"} and not snap.kept
    assert counts["added"] == 1
    counts, snap = twins.sync()
    assert replayed(snap) == set()


def test_a_store_written_before_the_stamps_is_replayed_once_then_kept(notes, tmp_path):
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    twins.sync()
    for location in (twins.kept, twins.whole):  # as a store of an earlier release holds them
        with sqlite3.connect(location) as conn:
            conn.execute(
                "UPDATE facts SET provenance = json_remove(provenance, '$.\"x-git-notes-head\"',"
                " '$.\"x-git-notes-stamp\"', '$.\"x-git-notes-rules\"')"
            )
    counts, snap = twins.sync()
    assert not snap.kept and replayed(snap) == {"team.md", "rules.md"} and counts["added"] == 0
    _, snap = twins.sync()
    assert replayed(snap) == set() and len(snap.kept) == 5


def test_a_shallow_clone_is_replayed_whole(notes, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{notes}", str(clone)], check=True, capture_output=True
    )
    twins = Twins(lambda **kw: gn.read(clone, **kw), gn.SYSTEM, tmp_path)
    twins.sync()
    commit(clone, {"rules.md": RULES + "- Name things well\n"}, "2026-01-08T09:00:00Z")
    _, snap = twins.sync()
    assert replayed(snap) == {"team.md", "rules.md"} and not snap.kept


def test_notes_read_by_other_rules_are_replayed_once(notes, tmp_path, monkeypatch):
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    twins.sync()
    monkeypatch.setattr(gitkept, "RULES", "another release")  # the readers' code changed
    _, snap = twins.sync()
    assert not snap.kept and replayed(snap) == {"team.md", "rules.md"}
    _, snap = twins.sync()
    assert replayed(snap) == set() and len(snap.kept) == 5


def test_a_head_the_store_names_by_a_name_not_an_id_is_not_trusted(notes, tmp_path):
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    twins.sync()
    commit(notes, {"rules.md": RULES + "- Name things well\n"}, "2026-01-09T09:00:00Z")
    for location in (twins.kept, twins.whole):  # `HEAD` would resolve to the new commit
        with sqlite3.connect(location) as conn:
            conn.execute(
                "UPDATE meta SET value = json_set(value, '$.\"' || ? || '\".\"\".head', 'HEAD')"
                " WHERE key = 'read.git-notes'",
                (str(notes.resolve()),),
            )
    counts, snap = twins.sync()
    assert replayed(snap) == {"team.md", "rules.md"} and counts["added"] == 1


def head_of(repo: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def provenance(location: Path) -> dict[str, str]:
    with sqlite3.connect(location) as conn:
        return dict(conn.execute("SELECT id, provenance FROM facts").fetchall())


def test_a_commit_elsewhere_writes_nothing_on_the_facts_of_the_notes_it_left(notes, tmp_path):
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    twins.sync()
    before = provenance(twins.kept)
    commit(notes, {"src/app.py": "print('hi')\n"}, "2026-01-10T09:00:00Z")  # not a note
    counts, snap = twins.sync()
    assert replayed(snap) == set() and len(snap.kept) == 5 and counts["unchanged"] == 5
    assert not snap.evidence and provenance(twins.kept) == before
    head = head_of(notes)
    assert snap.read_record == {str(notes.resolve()): {"": {"head": head}}}
    commit(notes, {"rules.md": RULES + "- Name things well\n"}, "2026-01-11T09:00:00Z")
    _, snap = twins.sync()
    assert replayed(snap) == {"rules.md"}
    assert all(provenance(twins.kept)[i] == before[i] for i in before if "team.md" in i)


def test_a_store_of_the_release_before_is_replayed_once_its_old_keys_removed(notes, tmp_path):
    """A store gitreplay wrote: HEAD and the rules on every fact, no rules in the stamp, no
    record of the folder. One sync replays each note, leaves those keys on no fact, and
    the next is quiet."""
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    twins.sync()
    head = head_of(notes)
    for location in (twins.kept, twins.whole):
        with sqlite3.connect(location) as conn:
            conn.execute("DELETE FROM meta WHERE key = 'read.git-notes'")
            conn.execute(
                "UPDATE facts SET provenance = json_set(provenance, '$.\"x-git-notes-head\"', ?,"
                " '$.\"x-git-notes-rules\"', 'c0ffee', '$.\"x-git-notes-stamp\"',"
                " substr(json_extract(provenance, '$.\"x-git-notes-stamp\"'), 1,"
                " length(json_extract(provenance, '$.\"x-git-notes-stamp\"')) - 13))",
                (head,),
            )
    counts, snap = twins.sync()
    assert replayed(snap) == {"team.md", "rules.md"} and counts["added"] == 0
    assert not any(
        "x-git-notes-head" in p or "x-git-notes-rules" in p for p in provenance(twins.kept).values()
    )
    _, snap = twins.sync()
    assert replayed(snap) == set() and not snap.evidence


def test_a_note_not_replayed_still_says_what_it_left_out_and_one_without_a_fact_is_not_read(
    notes, tmp_path, monkeypatch
):
    commit(
        notes,
        {
            "empty.md": "# Nothing yet\n",
            "table.md": "# Hosts\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- The staging host is slow\n",
        },
        "2026-01-12T09:00:00Z",
    )
    (notes / "team.md").write_text(PEOPLE + "- Cy\x00 joins in May\n")  # an edit nobody committed
    twins = Twins(lambda **kw: gn.read(notes, **kw), gn.SYSTEM, tmp_path)
    _, snap = twins.sync()
    said = set(snap.left_out)
    assert any("team.md: a NUL character" in line and "line 5" in line for line in said)
    assert any("1 of 4 files hold nothing" in line and "empty.md" in line for line in said)
    _, snap = twins.sync()
    assert replayed(snap) == set()
    assert set(snap.left_out) == said == set(twins.whole_snap.left_out)
    read: list[str] = []
    changed = gn.gitlog.Folder.changed
    monkeypatch.setattr(
        gn.gitlog.Folder, "changed", lambda self, paths: read.extend(paths) or changed(self, paths)
    )
    with Store.open(twins.kept) as store:
        again = gn.read(notes, known=known_facts(store, gn.SYSTEM), read_before=store.meta("read.git-notes"))
    assert "empty.md" not in read and set(again.left_out) == said  # recorded as giving nothing
    (notes / "rules.md").write_text(RULES + "- Name things well\n")
    git(notes, "commit", "-qm", "a rule", "rules.md", when="2026-01-13T09:00:00Z")  # team.md's edit stays
    _, snap = twins.sync()
    assert replayed(snap) == {"rules.md"} and set(snap.left_out) == said


def test_a_claude_md_edit_holding_a_nul_is_named(tmp_path):
    from synapse_tui.core.ingest.adapters import claude_code

    project = tmp_path / "app"
    project.mkdir()
    git(project, "init", "-q")
    commit(project, {"CLAUDE.md": "- Run make test\n"}, "2026-01-01T09:00:00Z")
    (project / "CLAUDE.md").write_text("- Run make test\n- Deploy\x00 with make ship\n")
    snap = claude_code.read(None, project=project)
    assert "Deploy with make ship" in {f.text for f in snap.facts}
    assert any(line.startswith("CLAUDE.md: a NUL character") and "line 2" in line for line in snap.left_out)
