"""Git history for mdfolder's readers (SPEC 9): in a git work tree, each file of the
source that git has history for is replayed commit by commit, as a sync reads a source
against the store (see mdfolder's docstring, "Git history")."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from synapse_tui.core.ingest.adapters import KnownFact, gitkept, gitlog, out_of_reach, own_key
from synapse_tui.core.ingest.adapters.git_notes import NOT_NAMEABLE, nameable, shown_name
from synapse_tui.core.ingest.adapters.markdown_memory import next_of
from synapse_tui.core.ingest.adapters.mditems import (
    Doc,
    Found,
    Item,
    as_read,
    file_stamp,
    file_text,
    stamped_by,
    to_fact,
    versions,
)
from synapse_tui.core.ingest.interchange import ParsedFact

# (the commit, or None for the work tree; when; the file's text then, None: no such file)
_State = tuple[gitlog.Commit | None, float | None, str | None]


def replay(
    system: str,
    prefix: str,
    root_s: str,
    root: Path,
    tree: gitlog.Folder | None,
    docs: list[Doc],
    locate: Callable[[str], Doc | None] | None,
    by_file: dict[str, list[KnownFact]],
    out: Found,
    held: dict[str, list[KnownFact]] | None = None,
) -> set[str]:
    """Replay from git every file of the source git has history for (SPEC 9): each commit
    that changed it is a state, the work tree's uncommitted text the last; returns the
    files so read (under `root`, POSIX). A file whose last commit and size and
    modification time are those its facts in the store were read from is not replayed
    again: its facts count as unchanged. Where the reader's record says the HEAD the last
    sync read at (`_since`), git reads the history of only the files commits since changed
    or that are not as synced: an unchanged folder is not walked. `held`: each file's facts
    in the store, every version (see `_Held`)."""
    if locate is None or tree is None:
        return set()
    by_rel = {d.rel: d for d in docs}
    since = _since(system, tree, root, by_rel, by_file, held or {}, out)
    history = tree.history() if since is None else tree.history(only=since[0])
    done: set[str] = set() if since is None else since[1]
    walked = set(tree.walk()) if history else set()  # the commits `history` read (none: not walked)
    chosen = _chosen(system, tree, root, history, by_rel, locate, by_file, held or {}, out, done, walked)
    if not chosen:
        return done
    chosen.sort(key=lambda c: c[0])  # the blobs are read in the order the files are replayed
    dirty = tree.changed([path for _, path, _, _ in chosen])
    texts = iter(tree.texts(blob for _, _, _, changes in chosen for _, blob in changes))
    for rel, path, doc, changes in chosen:
        lines: list[str] = []  # what `left out` says of this file
        states = _committed(tree, rel, changes, texts, lines)
        if rel in by_rel:
            _add_work_tree(states, doc, path in dirty, lines)
        elif states and states[-1][2] is not None:
            states.append((None, None, None))  # gone from the work tree, the removal not committed
        mine = _Held(system, (held or {}).get(rel, []))
        empty = _replay_file(system, prefix, root_s, doc, states, changes[-1][0].sha, out, mine)
        lines += doc.left_out
        out.left_out += lines
        stray = _strays(system, walked, mine.known)
        if rel in by_rel:
            out.note(doc, file_stamp(doc.path)[0], changes[-1][0].sha, empty, lines, stray)
        elif stray:  # gone from the work tree: only what a later sync needs to keep it
            out.note(doc, _gone(), changes[-1][0].sha, False, [], stray)
    return done


def _gone() -> str:
    """The stamp of a file gone from the work tree: no size nor time, the rules only."""
    return f"::{gitkept.RULES}"


def _strays(system: str, walked: set[str], known: Iterable[KnownFact]) -> list[str]:
    """The store's facts of a file a replay of it does not list: those of commits the
    history read now (`walked`) does not hold (a rewritten history dropped them). They stay
    as they are (a replay leaves them, live or not); the reader's record names them, so a
    later sync judges the file by the facts a replay gives (`_as_synced`)."""
    commit_key = own_key(system, "commit")
    return sorted(k.id for k in known if (c := k.provenance.get(commit_key)) and c not in walked)


def _stray(note: Any) -> set[str]:
    """The ids the reader's record of a file names as not listed by its replay (`_strays`)."""
    ids = note.get("stray") if isinstance(note, dict) else None
    return {i for i in ids if isinstance(i, str)} if isinstance(ids, list) else set()


