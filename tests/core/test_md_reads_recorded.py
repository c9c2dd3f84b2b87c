"""What the Markdown readers built on mdfolder (codex, gemini-cli, cursor, OpenClaw,
markdown outside git) remember of the files they read, through the one import pipeline
(`import_source`, as `import --from` and `sync` run it), on real files and real git:

- a file that gives no fact (front matter only, headings only, imports only) is not read
  again while it is unchanged (its stamp kept in the reader's record, meta `read.<system>`),
  in git not replayed again, and the store is the one a full read gives;
- a store whose facts carry a stamp of older rules is read once more: what the reader no
  longer makes (an `@AGENTS.md` line) is flagged deleted;
- a sync says only the left-out lines new since the last one (`--json` lists every line);
- a NUL character in a UTF-8 file is named in `left out`, the rest read."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from synapse_tui.core.base.config import Config
from synapse_tui.core.ingest.adapters import cursor, gitkept, known_facts, markdown
from synapse_tui.core.ingest.adapters.mditems import Doc, Item, file_stamp, to_fact, versions
from synapse_tui.core.ingest.adapters.sync import read_record_key, sync_snapshot
from synapse_tui.core.ingest.sources import import_source
from synapse_tui.core.store.db import Store
from tests.cli_run import run
from tests.core.claude_code_files import git
from tests.core.new_sources_files import write
from tests.store_state import mark

NOTES = {
    "notes.md": "# Notes\n\n- Deploys happen on Tuesdays\n",
    "front.md": "---\ntitle: Only front matter\n---\n",
    "heads.md": "# Heading\n\n## Another heading\n",
    "imports.md": "@AGENTS.md\n",
}
NOTHING = "3 of 4 files hold nothing read as a fact"


def _sync(system: str, folder: Path, db: Path, **own: str):
    return import_source(system, str(folder), db, Config(), record=False, **own).result


def _facts(db: Path, system: str) -> list[tuple]:
    """What a user sees of the store: each fact's id, text, whether deleted, its provenance."""
    with Store.open(db) as store:
        return sorted(
            (k.id, k.text, k.deleted, json.dumps(k.provenance, sort_keys=True))
            for k in known_facts(store, system)
        )


def _record(db: Path, system: str):
    with Store.open(db) as store:
        return store.meta(read_record_key(system))


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


