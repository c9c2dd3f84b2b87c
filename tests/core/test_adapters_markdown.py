"""`--from markdown DIR`: any folder of Markdown; outside git dated by name, front matter
or modification time (and provenance says which), in git read as git-notes reads it."""

from __future__ import annotations

import os
import shutil

import pytest

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import known_facts, markdown
from synapse_tui.core.store.db import Store
from tests.cli_run import refused, run
from tests.core.claude_code_files import git
from tests.core.new_sources_files import resync, write
from tests.store_state import exists, mark


@pytest.fixture
def notes(tmp_path):
    root = tmp_path / "notes"
    write(
        root,
        "journal/2026-05-14-standup.md",
        "- Ship the search page on Friday.\n",
        mtime="2026-06-01T00:00:00Z",
    )
    write(
        root,
        "decisions.md",
        "---\ntitle: Decisions\ncreated: 2026-01-10\n---\n# Storage\n\n- Use SQLite for the store.\n\n"
        "Postgres only for teams.\n",
        mtime="2026-06-02T00:00:00Z",
    )
    write(root, "ideas.md", "- Try a dark theme.\n", mtime="2026-06-03T12:30:00Z")
    write(
        root,
        "broken.md",
        "---\ndescription: User asked 2026-05-14: do NOT use tabs\n---\n- Indent with spaces.\n",
        mtime="2026-06-04T00:00:00Z",
    )
    write(root, "photo.png", "not markdown")
    return root


@pytest.fixture
def store(new_store):
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def test_a_folder_outside_git_opens_exactly(notes):
    snap = markdown.read(notes)
    facts = {f.text: (f.created_at, f.provenance["x-markdown-time"]) for f in snap.facts}
    assert facts == {
        "Ship the search page on Friday.": ("2026-05-14T00:00:00Z", "date in the file name"),
        "Use SQLite for the store.": ("2026-01-10T00:00:00Z", "front matter created"),
        "Postgres only for teams.": ("2026-01-10T00:00:00Z", "front matter created"),
        "Try a dark theme.": ("2026-06-03T12:30:00Z", "file modified; creation unknown"),
        "Indent with spaces.": ("2026-06-04T00:00:00Z", "file modified; creation unknown"),
    }
    assert {f.id: f.text[:12] for f in snap.facts} == {  # ids stay put: a store keeps them
        "markdown:broken.md#22d615a2da8e": "Indent with ",
        "markdown:decisions.md#e1918c4bd89e": "Use SQLite f",
        "markdown:decisions.md#1b8822d73f8f": "Postgres onl",
        "markdown:ideas.md#746716744b62": "Try a dark t",
        "markdown:journal/2026-05-14-standup.md#f6b09359de33": "Ship the sea",
    }
    by_text = {f.text: f for f in snap.facts}
    sqlite = by_text["Use SQLite for the store."]
    assert sqlite.id.startswith("markdown:decisions.md#") and sqlite.tier == "auto"
    assert sqlite.entities == ["Storage"] and sqlite.note == "decisions.md"
    assert sqlite.provenance["x-markdown-title"] == "Decisions"
    assert sqlite.provenance["x-markdown-line"] == 7  # counted in the file, front matter included
    assert (sqlite.provenance["x-source"], sqlite.provenance["x-source-version"]) == ("markdown", 1)
    # front matter that is not strict YAML is read leniently, never refused
    spaces = by_text["Indent with spaces."]
    assert spaces.provenance["x-markdown-description"] == "User asked 2026-05-14: do NOT use tabs"
    assert any(line.startswith("broken.md: front matter is not strict YAML") for line in snap.left_out)


