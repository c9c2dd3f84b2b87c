"""The Basic Memory reader, on note folders written here in Basic Memory's own format.

The shapes follow basic-memory 0.24 (`markdown/plugins.py`, `entity_parser.py`, and what its
`write_note` tool writes: front matter title / type / permalink / tags, `## Observations`
with `- [category] content #tag (context)`, `## Relations` with `- type [[Target]]`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import basic_memory as bm
from synapse_tui.core.ingest.adapters import known_facts
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from tests.core.basic_memory_files import NEW, OLD, SEARCH, resync, sync, write


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "basic-memory"
    write(folder, "specs/Search Design.md", SEARCH)
    write(folder, "old-search.md", OLD)
    write(
        folder,
        "plain.md",
        "Just prose, with a [[Search Design]] link.\n\n- [idea] No front matter here\n",
        mtime="2026-02-03T04:05:06Z",
    )
    write(folder, ".hidden/skipped.md", "- [fact] hidden folders are not notes\n")
    return folder


@pytest.fixture
def store(new_store):
    """An empty store on this test's backend (a file, a server: `tests/backends.py`)."""
    with Store.open(new_store("memory"), create=True) as s:
        yield s


def by_text(snapshot) -> dict:
    return {f.text: f for f in snapshot.facts}


def test_observations_become_facts_with_basic_memory_provenance(notes):
    snap = bm.read(notes)
    assert snap.system == "basic-memory"
    facts = by_text(snap)
    assert sorted(facts) == sorted(
        [
            "Use SQLite FTS5 for full text #search #sqlite",
            "Ranking is relevance times freshness, see [[Freshness Model]]",
            "Use Elasticsearch for search",
            "Search runs on a separate cluster",
            "Cluster costs grow with the index",
            "No front matter here",
        ]
    )
    fts = facts["Use SQLite FTS5 for full text #search #sqlite"]
    assert fts.note == "main/specs/search-design"
    assert fts.created_at == "2026-03-01T08:00:00Z"  # +02:00 converted, not truncated
    assert fts.tier == "auto" and fts.r == 0 and fts.s == 0 and not fts.reinforced_ts
    assert fts.provenance == {
        "x-source": "basic-memory",
        "x-source-id": fts.id.removeprefix("basic-memory:"),
        "x-source-version": 1,
        "x-basic-memory-file": "specs/Search Design.md",
        "x-basic-memory-line": 14,
        "x-basic-memory-title": "Search Design",
        "x-basic-memory-permalink": "main/specs/search-design",
        "x-basic-memory-category": "decision",
        "x-basic-memory-tags": ["search", "sqlite"],
        "x-basic-memory-context": "fast enough locally",
        "x-basic-memory-folder": str(notes.resolve()),
    }
    assert fts.id.startswith("basic-memory:main/specs/search-design#")
    ranking = facts["Ranking is relevance times freshness, see [[Freshness Model]]"]
    assert ranking.entities == ["Search Design", "Freshness Model", "Search Spec", "Ranking"]
    plain = facts["No front matter here"]
    assert plain.note == "plain.md"  # no permalink: the path
    assert plain.created_at == "2026-02-03T04:05:06Z"  # the file's mtime
    assert plain.entities == ["plain", "Search Design"]
    assert "x-basic-memory-permalink" not in plain.provenance
    assert snap.left_out == [] and snap.deleted == set()


def test_ids_are_stable_across_reads_and_line_moves(notes):
    first = {f.text: f.id for f in bm.read(notes).facts}
    assert {f.text: f.id for f in bm.read(notes).facts} == first
    old = notes / "old-search.md"
    lines = old.read_text().splitlines()
    lines[5], lines[7] = lines[7], lines[5]  # reorder two observations
    old.write_text("\n".join(lines) + "\n")
    assert {f.text: f.id for f in bm.read(notes).facts} == first


def test_edit_becomes_a_new_version_superseding_the_old(notes, store):
    resync(store, notes)
    old = notes / "old-search.md"
    old.write_text(old.read_text().replace("Use Elasticsearch for search", "Use OpenSearch for search"))
    os.utime(old, (parse_time("2026-06-01T00:00:00Z"),) * 2)
    snap = resync(store, notes)
    before = known_facts(store, "basic-memory")
    v1 = next(k for k in before if k.text == "Use Elasticsearch for search")
    v2 = next(k for k in before if k.text == "Use OpenSearch for search")
    assert v2.id == f"basic-memory:{v1.record}@2" and v2.record == v1.record and v2.version == 2
    assert store.record(v2.id).supersedes == v1.id
    assert store.superseded_by(v1.id) == [v2.id]
    assert store.record(v2.id).provenance["x-source-version"] == 2
    assert store.record(v2.id).created_at == "2026-06-01T00:00:00Z"  # the file's mtime: no `modified`
    assert not snap.deleted  # an edit is not a deletion
    memory = Memory(store, Config(), parse_time("2026-12-01T00:00:00Z"))
    assert memory.explain(v1.id)["k"] == 1 and memory.explain(v2.id)["k"] == 0
    # a second sync of the same folder changes nothing
    count = store.count()
    again = resync(store, notes)
    assert store.count() == count and not again.deleted
    assert {f.id for f in again.facts} <= {k.id for k in known_facts(store, "basic-memory")}