def test_an_unchanged_file_giving_no_fact_is_not_read_again_and_the_store_is_a_full_reads(tmp_path):
    folder, db = tmp_path / "notes", tmp_path / "s.db"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    first = _sync("markdown", folder, db)
    assert first.added == 1
    assert any(line.startswith(NOTHING) for line in first.left_out)
    before = mark(db)
    again = _sync("markdown", folder, db)
    assert (again.added, again.newly_deleted, again.unchanged) == (0, 0, 1)
    assert again.left_out == first.left_out  # what the skipped files left out is still said
    assert mark(db) == before  # nothing new: nothing written
    full = tmp_path / "full.db"  # the same folder read whole into a store of its own
    _sync("markdown", folder, full)
    assert _facts(db, "markdown") == _facts(full, "markdown")
    assert _record(db, "markdown") == _record(full, "markdown")
    # the record is what says the file is unchanged: a text behind the same stamp is not read
    _same_stamp(folder / "heads.md", "- A fact nobody read")
    assert _sync("markdown", folder, db).added == 0
    _touch(folder / "heads.md")  # changed now: read, and its fact comes in
    changed = _sync("markdown", folder, db)
    assert changed.added == 1
    assert any(line.startswith("2 of 4 files hold nothing") for line in changed.left_out)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_git_an_unchanged_rule_giving_no_fact_is_not_replayed_again(tmp_path):
    project, db = tmp_path / "app", tmp_path / "s.db"
    write(project, ".cursor/rules/python.mdc", "---\ndescription: Python\n---\n- Type every function\n")
    write(project, ".cursor/rules/later.mdc", "---\ndescription: To be written\nalwaysApply: true\n---\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "rules")
    first = _sync("cursor", project, db)
    assert first.added == 1
    nothing = "1 of 2 files hold nothing read as a fact"  # named in git as outside it
    assert any(
        line.startswith(nothing) and line.endswith(": .cursor/rules/later.mdc") for line in first.left_out
    )
    assert ".cursor/rules/later.mdc" in _record(db, "cursor")[str(project.resolve())]
    before = mark(db)
    again = _sync("cursor", project, db)
    assert (again.added, again.unchanged, again.left_out) == (0, 1, first.left_out)
    assert mark(db) == before
    rule = project / ".cursor/rules/later.mdc"
    _same_stamp(rule, "---\ndescription: x\n---\n- Hidden rule\n")
    assert _sync("cursor", project, db).added == 0  # same stamp, same last commit: not replayed
    git(project, "commit", "-qam", "a rule at last", when="2026-02-02T12:00:00+02:00")
    committed = _sync("cursor", project, db)  # a new last commit: replayed, its fact in
    assert committed.added == 1
    assert [k for k in _facts(db, "cursor") if "Hidden rule" in k[1]]


def _older_store(folder: Path, db: Path, named: str) -> None:
    """The store an older reader made of `folder`: `notes.md`'s `@AGENTS.md` line a fact,
    every fact stamped with other rules (`named`: "" for none, as before mdleft; `:r2`, its
    hand-kept version)."""
    snap = markdown.read(folder)
    doc = Doc(folder / "notes.md", "notes.md", "notes.md", markdown.parse)
    item = Item("@AGENTS.md", 5)
    ((record, _, version, _),) = versions("markdown", "", doc, [item], [], {})
    stamp, mtime = file_stamp(doc.path)
    snap.facts.append(
        to_fact("markdown", str(folder.resolve()), doc, record, item, version, None, stamp, mtime)
    )
    old = stamp.rsplit(":", 1)[0]
    assert stamp == f"{old}:{gitkept.RULES}"
    for f in snap.facts:
        assert f.provenance is not None
        now = file_stamp(folder / f.provenance["x-markdown-file"])[0]
        f.provenance["x-markdown-stamp"] = now.rsplit(":", 1)[0] + named
    with Store.open(db, create=True) as store:
        sync_snapshot(store, snap, Config())


@pytest.mark.parametrize("named", ["", ":r2"])
def test_a_file_stamped_by_older_rules_is_read_once_more_and_a_fact_no_longer_made_is_deleted(
    tmp_path, named
):
    folder, db = tmp_path / "notes", tmp_path / "s.db"
    write(folder, "notes.md", "# Notes\n\n- Deploys happen on Tuesdays\n\n@AGENTS.md\n")
    _older_store(folder, db, named)
    stale = [k for k in _facts(db, "markdown") if k[1] == "@AGENTS.md"]
    assert stale and not stale[0][2]
    upgraded = _sync("markdown", folder, db)
    assert (upgraded.added, upgraded.newly_deleted, upgraded.unchanged) == (0, 1, 1)
    facts = {k[1]: k for k in _facts(db, "markdown")}
    assert facts["@AGENTS.md"][2]  # flagged deleted, never erased
    assert json.loads(facts["Deploys happen on Tuesdays"][3])["x-markdown-stamp"].endswith(
        f":{gitkept.RULES}"
    )
    before = mark(db)
    settled = _sync("markdown", folder, db)  # stamped by these rules now: not read again
    assert (settled.added, settled.newly_deleted, settled.unchanged) == (0, 0, 1)
    assert mark(db) == before


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_git_a_rule_stamped_by_older_rules_is_replayed_once_more(tmp_path):
    project, db = tmp_path / "app", tmp_path / "s.db"
    rel = ".cursor/rules/python.mdc"
    rule = write(
        project, rel, "---\ndescription: Python\n---\n- Type every function\n- Old rule\n\n@AGENTS.md\n"
    )
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "rules")
    rule.write_text(rule.read_text().replace("- Old rule\n", ""))  # a version deleted in history
    git(project, "commit", "-qam", "one rule less", when="2026-02-02T12:00:00+02:00")
    snap = cursor.read(project)
    made = next(f for f in snap.facts if f.text == "Type every function")
    assert made.provenance is not None and "Old rule" in {f.text for f in snap.facts}
    doc = Doc(rule, rel, rel, cursor._rule)
    given = made.provenance  # the older reader's fact came from the same commit
    keys = ("commit", "author", "last_commit")
    item = Item("@AGENTS.md", 7, own={key: given[f"x-cursor-{key.replace('_', '-')}"] for key in keys})
    ((record, _, version, _),) = versions("cursor", "", doc, [item], [], {})
    stamp, mtime = file_stamp(rule)
    snap.facts.append(
        to_fact("cursor", str(project.resolve()), doc, record, item, version, None, stamp, mtime)
    )
    for f in snap.facts:  # the older rules' stamp: no version
        assert f.provenance is not None
        f.provenance["x-cursor-stamp"] = stamp.rsplit(":", 1)[0]
    with Store.open(db, create=True) as store:
        sync_snapshot(store, snap, Config())
    upgraded = _sync("cursor", project, db)  # the rule and its history, the stale fact flagged
    assert (upgraded.added, upgraded.newly_deleted, upgraded.unchanged) == (0, 1, 2)
    assert [k[2] for k in _facts(db, "cursor") if k[1] == "@AGENTS.md"] == [True]
    before = mark(db)
    settled = _sync("cursor", project, db)  # stamped by these rules now: not replayed again
    assert (settled.added, settled.newly_deleted, settled.unchanged) == (0, 0, 2)
    assert mark(db) == before
    _touch(rule)  # replayed whole: the same counts (the stale fact is no history of the file)
    assert _sync("cursor", project, db).unchanged == 2


