"""The memory store: one object owns the SQLite connection; every write goes through it.

WAL lets the browser read while an agent writes; a busy timeout turns a short lock into
a wait instead of an error. Callers get frozen dataclasses and numpy arrays.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import is_server
from synapse_tui.core.base.sqlitepath import uri as sqlite_uri
from synapse_tui.core.store import loadcache
from synapse_tui.core.store.arrays import FactArrays
from synapse_tui.core.store.audit import Audit, AuditEntry
from synapse_tui.core.store.imports import Imports
from synapse_tui.core.store.read import Read, answer
from synapse_tui.core.store.review import Review
from synapse_tui.core.store.schema import APPLICATION_ID, READABLE_FROM, SCHEMA_VERSION, migrate

BUSY_TIMEOUT_MS = 10_000
# How long the check before a large write (`check_health`) may read: all of a store of
# 100,000 facts takes 0.6 s on one core; past this, what was not reached goes unchecked.
HEALTH_CHECK_SECONDS = 1.5

# The arithmetic's codes, computed in SQL by `load` (all facts) and `fact_inputs` (a few):
# declared tier as trust.AUTO/HUMAN/SIGNED, and "a valid signature by a trusted signer"
# (the signers bound as a JSON list parameter).
_TIER_CODE = "CASE tier WHEN 'auto' THEN 0 WHEN 'human' THEN 1 ELSE 2 END"
_TRUSTED = "(sig_key IS NOT NULL AND sig_key IN (SELECT value FROM json_each(?)))"
# The provenance key of a fact its source marks invalid with no successor named (Graphiti:
# an edge several newer ones could have invalidated): the flag `invalidated` (SPEC 9),
# read from provenance so that export and import carry it as they carry the instant.
INVALIDATED_AT = "x-invalidated-at"
_INVALIDATED = f"json_extract(provenance, '$.\"{INVALIDATED_AT}\"') IS NOT NULL"
# A fact its source removed by TTL, not its agent (a LangGraph row): the flag `expired`,
# from the reason a sync records (meta `deleted.why.ID`); only deleted facts look it up.
_EXPIRED = "deleted = 1 AND EXISTS (SELECT 1 FROM meta WHERE meta.key = 'deleted.why.' || facts.id)"
# What `load` reads per fact, in the order FactArrays is built from (see `_scan`).
_LOAD_COLUMNS = (
    "r",
    "s",
    f"{_TIER_CODE} + 4 * sig_state + 16 * {_TRUSTED}",
    "coalesce(o1_count, 0)",
    "coalesce(supersedes_pos, 0) - 1",
    "deleted",
    _INVALIDATED,
    _EXPIRED,
    "length(events) / 8",
)


@dataclass(frozen=True)
class FactRecord:
    """One fact as stored: the verbatim interchange values plus its position."""

    pos: int
    id: str
    text: str
    created_at: str
    tier: str
    corroborations: int
    contradictions: int
    reinforced_at: list[str] | None
    reinforcement_count: int | None
    supersedes: str | None
    note: str | None
    entities: list[str]
    provenance: dict[str, Any] | None
    signature: dict[str, Any] | None
    sig_state: int
    extra: dict[str, Any]


@dataclass(frozen=True)
class FactDetail:
    """What `show` reads of one fact beside its scores (`Store.detail_reads`): its record
    (None: no such fact), the facts naming it in `supersedes`, its embedding's kind and its
    audit history."""

    record: FactRecord | None
    superseded_by: list[str]
    embedding: str | None
    history: list[AuditEntry]


@dataclass(frozen=True)
class WordHits:
    """What `Store.search_any` found: per matching fact (ascending positions) its BM25
    relevance and how many of the terms it holds; per term, the positions holding it."""

    pos: np.ndarray
    relevance: np.ndarray
    matched: np.ndarray
    hits: tuple[np.ndarray, ...]


def _inputs(rows: list[tuple]) -> dict[int, tuple]:
    return {
        pos - 1: (
            fid,
            r,
            s,
            tier,
            sig,
            bool(trusted),
            o1,
            sup,
            bool(deleted),
            np.frombuffer(ev, dtype=np.float64),
        )
        for pos, fid, r, s, tier, sig, trusted, o1, sup, deleted, ev in rows
    }


def _superseded_by_read(fact_id: str) -> Read:
    return Read(
        "SELECT id FROM facts WHERE supersedes = ? ORDER BY id", (fact_id,), lambda rows: [r[0] for r in rows]
    )


def _embedding_kind_read(fact_id: str) -> Read:
    """'model' (came with the fact), 'lexical' (the built-in embedder) or None."""
    return Read(
        "SELECT e.kind FROM embeddings e JOIN facts f ON f.pos = e.pos WHERE f.id = ?",
        (fact_id,),
        lambda rows: rows[0][0] if rows else None,
    )


def _loads(value: str | None) -> Any:
    return None if value is None else json.loads(value)


class Store:
    """An open synapse-tui store. Use `Store.open(path)`; close it or use `with`.

    The connection is private (`_conn`): the modules of `core/store/` and the graph's
    persistence use it, everyone else calls a method or a component (`audit`, `review`,
    `imports`), so a second backend has one place to answer."""

    _PARAM = "?"  # the driver's placeholder in the statements `_scan` is handed

    def __init__(
        self, path: Path, conn: sqlite3.Connection, readonly: bool, readonly_why: str | None = None
    ) -> None:
        self.path = path
        self._conn = conn
        self.audit = Audit(conn)  # triage's log: append, undo and redo state, history
        self.review = Review(conn)  # the triage fields of facts, read and written by id
        self.imports = Imports(conn)  # new facts, a sync's flags and evidence, export's extras
        self.readonly = readonly
        # why a store opened for writing is read-only (its file, its folder), None when the
        # caller asked for read-only or it is writable
        self.readonly_why = readonly_why
        self._checked = False
        # One user of the connection at a time, for callers sharing the store across threads
        # (the browser's workers): `close` takes it too, so it never closes the connection
        # under a reader still inside it, which crashes the process.
        self.lock = threading.RLock()

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False) -> Store:
        if is_server(path):  # a PostgreSQL server: the PgStore (psycopg imported only then)
            from synapse_tui.core.store.postgres.store import open_store

            return open_store(path, create=create, readonly=readonly)
        p = Path(path)
        if not p.exists() and not create:
            raise StoreError(f"{p}: no such database")
        if p.is_dir():
            raise StoreError(f"{p}: is a directory, not a database")
        why = None
        wal = (p.parent / (p.name + "-wal")).exists()
        if not readonly and p.exists() and not os.access(p, os.W_OK):
            readonly, why = True, f"{p} cannot be written"
        elif not readonly and p.exists() and not wal and not os.access(p.parent, os.W_OK):
            readonly, why = True, _FOLDER_READ_ONLY.format(folder=p.parent)
        try:
            conn, app_id, version, tables = _connect(_uri(p, readonly, wal))
        except sqlite3.OperationalError as exc:
            # SQLite could not open it for writing though the file may be written: its
            # folder refuses the -wal and -shm files beside it (a read-only mount or
            # permissions; for root, os.access says yes to both). Read it read-only instead.
            cannot_open = getattr(exc, "sqlite_errorname", "") == "SQLITE_CANTOPEN"
            if cannot_open and not p.exists():
                raise StoreError(f"{p}: cannot be created in {p.parent} ({exc})") from None
            if readonly or not cannot_open:
                raise StoreError(f"{p}: not a SQLite database, or corrupt ({exc})") from None
            readonly, why = True, _FOLDER_READ_ONLY.format(folder=p.parent) + f" (SQLite: {exc})"
            try:
                conn, app_id, version, tables = _connect(_uri(p, True, wal))
            except sqlite3.DatabaseError:
                raise StoreError(f"{p}: cannot be opened: {why}") from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{p}: not a SQLite database, or corrupt ({exc})") from None
        if app_id != APPLICATION_ID and (tables or not create):
            conn.close()
            raise StoreError(f"{p}: a SQLite database, but not a synapse-tui store")
        if version > SCHEMA_VERSION:
            conn.close()
            raise StoreError(f"{p}: made by a newer synapse-tui (schema {version} > {SCHEMA_VERSION})")
        try:
            if not readonly:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                if version < SCHEMA_VERSION:
                    migrate(conn)
            elif version < READABLE_FROM:
                raise StoreError(f"{p}: needs an upgrade, which a read-only open cannot do")
        except sqlite3.OperationalError as exc:
            conn.close()
            raise StoreError(f"{p}: {_describe(exc)}") from None
        conn.execute("PRAGMA foreign_keys = ON")
        return cls(p, conn, readonly, why)

    def read_only_because(self) -> str:
        """`PATH: opened read-only` and why, for a refused write."""
        why = f" ({self.readonly_why})" if self.readonly_why else ""
        return f"{self.path}: opened read-only{why}"

    def close(self) -> None:
        with self.lock:
            self._conn.close()

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
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path}: the database is corrupt ({exc}); nothing was written"
                " (restore a backup, or recover it with sqlite3's .recover)"
            ) from None
        finally:
            self._conn.set_progress_handler(None, 0)
        self._checked = True

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it lands or none of it does."""
        if self.readonly:
            raise StoreError(f"{self.read_only_because()}; nothing can be changed")
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path}: {_describe(exc)}") from None
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        try:
            self._conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            self._conn.execute("ROLLBACK")
            raise StoreError(f"{self.path}: {_describe(exc)}") from None

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

    def data_version(self) -> int:
        """Changes when another connection commits (SQLite's PRAGMA data_version)."""
        return self._read(self.data_version_read())

    def data_version_read(self) -> Read:
        return Read("PRAGMA data_version", (), lambda rows: rows[0][0])

    def marks(self) -> tuple[int, int]:
        """The last fact's position and the last audit entry's seq, read in one statement:
        a long-lived reader tells new facts from new triage by them (index lookups both)."""
        return self._read(self.marks_read())

    def marks_read(self) -> Read:
        return Read(
            "SELECT coalesce(max(pos), 0), (SELECT coalesce(max(seq), 0) FROM audit) FROM facts",
            (),
            lambda rows: tuple(rows[0]),
        )

    def deleted_count(self) -> int:
        """How many facts are flagged deleted (a scan of the table)."""
        return self._conn.execute("SELECT count(*) FROM facts WHERE deleted").fetchone()[0]

    def meta(self, key: str) -> Any:
        """A value kept in `meta` (as JSON), None when absent."""
        return self._read(self.meta_read(key))

    def meta_read(self, key: str) -> Read:
        return Read(
            "SELECT value FROM meta WHERE key = ?",
            (key,),
            lambda rows: json.loads(rows[0][0]) if rows else None,
        )

    def set_meta(self, key: str, value: Any) -> None:
        """Keep `value` in `meta` as JSON, in a transaction of its own."""
        with self.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    def count(self) -> int:
        return self._conn.execute("SELECT count(*) FROM facts").fetchone()[0]

    def load(self, config: Config) -> tuple[list[str], FactArrays]:
        """Fact ids by position and the arithmetic's inputs, from one snapshot.

        A large store keeps a copy of these beside it (`loadcache`): read as it is while
        no fact has changed since it was written, patched with the facts changed since
        while the store's change log reaches back to it. Otherwise each column comes back
        as one aggregated value (group_concat), so a million facts cost a handful of
        Python objects instead of millions of row tuples, and the copy is rewritten.
        """
        signers = json.dumps(list(config.trust.signers))
        with self.snapshot():
            cached = self._from_cache(signers)
            if cached is None:
                ids, arrays = self._load_sql(signers)
            else:
                ids, arrays, patched = cached
            rewrite = (cached is None or patched > loadcache.REWRITE_AFTER) and len(
                ids
            ) >= loadcache.MIN_FACTS
            state = self._cache_state(len(ids)) if rewrite else None
        if state is not None and _writable(self.path):
            token, seq = state
            loadcache.write(loadcache.cache_path(self.path), token, seq, signers, ids, arrays)
        return ids, arrays

    def warm(self, config: Config) -> None:
        """Leave the load cache a large store's next open maps (after an import: the first
        open of a million new facts then reads a tenth of a second instead of seconds)."""
        (top,) = self._conn.execute("SELECT max(pos) FROM facts").fetchone()
        if (top or 0) >= loadcache.MIN_FACTS:
            self.load(config)

    def generation(self) -> int | None:
        """The token of the newest change of a fact (schema m003); None before m003."""
        try:
            row = self._conn.execute("SELECT token FROM facts_changes ORDER BY seq DESC LIMIT 1").fetchone()
        except sqlite3.OperationalError:  # a store older than m003, opened read-only
            return None
        return None if row is None else row[0]

    def _cache_state(self, n: int) -> tuple[int, int | None] | None:
        """What a cache of this snapshot is written under: the token, and the change log's
        newest entry when later changes can be patched in (positions dense: 1..n)."""
        token = self.generation()
        if token is None:
            return None
        (seq,) = self._conn.execute("SELECT max(seq) FROM facts_changes").fetchone()
        (top,) = self._conn.execute("SELECT max(pos) FROM facts").fetchone()
        return token, seq if (top or 0) == n else None

    def _from_cache(self, signers: str) -> tuple[list[str], FactArrays, int] | None:
        """Ids, arrays and how many facts were patched in, from the cache; None when it
        is missing, damaged, for other signers, or stale past what the log can patch."""
        token = self.generation()
        if token is None:
            return None
        path = loadcache.cache_path(self.path)
        header = loadcache.read_header(path, signers)
        if header is None:
            return None
        if header.get("token") == token:
            hit = loadcache.read(path, header)
            return None if hit is None else (*hit, 0)
        seq = header.get("seq")
        if not isinstance(seq, int):
            return None
        row = self._conn.execute("SELECT token FROM facts_changes WHERE seq = ?", (seq,)).fetchone()
        if row is None or row[0] != header.get("token"):  # the log no longer reaches back to it
            return None
        changes = self._conn.execute(
            "SELECT count(*), sum(kind NOT IN ('i', 'u')), group_concat(DISTINCT pos)"
            " FROM facts_changes WHERE seq > ?",
            (seq,),
        ).fetchone()
        count, moved, text = changes
        if not count or moved or count > loadcache.PATCH_MAX:
            return None
        hit = loadcache.read(path, header)
        if hit is None:
            return None
        positions = np.unique(np.fromstring(text, dtype=np.int64, sep=","))
        try:
            return self._patch(*hit, positions, signers)
        except StoreError:
            return None

    def _patch(
        self, ids: list[str], arrays: FactArrays, positions: np.ndarray, signers: str
    ) -> tuple[list[str], FactArrays, int] | None:
        """The cached ids and arrays with the facts at `positions` (1-based) read anew:
        changed ones in place, new ones (the positions after the cached n) appended."""
        n, total = len(ids), self.count()
        (top,) = self._conn.execute("SELECT max(pos) FROM facts").fetchone()
        added = positions[positions > n]
        if top != total or not np.array_equal(added, np.arange(n + 1, total + 1)):
            return None  # positions moved or a gap: only a full load is sure
        nums, events, fresh, _ = self._scan(
            signers,
            len(positions),
            " WHERE pos IN (SELECT value FROM json_each(?))",
            (json.dumps(positions.tolist()),),
        )
        part = _arrays(nums, events, fresh)
        changed = len(positions) - len(added)
        at = positions[:changed] - 1
        for name in (*_PER_FACT, "deleted", "invalidated", "expired"):
            getattr(arrays, name)[at] = getattr(part, name)[:changed]
        for j, i in enumerate(at.tolist()):
            ids[i] = fresh[j]
            new, old = part.events_of(j), arrays.events_of(i)
            if len(new) != len(old) or not np.array_equal(new, old):
                arrays.moved[i] = new
        arrays = arrays.compacted()
        if len(added):
            tail = part.span(changed, len(positions))
            joined = {
                name: np.concatenate([getattr(arrays, name), getattr(tail, name)])
                for name in (
                    "r",
                    "s",
                    "declared",
                    "sig_state",
                    "sig_trusted",
                    "created",
                    "events",
                    "o1_count",
                    "supersedes",
                    "deleted",
                    "invalidated",
                    "expired",
                )
            }
            joined["offsets"] = np.concatenate([arrays.offsets, tail.offsets + len(arrays.events)])
            arrays = FactArrays(**joined)
            ids = ids + fresh[changed:]
        return ids, arrays, len(positions)

    def _load_sql(self, signers: str) -> tuple[list[str], FactArrays]:
        n = self.count()
        if n == 0:
            return [], _empty_arrays()
        nums, events, ids, _ = self._scan(signers, n)
        return ids, _arrays(nums, events, ids)

    def load_chunks(
        self, config: Config, size: int
    ) -> tuple[np.ndarray, Iterator[tuple[list[str], FactArrays]]]:
        """`load` a chunk of facts at a time, for a reader that streams (`score --json`):
        every fact's `supersedes` first (depths need the whole chain), then ids and
        arrays of `size` facts after another, in store order. From the load cache when it
        is valid, else one range query per chunk, so the first chunk comes after a
        fraction of the full scan and memory holds one chunk. Call it inside a snapshot,
        which the chunks are read from."""
        if not self._conn.in_transaction:
            raise RuntimeError("load_chunks reads a snapshot: call it inside Store.snapshot()")
        signers = json.dumps(list(config.trust.signers))
        if (cached := self._from_cache(signers)) is not None:
            ids, arrays, _ = cached
            spans = ((ids[c : c + size], arrays.span(c, c + size)) for c in range(0, len(ids), size))
            return arrays.supersedes, spans
        supersedes = self._supersedes_positions()

        def chunks() -> Iterator[tuple[list[str], FactArrays]]:
            after, left = 0, len(supersedes)
            while left > 0:
                nums, events, ids, after = self._scan(
                    signers, min(size, left), f" WHERE pos > {self._PARAM}", (after,), True
                )
                left -= len(ids)
                yield ids, _arrays(nums, events, ids)

        return supersedes, chunks()

    def _supersedes_positions(self) -> np.ndarray:
        """Every fact's `supersedes` as a position (-1: none), in store order, in one value."""
        factory = self._conn.text_factory
        self._conn.text_factory = bytes
        try:
            (text,) = self._conn.execute(
                "SELECT group_concat(coalesce(supersedes_pos, 0) - 1, ',')"
                " FROM (SELECT supersedes_pos FROM facts ORDER BY pos)"
            ).fetchone()
        finally:
            self._conn.text_factory = factory
        return np.fromstring(text.decode("ascii"), dtype=np.int64, sep=",") if text else np.empty(0, np.int64)

    def _scan(self, signers: str, n: int, where: str = "", args: tuple = (), limit: bool = False):
        """Every fact's numbers (n x 7), events and ids in one pass over the table, in
        position order, and the last position read; `where` (with `args`) picks the facts,
        `limit` stops after n.

        One statement reads one consistent snapshot; each column aggregates into a single
        value (group_concat), so a million facts cost a handful of Python objects instead
        of millions of row tuples (measured at a million: 1.5 s of CPU, against 2.4 s for
        one scan per column and 2.4 s for one concatenated string per row).
        """
        inner = ", ".join(f"{expr} AS c{i}" for i, expr in enumerate(_LOAD_COLUMNS))
        outer = ", ".join(f"group_concat(c{i}, ',')" for i in range(len(_LOAD_COLUMNS)))
        last_n = f" LIMIT {int(n)}" if limit else ""
        factory = self._conn.text_factory
        self._conn.text_factory = bytes
        try:
            *texts, blob, joined, last = self._conn.execute(
                f"SELECT {outer}, group_concat(events, x''), group_concat(id, char(30)), max(pos)"
                f" FROM (SELECT {inner}, events, id, pos FROM facts{where} ORDER BY pos{last_n})",
                (signers, *args),
            ).fetchone()
        finally:
            self._conn.text_factory = factory
        nums = np.empty((n, len(texts)), dtype=np.int64)
        for i, text in enumerate(texts):
            values = np.fromstring((text or b"").decode("ascii"), dtype=np.int64, sep=",")
            if len(values) != n:
                raise StoreError(f"{self.path}: the facts table changed while loading; try again")
            nums[:, i] = values
        ids = joined.decode("utf-8").split("\x1e")
        if len(ids) != n:  # an id containing the separator: take the slow, exact path
            rows = self._conn.execute(f"SELECT id FROM facts{where} ORDER BY pos{last_n}", args)
            ids = [row[0] for row in rows]
        events = np.frombuffer(blob or b"", dtype=np.float64)
        return nums, events, ids, last

    def fact_inputs(self, fact_ids: list[str], config: Config) -> dict[int, tuple]:
        """The arithmetic's inputs of a few facts (unknown ids are left out), by 0-based
        position, each after the fact's id (see `load`)."""
        return self._read(self.fact_inputs_read(fact_ids, config))

    def fact_inputs_read(self, fact_ids: list[str], config: Config) -> Read:
        return Read(
            f"SELECT pos, id, r, s, {_TIER_CODE}, sig_state, {_TRUSTED},"
            " coalesce(o1_count, 0), coalesce(supersedes_pos, 0) - 1, deleted, events FROM facts"
            " WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(config.trust.signers)), json.dumps(list(fact_ids))),
            _inputs,
        )

    def texts(self, positions: list[int] | np.ndarray) -> list[str]:
        """Fact texts for 0-based positions, in the order asked."""
        if len(positions) == 0:
            return []
        wanted = [int(p) + 1 for p in positions]
        rows = dict(
            self._conn.execute(
                "SELECT pos, text FROM facts WHERE pos IN (SELECT value FROM json_each(?))",
                (json.dumps(wanted),),
            )
        )
        return [rows[p] for p in wanted]

    _RECORD_COLS = (
        "pos, id, text, created_at, tier, r, s, reinforced_at, o1_count, supersedes,"
        " note, entities, provenance, signature, sig_state, extra"
    )

    def _record(self, row: tuple) -> FactRecord:
        (
            pos,
            fid,
            text,
            created_at,
            tier,
            r,
            s,
            reinforced_at,
            o1,
            supersedes,
            note,
            entities,
            provenance,
            signature,
            sig_state,
            extra,
        ) = row
        return FactRecord(
            pos=pos - 1,
            id=fid,
            text=text,
            created_at=created_at,
            tier=tier,
            corroborations=r,
            contradictions=s,
            reinforced_at=_loads(reinforced_at),
            reinforcement_count=o1,
            supersedes=supersedes,
            note=note,
            entities=_loads(entities) or [],
            provenance=_loads(provenance),
            signature=_loads(signature),
            sig_state=sig_state,
            extra=_loads(extra) or {},
        )

    def record(self, fact_id: str) -> FactRecord | None:
        return self._read(self._record_read(fact_id))

    def _record_read(self, fact_id: str) -> Read:
        return Read(
            f"SELECT {self._RECORD_COLS} FROM facts WHERE id = ?",
            (fact_id,),
            lambda rows: self._record(rows[0]) if rows else None,
        )

    def detail_reads(self, fact_id: str) -> list[Read]:
        """What `show` reads of one fact beside its scores, as reads to send with others
        (on a server, one round trip): their answers make a FactDetail."""
        return [
            self._record_read(fact_id),
            _superseded_by_read(fact_id),
            _embedding_kind_read(fact_id),
            self.audit.history_read(fact_id),
        ]

    def _read(self, read: Read) -> Any:
        return answer(self._conn, read)

    def read_soon(self, reads: Sequence[Read]) -> Callable[[], list[Any]]:
        """`read_all` sent with the store's next statement (inside a write transaction, with
        its COMMIT, on a server): call the result for the answers once the next statement
        or the transaction's end has gone. A file's store answers at once."""
        answers = self.read_all(reads)
        return lambda: answers

    def read_all(self, reads: Sequence[Read]) -> list[Any]:
        """Each read's answer, in order; a server's store sends them all before waiting for
        any (one round trip), a file's asks them one after the other."""
        return [self._read(read) for read in reads]

    def records(self) -> Iterator[FactRecord]:
        for row in self._conn.execute(f"SELECT {self._RECORD_COLS} FROM facts ORDER BY pos"):
            yield self._record(row)

    def ids_at(self, positions: list[int]) -> list[str]:
        rows = dict(
            self._conn.execute(
                "SELECT pos, id FROM facts WHERE pos IN (SELECT value FROM json_each(?))",
                (json.dumps([int(p) + 1 for p in positions]),),
            )
        )
        return [rows[int(p) + 1] for p in positions]

    def supersessors(self, fact_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(old, new) for every fact that supersedes one of `fact_ids`."""
        return self._read(self.supersessors_read(fact_ids))

    def supersessors_read(self, fact_ids: Sequence[str]) -> Read:
        return Read(
            "SELECT supersedes, id FROM facts WHERE supersedes IN (SELECT value FROM json_each(?))",
            (json.dumps(list(fact_ids)),),
            lambda rows: [tuple(row) for row in rows],
        )

    def id_texts(self) -> Iterator[tuple[str, str]]:
        """(id, text) of every fact, in no particular order."""
        return iter(self._conn.execute("SELECT id, text FROM facts"))

    def unsupported_ids(self, created_before: float) -> list[str]:
        """Facts declared auto and never corroborated, created before the instant, by id."""
        rows = self._conn.execute(
            "SELECT id FROM facts WHERE tier = 'auto' AND r = 0 AND created_ts < ? ORDER BY id",
            (created_before,),
        )
        return [r[0] for r in rows]

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file (before copying the file)."""
        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def superseded_by(self, fact_id: str) -> list[str]:
        return self._read(_superseded_by_read(fact_id))

    def history(self, fact_id: str) -> list[AuditEntry]:
        return self.audit.history(fact_id)

    # -- full text ----------------------------------------------------------------------
    # Word search and its BM25 live in store/words.py, which keeps each term's rows once read.
    FTS_COLUMNS = 2  # facts_fts: id, text (docsize holds one varint per column per row)
    _doc_tokens: np.ndarray | None = None  # tokens per FTS row by rowid, once read whole

    def search(self, query: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Facts holding every word (each a prefix): see words.search."""
        from synapse_tui.core.store import words

        return words.search(self, query, limit)

    def search_any(self, terms: Sequence[str], weights: Sequence[float] | None = None) -> WordHits:
        """Facts holding any of the terms, with their BM25: see words.search_any."""
        from synapse_tui.core.store import words

        return words.search_any(self, terms, weights)

    def provenance_positions(self, key: str, value: str, start: int = 0) -> np.ndarray:
        """0-based positions from `start` on whose provenance holds KEY equal to VALUE (a
        string as it is; a number or boolean as JSON spells it)."""
        return self._positions(
            "SELECT group_concat(f.pos - 1, ',') FROM facts f, json_each(CASE WHEN json_valid(f.provenance)"
            " THEN f.provenance END) j WHERE f.pos > ? AND j.key = ? AND j.type NOT IN ('object', 'array')"
            " AND CASE j.type WHEN 'text' THEN j.atom WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
            " WHEN 'null' THEN 'null' ELSE CAST(j.atom AS TEXT) END = ?",
            (start, key, value),
        )

    def note_positions(self, note: str, start: int = 0) -> np.ndarray:
        """0-based positions from `start` on of the facts of one note."""
        return self._positions(
            "SELECT group_concat(pos - 1, ',') FROM facts WHERE pos > ? AND note = ?", (start, note)
        )

    def _positions(self, sql: str, args: tuple) -> np.ndarray:
        with self.snapshot() as conn:
            (joined,) = conn.execute(sql, args).fetchone()
        return np.unique(np.fromstring(joined, dtype=np.int64, sep=",")) if joined else np.empty(0, np.int64)

    def prepare_search(self) -> None:
        """Read every row's token count now (0.15 s at a million facts), so that the first
        broad search of a long-running process does not: for a server or a browser to call
        once the store is open and the first answer or paint is out."""
        with self.snapshot() as conn:
            (last,) = conn.execute("SELECT max(id) FROM facts_fts_docsize").fetchone()
            if last is not None:
                self._row_tokens(conn, np.array([last], dtype=np.int64), keep=True, whole=True)

    def _row_tokens(
        self, conn: sqlite3.Connection, rowids: np.ndarray, keep: bool, whole: bool = False
    ) -> np.ndarray:
        """Token counts of FTS rows (ascending rowids), from the docsize table. A search
        matching few of the rows not read yet reads just its own (1.5 us a row); one
        matching many reads all the rest in one aggregate (0.15 s at a million) and keeps
        them, so later searches read only rows appended since: facts are never rewritten
        or removed, so a count once read stays true. `keep` False (inside a write): keep
        nothing; `whole`: read all the rest whatever the matches."""
        have = self._doc_tokens
        start = 0 if have is None else len(have)
        unread = rowids[rowids >= start]
        if not len(unread):
            return have[rowids]
        (last,) = conn.execute("SELECT max(id) FROM facts_fts_docsize").fetchone()
        factory = conn.text_factory
        conn.text_factory = bytes
        try:
            if not whole and len(unread) <= 20_000 and 20 * len(unread) < (last or 0) - start:
                found = dict(
                    conn.execute(
                        "SELECT id, sz FROM facts_fts_docsize WHERE id IN (SELECT value FROM json_each(?))",
                        (json.dumps(unread.tolist()),),
                    )
                )
                counts = self._varint_rows(b"".join(found.get(r, b"") for r in unread.tolist()), len(unread))
                if have is None:
                    return counts
                out = np.empty(len(rowids), dtype=np.int64)
                old = len(rowids) - len(unread)  # rowids ascend: the read ones come first
                out[:old], out[old:] = have[rowids[:old]], counts
                return out
            (blob,) = conn.execute(
                "SELECT group_concat(sz, x'') FROM facts_fts_docsize WHERE id >= ?", (start,)
            ).fetchone()
            data = blob or b""
            n = len(_varint_ends(data)) // self.FTS_COLUMNS
            (first,) = conn.execute(
                "SELECT min(id) FROM facts_fts_docsize WHERE id >= ?", (start,)
            ).fetchone()
            if n and last - first + 1 == n:
                ids = np.arange(first, last + 1, dtype=np.int64)
            else:  # gaps (never made by synapse-tui): read the ids too
                (joined,) = conn.execute(
                    "SELECT group_concat(id, ',') FROM facts_fts_docsize WHERE id >= ?", (start,)
                ).fetchone()
                ids = (
                    np.fromstring(joined.decode(), dtype=np.int64, sep=",")
                    if joined
                    else np.empty(0, np.int64)
                )
        finally:
            conn.text_factory = factory
        tokens = np.zeros(max(int(rowids[-1]), last or 0) + 1, dtype=np.int64)
        if have is not None:
            tokens[: len(have)] = have
        tokens[ids] = self._varint_rows(data, len(ids))
        if keep:
            self._doc_tokens = tokens
        return tokens[rowids]

    def _varint_rows(self, data: bytes, rows: int) -> np.ndarray:
        """Per row, the sum of its FTS_COLUMNS varints, `data` holding `rows` rows' worth."""
        ends = _varint_ends(data)
        if len(ends) != rows * self.FTS_COLUMNS:
            raise StoreError(f"{self.path}: the full-text index is damaged (its size table does not add up)")
        if len(ends) == len(data):  # every count under 128: one byte each
            values = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
        else:
            values = _varint_values(data, ends)
        return values.reshape(rows, self.FTS_COLUMNS).sum(axis=1)


def _varint_ends(data: bytes) -> np.ndarray:
    """Where each SQLite varint in `data` ends (its last byte has the high bit clear)."""
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) < 128)


