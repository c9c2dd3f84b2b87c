"""Which notes of a folder in git a sync need not replay again (SPEC 9).

A replay of a note depends only on its states: the commits that changed it (as the
folder's history lists them, oldest first) and the work tree's text, and on the rules that
read it. Each fact a replay gives records the file as it stood and the rules that read it
(`x-<system>-stamp`: its size, modification time and RULES); the reader's record of the
folder (`Snapshot.read_record`, kept in the store's meta `read.<system>`) says the HEAD
every note of it was read at, or found unchanged at, by the last sync (`HEAD_KEY`). A note
whose facts carry its stamp now and that no commit after that HEAD changed gives what it
gave: its facts are kept as they are, untouched (a commit elsewhere writes nothing on
them), and only the other notes are replayed, each whole.

Where that cannot be known, the note is replayed: no record of the folder (a store written
before it), a fact of the note without its stamp now (an edit, other rules), the HEAD not
in the history read now as its beginning (a rewritten history, a force-push, gone), a
shallow clone.

RULES is one digest of the code of every Markdown reader (their modules' sources, and the
release where those cannot be read): any change to that code reads every file once more,
a refactor too. That costs one full read after an upgrade; a version number kept by hand
instead costs a store quietly unlike a full read when someone forgets to raise it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from synapse_tui.core.ingest.adapters import KnownFact, gitlog, own_key


def stamp(path: Path) -> str:
    """A file's size and modification time as the work tree holds it (a link's own, not
    its target's), and the rules read by; "" when there is none: equal, the file is taken
    as unchanged and read by these rules."""
    try:
        st = os.lstat(path)
    except OSError:
        return ""
    return f"{st.st_size}:{st.st_mtime_ns}:{RULES}"


def rules_of(*modules: str | Path) -> str:
    """A digest of the code a reader reads notes with (its modules' sources, and the
    release where they cannot be read, an install of bytecode alone): a change to it
    reads every note once more."""
    digest = hashlib.blake2b(digest_size=6)
    try:
        digest.update(metadata.version("synapse-tui").encode())
    except metadata.PackageNotFoundError:
        pass
    for name in modules:
        try:
            digest.update(Path(name).read_bytes())
        except OSError:
            digest.update(str(name).encode())
    return digest.hexdigest()


# the modules whose code decides what a Markdown file gives (as facts, as `left out`)
READERS = (
    "markdown_memory", "mditems", "mdfolder", "mdhistory", "mdtext", "gitlog", "linediff", "gitkept",
    "git_notes", "claude_code", "codex", "gemini_cli", "cursor", "openclaw", "markdown",
)  # fmt: skip
RULES = rules_of(*(Path(__file__).with_name(f"{name}.py") for name in READERS))

# the reader's record of a folder: this entry (no file is named "") holds what the whole
# folder was read at; the others are files (mditems.Found.note)
FOLDER = ""
HEAD_KEY = "head"


def recorded_head(read_before: dict[str, Any] | None, root: str) -> str | None:
    """The HEAD the last sync read the folder `root` at, as the reader's record says it."""
    files = (read_before or {}).get(root)
    entry = files.get(FOLDER) if isinstance(files, dict) else None
    head = entry.get(HEAD_KEY) if isinstance(entry, dict) else None
    return head if isinstance(head, str) else None


def folder_entry(tree: gitlog.Folder) -> dict[str, Any]:
    """The record of a folder as read now: its HEAD (none before the first commit)."""
    head = tree.head_sha()
    return {FOLDER: {HEAD_KEY: head}} if head else {}


@dataclass
class Kept:
    """The outcome: the notes not replayed, what a replay would have listed of them, and
    the notes that must be."""

    paths: set[str] = field(default_factory=set)  # notes not replayed (paths from the top)
    ids: set[str] = field(default_factory=set)  # the facts a replay would list of them
    replay: set[str] = field(default_factory=set)  # notes with facts in the store to replay
    changed: set[str] = field(default_factory=set)  # files commits since changed (from the top)


def as_synced(
    system: str,
    tree: gitlog.Folder,
    facts: Sequence[KnownFact],
    path_of: Callable[[KnownFact], str | None],
    then: str | None,
) -> Kept | None:
    """Of `facts` (the store's facts of one folder, every version), grouped by note
    (`path_of`: a fact's note as a path from the top of the work tree), those whose note
    is as it was synced at `then` (the HEAD the reader's record says). None when no note
    is, or the history is not the one read then with commits added (the whole folder is
    replayed)."""
    if then is None or tree.head_sha() is None:
        return None
    changed = tree.since(then)
    if changed is None:  # which files commits since changed is not known
        return None
    stamp_key, commit_key = own_key(system, "stamp"), own_key(system, "commit")
    notes: dict[str, list[KnownFact]] = {}
    for k in facts:
        if (path := path_of(k)) is not None:
            notes.setdefault(path, []).append(k)
    out = Kept(changed=changed)
    walked = set(tree.walk())
    for path, mine in sorted(notes.items()):
        listed = _listed(mine, commit_key, walked)
        judged = [k for k in listed if not k.deleted] or listed  # a note gone: its last read
        now = stamp(tree.top / path)
        if path in changed or not judged or any(k.provenance.get(stamp_key) != now for k in judged):
            out.replay.add(path)
            continue
        out.paths.add(path)
        out.ids |= {k.id for k in listed}
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