_Chosen = tuple[str, str, Doc, list[tuple[gitlog.Commit, str | None]]]


def _chosen(
    system: str,
    tree: gitlog.Folder,
    root: Path,
    history: dict[str, list[tuple[gitlog.Commit, str | None]]],
    by_rel: dict[str, Doc],
    locate: Callable[[str], Doc | None],
    by_file: dict[str, list[KnownFact]],
    held: dict[str, list[KnownFact]],
    out: Found,
    done: set[str],
    walked: set[str],
) -> list[_Chosen]:
    """Of the files `history` holds, those to replay (each file the reader reads is added
    to `done`): not those as synced (`_as_synced`; `walked`: the commits `history` read)."""
    chosen: list[_Chosen] = []
    for path, changes in history.items():
        rel = _under(path, tree.inside, root)
        if rel is not None and rel not in by_rel and out_of_reach(root / rel):
            continue  # there, not read (a FIFO; named by the walk): not gone, its facts kept
        doc = None if rel is None else _history_doc(rel, by_rel, locate, out.left_out)
        if rel is None or doc is None:
            continue
        done.add(rel)
        stored = held.get(rel, [])
        last, stray = changes[-1][0].sha, set(_strays(system, walked, stored))
        if rel in by_rel and _as_synced(system, doc, last, by_file.get(rel, ()), stored, out, stray):
            continue
        chosen.append((rel, path, doc, changes))
    return chosen


def _committed(
    tree: gitlog.Folder,
    rel: str,
    changes: list[tuple[gitlog.Commit, str | None]],
    texts: Iterator[str | None],
    left_out: list[str],
) -> list[_State]:
    """A file's committed states, its next texts taken from `texts`, less the versions git
    holds as binary files (named in `left_out`): passed over, not removals."""
    left_out += tree.binary_left_out(shown_name(rel), changes)
    kept, read = tree.without_binary(changes, [next(texts) for _ in changes])
    return [(c, c.at, t) for (c, _), t in zip(kept, read, strict=True)]


def _add_work_tree(states: list[_State], doc: Doc, dirty: bool, left_out: list[str]) -> None:
    """The work tree's text of a file as its last state, where it differs from the last
    commit's (or that one could not be read); a file not UTF-8 now: its history stands."""
    if dirty or not states or states[-1][2] is None:
        now = file_text(doc.path, left_out, doc.rel)
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


def _since(
    system: str,
    tree: gitlog.Folder,
    root: Path,
    by_rel: dict[str, Doc],
    by_file: dict[str, list[KnownFact]],
    held: dict[str, list[KnownFact]],
    out: Found,
) -> tuple[set[str], set[str]] | None:
    """The files whose history a sync must read (paths from the top), and those it keeps
    as synced without it (under `root`), when the reader's record says the HEAD the last
    sync read at and the history now is that one with commits added (gitlog.since); None:
    read the whole history. A file no commit since changed has the last commit its facts
    (or its record) say: kept when its stamp says it is as read (`_as_synced`), a file gone
    when each version a replay lists is stamped by these rules (`_gone_as_synced`)."""
    entry = out.before.get(gitkept.FOLDER)
    then = entry.get(gitkept.HEAD_KEY) if isinstance(entry, dict) else None
    changed = tree.since(then) if isinstance(then, str) and tree.head_sha() else None
    if changed is None:
        return None
    top = (lambda rel: rel) if tree.inside == "." else (lambda rel: f"{tree.inside}/{rel}")
    only, done = set(changed), set()
    for rel, doc in by_rel.items():
        last = _last_read(system, by_file.get(rel, ()), out.before.get(rel))
        if top(rel) in changed or last == "":  # changed, or read as it stands: not in git
            continue
        if last is not None and _as_synced(system, doc, last, by_file.get(rel, ()), held.get(rel, []), out):
            done.add(rel)
        else:
            only.add(top(rel))
    for rel, facts in held.items():
        if rel not in by_rel and top(rel) not in changed:
            if _gone_as_synced(system, rel, facts, out):
                done.add(rel)
            else:
                only.add(top(rel))
    return only, done


