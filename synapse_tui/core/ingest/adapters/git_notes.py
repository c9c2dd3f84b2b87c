"""Markdown kept in git (SPEC 9): any folder of notes in a git work tree, Letta Code's MemFS
included, read with its history; a project's agent memory too (CLAUDE.md, AGENTS.md,
memory banks, `.claude/`, `.github/copilot-instructions.md`, `.cursor/rules/`,
`.cursorrules`, `.clinerules`, `.windsurfrules`, Roo Code's and Kilo Code's rules
(`.roo/rules/`, `.roo/rules-{mode}/`, `.roorules`, `.roorules-{mode}`, `.kilocode/...`,
`.kilocoderules`), `.windsurf/rules/`, Kiro's `.kiro/steering/`, OpenHands'
`.openhands/microagents/repo.md`, and an agent's named file or memory bank in any hidden
folder, `.taskmaster/CLAUDE.md`, `.ai-agents/memory-bank/`: markdown_memory.memory_path),
found in one walk of the work tree that never enters `.git`, `.venv`, caches or dependency
folders (markdown_memory.memory_files).

Facts. A note's body is read as Markdown blocks (markdown_memory): each top-level bullet
(its nested lines with it) and each paragraph is a fact, under its heading; code blocks,
HTML comments, table rows, lines of prompt tags alone, marker lines and a line that only
imports another file (`@AGENTS.md`: that file is read as itself) are not read (`left out`
counts them). Front matter (`description`, `read_only`, as Letta Code's MemFS
writes `system/*.md`) goes to provenance, and a committed `read_only: true` block is tier
`human` (a person locked it); not committed yet, it is no one's lock. Front matter that is
not strict YAML is read line by line, the fields kept as written and named in `left out`.

History. Every commit that changed a note (oldest first; a rename is a removal and an
addition) is replayed: a block whose text is unchanged (a re-wrap counts as unchanged)
keeps its record; a removed and an added block in the same place of the note (one hunk
of git's line diff, whatever heading each is under) whose words are alike are one record
edited, the new text the next version superseding the one before
(markdown_memory.pair_edits: most alike first, one to one); other new blocks are new
records and other removed blocks are deleted at that commit's instant. A note that is a
link today keeps the history it had as a file (its blocks deleted when it became a link);
a link's text is its target, never a fact. A version's `created_at` is its commit's author
time, in UTC, its author and commit in provenance. Changes not committed yet come last,
dated from the file's modification time (`x-git-notes-time` says "file modified; not
committed").

Who. An author whose email matches an agent pattern (default `*@letta.com`: Letta Code
commits as `<agent-id>@letta.com`; `agents=` or SYNAPSE_GIT_AGENTS, comma-separated globs,
change it) is an agent: tier `auto`. Anyone else is a person: tier `human`. Text nobody has
committed yet has no known author: tier `auto`.

Records are `<note path>#<hash of the first text>`; each fact records its folder
(`x-git-notes-folder`), so two folders never delete each other's facts. A sync replays
only the notes a commit or an edit changed since the last one (gitkept: each fact records
its file as read and the readers' rules, the reader's record the HEAD the folder was read
at and what a note gave that no fact says); the others are kept as they are, which is
what a replay of them would give, so the same repository gives the same ids and times.
"""

from __future__ import annotations

import fnmatch
import functools
import os
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.textsafe import clean, first_unsafe
from synapse_tui.core.ingest.adapters import (
    KnownFact,
    Snapshot,
    dependency_folder,
    errors_at,
    every,
    gitkept,
    gitlog,
    naming_left_out,
    not_read,
    out_of_reach,
    own_key,
    require_folder,
    source_provenance,
)
from synapse_tui.core.ingest.adapters import markdown_memory as mm
from synapse_tui.core.ingest.adapters.mditems import nul_lines, said_nul
from synapse_tui.core.ingest.interchange import ParsedFact, Progress, parse_line

