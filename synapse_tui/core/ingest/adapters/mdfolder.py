"""Markdown that keeps no history of its own (SPEC 9, turn 4): what the codex, gemini-cli,
openclaw, cursor and markdown readers share.

These agents keep memory as Markdown files that hold only their current text. A reader
lists its files (`Doc`) and says how one file's text becomes facts (`Item`s); this module
does the rest the same way for all of them:

- Records. An item the source names (a wiki claim's id) is the record `<file>#<its id>`;
  any other is `<file>#<hash of its first text>` (`-2` for a repeat in one file).
- Versions. The reader takes `known` (the facts of its system already in the store): an
  item whose record is there with another text (or deleted) is its next version and
  supersedes it; a new item and a vanished one of the same file and section are one
  record edited when their words are at least half shared (`pair_similar`: one to one,
  best first); any other vanished record is deleted. A file gone takes its facts with it
  (deleted, never erased).
- Git history. In a git work tree, each file of the source that git has history for
  (`locate` names the reader's files, those gone included) is replayed (SPEC 9): every
  commit that changed it is read against the one before, as a sync reads a source
  against the store, so an edit is a version and a removal a deletion at that commit's
  instant; uncommitted text comes last. The history is replayed whole on
  every read, so the same repository gives the same ids. Git is read through
  gitlog/safegit: nothing the repository names ever runs.
- Times. What the source records (a header's `updated_at`, a claim's `updatedAt`), else a
  date in the file's name (`2026-05-14.md`), else a date in its front matter; else, in a
  git work tree, the commit that wrote it, its author and commit in provenance; else the
  file's modification time. `x-<system>-time` says which. A later version is dated by what
  the format says of edits (`Item.revised`), else by its commit, else by the modification
  time.
- Speed. A file whose size and modification time are those of the last sync
  (`x-<system>-stamp`), and in git whose last commit is too (`x-<system>-last-commit`),
  is not read again: its facts count as unchanged.

Each fact records the root it was read from (`x-<system>-root`), so two roots of one
system in a store never delete each other's facts.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.ingest.adapters import (
    KnownFact,
    Snapshot,
    errors_at,
    every,
    fact_id,
    gitlog,
    own_key,
    source_provenance,
)
from synapse_tui.core.ingest.adapters.git_notes import NOT_NAMEABLE, blocks, nameable, shown_name
from synapse_tui.core.ingest.interchange import ParsedFact, Progress, parse_line

FROM_MTIME = "file modified; creation unknown"
FROM_NAME = "date in the file name"
FROM_GIT = "git commit"
EDIT_SIMILARITY = 0.5  # as Basic Memory's and git-notes' readers pair an edit

_HASHED = re.compile(r"#[0-9a-f]{12}(?:-\d+)?$")


@dataclass
class Item:
    """One fact as a reader found it in a file, before its version is decided."""

    text: str
    line: int
    section: str | None = None
    key: str | None = None  # the source's own id for it; None: a hash of its text
    tier: str = "auto"
    at: float | None = None  # when the source says it was first written (epoch seconds)
    how: str | None = None  # where that time came from, for x-<system>-time
    # when the source says this text was written, for a later version of a record (a
    # claim's updatedAt; a Codex block's latest session); None: when the change was made
    revised: float | None = None
    revised_how: str | None = None
    # the commit that wrote it, where git's history is replayed
    committed: gitlog.Commit | None = None
    own: dict[str, Any] = field(default_factory=dict)  # x-<system>-<field> values
    corroborations: int = 0
    contradictions: int = 0
    reinforced_at: list[float] = field(default_factory=list)  # re-asserted at (those after `at`)
    replaces: str | None = None  # the key of an item of the same file the source says this replaces
    entities: list[str] = field(default_factory=list)
    note: str | None = None  # its unit of co-occurrence when not the whole file (a Codex block)


@dataclass
class Doc:
    """One file of a source: where it is, what it is called there, and how it is read."""

    path: Path
    rel: str  # its path under the root, POSIX: the record prefix and x-<system>-file
    note: str
    parse: Callable[[str, Doc], list[Item]]
    left_out: list[str] = field(default_factory=list)  # what parse set aside, one line each


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
) -> Snapshot:
    """The Snapshot of `docs`, all under `root`, against what the store already holds;
    `prefix` begins each record's id (a second root of one system: its own namespace).
    In a git work tree, the files git has history for are replayed from it instead;
    `locate` names the Doc of a path (under `root`, POSIX) that is gone from the work tree,
    or None when the reader does not read such a file."""
    mine = str(root.resolve())
    odd = [d for d in docs if not nameable(d.rel)]  # a record id must be visible text
    left_out += [f"{shown_name(d.rel)}: {NOT_NAMEABLE}; not read" for d in odd]
    docs = [d for d in docs if nameable(d.rel)]
    heads = _heads(known, own_key(system, "root"), mine)
    by_file: dict[str, list[KnownFact]] = {}
    for k in heads.values():
        by_file.setdefault(str(k.provenance.get(own_key(system, "file"))), []).append(k)
    tree = gitlog.open_folder(root)  # None outside a git work tree
    out = _Out([], set(), set(), set(), {}, left_out)
    replayed = _replay(system, prefix, mine, root, tree, docs, locate, by_file, out)
    _read_files(system, prefix, mine, docs, replayed, by_file, heads, out, progress)
    deleted = {k.id for r, k in heads.items() if r not in out.seen and not k.deleted} | out.deleted
    if tree is not None:
        left_out += tree.left_out
    return Snapshot(
        system,
        source or str(root),
        out.facts,
        deleted,
        sorted(set(left_out)),
        kept=out.kept,
        deleted_at=out.deleted_at,
    )


def _heads(known: list[KnownFact] | None, root_key: str, root: str) -> dict[str, KnownFact]:
    """Record -> its latest version in the store, among the facts read from `root`."""
    heads: dict[str, KnownFact] = {}
    for k in known or []:
        if k.provenance.get(root_key) == root and (
            k.record not in heads or k.version > heads[k.record].version
        ):
            heads[k.record] = k
    return heads


def _read_files(
    system: str,
    prefix: str,
    root: str,
    docs: list[Doc],
    replayed: set[str],
    by_file: dict[str, list[KnownFact]],
    heads: dict[str, KnownFact],
    out: _Out,
    progress: Progress | None,
) -> None:
    """Read each file not replayed from git as it stands, against the store's facts of it:
    a file whose size and modification time are those the store recorded, or unreadable
    now, is not read again (what it gave before stays as it was)."""
    stamp_key = own_key(system, "stamp")
    report = every(progress, 200)
    for n, doc in enumerate(docs, start=1):
        report(n, len(docs))
        if doc.rel in replayed:
            continue
        stamp, mtime = _stamp(doc.path)
        alive = [k for k in by_file.get(doc.rel, ()) if not k.deleted]
        unchanged = alive and all(k.provenance.get(stamp_key) == stamp for k in alive)
        text = None if unchanged else _text(doc.path, out.left_out, doc.rel)
        if text is None:
            out.kept |= {k.id for k in alive}
            out.seen |= {k.record for k in alive}
            continue
        items = doc.parse(text, doc)
        out.left_out += doc.left_out
        for record, item, version, supersedes in _versions(
            system, prefix, doc, items, by_file.get(doc.rel, []), heads
        ):
            out.seen.add(record)
            out.facts.append(_fact(system, root, doc, record, item, version, supersedes, stamp, mtime))


# (the commit, or None for the work tree; when; the file's text then, None: no such file)
_State = tuple[gitlog.Commit | None, float | None, str | None]


@dataclass
class _Out:
    """What a replay adds to the snapshot read_docs builds."""

    facts: list[ParsedFact]
    seen: set[str]
    kept: set[str]
    deleted: set[str]
    deleted_at: dict[str, float]
    left_out: list[str]


def _replay(
    system: str,
    prefix: str,
    root_s: str,
    root: Path,
    tree: gitlog.Folder | None,
    docs: list[Doc],
    locate: Callable[[str], Doc | None] | None,
    by_file: dict[str, list[KnownFact]],
    out: _Out,
) -> set[str]:
    """Replay from git every file of the source git has history for (SPEC 9): each commit
    that changed it is a state, the work tree's uncommitted text the last; returns the
    files so read (under `root`, POSIX). A file whose last commit and size and
    modification time are those its facts in the store were read from is not replayed
    again: its facts count as unchanged."""
    if locate is None or tree is None:
        return set()
    history = tree.history()
    if not history:
        return set()
    by_rel = {d.rel: d for d in docs}
    chosen: list[tuple[str, str, Doc, list[tuple[gitlog.Commit, str | None]]]] = []
    done: set[str] = set()
    for path, changes in history.items():
        rel = _under(path, tree.inside, root)
        doc = None if rel is None else _history_doc(rel, by_rel, locate, out.left_out)
        if rel is None or doc is None:
            continue
        done.add(rel)
        if rel in by_rel and _as_synced(system, doc, changes[-1][0].sha, by_file.get(rel, ()), out):
            continue
        chosen.append((rel, path, doc, changes))
    if not chosen:
        return done
    dirty = tree.changed([path for _, path, _, _ in chosen])
    texts = iter(tree.texts(blob for _, _, _, changes in chosen for _, blob in changes))
    for rel, path, doc, changes in sorted(chosen, key=lambda c: c[0]):
        states: list[_State] = [(c, c.at, next(texts)) for c, _ in changes]
        if rel in by_rel:
            _add_work_tree(states, doc, path in dirty, out.left_out)
        elif states[-1][2] is not None:
            states.append((None, None, None))  # gone from the work tree, the removal not committed
        _replay_file(system, prefix, root_s, doc, states, changes[-1][0].sha, out)
        out.left_out += doc.left_out
    return done


def _add_work_tree(states: list[_State], doc: Doc, dirty: bool, left_out: list[str]) -> None:
    """The work tree's text of a file as its last state, where it differs from the last
    commit's (or that one could not be read); a file not UTF-8 now: its history stands."""
    if dirty or states[-1][2] is None:
        now = _text(doc.path, left_out, doc.rel)
        if now is not None:
            states.append((None, None, now))