def _last_read(system: str, known: Iterable[KnownFact], note: Any) -> str | None:
    """The last commit of a file as the last sync read it: the one its facts say (or its
    record, of a file that gave none); "" when it was read as it stood (not in git then);
    None when that is not known (it was never read, or its facts disagree)."""
    last_key, stray = own_key(system, "last_commit"), _stray(note)  # a replay lists no stray fact
    said = {str(k.provenance.get(last_key) or "") for k in known if not k.deleted and k.id not in stray}
    if not said and isinstance(note, dict):
        said = {str(note.get("commit") or "")}
    return said.pop() if len(said) == 1 else None


def _gone_as_synced(system: str, rel: str, facts: list[KnownFact], out: Found) -> bool:
    """Whether a file gone from the work tree before the last sync, each record's last
    version flagged deleted (or not listed by its replay: the reader's record names it,
    `_strays`), was replayed by these rules (a version its replay lists is stamped by
    them): then a replay lists those versions again, counted as unchanged."""
    commit_key, stamp_key = own_key(system, "commit"), own_key(system, "stamp")
    note = out.before.get(rel)
    stray = _stray(note) if isinstance(note, dict) and note.get("stamp") == _gone() else set()
    facts = [k for k in facts if k.id not in stray]
    if any(k.head and not k.deleted for k in facts) or not any(
        _relisted(k, commit_key, stamp_key) for k in facts
    ):
        return False
    listed = [k for k in facts if not k.deleted or _relisted(k, commit_key, stamp_key)]
    out.kept |= {k.id for k in listed}
    if stray:
        out.seen |= {k.record for k in listed}  # a stray head's record, as a replay sees it
        out.record[rel] = note
    return True


def _as_synced(
    system: str,
    doc: Doc,
    last: str,
    known: Iterable[KnownFact],
    every: Iterable[KnownFact],
    out: Found,
    stray: set[str] | None = None,
) -> bool:
    """Whether a file's last commit, size and modification time are those its facts in the
    store were read from (a sync refreshes them on the facts it does not change), or, of a
    file that gave no fact, those the reader's record of it says (`Found.recalled`): then
    its facts count as unchanged, and it is not replayed again. `every`: each version the
    store holds of the file, all of which but the texts nobody committed that are gone a
    replay would list again (history included); `stray`: those of commits the history does
    not hold (`_strays`, where the history was walked; else as the record says), which a
    replay does not list: neither judged nor counted."""
    stamp_key, last_key = own_key(system, "stamp"), own_key(system, "last_commit")
    stamp = file_stamp(doc.path)[0]
    note = out.recalled(doc, stamp, last)
    strays = _stray(note) if stray is None else stray
    alive = [k for k in known if not k.deleted and k.id not in strays]
    if alive and not all(k.provenance.get(last_key) == last for k in alive):
        return False
    # (a file whose every head is stray: its record, at this stamp and last commit, says so)
    if not as_read(alive, stamp_key, stamp, note, out.noted_before(doc)) and not (
        strays and not alive and note is not None
    ):
        return False
    commit_key = own_key(system, "commit")
    listed = [
        k for k in every if (not k.deleted or _relisted(k, commit_key, stamp_key)) and k.id not in strays
    ]
    out.kept |= {k.id for k in [*alive, *listed]}  # as it was at the last sync: not replayed
    # a stray head's record too, as a replay sees it (listed holds every alive fact)
    out.seen |= {k.record for k in (listed if strays else alive)}
    if note is not None:
        out.carry(doc, note)
    if strays != _stray(note):  # the history walked now names them: so does the record, for the next sync
        out.record.pop(doc.rel, None)
        lines = note.get("left_out") if note is not None else None
        empty = note is not None and note.get("empty") is True
        out.note(doc, stamp, last, empty, lines if isinstance(lines, list) else [], sorted(strays))
    return True


def _relisted(k: KnownFact, commit_key: str, stamp_key: str) -> bool:
    """Whether a replay lists again a version the store holds deleted: one of the history
    (committed) that these rules read (its stamp says so: mdfolder restamps the history a
    replay by newer rules lists again), not a fact older rules made and these no longer do."""
    return bool(k.provenance.get(commit_key)) and stamped_by(k.provenance.get(stamp_key)) == gitkept.RULES