SYSTEM = "git-notes"
EXPECTED = "a folder of Markdown notes in a git work tree"
AGENTS = "*@letta.com"
FROM_GIT = "git commit"
FROM_MTIME = "file modified; not committed"


def read(
    source: Path,
    *,
    known: list[KnownFact] | None = None,
    agents: str | None = None,
    progress: Progress | None = None,
    whole: bool = False,
    read_before: dict[str, Any] | None = None,
) -> Snapshot:
    """The folder's notes with their whole history (see the module docstring); `known`,
    the store's facts of this system, names the versions of text nobody committed
    (`mm.Held`). A note as it was synced is not replayed again (gitkept: `read_before`,
    the reader's record, says the HEAD the last sync read at; None, no record is kept and
    every note is replayed), unless `whole`: then every note is, as at the first import."""
    folder = require_folder(source, EXPECTED)
    tree = gitlog.open_folder(folder)
    if tree is None:
        raise InputError(
            f"is not in a git work tree (or git is not installed); expected {EXPECTED}", file=str(folder)
        )
    patterns = _patterns(agents)
    current, left_out = mm.memory_files(folder)
    inside = Path(tree.inside)
    root = str(folder.resolve())
    # `markdown` passes its own facts too
    held = mm.Held.of([k for k in known or () if k.provenance.get("x-source") == SYSTEM])
    folder_key, time_key = own_key(SYSTEM, "folder"), own_key(SYSTEM, "time")
    mine = [k for k in held.known if k.provenance.get(folder_key) == root]
    kept, notes = _as_synced(tree, mine, None if whole else read_before, root)
    here = {p.resolve() for p in current}
    history, current = _histories(tree, folder, kept, current, mine, left_out, notes)
    paths = _notes(tree, folder, history, current, left_out)
    said: dict[str, str] = {}
    found = _replay(tree, paths, history, here, left_out, progress, said, notes)
    _carried(tree, folder, kept, paths, found, notes, left_out)
    ids = held.store_ids(SYSTEM, found)
    read_as = _ReadAs(root, patterns, ids, {_rel(p, inside): s for p, s in said.items()})
    facts = [_fact(folder, v, read_as) for v in found.versions]
    if not facts and not current and kept is None:
        refusal = InputError(f"holds no Markdown notes (*.md); expected {EXPECTED}", file=str(folder))
        raise naming_left_out(refusal, left_out)
    deleted: dict[str, float | None] = {ids[key]: at for key, at in found.deleted.items()}

    def unsaved(k: Any) -> bool:  # read from this folder's work tree, not committed
        return bool(k.provenance.get(folder_key) == root and k.provenance.get(time_key) == FROM_MTIME)

    held.link_unsaved(facts, unsaved)
    listed = {f.id for f in facts} | {f.supersedes for f in facts if f.supersedes}
    for gone in held.unsaved_gone(listed | (kept.ids if kept else set()), unsaved):
        deleted[gone] = None
    stamped = {k: v for k, v in deleted.items() if v is not None}
    left_out += tree.left_out + mm.told(found)
    back = held.again(found, ids)
    refreshed = tuple(own_key(SYSTEM, key) for key in ("line", "stamp", *RETIRED))
    return Snapshot(
        SYSTEM,
        str(folder),
        facts,
        set(deleted),
        left_out,
        deleted_at=stamped,
        restored=back,
        kept=kept.ids if kept else set(),
        # a text unchanged since: its line where it stands now, and the file it was read
        # from (gitkept), on a note's last read where it is gone
        evidence=mm.now_committed(facts, held.known, unsaved, refreshed)
        + mm.gone_read(facts, found, held.known, refreshed[1:]),
        # the HEAD every note of the folder now stands read at (gitkept), and what no fact
        # says of a note: that it gave none, what it left out
        read_record=None if read_before is None else {root: {**notes.now, **gitkept.folder_entry(tree)}},
    )


