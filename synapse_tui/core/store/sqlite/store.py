"""A store in a SQLite file: one object owns the connection; every write goes through it.

WAL lets the browser read while an agent writes; a busy timeout turns a short lock into
a wait instead of an error. Callers get frozen dataclasses and numpy arrays. The load
(load.py) is a part of its own, and word search is its `WordIndex` (words.py); the statements a
server answers alike are `SqlStore`'s (sql.py).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.sqlitepath import uri as sqlite_uri
from synapse_tui.core.store.errors import StoreDamageError
from synapse_tui.core.store.ops import WordHits
from synapse_tui.core.store.read import Read
from synapse_tui.core.store.schema import (
    APPLICATION_ID,
    READABLE_FROM,
    SCHEMA_VERSION,
    migrate,
    missing_tables,
)
from synapse_tui.core.store.sqlite.load import CachedLoad
from synapse_tui.core.store.sqlite.parts import SqliteAudit, SqliteImports
from synapse_tui.core.store.sqlite.state import StoreConnection, damaged, refusal, state_at_open
from synapse_tui.core.store.words import WordIndex

BUSY_TIMEOUT_MS = 10_000
# How long the check before a large write (`check_health`) may read: all of a store of
# 100,000 facts takes 0.6 s on one core; past this, what was not reached goes unchecked.
HEALTH_CHECK_SECONDS = 1.5


def _read_only_why(p: Path, readonly: bool, wal: bool) -> tuple[bool, str | None]:
    """Whether an existing file opens read-only though asked for writing, and why: the
    file cannot be written, or its folder cannot take the -wal and -shm files beside it."""
    if not readonly and p.exists() and not os.access(p, os.W_OK):
        return True, f"{p} cannot be written"
    if not readonly and p.exists() and not wal and not os.access(p.parent, os.W_OK):
        return True, _FOLDER_READ_ONLY.format(folder=p.parent)
    return readonly, None


def _prepare(
    p: Path,
    conn: sqlite3.Connection,
    app_id: int,
    version: int,
    tables: set[str],
    *,
    create: bool,
    readonly: bool,
) -> None:
    """Refuse a file that is not a store of a schema this version reads, or one whose own
    tables were renamed or dropped (closing it); set a writable one's journal and migrate it."""
    if app_id != APPLICATION_ID and (tables or not create):
        conn.close()
        raise StoreError(f"{p}: a SQLite database, but not a synapse-tui store")
    if version > SCHEMA_VERSION:
        conn.close()
        raise StoreError(f"{p}: made by a newer synapse-tui (schema {version} > {SCHEMA_VERSION})")
    lacking = missing_tables(str(p), tables, change_log=version >= 3) if version >= 1 else None
    if lacking is not None:
        conn.close()
        raise StoreError(lacking)
    try:
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            if version < SCHEMA_VERSION:
                migrate(conn)
        elif version < READABLE_FROM:
            raise StoreError(f"{p}: needs an upgrade, which a read-only open cannot do")
    except sqlite3.OperationalError as exc:
        said = refusal(str(p), exc, writing=True, busy_ms=lambda: BUSY_TIMEOUT_MS)
        conn.close()
        raise StoreError(said or f"{p}: {exc}") from None


