"""A file's store as it stands, told in one line naming the file, in the server's words.

Every statement of an open store goes through its connection (`StoreConnection`) and every
row it gives through the connection's cursor (`StoreCursor`): an error SQLite raises at
either that says what the file is as it stands (a table or column another program renamed
or dropped, a lock held past the busy timeout, a file that cannot be written, a full disk)
becomes a `StoreStateError` naming the file, worded as a server's store words the same
state (errors.py); damage reached only when its rows are read (a page another program
overwrote, a bad sector, which SQLite reports as damage) a `StoreDamageError` naming it.
Any other error (a statement of ours SQLite refused) is left as it is, for errors.py's
`describe` to word.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar

from synapse_tui.core.store.errors import (
    NOTHING_WRITTEN,
    StoreDamageError,
    StoreStateError,
    busy,
    by_hand,
    unreadable,
)

# SQLite's words for a part of the store it does not find: the hint names the part
_MISSING = (
    (re.compile(r"no such table: "), "table"),
    (re.compile(r"no such column: |table \S+ has no column named "), "column"),
    (re.compile(r"no such (?:index|trigger|view|function): "), "object"),
)

_WRITE_LOCK = "the store's write lock"
# SQLite's result codes for the machine's part: a full disk, an I/O error, a file it may not
# open or lock as it did (the code's extended names start so: SQLITE_IOERR_WRITE)
_MACHINE = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_PROTOCOL")


def wait_of(ms: int) -> str:
    """A busy timeout as the server says its lock_timeout: `10s`, `300ms`."""
    if ms <= 0:
        return ""
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


def refusal(
    shown: str, exc: sqlite3.OperationalError, *, writing: bool, busy_ms: Callable[[], int]
) -> str | None:
    """One line naming the file for an error that is its state, not our bug; None for any
    other (a check interrupted on purpose, a statement of ours refused). `busy_ms`: the
    connection's busy timeout, asked only of a lock it gave up waiting for (0: unknown)."""
    said = " ".join(str(exc).split())
    name = getattr(exc, "sqlite_errorname", "") or ""
    nothing = NOTHING_WRITTEN if writing else ""
    for pattern, what in _MISSING:
        if pattern.match(said):
            return unreadable(shown, said, by_hand(what), writing=writing)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or said.startswith("database is locked"):
        return f"{shown}: {busy(_WRITE_LOCK, wait_of(busy_ms()))}{nothing}"
    if name.startswith("SQLITE_READONLY") or "readonly" in said or "read-only" in said:
        return f"{shown}: the store cannot be written ({said}: a read-only file or folder?){nothing}"
    if name.startswith(_MACHINE):
        return unreadable(shown, said, writing=writing)
    if said.startswith("malformed JSON"):  # we write JSON only through json.dumps: a damaged page
        return damaged(shown, said, writing=writing)
    return None


# what SQLite says at open of a file it could not read or write as it stands, not of damage
_STATE_AT_OPEN = ("SQLITE_IOERR", "SQLITE_FULL", "SQLITE_BUSY", "SQLITE_LOCKED")


def state_at_open(shown: str, exc: sqlite3.OperationalError, *, busy_ms: int) -> str | None:
    """`refusal`'s line for an error opening the file that is its state (a full disk, an I/O
    error, a lock); None for any other (the opener's to word)."""
    if not (getattr(exc, "sqlite_errorname", "") or "").startswith(_STATE_AT_OPEN):
        return None
    return refusal(shown, exc, writing=False, busy_ms=lambda: busy_ms)


# SQLite's result codes for a file damaged as it stands (a read error on Linux is one too:
# SQLITE_IOERR_CORRUPTFS is reported as SQLITE_CORRUPT)
_DAMAGE = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_CURE = "restore a backup, or recover it with sqlite3's .recover"


def damaged(shown: str, said: str, *, writing: bool) -> str:
    """One line naming a damaged file, and what to do about it (`writing`: nothing landed)."""
    if writing:
        return f"{shown}: the database is corrupt ({said}){NOTHING_WRITTEN} ({_CURE})"
    return f"{shown}: the database is corrupt ({said}); {_CURE}"