def _carried(
    tree: gitlog.Folder,
    folder: Path,
    kept: gitkept.Kept | None,
    paths: list[str],
    found: mm.Replay,
    notes: _Record,
    left_out: list[str],
) -> None:
    """What the notes not replayed gave that no fact says, from the record (`_Record.carry`),
    and the line naming every note holding no fact, replayed or not."""
    inside = Path(tree.inside)
    notes.carry(found, left_out, {_rel(p, inside) for p in paths}, lambda rel: gitkept.stamp(folder / rel))
    if notes.empty:  # of every note: those replayed, and those kept as synced
        unread = {_rel(p, inside) for p in (kept.paths if kept else ()) if _under(p, inside)} | notes.carried
        left_out.append(holding_nothing(notes.empty, len(paths) + len(unread)))


def _histories(
    tree: gitlog.Folder,
    folder: Path,
    kept: gitkept.Kept | None,
    current: list[Path],
    mine: list[KnownFact],
    left_out: list[str],
    notes: _Record,
) -> tuple[dict[str, list[tuple[gitlog.Commit, str | None]]], list[Path]]:
    """The notes' histories to replay, and the work tree's notes to replay: all of them,
    or (some `kept` as they were synced) only the others."""
    inside = Path(tree.inside)
    if kept is None:
        tracked = tree.history()
        # the dependency folders git holds, gone from the work tree or not: named once each
        deps = {d for p in tracked if (d := dependency_folder(_rel(p, inside))) is not None}
        left_out[:] = sorted({*left_out, *map(not_read, deps)})
    else:
        replay = _to_replay(kept, tree, folder, current, mine, notes)
        tracked = tree.history(only=replay)
        current = [p for p in current if (inside / p.relative_to(folder)).as_posix() in replay]
    return {p: states for p, states in tracked.items() if mm.memory_path(_rel(p, inside))}, current


# what facts of an earlier release recorded of how their note was read, HEAD and the rules
# (now the reader's record and the stamp): removed from each once its note is read again
RETIRED = ("head", "rules")


def _note_of(k: KnownFact, inside: Path) -> str | None:
    """A fact's note as a path from the top of the work tree."""
    file = k.provenance.get(FILE)
    return _joined(inside.as_posix(), file) if isinstance(file, str) else None


@functools.lru_cache(maxsize=4096)
def _joined(inside: str, file: str) -> str:
    return (Path(inside) / file).as_posix()


FILE = own_key(SYSTEM, "file")


def _to_replay(
    kept: gitkept.Kept,
    tree: gitlog.Folder,
    folder: Path,
    current: list[Path],
    mine: list[KnownFact],
    notes: _Record,
) -> set[str]:
    """The notes a sync replays when some are kept (paths from the top): those the store
    holds that are not as synced, those any commit since changed, and those in the work
    tree but a note that never gave a fact (the store holds none of it), as committed and
    unchanged since: its replay would give none again. Such a note the reader's record
    says it read as it stands (`_Record.recalled`) is not even read."""
    inside = Path(tree.inside)
    here = {(inside / p.relative_to(folder)).as_posix() for p in current} - kept.paths
    held = {_note_of(k, inside) for k in mine}
    quiet = {p for p in here if p not in held and p not in kept.changed}
    recalled = {p for p in quiet if notes.recalled(_rel(p, inside), gitkept.stamp(tree.top / p))}
    quiet -= recalled
    here -= recalled | (quiet - tree.changed(quiet))
    changed = {p for p in kept.changed if _under(p, inside) and mm.memory_path(_rel(p, inside))}
    return (here | kept.replay | changed) - kept.paths


def _under(path: str, inside: Path) -> bool:
    return inside.as_posix() == "." or path.startswith(inside.as_posix() + "/")


