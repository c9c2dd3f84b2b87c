"""What git knows about a folder of Markdown: who wrote each line, and when.

Read through `core.base.safegit`: plumbing on committed objects only, so nothing the
repository names (filters, textconv, signature programs, fsmonitor, hooks) ever runs, and
nothing is written there. The work tree is compared with the committed blobs here, in
Python, never by `git status`.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Collection, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.safegit import Commit, Hunk, Repo
from synapse_tui.core.ingest.adapters import linediff

__all__ = ["BINARY", "Commit", "Folder", "in_commits", "lenient_utf8", "open_folder", "open_or_left_out"]


_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # a commit's full id, SHA-1 or SHA-256
PATHS_AT_ONCE = 500  # paths named to one `git diff-tree`: far below any command line's limit
BINARY = "a binary file (it holds NUL bytes)"  # a version of a note that is no text


def in_commits(states: Iterable[tuple[Commit, str | None]], blobs: AbstractSet[str]) -> list[str]:
    """The short commits of a file's `states` (each commit and its blob) whose blob is one
    of `blobs` (those `texts` found binary, or not UTF-8): what a `left out` line names."""
    return [c.sha[:7] for c, blob in states if blob is not None and blob in blobs]


def lenient_utf8(data: bytes) -> tuple[str, bool]:
    """`data` as text, and whether it was not UTF-8 (its bad bytes then read as U+FFFD)."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace"), True


@dataclass
class Folder:
    """A folder in a git work tree, read as data."""

    repo: Repo
    inside: str  # the folder, relative to the top of the work tree ('.' for the top)
    _head: dict[str, tuple[str, str]] | None = field(default=None, repr=False)  # path -> (mode, blob)
    _head_sha: str | None = field(default=None, repr=False)
    _head_read: bool = field(default=False, repr=False)
    _hunks: dict[tuple[str, str], list[Hunk]] | None = field(default=None, repr=False)
    _walk: list[str] | None = field(default=None, repr=False)
    not_utf8: set[str] = field(default_factory=set, repr=False)  # blobs `texts` read with U+FFFD
    binary: set[str] = field(default_factory=set, repr=False)  # blobs `texts` found not texts (NUL bytes)

    @property
    def top(self) -> Path:
        return self.repo.top

    @property
    def left_out(self) -> list[str]:
        return self.repo.left_out

    def _paths(self) -> list[str]:
        return [] if self.inside == "." else [self.inside]

    def history(
        self, suffix: str = "", only: Collection[str] | None = None
    ) -> dict[str, list[tuple[Commit, str | None]]]:
        """Every file ending in `suffix` that ever was below the folder (path relative to
        the top), with each commit that changed it and its blob after that commit (None:
        removed, or a link or submodule there), oldest first; a rename is a removal and an
        addition. `only`: of these files (paths relative to the top), the same lists, git
        reading no other file's changes (a sync replaying a few notes)."""
        if only is not None and not only:
            return {}
        shas = self.walk()
        paths = self._paths() if only is None else sorted(only)
        changed = self.repo.changes(shas, paths)
        commits = self.repo.commits([s for s in shas if changed.get(s)])
        found: dict[str, list[tuple[Commit, str | None]]] = {}
        for sha, changes in changed.items():
            if sha not in commits:
                continue
            for change in changes:
                if change.path.endswith(suffix):  # a link's text is its target: not a note
                    found.setdefault(change.path, []).append((commits[sha], change.file))
        return found

    def walk(self) -> list[str]:
        """The commits from HEAD that changed the folder, oldest first, as `history` reads
        them (git's own history simplification). Read once."""
        if self._walk is None:
            self._walk = self.repo.rev_list("HEAD", self._paths(), reverse=True)
        return self._walk

    def hunks(self, only: Collection[str] | None = None) -> dict[tuple[str, str], list[Hunk]]:
        """git's own hunks of every change `history` lists, per pair of blobs (before,
        after): where a removed and an added block can be one block edited. `only`: of
        these files alone (paths relative to the top; the notes replayed), git diffing no
        other file: a folder's code and lock files are most of its history. Read once."""
        if only is not None:
            found: dict[tuple[str, str], list[Hunk]] = {}
            paths = sorted(only)
            for at in range(0, len(paths), PATHS_AT_ONCE):
                found.update(self.repo.hunks(self.walk(), paths[at : at + PATHS_AT_ONCE]))
            return found
        if self._hunks is None:
            self._hunks = self.repo.hunks(self.walk(), self._paths())
        return self._hunks

    def since(self, then: str) -> set[str] | None:
        """The files below the folder (paths relative to the top) that the commits read
        after `then` changed: set() when HEAD is still `then`. None when this history is not
        the one read from `then` with commits added after it (a rewritten history, a
        force-push, `then` gone), or the clone is shallow: no file's history is known."""
        if not _SHA.fullmatch(then):  # a store's word, not a name git would resolve (`HEAD`)
            return None
        if then == self.head_sha():
            return set()
        if self._shallow():
            return None
        before = self.repo.rev_list(then, self._paths(), reverse=True) if self.repo.resolve(then) else None
        walk = self.walk()
        if not before or walk[: len(before)] != before:
            return None
        return {
            c.path
            for changes in self.repo.changes(walk[len(before) :], self._paths()).values()
            for c in changes
        }

    def _shallow(self) -> bool:
        out = self.repo.run("rev-parse", "--is-shallow-repository")
        return out is None or out.strip() != b"false"

    def head_sha(self) -> str | None:
        """The commit HEAD names (None before the first commit). Read once."""
        if not self._head_read:
            self._head_sha, self._head_read = self.repo.head(), True
        return self._head_sha

    def last_commits(self) -> dict[str, Commit]:
        """For each file below the folder, the last commit that changed it."""
        return {path: states[-1][0] for path, states in self.history().items()}

    def texts(self, blobs: Iterable[str | None]) -> list[str | None]:
        """The text of each blob (None for None or a missing one), in one read; a blob that
        is not UTF-8 is read with U+FFFD for its bad bytes and kept in `not_utf8`; one that
        holds a NUL byte is a binary file, not a text: None, and kept in `binary`
        (`without_binary` leaves such versions out of a replay)."""
        ids = list(blobs)
        wanted = [b for b in ids if b is not None]
        got = dict(zip(wanted, self.repo.objects(wanted), strict=True))
        out: list[str | None] = []
        for b in ids:
            data = got.get(b) if b is not None else None
            out.append(None if b is None or data is None else self._text(b, data))
        return out

    def _text(self, blob: str, data: bytes) -> str | None:
        if b"\0" in data:
            self.binary.add(blob)
            return None
        text, bad = lenient_utf8(data)
        if bad:
            self.not_utf8.add(blob)
        return text

    def without_binary(
        self, states: list[tuple[Commit, str | None]], texts: list[str | None]
    ) -> tuple[list[tuple[Commit, str | None]], list[str | None]]:
        """A file's states (each commit and its blob) and their texts less the versions
        `texts` found binary: not read, so not a removal either; the facts before stand."""
        kept = [k for k, (_, blob) in enumerate(states) if blob is None or blob not in self.binary]
        return [states[k] for k in kept], [texts[k] for k in kept]

    def binary_left_out(self, name: str, states: Iterable[tuple[Commit, str | None]]) -> list[str]:
        """The `left out` line of a file (`name`, as shown) that `texts` found binary in
        some of its commits (`states`: each commit and its blob), naming them; none else."""
        shas = in_commits(states, self.binary)
        if not shas:
            return []
        return [f"{name}: {BINARY} in commit {', '.join(shas)}; not read as text"]

    def head_tree(self) -> dict[str, tuple[str, str]]:
        if self._head is None:
            head = self.head_sha()
            entries = self.repo.ls_tree(head, self._paths()) if head else []
            self._head = {e.path: (e.mode, e.sha) for e in entries}
        return self._head

    def changed(self, paths: Iterable[str]) -> set[str]:
        """Of `paths` (relative to the top), those whose file differs from the last commit,
        was never committed, or is gone: the work tree's bytes against HEAD's blobs (a
        checkout's CRLF line ends counted the same as the committed LF)."""
        head = self.head_tree()
        out = set()
        for path in paths:
            entry = head.get(path)
            if entry is None or not self._same(self.top / path, *entry):
                out.add(path)
        return out

    def _same(self, file: Path, mode: str, blob: str) -> bool:
        try:
            if mode == "120000":
                return file.is_symlink() and self.repo.blob_id(os.fsencode(os.readlink(file))) == blob
            if file.is_symlink() or not file.is_file():
                return False
            data = file.read_bytes()
        except OSError:
            return False
        return self.repo.blob_id(data) == blob or (
            b"\r\n" in data and self.repo.blob_id(data.replace(b"\r\n", b"\n")) == blob
        )

    def blame(self, path: str) -> list[Commit | None]:
        """The commit that wrote each line of the file as it is in the work tree, by line
        (index 0 is line 1); None for a line not committed yet. git blames the committed
        blob at HEAD; the work tree's lines are matched to it here."""
        entry, head = self.head_tree().get(path), self._head_sha
        if head is None or entry is None:
            return []
        shas = self.repo.blame(head, path)
        commits = self.repo.commits(sorted(set(shas)))
        committed = (self.texts([entry[1]])[0] or "").split("\n")
        try:
            now = (self.top / path).read_bytes().decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
        except OSError:
            return []
        lines: list[Commit | None] = [None] * len(now)
        for a, b in kept_lines(committed, now):
            if a < len(shas):
                lines[b] = commits.get(shas[a])
        return lines