def _replay_file(
    system: str,
    prefix: str,
    root_s: str,
    doc: Doc,
    states: list[_State],
    last: str,
    out: Found,
    held: _Held,
) -> bool:
    """One file's states, oldest first, each read against the one before as a sync reads
    the source against the store: versions, and deletions at the commit that made them.
    Whether the last state gave no item."""
    # a file gone: no size nor time, the rules only (what `_gone_as_synced` asks)
    stamp, mtime = file_stamp(doc.path) if doc.path.is_file() else (_gone(), 0.0)
    section_key = own_key(system, "section")
    heads: dict[str, KnownFact] = {}
    written: dict[str, ParsedFact] = {}  # record -> the fact of its latest version
    lines: dict[str, Item] = {}  # record -> its item in the latest state holding it
    items: list[Item] = []
    for commit, at, text in states:
        doc.left_out, doc.skipped = [], {}  # what the last state set aside is what `left out` says
        items = doc.parse(text, doc) if text is not None else []
        for item in items:
            item.own["last_commit"] = last  # the file's history as this read saw it
            if commit is not None:
                _stamp_commit(item, commit)
        alive = [k for k in heads.values() if not k.deleted]
        present: set[str] = set()
        for record, item, version, supersedes in versions(system, prefix, doc, items, alive, heads):
            present.add(record)
            lines[record] = item
            head = heads.get(record)
            if head is not None and head.version == version and not head.deleted:
                continue  # unchanged by this commit
            fact = to_fact(system, root_s, doc, record, item, version, supersedes, stamp, mtime)
            fact.id = held.own_id(fact.id, item.text)
            before = held.unsaved_head(record, fact.id, supersedes, version) if commit is None else None
            if before is not None:  # the work tree's text edits one nobody committed
                next_of(fact, before)
            out.facts.append(fact)
            written[record] = fact
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
    for record, fact in written.items():  # a text unchanged since: its lines where it stands now
        if not heads[record].deleted and fact.provenance is not None:
            fact.provenance.update(_lines(system, lines[record]))
    replayed = {k.id for k in heads.values()} | {f.id for f in out.facts}
    out.deleted |= held.unsaved_gone(replayed | {f.supersedes for f in out.facts if f.supersedes})
    return not items


def _lines(system: str, item: Item) -> dict[str, int]:
    """The provenance keys saying where an item stands: its line (and a Codex block's)."""
    out = {own_key(system, "line"): item.line}
    if isinstance(item.own.get("block_line"), int):
        out[own_key(system, "block_line")] = item.own["block_line"]
    return out


class _Held:
    """A file's facts in the store, every version, against a replay of it. A version
    nobody committed yet is numbered after the last commit, so the work tree's next text of
    the same item, before any commit, gets that number again: it is another fact, with its
    own id (`@n~` and a hash of its text) and supersedes the one it edits (v1 <- v2 <- v3,
    as commits would give); a version the store holds with the same text keeps its id, and
    the link it was stored with (committed later, the chain stays). A text read from the
    work tree that the work tree no longer holds, and that nothing supersedes (the edit
    undone), is gone: git's history never had it."""

    def __init__(self, system: str, known: list[KnownFact]) -> None:
        self.known = known
        self.texts = {k.id: k.text for k in known}
        self.commit_key = own_key(system, "commit")

    def own_id(self, fid: str, text: str) -> str:
        if self.texts.get(fid, text) == text:
            return fid
        return fid + "~" + hashlib.blake2b(text.encode(), digest_size=4).hexdigest()

    def unsaved_head(
        self, record: str, fid: str, supersedes: str | None = None, version: int = 0
    ) -> KnownFact | None:
        """The record's version the store holds that nobody committed and nothing
        supersedes, when `fid` is new to the store: what the work tree's new text edits.
        Else the version it supersedes (`supersedes`) where the store numbered that one
        `version` or later (a chain of uncommitted edits, committed since: git numbers it
        lower): never two versions of a record with one number."""
        if fid in self.texts:
            return None  # read before: it keeps the link it was stored with
        for k in self.known:
            if k.record == record and k.head and not k.deleted and self._unsaved(k):
                return k
        return next((k for k in self.known if k.id == supersedes and k.version >= version), None)

    def unsaved_gone(self, replayed: set[str]) -> set[str]:
        """The texts nobody committed that this read neither gives nor supersedes, and
        nothing in the store supersedes (a version in a chain stays history)."""
        return {
            k.id for k in self.known if k.head and not k.deleted and k.id not in replayed and self._unsaved(k)
        }

    def _unsaved(self, k: KnownFact) -> bool:
        return not k.provenance.get(self.commit_key)


def _stamp_commit(item: Item, commit: gitlog.Commit) -> None:
    item.committed = commit
    item.own.setdefault("author", commit.author)
    item.own.setdefault("commit", commit.sha)