def _replay(
    tree: gitlog.Folder,
    paths: list[str],
    history: dict[str, list[tuple[Any, str | None]]],
    here: set[Path],
    left_out: list[str],
    progress: Progress | None,
    said: dict[str, str],
    notes: _Record,
) -> mm.Replay:
    """Each note's commits, then its work tree's text where that differs, replayed; a
    note not UTF-8 (in git or the work tree) or holding a NUL is named in `left_out`;
    `said` learns each note's file as it stood (gitkept.stamp) before it was read, `notes`
    what each note gave that no fact says (`_Record.note`)."""
    inside = Path(tree.inside)
    said.update((path, gitkept.stamp(tree.top / path)) for path in paths)
    dirty = tree.changed(paths)
    texts = iter(tree.texts(blob for path in paths for _, blob in history.get(path, [])))
    found = mm.Replay()
    hunks = tree.hunks(only=paths)
    report = every(progress, 50)
    for n, path in enumerate(paths, start=1):
        changes, rel = history.get(path, []), _rel(path, inside)
        lines = tree.binary_left_out(shown_name(rel), changes)
        changes, read = tree.without_binary(changes, [next(texts) for _ in changes])
        states: list[_State] = [(c, c.at, t) for (c, _), t in zip(changes, read, strict=True)]
        bad, nul = _add_work_tree(states, tree.top / path, here, path in dirty or path not in history)
        blobs = [blob for _, blob in changes]
        now_bad = bad or (path not in dirty and bool(blobs) and blobs[-1] in tree.not_utf8)
        lines += not_utf8_said(shown_name(rel), changes, tree.not_utf8, now_bad)
        lines += [said_nul(shown_name(rel), nul)] if nul else []
        junk = dict(found.skipped)
        gives = mm.replay(rel, states, found, places=mm.Places(blobs, hunks))
        junk = {k: n - junk.get(k, 0) for k, n in found.skipped.items() if n - junk.get(k, 0)}
        empty = bool(states) and states[-1][2] is not None and not gives  # as it stands: no fact
        notes.note(rel, said[path], empty, lines, junk, found.loose.get(rel, []))
        left_out += lines
        report(n, len(paths))
    return found


def _as_synced(
    tree: gitlog.Folder, mine: list[KnownFact], read_before: dict[str, Any] | None, root: str
) -> tuple[gitkept.Kept | None, _Record]:
    """The notes kept as synced (gitkept, at the HEAD the record says), and the record of
    the notes as the last sync left it (none when every note is replayed)."""
    inside = Path(tree.inside)
    then = gitkept.recorded_head(read_before, root)
    kept = gitkept.as_synced(SYSTEM, tree, mine, lambda k: _note_of(k, inside), then)
    files = (read_before or {}).get(root)
    return kept, _Record(files if kept is not None and isinstance(files, dict) else {})


class _Record:
    """The reader's record of the notes of a folder (as mditems.Found keeps one for the
    other Markdown readers): of each note read, what no fact says (that it gave none, its
    `left out` lines, the junk and loose front matter fields it held), at its stamp; given
    back at the next sync, so a note not replayed again still says what it left out, and
    one that gave no fact is not read again."""

    def __init__(self, before: dict[str, Any]) -> None:
        self.before = before
        self.now: dict[str, Any] = {}
        self.empty: list[str] = []  # the notes giving no fact, as shown
        self.carried: set[str] = set()

    def recalled(self, rel: str, stamp: str) -> bool:
        """Whether the record says a note, as it stands (`stamp`), gave no fact."""
        note = self.before.get(rel)
        return isinstance(note, dict) and note.get("stamp") == stamp and note.get("empty") is True

    def note(
        self, rel: str, stamp: str, empty: bool, lines: list[str], junk: dict[str, int], loose: list[str]
    ) -> None:
        if empty:
            self.empty.append(shown_name(rel))
        if empty or lines or junk or loose:
            self.now[rel] = {
                "stamp": stamp,
                "empty": empty,
                "left_out": lines,
                "skipped": junk,
                "loose": loose,
            }

    def carry(
        self, found: mm.Replay, left_out: list[str], replayed: set[str], stamp: Callable[[str], str]
    ) -> None:
        """What the notes not replayed now gave, as the record says, said again: those
        as they stood when recorded (`stamp`: a note's stamp now)."""
        for rel, note in self.before.items():
            if rel == gitkept.FOLDER or rel in replayed or not isinstance(note, dict):
                continue
            if not mm.memory_path(rel) or note.get("stamp") != stamp(rel):
                continue
            self.now[rel] = note
            self.carried.add(rel)
            lines, junk, loose = note.get("left_out"), note.get("skipped"), note.get("loose")
            left_out += [x for x in lines if isinstance(x, str)] if isinstance(lines, list) else []
            for kind, n in junk.items() if isinstance(junk, dict) else ():
                if isinstance(n, int):
                    found.skipped[str(kind)] = found.skipped.get(str(kind), 0) + n
            if isinstance(loose, list) and loose:
                found.loose[rel] = [str(x) for x in loose]
            if note.get("empty") is True:
                self.empty.append(shown_name(rel))