def _under(path: str, inside: str, root: Path) -> str | None:
    """A path of the repository's history as a path under `root` (the work tree's folder
    `inside` the repository), POSIX; None when it is outside, or a link in the work tree."""
    rel = path if inside == "." else path.removeprefix(inside + "/")
    if rel == path and inside != "." or (root / rel).is_symlink():
        return None
    return rel


def _history_doc(
    rel: str, by_rel: dict[str, Doc], locate: Callable[[str], Doc | None], left_out: list[str]
) -> Doc | None:
    """The Doc a path git has history for is read as: the work tree's, else the one the
    reader names for it (gone from the work tree); None for a file the reader does not
    read, or whose name would not be visible text (said in `left_out` once)."""
    if not nameable(rel):
        if rel not in by_rel:  # named already, when it is in the work tree
            left_out.append(f"{shown_name(rel)}: {NOT_NAMEABLE}; not read")
        return None
    return by_rel.get(rel) or locate(rel)


def _as_synced(system: str, doc: Doc, last: str, known: Iterable[KnownFact], out: _Out) -> bool:
    """Whether a file's last commit, size and modification time are those its facts in the
    store were read from: then its facts count as unchanged, and it is not replayed again."""
    alive = [k for k in known if not k.deleted]
    if not alive:
        return False
    stamp_key, last_key = own_key(system, "stamp"), own_key(system, "last_commit")
    stamp = _stamp(doc.path)[0]
    if not all(k.provenance.get(stamp_key) == stamp and k.provenance.get(last_key) == last for k in alive):
        return False
    out.kept |= {k.id for k in alive}  # as it was at the last sync: not replayed
    out.seen |= {k.record for k in alive}
    return True