def test_a_second_sync_changes_nothing_then_edits_are_versions(notes, store):
    _, first = resync(store, markdown, notes)
    assert first.added == 5
    before = mark(store.path)
    _, again = resync(store, markdown, notes)
    assert (again.added, again.newly_deleted, again.unchanged) == (0, 0, 5)
    assert mark(store.path) == before
    (notes / "ideas.md").write_text("- Try a dark theme for the docs.\n- Add keyboard help.\n")
    (notes / "journal/2026-05-14-standup.md").unlink()
    snap, third = resync(store, markdown, notes)
    assert (third.added, third.newly_deleted) == (2, 1)
    edited = next(f for f in snap.facts if "for the docs" in f.text)
    assert edited.id.endswith("@2") and edited.supersedes == edited.id.removesuffix("@2")
    assert {k.text for k in known_facts(store, "markdown") if k.deleted} == {
        "Ship the search page on Friday."
    }


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_folder_in_git_is_read_as_git_notes_with_its_history(tmp_path):
    repo = tmp_path / "repo"
    write(repo, "team.md", "- Deploys happen on Tuesdays\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "notes", email="bob@corp.test")
    snap = markdown.read(repo)
    assert snap.system == "git-notes"
    (fact,) = snap.facts
    assert fact.provenance["x-source"] == "git-notes" and fact.tier == "human"
    assert fact.provenance["x-git-notes-time"] == "git commit"


@pytest.mark.parametrize("in_git", [False, True])
def test_dependency_folders_are_named_not_read(tmp_path, in_git):
    """A real repository committed its node_modules: `--from markdown` on it read 47,123
    facts, most of them other projects' READMEs and licences. Those folders are named in
    `left out` and not read, in the work tree and in git's history alike (even once gone
    from the work tree)."""
    if in_git and shutil.which("git") is None:
        pytest.skip("needs git")
    repo = tmp_path / "repo"
    write(repo, "CLAUDE.md", "- Run the tests with pnpm\n")
    write(repo, "web/node_modules/left-pad/README.md", "- Pads a string on the left\n")
    write(repo, "venv/lib/python3.12/site-packages/six/LICENSE.md", "- Permission is hereby granted\n")
    write(repo, "vendor/acme.md", "- The vendor ships on Mondays\n")  # a person's notes on vendors
    if in_git:
        write(repo, "old/node_modules/x/README.md", "- Gone since\n")
        git(repo, "init", "-q")
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", "all", when="2026-01-01T12:00:00Z")
        shutil.rmtree(repo / "old")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "cleanup")
    snap = markdown.read(repo)
    assert sorted(f.text for f in snap.facts) == ["Run the tests with pnpm", "The vendor ships on Mondays"]
    named = [line for line in snap.left_out if "dependency folder" in line]
    expected = ["venv/lib/python3.12/site-packages", "web/node_modules"] + (
        ["old/node_modules"] if in_git else []
    )
    assert sorted(line.split(":")[0] for line in named) == sorted(expected)


def test_a_label_before_a_list_or_code_names_it_and_is_not_a_fact(tmp_path):
    """Memory banks name their lists: `**Next Steps:**`, `Common errors:`. Such a label
    alone was a fact with a trust score (3.9% of 58,188 facts of 11 public repositories'
    Markdown). Before a list, code or a table it is counted under `left out`; a line ending
    in ':' that says something, or a label followed by a paragraph, stays a fact."""
    write(
        tmp_path / "bank",
        "activeContext.md",
        "# Active Context\n\n**Next Steps:**\n- Ship the search page\n\nCommon errors:\n\n"
        "```sh\nnpm ERR! peer dep\n```\n\nThe calculator requires two CSV files:\n- conferences.csv\n\n"
        "| a | b |\n\n**Status:**\n\nAll green since Monday.\n",
    )
    expected = [
        "Ship the search page",
        "The calculator requires two CSV files:",
        "conferences.csv",
        "**Status:**",
        "All green since Monday.",
    ]
    snap = markdown.read(tmp_path / "bank")
    assert [f.text for f in snap.facts] == expected
    assert {"2 label lines not read as facts", "1 table row not read as facts"} <= set(snap.left_out)
    if shutil.which("git") is None:
        return
    git(tmp_path / "bank", "init", "-q")
    git(tmp_path / "bank", "add", ".")
    git(tmp_path / "bank", "commit", "-q", "-m", "bank")
    snap = markdown.read(tmp_path / "bank")  # read from git as git-notes reads it: the same
    assert [f.text for f in snap.facts] == expected
    assert {"2 label lines not read as facts", "1 table row not read as facts"} <= set(snap.left_out)