def _patterns(agents: str | None) -> list[str]:
    """The e-mail globs of agents' commits: `agents`, else SYNAPSE_GIT_AGENTS, else AGENTS."""
    chosen = agents or os.environ.get("SYNAPSE_GIT_AGENTS") or AGENTS
    return [p.strip() for p in chosen.split(",") if p.strip()]


def _rel(path: str, inside: Path) -> str:
    """A repository path as a path under the folder read (`inside` the repository)."""
    return Path(path).relative_to(inside).as_posix()


# (the commit, or None for the work tree; when; the note's text then, None: no such text)
_State = tuple[gitlog.Commit | None, float | None, str | None]


def _notes(
    tree: gitlog.Folder, folder: Path, history: dict[str, Any], current: list[Path], left_out: list[str]
) -> list[str]:
    """The notes to replay, as paths in the repository: those with a history and those in
    the work tree, less a link today without one (its target is read as itself) and those
    whose names would not be visible text (said in `left_out`)."""
    inside = Path(tree.inside)
    paths = sorted(
        path
        for path in set(history) | {(inside / p.relative_to(folder)).as_posix() for p in current}
        # a link today keeps the history it had as a file; its target is read as itself
        if path in history or not (tree.top / path).is_symlink()
    )
    # there and not read (a FIFO; named by the walk): not gone, what it gave before kept
    paths = [p for p in paths if not out_of_reach(tree.top / p)]
    odd = [p for p in paths if not nameable(p)]
    left_out += [f"{shown_name(p)}: {NOT_NAMEABLE}; not read" for p in odd]
    return [p for p in paths if p not in odd]


def _add_work_tree(
    states: list[_State], file: Path, here: set[Path], changed: bool
) -> tuple[bool, list[int]]:
    """The work tree's state of a note after its commits, where it is not the last one's:
    its text changed (or never committed), or gone (made a link, or removed) with that not
    committed yet. Whether that text was not UTF-8 (read with U+FFFD), and the lines of it
    holding a NUL (left out when read)."""
    if file.is_symlink():
        if states and states[-1][2] is not None:
            states.append((None, None, None))  # made a link, not committed yet: its text is gone
    elif file.resolve() in here and changed:
        text, bad = _read(file)
        states.append((None, file.stat().st_mtime, text))
        return bad, nul_lines(text) if "\x00" in text else []
    elif file.resolve() not in here and states and states[-1][2] is not None:
        states.append((None, None, None))  # gone from the work tree, removal not committed
    return False, []