def _replay_file(
    system: str,
    prefix: str,
    root_s: str,
    doc: Doc,
    states: list[_State],
    last: str,
    out: _Out,
) -> None:
    """One file's states, oldest first, each read against the one before as a sync reads
    the source against the store: versions, and deletions at the commit that made them."""
    stamp, mtime = _stamp(doc.path) if doc.path.is_file() else ("", 0.0)
    section_key = own_key(system, "section")
    heads: dict[str, KnownFact] = {}
    for commit, at, text in states:
        doc.left_out = []  # what the last state set aside is what `left out` says
        items = doc.parse(text, doc) if text is not None else []
        for item in items:
            item.own["last_commit"] = last  # the file's history as this read saw it
            if commit is not None:
                _stamp_commit(item, commit)
        alive = [k for k in heads.values() if not k.deleted]
        present: set[str] = set()
        for record, item, version, supersedes in _versions(system, prefix, doc, items, alive, heads):
            present.add(record)
            head = heads.get(record)
            if head is not None and head.version == version and not head.deleted:
                continue  # unchanged by this commit
            fact = _fact(system, root_s, doc, record, item, version, supersedes, stamp, mtime)
            out.facts.append(fact)
            out.seen.add(record)
            heads[record] = KnownFact(
                fact.id, record, version, item.text, None, True, False, {section_key: item.section}
            )
        for record, k in list(heads.items()):
            if record not in present and not k.deleted:
                out.deleted.add(k.id)
                if at is not None:
                    out.deleted_at[k.id] = at
                heads[record] = replace(k, deleted=True)


