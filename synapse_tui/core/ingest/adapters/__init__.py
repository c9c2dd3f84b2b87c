"""Adapters: read the memory another system already keeps, as interchange facts (SPEC 9).

Each adapter module exposes `read(source, **options) -> Snapshot`: the whole source as it
stands now, mapped onto SPEC 4, reading the source's own files and writing nothing there.
`sync.sync_snapshot` then makes the store agree with it: new facts are imported, facts the
source deleted get the flag `deleted`, the source's own new evidence for facts already here
(`Evidence`: Graphiti's new episodes) is added on top of their triage, and nothing done
here by triage is undone. So a snapshot must be deterministic: the same source gives the
same fact ids, texts and times.

A reader whose source shows only its current state takes `known`, the facts of its
system already in the store (with their provenance): Basic Memory to link an edited
observation to the version it replaces, Basic Memory and Graphiti to tell a record gone
from their own source (a folder, a dump's group ids) from another source's record. mem0
keeps its own history, DELETE events included, and takes no `known`. Several sources
of one system may share a store: a reader reports deleted only its own source's records.

Fact ids are `<system>:<source record id>` for a record's first version and
`<system>:<source record id>@<n>` for version n >= 2, so a record's versions sort together
and version n+1 names version n in `supersedes`.
"""

from __future__ import annotations

import difflib
import importlib
import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from synapse_tui.core.base.errors import InputError, SynapseError
from synapse_tui.core.base.sqlitepath import uri as sqlite_uri
from synapse_tui.core.ingest.interchange import ParsedFact, Progress
from synapse_tui.core.store.db import Store


@dataclass(frozen=True)
class Evidence:
    """What a source changed since the last sync in its own evidence for a fact already in
    the store: Graphiti's new episodes re-asserting an edge, an OpenClaw wiki claim's new
    status or evidence entries. sync_snapshot adds it on top of the fact's triage, as
    audited actions by `source:<system>` (a withdrawal takes back only the source's own
    share, never a person's), and writes `provenance` (the source's own record of what it
    has counted, so the next sync changes only what is newer)."""

    id: str
    corroborations: int  # added to r; below 0: evidence the source counted and no longer holds
    reinforced_at: list[str]  # new reinforcement times, RFC 3339
    provenance: dict[str, Any]  # provenance keys to set
    # Those keys' values the reader saw in the store: a sync that finds others (another
    # sync of the same source landed meanwhile) refuses the lot, never counting twice.
    seen: dict[str, Any] = field(default_factory=dict)
    # added to s: a claim the source now contests; below 0: a contest it has withdrawn
    contradictions: int = 0
    # `reinforced_at` lists every time the source holds, those the fact has already
    # included (an OpenClaw claim's evidence): only the others are added
    every_time: bool = False
    # reinforcement times the source no longer lists (an OpenClaw evidence entry removed,
    # or replaced by another): taken back in its `retract`, never another actor's time
    withdrawn_at: list[str] = field(default_factory=list)
    # "human": the source now records a person's hand in it (a text a sync read before
    # anyone committed it, since committed by a person): a fact still of tier `auto` is
    # accepted by the source, audited, as a first import would give it tier `human`
    tier: str | None = None


@dataclass
class Snapshot:
    """What a source holds now, mapped onto interchange facts."""

    system: str  # "mem0", "basic-memory", "graphiti": the value of x-source
    source: str  # the file or folder read, for messages
    facts: list[ParsedFact]
    deleted: set[str] = field(default_factory=set)  # fact ids the source deleted
    left_out: list[str] = field(default_factory=list)  # what was not read, and why, one line each
    # The embedding space of the facts' embeddings: the model's name where the source
    # records it, else a name for the one place they all came from (`mem0:<collection>`).
    # sync_snapshot keeps one space per store (SPEC 9); None when the source has none.
    space: str | None = None
    evidence: list[Evidence] = field(default_factory=list)  # for facts already in the store
    # when the source deleted them (epoch seconds), where it records that (a git commit);
    # others are flagged at the instant of the sync
    deleted_at: dict[str, float] = field(default_factory=dict)
    # ids of facts already in the store that the reader found unchanged at the source
    # without reading them again (a file whose size and modification time are those it had):
    # counted as unchanged, as if listed in `facts`
    kept: set[str] = field(default_factory=set)
    # of `deleted`, those the source removed on its own, not its agent (a LangGraph row past
    # its expires_at): sync_snapshot records why (meta `deleted.why.ID` = "expired")
    expired: set[str] = field(default_factory=set)
    # ids of facts the store flags deleted that the source holds again (a bullet removed and
    # put back before a commit): sync_snapshot clears the flag
    restored: set[str] = field(default_factory=set)
    # the reader's record of the files it read that no fact's provenance can carry (a file
    # that gave no fact; the `left out` lines of a file not read again), root -> file ->
    # record, kept by sync_snapshot in the store's meta `read.<system>` (each root read
    # replaced whole) and given back to the reader's next read as `read_before`; None: the
    # reader keeps none
    read_record: dict[str, Any] | None = None