def named(
    shown: str, exc: sqlite3.DatabaseError, *, writing: bool, busy_ms: Callable[[], int]
) -> sqlite3.DatabaseError:
    """`exc` as a StoreStateError or StoreDamageError naming the file (keeping SQLite's error
    code), or as it is."""
    if isinstance(exc, (StoreStateError, StoreDamageError)):
        return exc
    told: StoreStateError | StoreDamageError
    if isinstance(exc, sqlite3.OperationalError):
        said = refusal(shown, exc, writing=writing, busy_ms=busy_ms)
        if said is None:
            return exc
        told = StoreStateError(said)
    elif type(exc) is sqlite3.DatabaseError and (getattr(exc, "sqlite_errorname", "") or "").startswith(
        _DAMAGE
    ):
        told = StoreDamageError(damaged(shown, " ".join(str(exc).split()), writing=writing))
    else:
        return exc
    told.sqlite_errorcode = getattr(exc, "sqlite_errorcode", 0)
    told.sqlite_errorname = getattr(exc, "sqlite_errorname", "")
    return told


class StoreConnection(sqlite3.Connection):
    """An open store's connection: its statements' state errors, and those of reading their
    rows (`StoreCursor`), name the file (`named`). `shown` is set once the store is open
    (what fails before is the opener's to word); `writing` while a write transaction runs
    (nothing of it lands when it fails)."""

    shown: str | None = None
    writing = False

    def cursor(self, factory: Any = None) -> sqlite3.Cursor:  # type: ignore[override]
        return super().cursor(factory or StoreCursor)

    # the driver's own shortcuts make a plain cursor: these make the connection's own
    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        return self.cursor().executemany(sql, parameters)

    def executescript(self, sql_script: str, /) -> sqlite3.Cursor:
        return self.cursor().executescript(sql_script)

    def _raise_named(self, exc: sqlite3.DatabaseError) -> None:
        """Raise `exc` named (`named`); return when it stays as it is."""
        told = (
            exc if self.shown is None else named(self.shown, exc, writing=self.writing, busy_ms=self._busy_ms)
        )
        if told is not exc:
            raise told from exc

    def _busy_ms(self) -> int:
        """How long a statement waits for another's lock (PRAGMA busy_timeout; 0: unknown)."""
        try:
            return int(super().execute("PRAGMA busy_timeout").fetchone()[0])
        except sqlite3.Error:
            return 0


# rows a loop over a cursor takes from SQLite at once, in C: a Python call per row would
# slow a loop over 100,000 facts by a fifth or more (benchmarks/RESULTS.md)
_BATCH = 256

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _naming(
    method: Callable[Concatenate[sqlite3.Cursor, _P], _R],
) -> Callable[Concatenate[StoreCursor, _P], _R]:
    """The driver's cursor `method`, its errors named by the cursor's connection (`named`)."""

    def named_method(self: StoreCursor, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            self.connection._raise_named(exc)
            raise

    return named_method


class StoreCursor(sqlite3.Cursor):
    """A cursor of a `StoreConnection`: an error SQLite raises while it runs a statement or
    while its rows are read (a page reached only then) names the file as the connection's
    statements do."""

    connection: StoreConnection

    # typeshed types these to return the cursor itself; the wrapper says the driver's Cursor
    execute = _naming(sqlite3.Cursor.execute)  # type: ignore[assignment]
    executemany = _naming(sqlite3.Cursor.executemany)  # type: ignore[assignment]
    executescript = _naming(sqlite3.Cursor.executescript)
    fetchone = _naming(sqlite3.Cursor.fetchone)
    fetchmany = _naming(sqlite3.Cursor.fetchmany)
    fetchall = _naming(sqlite3.Cursor.fetchall)
    __next__ = _naming(sqlite3.Cursor.__next__)

    def __iter__(self) -> Iterator[Any]:  # type: ignore[override]
        fetch = super().fetchmany
        try:
            while batch := fetch(_BATCH):
                yield from batch
        except sqlite3.DatabaseError as exc:
            self.connection._raise_named(exc)
            raise