def _stamp_commit(item: Item, commit: gitlog.Commit) -> None:
    item.committed = commit
    item.own.setdefault("author", commit.author)
    item.own.setdefault("commit", commit.sha)


def _versions(
    system: str, prefix: str, doc: Doc, items: list[Item], known: list[KnownFact], heads: dict[str, KnownFact]
) -> list[tuple[str, Item, int, str | None]]:
    """(record, item, version, id it supersedes) for each item of one file."""
    counts: dict[str, int] = {}
    records: list[str] = []
    for item in items:
        base = item.key if item.key is not None else _digest(item.text)
        counts[base] = counts.get(base, 0) + 1
        records.append(f"{prefix}{doc.rel}#{base}" + ("" if counts[base] == 1 else f"-{counts[base]}"))
    present = set(records)
    section_key = own_key(system, "section")
    # an edited item: a new hashed record and a vanished one of the same section, paired
    by_section: dict[Any, tuple[list[int], list[KnownFact]]] = {}
    for i, (record, item) in enumerate(zip(records, items, strict=True)):
        if item.key is None and record not in heads:
            by_section.setdefault(item.section, ([], []))[0].append(i)
    for k in known:
        if not k.deleted and k.record not in present and k.provenance.get(section_key) in by_section:
            if _HASHED.search(k.record):  # an item the source names is never re-paired
                by_section[k.provenance.get(section_key)][1].append(k)
    for fresh, gone in by_section.values():
        if gone:
            for u, v in pair_similar([items[i].text for i in fresh], [k.text for k in gone]):
                records[fresh[u]] = gone[v].record
    out: list[tuple[str, Item, int, str | None]] = []
    ids: dict[str, str] = {}
    for record, item in zip(records, items, strict=True):
        head = heads.get(record)
        if head is None:
            version, supersedes = 1, None
        elif head.text == item.text and not head.deleted:
            version, supersedes = head.version, None
        else:  # edited, or written again after it was deleted
            version, supersedes = head.version + 1, head.id
        ids[item.key or record] = fact_id(system, record, version)
        out.append((record, item, version, supersedes))
    # what the source itself says an item replaced, where that is not its own earlier text
    return [
        (record, item, version, supersedes or (ids.get(item.replaces) if item.replaces else None))
        for record, item, version, supersedes in out
    ]