BLAME_EXACT = 4000  # up to this many lines in all, blame's match is difflib's with autojunk off


def kept_lines(old: list[str], new: list[str]) -> list[tuple[int, int]]:
    """Which line of `old` each kept line of `new` is, as (old index, new index), in order.
    Up to BLAME_EXACT lines: difflib's longest runs, its autojunk off (as it always was).
    Past that, linediff's changes (git's shortest edit script; difflib with autojunk on past
    its MAX_CHANGES): autojunk off, a file of 19,000 lines mostly blank or a few headings
    (a generated license list) costs the square of its blank lines, seconds to minutes for
    a one-line edit (benchmarks/bench_linediff.py)."""
    if len(old) + len(new) <= BLAME_EXACT:
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        return [(a + k, b + k) for a, b, size in matcher.get_matching_blocks() for k in range(size)]
    pairs: list[tuple[int, int]] = []
    a = b = 0
    for a0, a1, b0, b1 in [*linediff.changes(old, new), (len(old), len(old), len(new), len(new))]:
        pairs += zip(range(a, a0), range(b, b0), strict=True)
        a, b = a1, b1
    return pairs


def open_folder(folder: Path) -> Folder | None:
    """The folder as git knows it; None without git or outside a work tree. InputError
    when the repository's configuration puts its work tree elsewhere."""
    repo = Repo.find(folder)
    if repo is None:
        return None
    return Folder(repo, repo.rel(folder))


def open_or_left_out(folder: Path, left_out: list[str]) -> Folder | None:
    """`open_folder`, where a repository git cannot be trusted to read (its work tree set
    elsewhere, a config include git would wait on) leaves only the history out: named in
    `left_out`, and the folder read as it stands, never refused for it."""
    try:
        return open_folder(folder)
    except InputError as exc:
        left_out.append(f"{folder}: {exc.reason}")
        return None