def _varint_values(data: bytes, ends: np.ndarray) -> np.ndarray:
    """The SQLite varints (big-endian, 7 bits a byte) packed in `data`, ending at `ends`;
    counts never need the 9-byte form."""
    raw = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
    which = np.repeat(np.arange(len(ends)), np.diff(np.append(-1, ends)))  # varint of each byte
    shift = 7 * (ends[which] - np.arange(len(raw)))  # bytes after this one in its varint
    return np.bincount(which, weights=(raw & 127) << shift, minlength=len(ends)).astype(np.int64)


def _varints(data: bytes) -> list[int]:
    return _varint_values(data, _varint_ends(data)).tolist()


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


def _empty_arrays() -> FactArrays:
    empty_i = np.empty(0, np.int64)
    return FactArrays(
        r=empty_i,
        s=empty_i,
        declared=np.empty(0, np.int8),
        sig_state=np.empty(0, np.int8),
        sig_trusted=np.empty(0, bool),
        created=np.empty(0),
        events=np.empty(0),
        offsets=empty_i,
        o1_count=empty_i,
        supersedes=empty_i,
        deleted=np.empty(0, bool),
        invalidated=np.empty(0, bool),
        expired=np.empty(0, bool),
    )


def _arrays(nums: np.ndarray, events: np.ndarray, ids: Sequence[str]) -> FactArrays:
    """FactArrays from `_scan`'s numbers (one row per fact, `_LOAD_COLUMNS`) and events.

    Every fact's events begin with its creation, as every writer here makes them; a row
    without (another program's insert) would take the next fact's instants, or fail."""
    r, s, packed, o1, sup, deleted, invalidated, expired, counts = nums.T
    if (counts < 1).any():
        bad = ids[int(np.argmax(counts < 1))]
        raise StoreError(
            f"fact {bad!r} has no events (not even its creation): a row not written by"
            " synapse-tui; import the fact again, or delete the row"
        )
    offsets = np.zeros(len(nums), dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    return FactArrays(
        r=r.copy(),
        s=s.copy(),
        declared=(packed & 3).astype(np.int8),
        sig_state=((packed >> 2) & 3).astype(np.int8),
        sig_trusted=(packed & 16) != 0,
        created=events[offsets],
        events=events,
        offsets=offsets,
        o1_count=o1.copy(),
        supersedes=sup.copy(),
        deleted=deleted.astype(bool),
        invalidated=invalidated.astype(bool),
        expired=expired.astype(bool),
    )


_PER_FACT = ("r", "s", "declared", "sig_state", "sig_trusted", "o1_count", "supersedes")


_FOLDER_READ_ONLY = (
    "its folder {folder} cannot be written, and SQLite keeps its -wal and -shm files beside the store"
)


def _uri(p: Path, readonly: bool, wal: bool) -> str:
    if readonly and not wal and not os.access(p.parent, os.W_OK):
        # a read-only WAL database in a read-only folder needs immutable mode
        return sqlite_uri(p.resolve(), mode="ro", immutable="1")
    return sqlite_uri(p.resolve(), mode="ro" if readonly else "rwc")


def _connect(uri: str) -> tuple[sqlite3.Connection, int, int, int]:
    """A connection, and the store's application id, schema version and table count (the
    first reads, which fail on a file that is not a database or cannot be opened)."""
    conn = sqlite3.connect(
        uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn, app_id, version, tables


def _writable(path: Path) -> bool:
    """May a file go beside this store? Not beside a read-only one: its file or folder
    refuses us, or carries no write permission for anyone (which binds even root)."""
    try:
        return all(os.access(p, os.W_OK) and os.stat(p).st_mode & 0o222 for p in (path, path.parent))
    except OSError:
        return False


def _describe(exc: sqlite3.OperationalError) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return "the database is locked by another writer; try again when it has finished"
    if "readonly" in text or "read-only" in text:
        return "the database cannot be written (read-only file or folder)"
    return text