def holding_nothing(names: list[str], files: int) -> str:
    """The `left out` line naming the files read that gave no fact (empty, headings only,
    or only what is not read: a page of tables), the first ten of them."""
    shown = ", ".join(sorted(names)[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    why = "empty, headings only, or only tables, code and other lines not read"
    return f"{len(names)} of {files} files hold nothing read as a fact ({why}): {shown}"


# what `left out` says of a note git or the work tree holds in bytes that are not UTF-8
NOT_UTF8 = "not valid UTF-8; its bad bytes left out (read as U+FFFD, \ufffd)"


def not_utf8_said(
    name: str, changes: Iterable[tuple[Any, str | None]], bad: AbstractSet[str], now: bool
) -> list[str]:
    """The `left out` line of a note holding bytes that are not UTF-8 (`bad`: the blobs git
    found so): as it stands (`now`), or only in earlier commits, which it names: the file
    a user opens is fine, so the line says where the bad bytes were."""
    shas = gitlog.in_commits(changes, bad)
    if now:
        return [f"{name}: {NOT_UTF8}"]
    if not shas:
        return []
    return [
        f"{name}: not valid UTF-8 in commit {', '.join(shas)} (not as it stands); {NOT_UTF8.split('; ', 1)[1]}"
    ]


NOT_NAMEABLE = (
    "a file name that is not visible UTF-8 text (a control or invisible character, or bytes not UTF-8)"
)


def nameable(path: str) -> bool:
    """A name a record id can carry: visible text, valid UTF-8 (no control or invisible
    character, no byte the file system could not decode)."""
    return first_unsafe(path) is None and not any("\udc80" <= c <= "\udcff" for c in path)


def shown_name(path: str) -> str:
    """A file name as a left-out line shows it: undecodable bytes as `\\xe9`, controls as pictures."""
    return clean(path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


def _read(path: Path) -> tuple[str, bool]:
    """The file's text, and whether it was not UTF-8 (`gitlog.lenient_utf8`)."""
    try:
        return gitlog.lenient_utf8(path.read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None


def _plain(value: Any) -> bool:
    """Only plain values reach provenance: a nested value (a YAML alias bomb) never does."""
    return isinstance(value, (str, int, float, bool)) and value is not None


@dataclass(frozen=True)
class _ReadAs:
    """What every fact of one read shares: the folder, whose commits are agents', the
    store ids of the versions, and each note's file as it stood (gitkept.stamp), by note."""

    root: str
    patterns: list[str]
    ids: dict[tuple[str, int], str]
    stamps: dict[str, str]


def _fact(folder: Path, v: mm.Version, read_as: _ReadAs) -> ParsedFact:
    commit = v.commit
    assert v.at is not None  # a state with a text is dated: its commit's time, else the file's
    meta = {k: v.meta[k] for k in ("description", "read_only", "label") if _plain(v.meta.get(k))}
    agent = commit is None or any(fnmatch.fnmatch(commit.email.lower(), p.lower()) for p in read_as.patterns)
    # a committed `read_only: true` is a lock a person set; text nobody committed is no one's
    tier = "human" if commit is not None and (meta.get("read_only") is True or not agent) else "auto"
    file = v.record.rsplit("#", 1)[0]
    provenance = source_provenance(
        SYSTEM,
        v.record,
        v.version,
        folder=read_as.root,
        file=file,
        line=v.block.line,
        section=v.block.section,
        description=meta.get("description"),
        read_only=meta.get("read_only"),
        author=commit.author if commit else None,
        commit=commit.sha if commit else None,
        agent=None if commit is None else agent,
        time=FROM_GIT if commit else FROM_MTIME,
        stamp=read_as.stamps.get(file, ""),
    )
    obj: dict[str, Any] = {
        "id": read_as.ids[(v.record, v.version)],
        "text": v.block.text,
        "created_at": format_time(v.at),
        "tier": tier,
        "note": file,
        "provenance": provenance,
    }
    if v.block.section:
        obj["entities"] = [v.block.section]
    if v.supersedes:
        obj["supersedes"] = read_as.ids[(v.record, v.supersedes)]
    return parse_line(obj, errors_at(folder / file, v.block.line), v.block.line)
