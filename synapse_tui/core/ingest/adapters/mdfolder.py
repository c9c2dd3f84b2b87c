"""Markdown that keeps no history of its own (SPEC 9, turn 4): what the codex, gemini-cli,
openclaw, cursor and markdown readers share.

These agents keep memory as Markdown files that hold only their current text. A reader
lists its files (`Doc`) and says how one file's text becomes facts (`Item`s); this module
(with mditems, one file's items as versioned facts, and mdhistory, the git replay) does
the rest the same way for all of them:

- Records. An item the source names (a wiki claim's id) is the record `<file>#<its id>`;
  any other is `<file>#<hash of its first text>` (`-2` for a repeat in one file).
- Versions. The reader takes `known` (the facts of its system already in the store): an
  item whose record is there with another text (or deleted) is its next version and
  supersedes it; a new item and a vanished one of the same file and section are one
  record edited when their words are at least half shared (mditems.pair_similar: one to one,
  best first); any other vanished record is deleted. A file gone takes its facts with it
  (deleted, never erased).
- Git history. In a git work tree, each file of the source that git has history for
  (`locate` names the reader's files, those gone included) is replayed (SPEC 9): every
  commit that changed it is read against the one before, as a sync reads a source
  against the store, so an edit is a version and a removal a deletion at that commit's
  instant; uncommitted text comes last. A file is replayed whole from its first commit,
  so the same repository gives the same ids; git's history is read only for the files a
  commit changed since the HEAD the reader's record says the last sync read at, or that
  are not as read (mdhistory._since); after a rewritten history, the store's versions of the
  commits it dropped stay as a replay leaves them and the reader's record names them, so
  they are neither judged nor counted (mdhistory._strays). Git is read through
  gitlog/safegit: nothing the repository names ever runs.
- Times. What the source records (a header's `updated_at`, a claim's `updatedAt`), else a
  date in the file's name (`2026-05-14.md`), else a date in its front matter; else, in a
  git work tree, the commit that wrote it, its author and commit in provenance; else the
  file's modification time. `x-<system>-time` says which. A later version is dated by what
  the format says of edits (`Item.revised`), else by its commit, else by the modification
  time.
- Speed. A file whose size and modification time are those of the last sync
  (`x-<system>-stamp`), and in git whose last commit is too (`x-<system>-last-commit`),
  is not read again: its facts count as unchanged. What no fact can carry, a file that
  gave none (front matter, headings or imports only) and what a file left out, the reader
  records (`Found.note`: `Snapshot.read_record`, kept in the store's meta `read.<system>`
  and given back as `read_before`), so such a file unchanged is not read (in git, not
  replayed) either, and `left out` still says what it left out: the same store and the
  same lines as a full read. The stamp carries the readers' rules (gitkept.RULES, a
  digest of their code): a file read by other rules is read once more, and a fact those
  rules made that these no longer make is deleted (in git the history versions that
  replay lists again are restamped, so a later sync that skips the file counts what a
  replay would).

Each fact records the root it was read from (`x-<system>-root`), so two roots of one
system in a store never delete each other's facts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import (
    Evidence,
    KnownFact,
    Snapshot,
    every,
    gitkept,
    gitlog,
    naming_left_out,
    out_of_reach,
    own_key,
)
from synapse_tui.core.ingest.adapters.git_notes import NOT_NAMEABLE, holding_nothing, nameable, shown_name
from synapse_tui.core.ingest.adapters.markdown_memory import now_committed, skipped_lines
from synapse_tui.core.ingest.adapters.mdhistory import replay
from synapse_tui.core.ingest.adapters.mditems import (
    Doc,
    Found,
    as_read,
    file_stamp,
    file_text,
    stamped_by,
    to_fact,
    versions,
)
from synapse_tui.core.ingest.interchange import ParsedFact, Progress


def read_docs(
    system: str,
    root: Path,
    docs: list[Doc],
    known: list[KnownFact] | None,
    left_out: list[str],
    progress: Progress | None = None,
    source: str | None = None,
    prefix: str = "",
    locate: Callable[[str], Doc | None] | None = None,
    refusal: InputError | None = None,
    read_before: dict[str, Any] | None = None,
) -> Snapshot:
    """The Snapshot of `docs`, all under `root`, against what the store already holds;
    `prefix` begins each record's id (a second root of one system: its own namespace).
    In a git work tree, the files git has history for are replayed from it instead;
    `locate` names the Doc of a path (under `root`, POSIX) that is gone from the work tree,
    or None when the reader does not read such a file. `refusal` (a reader that found none
    of its files today) is raised only when the folder never held them: no history in git,
    nothing of this root in the store to delete. `read_before`: the reader's record of
    the files it read at the last sync (meta `read.<system>`, root -> file -> record: see
    "Speed"), given back for this root in `Snapshot.read_record`; None: the caller keeps
    no record (each file that gave no fact is read)."""
    mine = str(root.resolve())
    odd = [d for d in docs if not nameable(d.rel)]  # a record id must be visible text
    left_out += [f"{shown_name(d.rel)}: {NOT_NAMEABLE}; not read" for d in odd]
    docs = [d for d in docs if nameable(d.rel)]
    heads = _heads(known, own_key(system, "root"), mine)
    by_file = _by_file(system, heads)
    tree = gitlog.open_or_left_out(root, left_out)  # None outside a git work tree
    out = Found([], set(), set(), set(), {}, left_out, _recorded(read_before, mine))
    held = _held(known, system, mine) if tree is not None else {}
    replayed = replay(system, prefix, mine, root, tree, docs, locate, by_file, out, held)
    _read_files(system, prefix, mine, docs, replayed, by_file, heads, out, progress)
    _keep_out_of_reach(root, docs, by_file, out)
    deleted = {k.id for r, k in heads.items() if r not in out.seen and not k.deleted} | out.deleted
    if tree is not None:
        left_out += tree.left_out
        out.record.update(gitkept.folder_entry(tree))  # the HEAD it now stands read at
    left_out += _junk(docs) + _holding_nothing(docs, out)
    if refusal is not None and not (out.facts or deleted or out.kept):
        raise naming_left_out(refusal, left_out)
    commit_key = own_key(system, "commit")
    return Snapshot(
        system,
        source or str(root),
        out.facts,
        deleted,
        sorted(set(left_out)),
        kept=out.kept,
        deleted_at=out.deleted_at,
        read_record=None if read_before is None else {mine: out.record},
        # a text read from the work tree before anyone committed it, committed since
        # and of every text unchanged since: its line now, the file (and its last commit)
        # as read this time, so a file unchanged at the next sync is not read again
        evidence=now_committed(
            out.facts,
            [k for versions in held.values() for k in versions] if tree is not None else list(heads.values()),
            lambda k: not (k.provenance or {}).get(commit_key),
            [own_key(system, key) for key in ("line", "block_line", "stamp", "last_commit")],
        )
        + _restamped(system, out.facts, held),
    )


def _by_file(system: str, heads: dict[str, KnownFact]) -> dict[str, list[KnownFact]]:
    """File -> the latest version of each of its records in the store."""
    by_file: dict[str, list[KnownFact]] = {}
    for k in heads.values():
        by_file.setdefault(str(k.provenance.get(own_key(system, "file"))), []).append(k)
    return by_file


def _recorded(read_before: dict[str, Any] | None, root: str) -> dict[str, Any]:
    """The reader's record of the files of `root` it read at the last sync."""
    files = (read_before or {}).get(root)
    return files if isinstance(files, dict) else {}


