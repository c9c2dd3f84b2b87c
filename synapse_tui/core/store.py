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
    # Relevance is BM25 (FTS5's constants) computed in numpy over the matched rowids, not
    # FTS5's per-row bm25(): that auxiliary function walks each match's position lists and
    # looks up its size, 5 us a row (1.3 s for a word in a quarter of a million facts). The
    # words of a query are ANDed, so every match holds every word and the idf sum is the
    # same for all of them: it scales every relevance alike and is left out. What ranks
    # matches is the length normalisation, from FTS5's own per-row token counts (kept in
    # an array beside the connection, extended as facts are appended); a word's count in
    # one fact is taken as 1 (facts are short statements), the one place this differs
    # from bm25().
    BM25_K1 = 1.2
    BM25_B = 0.75
    _doc_tokens: np.ndarray | None = None  # tokens per row (id + text) by rowid; 0 = no row
    _doc_rows = 0  # rows counted in _doc_tokens
    _doc_total = 0  # their tokens

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
            tokens, total, rows = self._token_counts(conn, int(rowids.max()), keep)
        mean = total / max(rows, 1)
        length = tokens[rowids] / mean if mean > 0 else np.ones(len(rowids))
        k1, b = self.BM25_K1, self.BM25_B
        relevance = len(words) * (k1 + 1) / (1 + k1 * (1 - b + b * length))
        pos = rowids - 1
        if limit:
            best = np.argsort(-relevance, kind="stable")[: int(limit)]
            pos, relevance = pos[best], relevance[best]
        return pos, relevance

    def _token_counts(self, conn: sqlite3.Connection, upto: int, keep: bool) -> tuple[np.ndarray, int, int]:
        """Tokens per FTS row by rowid covering at least `upto`, their total and the number
        of rows: FTS5's docsize table (one varint per column per row), read whole once,
        then only the rows appended since. Facts are never rewritten or removed, so counts
        once read stay true; `keep` False (inside a write) computes without keeping."""
        have = self._doc_tokens
        if have is not None and upto < len(have):
            return have, self._doc_total, self._doc_rows
        start = 0 if have is None else len(have)
        first, last, count = conn.execute(
            "SELECT (SELECT min(id) FROM facts_fts_docsize WHERE id >= :s),"
            " (SELECT max(id) FROM facts_fts_docsize),"
            " (SELECT count(*) FROM facts_fts_docsize WHERE id >= :s)",
            {"s": start},
        ).fetchone()
        factory = conn.text_factory
        conn.text_factory = bytes
        try:
            (blob,) = conn.execute(
                "SELECT group_concat(sz, x'') FROM facts_fts_docsize WHERE id >= ?", (start,)
            ).fetchone()
            data = np.frombuffer(blob or b"", dtype=np.uint8)
            if count and len(data) % count == 0 and not (data >= 128).any():
                # the usual case: every count under 128, one byte per column per row
                per_row = data.reshape(count, -1).sum(axis=1, dtype=np.int64)
            else:
                (sizes,) = conn.execute(
                    "SELECT group_concat(length(sz), ',') FROM facts_fts_docsize WHERE id >= ?", (start,)
                ).fetchone()
                per_row = _varint_sums(data, sizes.decode() if sizes else "")
            if count and last - first + 1 == count:
                rows = np.arange(first, last + 1, dtype=np.int64)
            else:
                (ids,) = conn.execute(
                    "SELECT group_concat(id, ',') FROM facts_fts_docsize WHERE id >= ?", (start,)
                ).fetchone()
                rows = np.fromstring(ids.decode(), dtype=np.int64, sep=",") if ids else np.empty(0, np.int64)
        finally:
            conn.text_factory = factory
        top = max(upto, int(rows.max()) if len(rows) else 0) + 1
        tokens = np.zeros(top, dtype=np.int64)
        if have is not None:
            tokens[: len(have)] = have
        tokens[rows] = per_row
        total, counted = self._doc_total + int(per_row.sum()), self._doc_rows + len(rows)
        if keep:
            self._doc_tokens, self._doc_total, self._doc_rows = tokens, total, counted
        return tokens, total, counted


def _varint_sums(blob: np.ndarray, sizes: str) -> np.ndarray:
    """Per row, the sum of the SQLite varints (big-endian, 7 bits a byte, high bit = more)
    packed in the bytes `blob`, row i taking the next sizes[i] bytes."""
    lengths = np.fromstring(sizes, dtype=np.int64, sep=",") if sizes else np.empty(0, np.int64)
    data = blob.astype(np.int64)
    last = np.flatnonzero(data < 128)  # the final byte of each varint
    which = np.repeat(np.arange(len(last)), np.diff(np.append(-1, last)))  # varint of each byte
    shift = 7 * (last[which] - np.arange(len(data)))  # bytes after this one in its varint
    values = np.bincount(which, weights=(data & 127) << shift, minlength=len(last))
    row_of_byte = np.repeat(np.arange(len(lengths)), lengths)
    return np.bincount(row_of_byte[last], weights=values, minlength=len(lengths)).astype(np.int64)


def _describe(exc: sqlite3.OperationalError) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return "the database is locked by another writer; try again when it has finished"
    if "readonly" in text or "read-only" in text:
        return "the database cannot be written (read-only file or folder)"
    return text