class Reader(Protocol):
    """What `import --from` and `sync` call: the source as it stands now. A reader may also
    take `known` (the facts already imported from its system), `read_before` (its record
    of the files it read at the last sync: `Snapshot.read_record` as the store kept it),
    `progress`, and options of its own (`project`, `model`); a module may offer
    `default_source()` for a SOURCE-less call."""

    def __call__(self, source: Path, **options: Any) -> Snapshot: ...


# `--from` name -> the module whose `read` is that system's Reader. Modules are imported
# only when asked for, so a reader's optional library costs nothing to the others.
READERS: dict[str, str] = {
    "mem0": "mem0",
    "basic-memory": "basic_memory",
    "graphiti": "graphiti",
    "claude-code": "claude_code",
    "git-notes": "git_notes",
    "langgraph": "langgraph",
    "mcp-memory": "mcp_memory",
    "codex": "codex",
    "gemini-cli": "gemini_cli",
    "openclaw": "openclaw",
    "cursor": "cursor",
    "markdown": "markdown",
}


def unknown_system(system: str) -> SynapseError:
    """The refusal of a `--from` no reader answers: the systems, and the one a typo or
    another spelling nearly names (`markdwon`, `Markdown`, `claude_code`) first."""
    spelt = system.lower().replace("_", "-")
    near = difflib.get_close_matches(spelt, list(READERS), n=1, cutoff=0.75)
    meant = f" (did you mean {near[0]}?)" if near else ""
    return SynapseError(f"--from {system}: unknown system{meant}; one of {', '.join(READERS)}")


def reader(system: str) -> ModuleType:
    """The module of `system`'s Reader (its `read`), imported now."""
    if system not in READERS:
        raise unknown_system(system)
    return importlib.import_module(f"{__name__}.{READERS[system]}")


def fact_id(system: str, record_id: str, version: int = 1) -> str:
    """The store id of version `version` of a source record."""
    return f"{system}:{record_id}" if version <= 1 else f"{system}:{record_id}@{version}"


def source_provenance(system: str, record_id: str, version: int = 1, **own: Any) -> dict[str, Any]:
    """The SPEC 9 keys every adapter writes, then the system's own fields as
    `x-<system>-<field>` (`user_id` -> `x-mem0-user-id`); a field that is None is left out,
    so what the source did not record is absent rather than null."""
    out: dict[str, Any] = {"x-source": system, "x-source-id": record_id, "x-source-version": version}
    for name, value in own.items():
        if value is not None:
            out[own_key(system, name)] = value
    return out


def own_key(system: str, name: str) -> str:
    """The provenance key of a system's own field: `x-<system>-<field, dashed>`."""
    return f"x-{system}-{name.replace('_', '-')}"


def every(progress: Progress | None, step: int) -> Progress:
    """`progress`, called only every `step` items and at the end: a reader's loop reports
    each item and the bar still costs nothing per item."""

    def report(done: int, total: int) -> None:
        if progress is not None and (done % step == 0 or done == total):
            progress(done, total)

    return report


ErrorAt = Callable[[str | None, str], InputError]


def errors_at(file: Path | str, line: int | None = None) -> ErrorAt:
    """`err(field, message)` for one record of a source file, as `parse_line` takes it."""

    def err(fld: str | None, msg: str) -> InputError:
        return InputError(msg, file=str(file), line=line, field=fld)

    return err