class SqliteStore(CachedLoad):
    """A store in a SQLite file (`Store.open` of a path; api.py says what a store is)."""

    _conn: StoreConnection

    def __init__(
        self, path: Path, conn: sqlite3.Connection, readonly: bool, readonly_why: str | None = None
    ) -> None:
        super().__init__(path, conn, readonly, readonly_why)
        self.words = WordIndex(conn, str(path), self.snapshot)  # the FTS5 table's counts and terms

    def _make_audit(self, conn: sqlite3.Connection) -> SqliteAudit:
        return SqliteAudit(conn, self.dialect)

    def _make_imports(self, conn: sqlite3.Connection) -> SqliteImports:
        return SqliteImports(conn, self.dialect)

    def search(self, query: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        return self.words.search(query, limit)

    def search_any(self, terms: Sequence[str], weights: Sequence[float] | None = None) -> WordHits:
        return self.words.search_any(terms, weights)

    def prepare_search(self) -> None:
        self.words.prepare()

    @classmethod
    def open_file(
        cls, path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False
    ) -> SqliteStore:
        """`Store.open` of a file."""
        p = Path(path)
        if not p.exists() and not create:
            raise StoreError(f"{p}: no such database")
        if p.is_dir():
            raise StoreError(f"{p}: is a directory, not a database")
        wal = (p.parent / (p.name + "-wal")).exists()
        readonly, why = _read_only_why(p, readonly, wal)
        try:
            conn, app_id, version, tables = _connect(_uri(p, readonly, wal))
        except sqlite3.OperationalError as exc:
            # SQLite could not open it for writing though the file may be written: its
            # folder refuses the -wal and -shm files beside it (a read-only mount or
            # permissions; for root, os.access says yes to both). Read it read-only instead.
            cannot_open = getattr(exc, "sqlite_errorname", "") == "SQLITE_CANTOPEN"
            if cannot_open and not p.exists():
                raise StoreError(f"{p}: cannot be created in {p.parent} ({exc})") from None
            said = state_at_open(str(p), exc, busy_ms=BUSY_TIMEOUT_MS)  # a full disk, a lock: not damage
            if said is not None:
                raise StoreError(said) from None
            if readonly or not cannot_open:
                raise StoreError(f"{p}: not a SQLite database, or corrupt ({exc})") from None
            readonly, why = True, _FOLDER_READ_ONLY.format(folder=p.parent) + f" (SQLite: {exc})"
            try:
                conn, app_id, version, tables = _connect(_uri(p, True, wal))
            except sqlite3.DatabaseError:
                raise StoreError(f"{p}: cannot be opened: {why}") from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{p}: not a SQLite database, or corrupt ({exc})") from None
        _prepare(p, conn, app_id, version, tables, create=create, readonly=readonly)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.shown = str(p)  # from here on, what the file's state refuses names it (state.py)
        return cls(p, conn, readonly, why)

    def check_health(self, seconds: float = HEALTH_CHECK_SECONDS) -> None:
        """Refuse to write into a store that reports damage (SQLite's quick_check, table
        by table), before the write: a page found damaged only when a transaction
        touches it fails that transaction (it rolls back), but one touched after a commit
        would fail a command whose first part had landed. Small tables first (the audit,
        the graph's), so a large store's budget of `seconds` reaches them; what the budget
        does not reach goes unchecked. Once per open store: a long-lived session pays it
        at its first import only."""
        if self._checked or self.readonly:
            return
        tables = [
            name
            for (name,) in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
                " ORDER BY name IN ('facts', 'embeddings') OR name LIKE 'facts_fts%', name"
            )
        ]
        deadline = time.monotonic() + seconds
        self._conn.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
        try:
            for table in tables:
                found = [row[0] for row in self._conn.execute(f'PRAGMA quick_check("{table}")')]
                if found != ["ok"]:
                    lines = [x for row in found for x in row.splitlines() if not x.startswith("***")]
                    more = f" and {len(lines) - 1} more" if len(lines) > 1 else ""
                    raise StoreError(
                        f"{self.path}: the database is corrupt (quick_check of {table}: {lines[0]}{more});"
                        " nothing was written (restore a backup, or recover it with sqlite3's .recover)"
                    )
        except sqlite3.OperationalError as exc:
            if "interrupted" not in str(exc):
                raise
        except sqlite3.DatabaseError as exc:  # before a write: nothing of it was written
            said = exc.__cause__ if isinstance(exc, StoreDamageError) else exc  # SQLite's words
            raise StoreError(damaged(str(self.path), " ".join(str(said).split()), writing=True)) from None
        finally:
            self._conn.set_progress_handler(None, 0)
        self._checked = True

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it lands or none of it does."""
        if self.readonly:
            raise StoreError(f"{self.read_only_because()}; nothing can be changed")
        # a statement refused from the BEGIN to the COMMIT says nothing of it landed (state.py)
        self._conn.writing = True
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:  # SQLite rolls back itself on a full disk
                    self._conn.execute("ROLLBACK")
                raise
        finally:
            self._conn.writing = False

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """Every query inside reads one consistent state of the store (a read transaction
        under WAL): a writer committing meanwhile is neither seen nor waited for, so a
        reader never fails or retries because someone else wrote. Nested uses share the
        outer snapshot; a write inside one is a bug (`transaction` refuses it)."""
        if self._conn.in_transaction:
            yield self._conn
            return
        self._conn.execute("BEGIN")
        try:
            # the snapshot starts at the first read, so take it now, not at some later query
            self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            yield self._conn
        finally:
            if self._conn.in_transaction:
                self._conn.execute("COMMIT")

    def _data_version_read(self) -> Read:
        """Changes when another connection commits (SQLite's PRAGMA data_version)."""
        return Read("PRAGMA data_version", (), lambda rows: rows[0][0])

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file (before copying the file)."""
        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def note_positions(self, note: str, start: int = 0) -> np.ndarray:
        """0-based positions from `start` on of the facts of one note: the note `note`, or a
        path whose last parts are `note` (`CLAUDE.md` finds `packages/api/CLAUDE.md`)."""
        return self._positions(
            "SELECT group_concat(pos - 1, ',') FROM facts WHERE pos > ?"
            " AND (note = ? OR substr(note, -length(?) - 1) = '/' || ?)",
            (start, note, note, note),
        )

    def _positions(self, sql: str, args: tuple) -> np.ndarray:
        with self.snapshot() as conn:
            (joined,) = conn.execute(sql, args).fetchone()
        return np.unique(np.fromstring(joined, dtype=np.int64, sep=",")) if joined else np.empty(0, np.int64)

    def provenance_positions(self, key: str, value: str, start: int = 0) -> np.ndarray:
        """0-based positions from `start` on whose provenance holds KEY equal to VALUE (a
        string as it is; a number or boolean as JSON spells it), the line's unknown keys
        (`extra`) counted as provenance (SPEC 4)."""
        each = (
            "SELECT f.pos FROM facts f, json_each(CASE WHEN json_valid(f.{0}) THEN f.{0} END) j"
            " WHERE f.pos > ? AND j.key = ? AND j.type NOT IN ('object', 'array')"
            " AND CASE j.type WHEN 'text' THEN j.atom WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
            " WHEN 'null' THEN 'null' ELSE CAST(j.atom AS TEXT) END = ?"
        )
        return self._positions(
            f"SELECT group_concat(pos - 1, ',') FROM ({each.format('provenance')} UNION ALL {each.format('extra')})",
            (start, key, value) * 2,
        )


def database_file(conn: sqlite3.Connection) -> str:
    """The file of the connection's main database; "" for an in-memory or temporary one
    (where the graph's update files beside a store go: graph/cache.py)."""
    row = conn.execute("PRAGMA database_list").fetchone()
    return row[2] if row else ""


def holds_facts(path: str | os.PathLike[str]) -> bool:
    """Whether the file is a store with at least one fact, read without writing anything
    (no journal, no migration): False for anything else."""
    try:
        conn = sqlite3.connect(sqlite_uri(Path(path).resolve(), mode="ro"), uri=True)
        try:
            return conn.execute("SELECT count(*) FROM facts").fetchone()[0] > 0
        finally:
            conn.close()
    except sqlite3.Error:
        return False


_FOLDER_READ_ONLY = (
    "its folder {folder} cannot be written, and SQLite keeps its -wal and -shm files beside the store"
)


def _uri(p: Path, readonly: bool, wal: bool) -> str:
    if readonly and not wal and not os.access(p.parent, os.W_OK):
        # a read-only WAL database in a read-only folder needs immutable mode
        return sqlite_uri(p.resolve(), mode="ro", immutable="1")
    return sqlite_uri(p.resolve(), mode="ro" if readonly else "rwc")


def _connect(uri: str) -> tuple[StoreConnection, int, int, set[str]]:
    """A connection, and the store's application id, schema version and tables' names (the
    first reads, which fail on a file that is not a database or cannot be opened)."""
    conn = sqlite3.connect(
        uri,
        uri=True,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,
        factory=StoreConnection,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}  # any kind: a view too
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn, app_id, version, tables