def test_removed_observation_and_removed_note_are_flagged_deleted(notes, store):
    resync(store, notes)
    old = notes / "old-search.md"
    old.write_text(old.read_text().replace("- [risk] Cluster costs grow with the index\n", ""))
    (notes / "plain.md").unlink()
    snap = resync(store, notes)
    gone = {k.text for k in known_facts(store, "basic-memory") if k.deleted}
    assert gone == {"Cluster costs grow with the index", "No front matter here"}
    assert len(snap.deleted) == 2
    memory = Memory(store, Config(), parse_time("2026-12-01T00:00:00Z"))
    deleted_ids = {k.id for k in known_facts(store, "basic-memory") if k.deleted}
    assert all("deleted" in memory.explain(fid)["flags"] for fid in deleted_ids)
    # written again with the same text: a new record, never the deleted fact's id
    write(notes, "plain.md", "- [idea] No front matter here\n")
    resync(store, notes)
    again = [k for k in known_facts(store, "basic-memory") if k.text == "No front matter here"]
    assert len(again) == 2 and [k.deleted for k in again] == [True, False]
    assert again[0].id != again[1].id


def test_triage_done_here_survives_a_sync(notes, store):
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.review.triage import Triage

    resync(store, notes)
    fid = next(k.id for k in known_facts(store, "basic-memory") if k.text == "Use Elasticsearch for search")
    Triage(store, Clock(parse_time("2026-11-01T00:00:00Z"))).apply("corroborate", [fid])
    write(notes, "extra.md", "- [fact] A new note arrives\n")
    resync(store, notes)
    assert store.record(fid).corroborations == 1
    assert any(k.text == "A new note arrives" for k in known_facts(store, "basic-memory"))


def test_supersedes_relation_links_facts_by_category(notes, store):
    resync(store, notes)
    write(notes, "search-v2.md", NEW)
    snap = resync(store, notes)
    facts = {k.text: k for k in known_facts(store, "basic-memory")}
    assert store.record(facts["Use SQLite FTS5 instead of Elasticsearch"].id).supersedes == (
        facts["Use Elasticsearch for search"].id
    )
    assert store.record(facts["Search runs inside the app process"].id).supersedes == (
        facts["Search runs on a separate cluster"].id
    )
    assert facts["Cluster costs grow with the index"].head  # no counterpart in Search v2
    assert any("1 fact(s) of old-search.md have no new counterpart" in line for line in snap.left_out)
    # relation added to a note imported earlier: nothing imported is changed, and it says so
    write(notes, "later.md", "- [fact] Later note\n")
    resync(store, notes)
    later = notes / "later.md"
    later.write_text("- [fact] Later note\n- replaces [[plain]]\n")
    snap = bm.read(notes, known=known_facts(store, "basic-memory"))
    assert any("imported before" in line for line in snap.left_out)


def test_mutual_supersedes_makes_no_cycle(tmp_path, store):
    folder = tmp_path / "bm"
    write(folder, "a.md", "---\ntitle: A\n---\n- [fact] a says one thing\n- supersedes [[B]]\n")
    write(folder, "b.md", "---\ntitle: B\n---\n- [fact] b says another\n- supersedes [[A]]\n")
    snap = bm.read(folder)
    links = [f.supersedes for f in snap.facts if f.supersedes]
    assert len(links) == 1
    assert any("cycle" in line for line in snap.left_out)
    sync(store, snap)  # the store accepts it: no cycle
    assert store.count() == 2


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda root: root / "missing", "no such folder"),
        (lambda root: write(root, "note.md", "- [fact] x\n"), "is a file, not a folder"),
        (lambda root: (root / "empty").mkdir() or (root / "empty"), "holds no Markdown notes"),
    ],
)
def test_a_source_that_is_not_a_notes_folder_is_refused(tmp_path, make, expected):
    source = make(tmp_path)
    with pytest.raises(InputError) as exc:
        bm.read(source)
    assert expected in str(exc.value) and str(source) in str(exc.value)
    assert "Basic Memory folder" in str(exc.value)


def test_bad_front_matter_is_read_leniently_and_named(tmp_path):
    """One note's front matter that is not strict YAML, or a field of the wrong kind, never
    refuses the folder (SPEC 9): its fields are kept as written, the others' notes read,
    and each field left out is named with its line."""
    folder = tmp_path / "bm"
    write(folder, "good.md", "- [fact] fine\n")
    bad = write(folder, "bad.md", "---\ntitle: Bad: really\ntags: [one, two\n---\n- [fact] x\n")
    snap = bm.read(folder)
    assert sorted(f.text for f in snap.facts) == ["fine", "x"]
    (said,) = [line for line in snap.left_out if line.startswith("bad.md")]
    assert said == "bad.md:2: front matter is not strict YAML; title, tags kept as written"
    bad.write_text("---\ntitle: Bad\ncreated: next tuesday\n---\n- [fact] x\n")
    os.utime(bad, (1_700_000_000, 1_700_000_000))
    snap = bm.read(folder)
    (said,) = [line for line in snap.left_out if line.startswith("bad.md")]
    assert (
        said
        == "bad.md:3: front matter 'created' is not an ISO 8601 date or time ('next tuesday'); the file's time used"
    )
    (x,) = [f for f in snap.facts if f.text == "x"]
    assert x.created_at == "2023-11-14T22:13:20Z"