def test_a_fifo_or_a_dangling_link_among_the_notes_is_named_not_waited_on(tmp_path):
    """Opening a FIFO named like a note would wait until something writes to it; it was
    passed over without a word, as was a link to nothing."""
    notes = tmp_path / "notes"
    write(notes, "team.md", "- Deploys happen on Tuesdays\n")
    os.mkfifo(notes / "pipe.md")
    (notes / "gone.md").symlink_to(notes / "nowhere.md")
    snap = markdown.read(notes)
    assert [f.text for f in snap.facts] == ["Deploys happen on Tuesdays"]
    assert "pipe.md: not a regular file; not read" in snap.left_out
    assert "gone.md: a link to nothing; not read" in snap.left_out


def test_a_broken_folder_is_read_and_each_odd_file_named(tmp_path, new_store):
    """A folder as a user has it: one note not UTF-8, a link leaving the folder, a 0-byte
    note and one of blank lines among good ones. The good notes are read and each odd one
    is named (the empty ones were passed over without a word)."""
    notes, outside = tmp_path / "notes", tmp_path / "outside"
    write(notes, "team.md", "- Deploys happen on Tuesdays\n")
    write(notes, "sub/cache.md", "# Cache\n\nThe cache is Redis 7.\n")
    (notes / "bad.md").write_bytes(b"# Bad\n\n- caf\xe9\n")
    write(outside, "secret.md", "- the outside secret\n")
    (notes / "link.md").symlink_to(outside / "secret.md")
    (notes / "empty.md").write_bytes(b"")
    (notes / "blank.md").write_text("\n  \n")
    db = new_store("memory")
    done = run("import", "--from", "markdown", notes, "--db", db)
    assert "2 added" in done.stdout
    said = done.stderr
    assert "bad.md: not valid UTF-8 at line 3; not read" in said
    assert "link.md: a link leaving the folder; not read" in said
    assert "2 of 5 files hold nothing read as a fact (" in said and "): blank.md, empty.md" in said
    assert "outside secret" not in run("score", db, "--limit", "0").stdout


def test_a_note_in_git_that_is_not_utf8_is_named(tmp_path):
    """In git, a note committed (or edited) in bytes that are not UTF-8 was read with U+FFFD
    for its bad bytes without a word, and a 0-byte note passed over; outside git both are
    named."""
    repo = tmp_path / "notes"
    write(repo, "team.md", "- Deploys happen on Tuesdays\n")
    (repo / "bad.md").write_bytes(b"- caf\xe9 is closed\n")
    (repo / "empty.md").write_bytes(b"")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "notes")
    (repo / "edited.md").write_bytes(b"- na\xefve edit\n")  # not committed yet
    snap = markdown.read(repo)
    assert "Deploys happen on Tuesdays" in [f.text for f in snap.facts]
    for name in ("bad.md", "edited.md"):
        assert f"{name}: not valid UTF-8; its bad bytes left out (read as U+FFFD, \ufffd)" in snap.left_out
    assert not [line for line in snap.left_out if line.startswith("team.md")]
    assert any(
        line.startswith("1 of 4 files hold nothing read as a fact (") and line.endswith("): empty.md")
        for line in snap.left_out
    )


def test_a_folder_without_markdown_is_refused(tmp_path):
    write(tmp_path / "pics", "a.png", "x")
    with pytest.raises(InputError, match="holds no Markdown notes"):
        markdown.read(tmp_path / "pics")


def test_the_cli_refuses_foreign_input_in_one_line_and_creates_nothing(tmp_path, new_store, notes):
    bad = tmp_path / "history.db"
    bad.write_bytes(b"SQLite format 3\x00")
    db = new_store("new")
    line = refused("import", "--from", "markdown", bad, "--db", db)
    assert str(bad) in line and "is a file, not a folder" in line
    assert not exists(db)
    assert "needs DIR" in refused("import", "--from", "markdown", "--db", db)
    assert "5 added" in run("import", "--from", "markdown", notes, "--db", db).output


def test_odd_file_names_are_named_and_the_rest_read(notes):
    (notes / "two\nlines.md").write_text("- Odd note\n")
    (notes / os.fsdecode(b"caf\xe9.md")).write_text("- Latin-1 note\n")
    snap = markdown.read(notes)
    texts = {f.text for f in snap.facts}
    assert "Odd note" not in texts and "Latin-1 note" not in texts and "Try a dark theme." in texts
    assert "two\u240alines.md: a file name that is not visible UTF-8 text" in " ".join(snap.left_out)
    assert "caf\\xe9.md: a file name that is not visible UTF-8 text" in " ".join(snap.left_out)
