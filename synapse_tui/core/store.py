"""The memory store: one object owns the SQLite connection; every write goes through it.

WAL lets the browser read while an agent writes; a busy timeout turns a short lock into
a wait instead of an error. Callers get frozen dataclasses and numpy arrays.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .config import Config
from .errors import StoreError
from .schema import APPLICATION_ID, SCHEMA_VERSION, migrate
from .trust import FactArrays

BUSY_TIMEOUT_MS = 10_000

# The arithmetic's codes, computed in SQL by `load` (all facts) and `fact_inputs` (a few):
# declared tier as trust.AUTO/HUMAN/SIGNED, and "a valid signature by a trusted signer"
# (the signers bound as a JSON list parameter).
_TIER_CODE = "CASE tier WHEN 'auto' THEN 0 WHEN 'human' THEN 1 ELSE 2 END"
_TRUSTED = "(sig_key IS NOT NULL AND sig_key IN (SELECT value FROM json_each(?)))"
# What `load` reads per fact, in the order FactArrays is built from (see `_scan`).
_LOAD_COLUMNS = (
    "r",
    "s",
    f"{_TIER_CODE} + 4 * sig_state + 16 * {_TRUSTED}",
    "coalesce(o1_count, 0)",
    "coalesce(supersedes_pos, 0) - 1",
    "deleted",
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
class AuditEntry:
    seq: int
    at: str
    actor: str
    action: str
    fact_id: str | None
    batch: int | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    undoes: int | None
    score_before: dict[str, Any] | None = None  # the fact's score just before (SPEC 8)


def _loads(value: str | None) -> Any:
    return None if value is None else json.loads(value)


class Store:
    """An open synapse-tui store. Use `Store.open(path)`; close it or use `with`."""

    def __init__(self, path: Path, conn: sqlite3.Connection, readonly: bool) -> None:
        self.path = path
        self.conn = conn
        self.readonly = readonly

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False) -> Store:
        p = Path(path)
        if not p.exists() and not create:
            raise StoreError(f"{p}: no such database")
        if p.is_dir():
            raise StoreError(f"{p}: is a directory, not a database")
        if not readonly and p.exists() and not os.access(p, os.W_OK):
            readonly = True
        if readonly and not os.access(p.parent, os.W_OK) and not (p.parent / (p.name + "-wal")).exists():
            # a read-only WAL database in a read-only folder needs immutable mode
            uri = f"file:{p.resolve()}?mode=ro&immutable=1"
        elif readonly:
            uri = f"file:{p.resolve()}?mode=ro"
        else:
            uri = f"file:{p.resolve()}?mode=rwc"
        try:
            conn = sqlite3.connect(
                uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
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
            elif version < SCHEMA_VERSION:
                raise StoreError(f"{p}: needs an upgrade, which a read-only open cannot do")
        except sqlite3.OperationalError as exc:
            conn.close()
            raise StoreError(f"{p}: {_describe(exc)}") from None
        conn.execute("PRAGMA foreign_keys = ON")
        return cls(p, conn, readonly)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it lands or none of it does."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only; nothing can be changed")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path}: {_describe(exc)}") from None
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        try:
            self.conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            self.conn.execute("ROLLBACK")
            raise StoreError(f"{self.path}: {_describe(exc)}") from None

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """Every query inside reads one consistent state of the store (a read transaction
        under WAL): a writer committing meanwhile is neither seen nor waited for, so a
        reader never fails or retries because someone else wrote. Nested uses share the
        outer snapshot; a write inside one is a bug (`transaction` refuses it)."""
        if self.conn.in_transaction:
            yield self.conn
            return
        self.conn.execute("BEGIN")
        try:
            # the snapshot starts at the first read, so take it now, not at some later query
            self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            yield self.conn
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    def data_version(self) -> int:
        """Changes when another connection commits (SQLite's PRAGMA data_version)."""
        return self.conn.execute("PRAGMA data_version").fetchone()[0]

    def count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM facts").fetchone()[0]

    def load(self, config: Config) -> tuple[list[str], FactArrays]:
        """Fact ids by position and the arithmetic's inputs.

        Each column comes back as one aggregated value (group_concat), so a million facts
        cost a handful of Python objects instead of millions of row tuples.
        """
        n = self.count()
        if n == 0:
            empty_i = np.empty(0, np.int64)
            return [], FactArrays(
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
            )
        nums, events, ids = self._scan(json.dumps(list(config.trust.signers)), n)
        r, s, packed, o1, sup, deleted, counts = nums.T
        offsets = np.zeros(n, dtype=np.int64)
        np.cumsum(counts[:-1], out=offsets[1:])
        arrays = FactArrays(
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
        )
        return ids, arrays

    def _scan(self, signers: str, n: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Every fact's numbers (n x 7), events and ids in one pass over the table.

        One statement reads one consistent snapshot; each column aggregates into a single
        value (group_concat), so a million facts cost a handful of Python objects instead
        of millions of row tuples (measured at a million: 1.5 s of CPU, against 2.4 s for
        one scan per column and 2.4 s for one concatenated string per row).
        """
        inner = ", ".join(f"{expr} AS c{i}" for i, expr in enumerate(_LOAD_COLUMNS))
        outer = ", ".join(f"group_concat(c{i}, ',')" for i in range(len(_LOAD_COLUMNS)))
        factory = self.conn.text_factory
        self.conn.text_factory = bytes
        try:
            *texts, blob, joined = self.conn.execute(
                f"SELECT {outer}, group_concat(events, x''), group_concat(id, char(30))"
                f" FROM (SELECT {inner}, events, id FROM facts ORDER BY pos)",
                (signers,),
            ).fetchone()
        finally:
            self.conn.text_factory = factory
        nums = np.empty((n, len(texts)), dtype=np.int64)
        for i, text in enumerate(texts):
            values = np.fromstring(text.decode("ascii"), dtype=np.int64, sep=",")
            if len(values) != n:
                raise StoreError(f"{self.path}: the facts table changed while loading; try again")
            nums[:, i] = values
        ids = joined.decode("utf-8").split("\x1e")
        if len(ids) != n:  # an id containing the separator: take the slow, exact path
            ids = [row[0] for row in self.conn.execute("SELECT id FROM facts ORDER BY pos")]
        return nums, np.frombuffer(blob or b"", dtype=np.float64), ids

    def fact_inputs(self, fact_ids: list[str], config: Config) -> dict[int, tuple]:
        """The arithmetic's inputs of a few facts, by 0-based position (see `load`)."""
        signers = json.dumps(list(config.trust.signers))
        rows = self.conn.execute(
            f"SELECT pos, r, s, {_TIER_CODE}, sig_state, {_TRUSTED},"
            " coalesce(o1_count, 0), coalesce(supersedes_pos, 0) - 1, deleted, events FROM facts"
            " WHERE id IN (SELECT value FROM json_each(?))",
            (signers, json.dumps(list(fact_ids))),
        )
        return {
            pos - 1: (
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
            for pos, r, s, tier, sig, trusted, o1, sup, deleted, ev in rows
        }

    def texts(self, positions: list[int] | np.ndarray) -> list[str]:
        """Fact texts for 0-based positions, in the order asked."""
        if len(positions) == 0:
            return []
        wanted = [int(p) + 1 for p in positions]
        rows = dict(
            self.conn.execute(
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
        row = self.conn.execute(f"SELECT {self._RECORD_COLS} FROM facts WHERE id = ?", (fact_id,)).fetchone()
        return None if row is None else self._record(row)

    def records(self) -> Iterator[FactRecord]:
        for row in self.conn.execute(f"SELECT {self._RECORD_COLS} FROM facts ORDER BY pos"):
            yield self._record(row)

    def ids_at(self, positions: list[int]) -> list[str]:
        rows = dict(
            self.conn.execute(
                "SELECT pos, id FROM facts WHERE pos IN (SELECT value FROM json_each(?))",
                (json.dumps([int(p) + 1 for p in positions]),),
            )
        )
        return [rows[int(p) + 1] for p in positions]

    def superseded_by(self, fact_id: str) -> list[str]:
        return [
            row[0]
            for row in self.conn.execute("SELECT id FROM facts WHERE supersedes = ? ORDER BY id", (fact_id,))
        ]

    def embedding_kind(self, pos: int) -> str | None:
        """'model' (came with the fact), 'lexical' (the built-in embedder) or None."""
        row = self.conn.execute("SELECT kind FROM embeddings WHERE pos = ?", (pos + 1,)).fetchone()
        return None if row is None else row[0]

    def history(self, fact_id: str) -> list[AuditEntry]:
        rows = self.conn.execute(
            "SELECT seq, at, actor, action, fact_id, batch, before, after, undoes, score_before FROM audit"
            " WHERE fact_id = ? ORDER BY seq",
            (fact_id,),
        )
        return [
            AuditEntry(seq, at, actor, action, fid, batch, _loads(before), _loads(after), undoes, _loads(sb))
            for seq, at, actor, action, fid, batch, before, after, undoes, sb in rows
        ]

    # -- full text ----------------------------------------------------------------------
    # Relevance is BM25 with FTS5's constants, computed in numpy over the matched rowids
    # instead of by FTS5's per-row bm25(): that auxiliary function walks each match's
    # position lists and looks up its size, 5 us a row (1.3 s for a word in a quarter of a
    # million facts). The words of a query are ANDed, so every match holds every word and
    # the idf sum is the same for all of them: it scales every relevance alike and is left
    # out. What ranks matches is the length normalisation: each row's token count from
    # FTS5's docsize table against the average from its averages record, as bm25() reads
    # them. A word's count within one fact is taken as 1 (facts are short statements): the
    # one place the order can differ from bm25()'s.
    BM25_K1 = 1.2
    BM25_B = 0.75
    FTS_COLUMNS = 2  # facts_fts: id, text (docsize holds one varint per column per row)
    _doc_tokens: np.ndarray | None = None  # tokens per FTS row by rowid, once read whole

    def search(self, query: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """FTS5 matches for free words (each a prefix, all required): 0-based positions,
        ascending, and their relevance (> 0, higher is better: see above); with `limit`,
        only the most relevant, best first. Each word is quoted, so user text is never
        FTS syntax."""
        words = [w for w in query.split() if w]
        if not words:
            return np.empty(0, np.int64), np.empty(0)
        match = " ".join('"' + w.replace('"', '""') + '"*' for w in words)
        keep = not self.conn.in_transaction  # inside a write, rows read may yet roll back
        with self.snapshot() as conn:
            (joined,) = conn.execute(
                "SELECT group_concat(rowid, ',') FROM facts_fts WHERE facts_fts MATCH ?", (match,)
            ).fetchone()
            if not joined:
                return np.empty(0, np.int64), np.empty(0)
            rowids = np.fromstring(joined, dtype=np.int64, sep=",")
            tokens = self._row_tokens(conn, rowids, keep)
            averages = conn.execute("SELECT block FROM facts_fts_data WHERE id = 1").fetchone()
        rows, *column_tokens = _varints(averages[0]) if averages else [0]  # FTS5's averages record
        mean = sum(column_tokens) / rows if rows else 0.0
        length = tokens / mean if mean > 0 else np.ones(len(rowids))
        k1, b = self.BM25_K1, self.BM25_B
        relevance = len(words) * (k1 + 1) / (1 + k1 * (1 - b + b * length))
        pos = rowids - 1
        if limit:
            best = np.argsort(-relevance, kind="stable")[: int(limit)]
            pos, relevance = pos[best], relevance[best]
        return pos, relevance

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


def _describe(exc: sqlite3.OperationalError) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return "the database is locked by another writer; try again when it has finished"
    if "readonly" in text or "read-only" in text:
        return "the database cannot be written (read-only file or folder)"
    return text
