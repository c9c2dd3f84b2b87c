"""Which notes of a folder in git a sync need not replay again (SPEC 9).

A replay of a note depends only on its states: the commits that changed it (as the
folder's history lists them, oldest first) and the work tree's text. Each fact a replay
gives records the history it was read from (`x-<system>-head`: HEAD then), the file as it
stood (`-stamp`: its size and modification time, as `lstat` gives them) and the rules that
read it (`-rules`: a digest of the reader's code); a sync refreshes those keys on the facts
it does not change. A note whose facts say HEAD was H, whose file is as it was, read by the
same rules, and that no commit after H changed, gives what it gave: its facts are kept as
they are, and only the other notes are replayed, each whole.

Where that cannot be known, the note is replayed: no fact of it records those keys (a store
written before them, a note that never gave a fact), they disagree, H is not in the history
read now as its beginning (a rewritten history, a force-push, H gone), the clone is shallow.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from synapse_tui.core.ingest.adapters import Evidence, KnownFact, gitlog, own_key


def stamp(path: Path) -> str:
    """A file's size and modification time as the work tree holds it (a link's own, not
    its target's), "" when there is none: equal, the file is taken as unchanged."""
    try:
        st = os.lstat(path)
    except OSError:
        return ""
    return f"{st.st_size}:{st.st_mtime_ns}"


def rules_of(*modules: str) -> str:
    """A digest of the code a reader reads notes with (its modules' sources, and the
    release where they cannot be read, an install of bytecode alone): a change to it
    replays every note once."""
    digest = hashlib.blake2b(digest_size=6)
    try:
        digest.update(metadata.version("synapse-tui").encode())
    except metadata.PackageNotFoundError:
        pass
    for name in modules:
        try:
            digest.update(Path(name).read_bytes())
        except OSError:
            digest.update(name.encode())
    return digest.hexdigest()


@dataclass
class Kept:
    """The outcome: the notes not replayed, what a replay would have listed of them, and
    the notes that must be."""

    paths: set[str] = field(default_factory=set)  # notes not replayed (paths from the top)
    ids: set[str] = field(default_factory=set)  # the facts a replay would list of them
    evidence: list[Evidence] = field(default_factory=list)  # their record of HEAD, moved on
    replay: set[str] = field(default_factory=set)  # notes with facts in the store to replay
    changed: set[str] = field(default_factory=set)  # files commits since changed (from the top)


def as_synced(
    system: str,
    tree: gitlog.Folder,
    facts: Sequence[KnownFact],
    path_of: Callable[[KnownFact], str | None],
    rules: str,
) -> Kept | None:
    """Of `facts` (the store's facts of one folder, every version), grouped by note
    (`path_of`: a fact's note as a path from the top of the work tree), those whose note
    is as it was synced. None when no note is, or the history is not the one read then
    with commits added (the whole folder is replayed)."""
    head = tree.head_sha()
    if head is None:
        return None
    keys = own_key(system, "head"), own_key(system, "stamp"), own_key(system, "rules")
    commit_key = own_key(system, "commit")
    notes: dict[str, list[KnownFact]] = {}
    for k in facts:
        if (path := path_of(k)) is not None:
            notes.setdefault(path, []).append(k)
    out = Kept()
    since: dict[str, set[str] | None] = {}
    walked = set(tree.walk())
    for path, mine in sorted(notes.items()):
        listed = _listed(mine, commit_key, walked)
        judged = [k for k in listed if not k.deleted] or listed  # a note gone: its last read
        then = _as_read(judged, keys, rules, stamp(tree.top / path))
        if then is None:
            out.replay.add(path)
            continue
        if then not in since:
            since[then] = tree.since(then)
            if since[then] is None:  # which files commits since changed is not known
                return None
            out.changed |= since[then] or set()
        if path in (since[then] or ()):
            out.replay.add(path)
            continue
        out.paths.add(path)
        out.ids |= {k.id for k in listed}
        out.evidence += _moved_on(judged, keys[0], head)
    return out if out.paths else None


def _listed(facts: Sequence[KnownFact], commit_key: str, walked: set[str]) -> list[KnownFact]:
    """What a replay of a note lists of the store's facts of it: every version committed
    in the history read now (not one of a history rewritten since), and the text nobody
    committed yet that nothing supersedes (an edit of it edited again is the store's)."""
    return [
        k
        for k in facts
        if k.provenance.get(commit_key) in walked
        or (not k.provenance.get(commit_key) and k.head and not k.deleted)
    ]


def _as_read(judged: Sequence[KnownFact], keys: Sequence[str], rules: str, now: str) -> str | None:
    """The HEAD a note's facts say it was read at, when they all say one, with these
    rules, and its file as it stands now (`now`); else None."""
    said = {tuple(k.provenance.get(key) for key in keys) for k in judged}
    if len(said) != 1:
        return None
    then, was, read_by = said.pop()
    return then if isinstance(then, str) and read_by == rules and was == now else None


def _moved_on(facts: Iterable[KnownFact], key: str, head: str) -> list[Evidence]:
    """The record of HEAD on a kept note's facts, where HEAD moved on (commits that did
    not change it): what a replay of it would refresh."""
    return [
        Evidence(k.id, 0, [], {key: head}, {key: k.provenance.get(key)})
        for k in facts
        if k.provenance.get(key) != head
    ]