def open_read_only(path: Path) -> sqlite3.Connection:
    """A source's SQLite file opened so that nothing, not even a journal or a `-shm`, is
    written there, its name percent-encoded (`sqlitepath.uri`).

    A database in WAL mode needs a shared-memory file beside it even to read, which SQLite
    creates; so one with a non-empty `-wal` (transactions not yet checkpointed) is copied,
    with its `-wal`, to a private temporary folder and read there; one without is read as
    immutable (no locks, no `-shm`). A database in rollback mode is read with mode=ro,
    which writes nothing."""
    path = path.resolve()
    wal = path.with_name(path.name + "-wal")
    if not _wal_mode(path):
        return sqlite3.connect(sqlite_uri(path, mode="ro"), uri=True)
    if not wal.exists() or wal.stat().st_size == 0:
        return sqlite3.connect(sqlite_uri(path, mode="ro", immutable="1"), uri=True)
    folder = tempfile.mkdtemp(prefix="synapse-source-")
    try:
        copy = Path(folder) / "source.db"
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, Path(folder) / "source.db-wal")
        conn = sqlite3.connect(sqlite_uri(copy), uri=True, factory=_CopyConnection)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    conn.folder = folder
    return conn


class _CopyConnection(sqlite3.Connection):
    """A connection to a private copy, whose folder goes when it is closed."""

    folder: str | None = None

    def close(self) -> None:
        super().close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __del__(self) -> None:
        self.close()


def _wal_mode(path: Path) -> bool:
    """Whether the file's header says WAL (read and write versions 2, offsets 18 and 19)."""
    try:
        with open(path, "rb") as fh:
            header = fh.read(20)
    except OSError:
        return False
    return len(header) == 20 and header[18] == 2


def require_folder(source: Path | str, expected: str) -> Path:
    """SOURCE as a folder, `~` expanded; refused, saying what was expected, unless it is an
    existing folder."""
    folder = Path(source).expanduser()
    if not folder.exists():
        raise InputError(f"no such folder; expected {expected}", file=str(folder))
    if not folder.is_dir():
        raise InputError(f"is a file, not a folder; expected {expected}", file=str(folder))
    return folder


def out_of_reach(path: Path) -> bool:
    """Whether the file system will not say if `path` is there (a folder on its way that
    the reader may not open: another user's, mode 700), or it is there and not read (a
    FIFO, a socket, a device: reading one could wait for ever): the file is unread, not
    gone, and what it gave before stays as it was; only a file that is gone is flagged
    deleted."""
    try:
        mode = path.lstat().st_mode
    except PermissionError:
        return True
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


NOT_REGULAR = "not a regular file; not read"  # the `left out` line of a FIFO, a socket, a device


def unlisted(rel: str, exc: OSError) -> str:
    """The `left out` line of a folder below the one read (`rel`, `.` for itself) that
    cannot be listed."""
    return f"{rel}: cannot be listed ({exc.strerror}); not read, what it gave before kept as it was"


NOT_READ = "; not read"  # how a `left out` line naming a file or folder passed over ends


def naming_left_out(refusal: InputError, left_out: list[str]) -> InputError:
    """The refusal of a folder holding none of a reader's files, naming what was passed
    over that could have been them: a link leaving the folder (a CLAUDE.md kept in a
    dotfiles repository, `.cursor/rules` linked to a team's rules), a note not UTF-8 (saved
    as UTF-16 by Windows' Notepad), a dependency folder. The folder does hold them, and why
    they are not read is what its owner needs to hear, not that they are missing."""
    passed = sorted(line for line in left_out if line.endswith(NOT_READ))
    if not passed:
        return refusal
    more = f" (+{len(passed) - 3} more)" if len(passed) > 3 else ""
    said = f"{refusal.reason}; left out: {'; '.join(passed[:3])}{more}"
    return InputError(said, file=refusal.file, line=refusal.line, field=refusal.field)


# Folders of other projects' files a package manager put there (a repository may even
# commit them): their READMEs and licences are not this project's memory. Not `vendor`: a
# person's notes may well keep one (Go's and PHP's hold little Markdown)
DEPENDENCY_FOLDERS = frozenset(
    {"node_modules", "bower_components", "jspm_packages", "site-packages", "dist-packages"}
)


def dependency_folder(rel: str) -> str | None:
    """The dependency folder (DEPENDENCY_FOLDERS) a POSIX path below the folder read is in,
    the outermost, as a path: `web/node_modules`; None for a path of the project's own."""
    parts = rel.split("/")[:-1]
    inside = next((i for i, p in enumerate(parts) if p in DEPENDENCY_FOLDERS), None)
    return None if inside is None else "/".join(parts[: inside + 1])


def not_read(folder: str) -> str:
    """The `left out` line of a dependency folder."""
    return f"{folder}: a dependency folder, not this project's memory; not read"