def _junk(docs: list[Doc]) -> list[str]:
    """The `left out` lines of the junk the files' Markdown held, by kind, all files together."""
    passed: Counter[str] = Counter()
    for doc in docs:
        passed.update(doc.skipped)
    return skipped_lines(passed)


def _restamped(system: str, facts: list[ParsedFact], held: dict[str, list[KnownFact]]) -> list[Evidence]:
    """The history versions the store holds deleted, stamped by older rules, that this
    replay lists again: their stamp as read now, once (these rules list them), so a sync
    that does not replay the file counts them as a replay would (mdhistory._relisted)."""
    stamp_key = own_key(system, "stamp")
    gone = {k.id: k for versions in held.values() for k in versions if k.deleted}
    out = []
    for f in facts:
        k, now = gone.get(f.id), (f.provenance or {}).get(stamp_key)
        if (
            k is not None
            and stamped_by(now) == gitkept.RULES
            and stamped_by(k.provenance.get(stamp_key)) != gitkept.RULES
        ):
            out.append(Evidence(f.id, 0, [], {stamp_key: now}, {stamp_key: k.provenance.get(stamp_key)}))
    return out


def _holding_nothing(docs: list[Doc], out: Found) -> list[str]:
    """The `left out` line naming the files that gave no fact, read or replayed now or as
    the reader's record says of them."""
    empty = [shown_name(d.rel) for d in docs if (out.record.get(d.rel) or {}).get("empty")]
    return [holding_nothing(empty, len(docs))] if empty else []