def test_a_sync_says_only_the_left_out_lines_new_since_the_last_and_json_lists_every_line(tmp_path):
    folder, db = tmp_path / "notes", tmp_path / "s.db"
    for rel, text in NOTES.items():
        write(folder, rel, text)
    first = run("import", "--from", "markdown", folder, "--db", db)
    said = [line for line in first.stderr.splitlines() if line.startswith("left out: ")]
    assert any("1 import line not read as facts" in line for line in said)
    assert any(NOTHING in line for line in said)
    again = run("import", "--from", "markdown", folder, "--db", db)
    assert [line for line in again.stderr.splitlines() if line.startswith("left out: ")] == [
        f"left out: {len(said)} more, as at the last sync (--json lists every line)"
    ]
    shown = json.loads(run("import", "--from", "markdown", folder, "--db", db, "--json").stdout)
    assert sorted(shown["left_out"]) == sorted(line.removeprefix("left out: ") for line in said)
    assert shown["left_out_new"] == []
    write(folder, "more.md", "@CLAUDE.md\n")  # a new import line: both lines change, both said
    news = run("import", "--from", "markdown", folder, "--db", db).stderr.splitlines()
    assert "left out: 2 import lines not read as facts" in news
    assert any(line.startswith("left out: 4 of 5 files hold nothing") for line in news)
    assert not any("as at the last sync" in line for line in news)


def test_a_nul_character_in_a_utf8_file_is_named_and_the_rest_read(tmp_path):
    folder, db = tmp_path / "notes", tmp_path / "s.db"
    (folder).mkdir()
    (folder / "notes.md").write_bytes(b"- Keep this\n- Deploy on\x00 Tuesdays\n- And\x00 this\x00\n")
    result = _sync("markdown", folder, db)
    assert "notes.md: NUL characters (bytes 0) at lines 2, 3; left out, the rest of the file read" in (
        result.left_out
    )
    texts = {k[1] for k in _facts(db, "markdown")}
    assert texts == {"Keep this", "Deploy on Tuesdays", "And this"}
    memories = tmp_path / "memories"  # Codex's memory_summary.md alike
    memories.mkdir()
    (memories / "memory_summary.md").write_bytes(b"v1\n## User preferences\n\n- Short\x00 answers\n")
    codex = _sync("codex", memories, tmp_path / "c.db")
    assert "memory_summary.md: a NUL character (a byte 0) at line 4; left out, the rest of the file read" in (
        codex.left_out
    )
    assert {k[1] for k in _facts(tmp_path / "c.db", "codex")} == {"Short answers"}