def pair_similar(new: list[str], old: list[str]) -> list[tuple[int, int]]:
    """(new index, old index) pairs of texts one section gained and lost: one to one, by
    the Dice coefficient of their words, at least EDIT_SIMILARITY, best first. How many
    were added and removed plays no part: equal counts are no evidence of an edit."""
    bags_new, bags_old = [Counter(t.split()) for t in new], [Counter(t.split()) for t in old]
    scored = []
    for i, a in enumerate(bags_new):
        for j, b in enumerate(bags_old):
            size = a.total() + b.total()
            if size and (dice := 2 * (a & b).total() / size) >= EDIT_SIMILARITY:
                scored.append((-dice, i, j))
    pairs, done_new, done_old = [], set(), set()
    for _, i, j in sorted(scored):
        if i not in done_new and j not in done_old:
            pairs.append((i, j))
            done_new.add(i)
            done_old.add(j)
    return pairs


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def _fact(
    system: str,
    root: str,
    doc: Doc,
    record: str,
    item: Item,
    version: int,
    supersedes: str | None,
    stamp: str,
    mtime: float,
) -> ParsedFact:
    if version == 1 and item.at is not None:
        at, how = item.at, item.how
    elif version > 1 and item.revised is not None:
        at, how = item.revised, item.revised_how
    elif item.committed is not None:
        at, how = item.committed.at, FROM_GIT
    else:  # the change was made by the time the file was last modified
        at, how = mtime, FROM_MTIME
    provenance = source_provenance(
        system,
        record,
        version,
        root=root,
        file=doc.rel,
        line=item.line,
        section=item.section,
        time=how,
        stamp=stamp,
        **item.own,
    )
    obj: dict[str, Any] = {
        "id": fact_id(system, record, version),
        "text": item.text,
        "created_at": format_time(at),
        "tier": item.tier,
        "note": item.note or doc.note,
        "provenance": provenance,
    }
    if item.corroborations:
        obj["corroborations"] = item.corroborations
    if item.contradictions:
        obj["contradictions"] = item.contradictions
    later = sorted(t for t in item.reinforced_at if t > at)  # after creation, as Graphiti's episodes
    if later:
        obj["reinforced_at"] = [format_time(t) for t in later]
    entities = item.entities or ([item.section] if item.section else [])
    if entities:
        obj["entities"] = entities
    if supersedes:
        obj["supersedes"] = supersedes
    return parse_line(obj, errors_at(doc.path, item.line), item.line)


def _stamp(path: Path) -> tuple[str, float]:
    try:
        st = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None
    return f"{st.st_size}:{st.st_mtime_ns}", st.st_mtime


def _text(path: Path, left_out: list[str], rel: str) -> str | None:
    """The file's text, or None (and a line in `left_out`) when it is not UTF-8."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        left_out.append(f"{rel}: not valid UTF-8 at line {line}; not read")
        return None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def markdown_items(body: str, offset: int, **common: Any) -> list[Item]:
    """Each top-level bullet and paragraph of a Markdown body, under its heading (read as
    git-notes reads a note), as items sharing `common` fields."""
    own = common.pop("own", {})
    return [Item(b.text, b.line, b.section, own=dict(own), **common) for b in blocks(body, offset)]


def merged(system: str, snapshots: list[Snapshot]) -> Snapshot:
    """One Snapshot of several roots read by one reader (a home folder and a project)."""
    first = snapshots[0]
    for other in snapshots[1:]:
        first.facts += other.facts
        first.deleted |= other.deleted
        first.kept |= other.kept
        first.left_out = sorted(set(first.left_out) | set(other.left_out))
    first.source = ", ".join(s.source for s in snapshots)
    return first