def _keep_out_of_reach(root: Path, docs: list[Doc], by_file: dict[str, list[KnownFact]], out: Found) -> None:
    """The store's facts of a file the walk did not find because a folder on its way may
    not be opened (named in `left out` by the walk): unread, not gone, kept as they were."""
    listed = {d.rel for d in docs}
    for rel, facts in by_file.items():
        if rel not in listed and out_of_reach(root / rel):
            alive = [k for k in facts if not k.deleted]
            out.kept |= {k.id for k in alive}
            out.seen |= {k.record for k in alive}
    for rel, note in out.before.items():  # and what the record said of it
        if rel not in listed and rel not in out.record and out_of_reach(root / rel):
            out.record[rel] = note


def _heads(known: list[KnownFact] | None, root_key: str, root: str) -> dict[str, KnownFact]:
    """Record -> its latest version in the store, among the facts read from `root`."""
    heads: dict[str, KnownFact] = {}
    for k in known or []:
        if k.provenance.get(root_key) == root and (
            k.record not in heads or k.version > heads[k.record].version
        ):
            heads[k.record] = k
    return heads


def _held(known: list[KnownFact] | None, system: str, root: str) -> dict[str, list[KnownFact]]:
    """File -> every fact of it read from `root` the store holds, each version (not only
    the heads): what a replay must not give another text under the same id."""
    root_key, file_key = own_key(system, "root"), own_key(system, "file")
    out: dict[str, list[KnownFact]] = {}
    for k in known or []:
        if k.provenance.get(root_key) == root:
            out.setdefault(str(k.provenance.get(file_key)), []).append(k)
    return out


def _read_files(
    system: str,
    prefix: str,
    root: str,
    docs: list[Doc],
    replayed: set[str],
    by_file: dict[str, list[KnownFact]],
    heads: dict[str, KnownFact],
    out: Found,
    progress: Progress | None,
) -> None:
    """Read each file not replayed from git as it stands, against the store's facts of it:
    a file whose size and modification time are those the store recorded (on its facts,
    or in the reader's record of a file that gave none), or unreadable now, is not read
    again (what it gave before stays as it was, and what it left out is said again)."""
    stamp_key = own_key(system, "stamp")
    report = every(progress, 200)
    for n, doc in enumerate(docs, start=1):
        report(n, len(docs))
        if doc.rel in replayed:
            continue
        stamp, mtime = file_stamp(doc.path)
        alive = [k for k in by_file.get(doc.rel, ()) if not k.deleted]
        note = out.recalled(doc, stamp)
        lines: list[str] = []
        if as_read(alive, stamp_key, stamp, note, out.noted_before(doc)):
            text = None
            if note is not None:
                out.carry(doc, note)
        else:
            text = file_text(doc.path, lines, doc.rel)
            out.left_out += lines
        if text is None:
            out.kept |= {k.id for k in alive}
            out.seen |= {k.record for k in alive}
            continue
        items = doc.parse(text, doc)
        out.left_out += doc.left_out
        out.note(doc, stamp, "", not items, lines + doc.left_out)
        for record, item, version, supersedes in versions(
            system, prefix, doc, items, by_file.get(doc.rel, []), heads
        ):
            out.seen.add(record)
            out.facts.append(to_fact(system, root, doc, record, item, version, supersedes, stamp, mtime))


def merged(system: str, snapshots: list[Snapshot]) -> Snapshot:
    """One Snapshot of several roots read by one reader (a home folder and a project)."""
    first = snapshots[0]
    for other in snapshots[1:]:
        first.facts += other.facts
        first.deleted |= other.deleted
        first.kept |= other.kept
        first.evidence += other.evidence
        first.left_out = sorted(set(first.left_out) | set(other.left_out))
        if other.read_record is not None:
            first.read_record = {**(first.read_record or {}), **other.read_record}
    first.source = ", ".join(s.source for s in snapshots)
    return first