def files_inside(folder: Path, suffix: str, inside: Path | None = None) -> tuple[list[Path], list[str]]:
    """The files ending in `suffix` below `folder`, hidden ones and dependency folders'
    apart (DEPENDENCY_FOLDERS, each named), sorted, and a line for each link that leaves the
    folder (or `inside`, a folder holding it: a project whose rules folder this is): such a
    file or folder is skipped, never read, so a note linked to `~/.ssh/id_rsa` cannot carry
    it into the store. A link to a file inside is read; a linked folder inside is not
    walked twice."""
    root = (inside or folder).resolve()
    found: list[Path] = []
    left_out: list[str] = []
    stack = [folder]
    while stack:
        here = stack.pop()
        try:
            entries = list(os.scandir(here))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:  # named, and what it gave before kept (out_of_reach)
            left_out.append(unlisted(here.relative_to(folder).as_posix(), exc))
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            rel = path.relative_to(folder).as_posix()
            if entry.is_symlink() and not path.resolve().is_relative_to(root):
                left_out.append(f"{rel}: a link leaving the folder; not read")
            elif entry.is_dir():
                if entry.is_symlink():
                    continue
                if entry.name in DEPENDENCY_FOLDERS:
                    left_out.append(not_read(rel))
                else:
                    stack.append(path)
            elif not entry.name.endswith(suffix):
                continue
            elif entry.is_file():
                found.append(path)
            elif not path.exists():
                left_out.append(f"{rel}: a link to nothing; not read")
            else:  # a FIFO, a socket, a device: reading one could wait for ever
                left_out.append(f"{rel}: not a regular file; not read")
    return sorted(found), sorted(left_out)


def top_files(root: Path, names: tuple[str, ...], left_out: list[str]) -> list[Path]:
    """The files `names` (paths below `root`) that exist, in that order; one that is a link
    leaving `root` is skipped, never read, with a line in `left_out`."""
    inside = root.resolve()
    out = []
    for name in names:
        path = root / name
        if not path.is_file():
            continue
        if not path.resolve().is_relative_to(inside):
            left_out.append(f"{name}: a link leaving the folder; not read")
            continue
        out.append(path)
    return out


def require_own(path: Path) -> None:
    """Refuse a source another user could have written: one not owned by us, or one
    anyone may write to."""
    try:
        st = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None
    if st.st_uid != os.geteuid():
        raise InputError(
            f"owned by another user (uid {st.st_uid}); a source someone else wrote is not read",
            file=str(path),
        )
    if st.st_mode & 0o002:
        raise InputError(
            "anyone may write to it (mode o+w); a source someone else could have written is not read",
            file=str(path),
        )


@dataclass(frozen=True)
class KnownFact:
    """A fact of one source system already in the store."""

    id: str
    record: str  # x-source-id
    version: int  # x-source-version
    text: str
    note: str | None
    head: bool  # nothing in the store supersedes it
    deleted: bool
    # As the adapter wrote it: where the record came from (which folder, group or file),
    # so a reader flags deletions only among its own source's facts, and its own fields
    # (a Basic Memory observation's category and line) to pair an edit with its original.
    provenance: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


# the fields known_facts fills without KnownFact's __init__ (a frozen dataclass sets each
# field through object.__setattr__: 56 ms of 15,000 facts, against 24 ms so)
_FILLED = ("id", "record", "version", "text", "note", "head", "deleted", "provenance")


def known_facts(store: Store, system: str) -> list[KnownFact]:
    """Every fact in the store that came from `system`, in store order."""
    rows = store.imports.from_source(system)
    if tuple(f.name for f in fields(KnownFact)) != _FILLED:  # a field added since: its __init__
        return [
            KnownFact(fid, str(record), int(version), text, note, bool(head), bool(deleted), prov)
            for fid, record, version, text, note, head, deleted, prov in rows
        ]
    new, set_attr = object.__new__, object.__setattr__
    out: list[KnownFact] = []
    append = out.append
    for fid, record, version, text, note, head, deleted, prov in rows:
        known = new(KnownFact)
        # what __init__ would set, each value as known_facts has always typed it, given
        # as the instance's dict in one call (frozen: plain assignment is refused)
        set_attr(
            known,
            "__dict__",
            {
                "id": fid,
                "record": record if type(record) is str else str(record),
                "version": version if type(version) is int else int(version),
                "text": text,
                "note": note,
                "head": bool(head),
                "deleted": bool(deleted),
                "provenance": prov,
            },
        )
        append(known)
    return out