def test_a_note_that_is_not_utf8_is_named_and_the_others_read(notes, store):
    """One bad byte in one note: the other notes are read, that note is named with its
    line, and the facts it gave before stay as they were (not deleted)."""
    resync(store, notes)
    old = notes / "old-search.md"
    before = {
        k.id
        for k in known_facts(store, "basic-memory")
        if k.provenance.get("x-basic-memory-file") == "old-search.md"
    }
    assert len(before) == 3
    old.write_bytes(b"---\ntitle: Old Search\n---\n- [fact] caf\xe9\n")
    write(notes, "new.md", "- [fact] Search moved to OpenSearch\n")
    snap = bm.read(notes, known=known_facts(store, "basic-memory"))
    assert "old-search.md: not valid UTF-8 at line 4; not read" in snap.left_out
    assert "Search moved to OpenSearch" in by_text(snap)  # the rest is read
    assert not snap.deleted & before  # its facts are not taken for deleted
    result = sync(store, snap)
    assert (result.added, result.newly_deleted) == (1, 0)


def test_two_notes_with_one_permalink_are_refused(tmp_path):
    folder = tmp_path / "bm"
    write(folder, "a.md", "---\npermalink: same\n---\n- [fact] a\n")
    write(folder, "b.md", "---\npermalink: same\n---\n- [fact] b\n")
    with pytest.raises(InputError, match="permalink 'same' is also the permalink of a.md"):
        bm.read(folder)


def test_naive_front_matter_time_is_local_wall_clock(tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        folder = tmp_path / "bm"
        write(folder, "n.md", "---\ncreated: 2026-01-15T09:00:00\n---\n- [fact] x\n")
        assert bm.read(folder).facts[0].created_at == "2026-01-15T14:00:00Z"
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()


def test_several_edits_in_one_note_pair_by_category_then_similarity(notes, store):
    resync(store, notes)
    old = notes / "old-search.md"
    text = old.read_text()
    text = text.replace("Use Elasticsearch for search", "Use OpenSearch for search")
    text = text.replace("Cluster costs grow with the index", "Cluster costs grow quickly with the index")
    text = text.replace("- [fact] Search runs on a separate cluster\n", "- [ops] Backups run nightly to S3\n")
    old.write_text(text)
    snap = resync(store, notes)
    facts = {k.text: k for k in known_facts(store, "basic-memory")}
    for before, after in [
        ("Use Elasticsearch for search", "Use OpenSearch for search"),
        ("Cluster costs grow with the index", "Cluster costs grow quickly with the index"),
    ]:
        assert store.record(facts[after].id).supersedes == facts[before].id and facts[after].version == 2
    # an unrelated replacement of another category among several changes is a removal
    # and a new record
    assert facts["Search runs on a separate cluster"].deleted
    assert facts["Backups run nightly to S3"].version == 1
    assert store.record(facts["Backups run nightly to S3"].id).supersedes is None
    assert snap.deleted == {facts["Search runs on a separate cluster"].id}


def test_progress_reports_the_notes_read(notes):
    calls = []
    bm.read(notes, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (3, 3)


def test_windows_line_endings_keep_line_numbers(tmp_path):
    folder = tmp_path / "bm"
    folder.mkdir()
    (folder / "n.md").write_bytes(b"---\r\ntitle: Win\r\n---\r\n\r\n- [fact] crlf works (ctx)\r\n")
    fact = bm.read(folder).facts[0]
    assert fact.text == "crlf works" and fact.provenance["x-basic-memory-line"] == 5


def test_a_rewritten_observation_is_paired_by_category_and_position(notes, store):
    """Two observations reworded in one note, sharing no words with their old texts:
    similarity cannot pair them, their category and place in the note do."""
    resync(store, notes)
    old = notes / "old-search.md"
    text = old.read_text()
    text = text.replace("Use Elasticsearch for search", "Pick OpenSearch, hosted")
    text = text.replace("Search runs on a separate cluster", "Everything lives in one process")
    old.write_text(text)
    snap = resync(store, notes)
    facts = {k.text: k for k in known_facts(store, "basic-memory")}
    for before, after in [
        ("Use Elasticsearch for search", "Pick OpenSearch, hosted"),
        ("Search runs on a separate cluster", "Everything lives in one process"),
    ]:
        assert store.record(facts[after].id).supersedes == facts[before].id
        assert facts[after].record == facts[before].record and facts[after].version == 2
    assert not snap.deleted
