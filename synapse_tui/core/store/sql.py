"""The statements both backends share, written once: `SqlStore`, the part of a store
that a SQLite file (`sqlite/`) and a PostgreSQL server (`postgres/`) answer alike.

Both backends are siblings under the abstract `Store` (api.py); each subclasses this with
what it answers its own way: its connection and transactions, the bulk load's aggregated
scan (`_scan`), word search, the marks SQLite keeps in PRAGMAs, and the components' reads
each database words its own way (`_make_audit`, `_make_imports`). The statements here are
plain SQL both read alike, with `?` placeholders (psycopg's `%s` on a server:
postgres/dialect.py); what the two spell differently they ask of the store's `dialect`.
"""

from __future__ import annotations

import abc
import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import Location
from synapse_tui.core.store.api import FinderRow, Store
from synapse_tui.core.store.arrays import FactArrays
from synapse_tui.core.store.audit import Audit, AuditEntry, oldest_first
from synapse_tui.core.store.dialect import SQLITE, Dialect
from synapse_tui.core.store.graph import GraphTables
from synapse_tui.core.store.imports import Imports
from synapse_tui.core.store.ops import (
    AuditSince,
    ChangedSince,
    CurrentMarks,
    DataVersion,
    Detail,
    FactDetail,
    FactInputs,
    FactRecord,
    Inputs,
    Marks,
    Meta,
    MetaPrefix,
    NewestEntry,
    NextBatch,
    Op,
    Supersession,
    Supersessors,
    TriageFields,
)
from synapse_tui.core.store.read import Read, answer, json_column
from synapse_tui.core.store.review import PATCH_CHUNK as _PATCH_CHUNK
from synapse_tui.core.store.review import Review

_T = TypeVar("_T")

# The arithmetic's code of the declared tier (trust.AUTO/HUMAN/SIGNED), computed in SQL by
# `load` (all facts) and `fact_inputs` (a few).
_TIER_CODE = "CASE tier WHEN 'auto' THEN 0 WHEN 'human' THEN 1 ELSE 2 END"
# The provenance key of a fact its source marks invalid with no successor named (Graphiti:
# an edge several newer ones could have invalidated): the flag `invalidated` (SPEC 9),
# read from provenance so that export and import carry it as they carry the instant.
INVALIDATED_AT = "x-invalidated-at"


def _inputs(rows: list[tuple]) -> dict[int, Inputs]:
    return {
        pos - 1: Inputs(
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


def _first(answers: list[Any]) -> Any:
    return answers[0]


def _answers(plans: list[tuple[list[Read], Callable[[list[Any]], Any]]], flat: list[Any]) -> list[Any]:
    """Each op's answer from the answers of all their statements, in order."""
    out, at = [], 0
    for reads, make in plans:
        out.append(make(flat[at : at + len(reads)]))
        at += len(reads)
    return out


_PLAIN_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")  # a source's name safe in a JSON path


class SqlStore(Store):
    """What both backends answer with the same statements; see the module's docstring.

    The connection is private (`_conn`): the modules of `core/store/` and the graph's
    persistence use it, everyone else calls a method or a component (`audit`, `review`,
    `imports`)."""

    _PARAM = "?"  # the driver's placeholder in the statements `_scan` is handed
    dialect: Dialect = SQLITE  # the spellings the two databases read differently (dialect.py)

    def __init__(
        self, path: Path | Location, conn: Any, readonly: bool, readonly_why: str | None = None
    ) -> None:
        self.path = path
        self._conn = conn
        self.audit = self._make_audit(conn)  # triage's log: append, undo and redo state, history
        # what `_per_state` computed, by name: (the change log's newest entry then, the answer)
        self._known: dict[str, tuple[tuple[int, int], Any]] = {}
        self.review = Review(conn, self._per_state)  # the triage fields of facts, read and written by id
        self.imports = self._make_imports(conn)  # new facts, a sync's flags and evidence, export's extras
        self.graph = GraphTables(conn, self.dialect)  # the neighbour graph's tables
        self.readonly = readonly
        # why a store opened for writing is read-only (its file, its folder), None when the
        # caller asked for read-only or it is writable
        self.readonly_why = readonly_why
        self._checked = False
        # One user of the connection at a time, for callers sharing the store across threads
        # (the browser's workers): `close` takes it too, so it never closes the connection
        # under a reader still inside it, which crashes the process.
        self.lock = threading.RLock()

    @abc.abstractmethod
    def _make_audit(self, conn: Any) -> Audit:
        """The backend's `Audit`: the component with the reads each database words its own way."""

    @abc.abstractmethod
    def _make_imports(self, conn: Any) -> Imports:
        """The backend's `Imports`: the component with its word index and typed provenance."""

    def read_only_because(self) -> str:
        """`PATH: opened read-only` and why, for a refused write."""
        why = f" ({self.readonly_why})" if self.readonly_why else ""
        return f"{self.path}: opened read-only{why}"

    def close(self) -> None:
        with self.lock:
            self._conn.close()

    def data_version(self) -> int:
        """Changes when another connection commits (SQLite's PRAGMA data_version)."""
        return self._read(self._data_version_read())

    @abc.abstractmethod
    def _data_version_read(self) -> Read:
        """`data_version` as a read (SQLite's PRAGMA; the server's change log)."""

    def marks(self) -> Marks:
        """The last fact's position and the last audit entry's seq, read in one statement:
        a long-lived reader tells new facts from new triage by them (index lookups both)."""
        return self._read(self._marks_read())

    def _marks_read(self) -> Read:
        return Read(
            "SELECT coalesce(max(pos), 0), (SELECT coalesce(max(seq), 0) FROM audit) FROM facts",
            (),
            lambda rows: Marks(*rows[0]),
        )

    def deleted_count(self) -> int:
        """How many facts are flagged deleted: counted (a scan of the table) once per state
        of the facts (`_per_state`), so asked again in that state it costs an index look-up."""
        return self._per_state(
            "deleted_count",
            lambda: int(
                self._read(Read("SELECT count(*) FROM facts WHERE deleted <> 0", (), lambda rows: rows[0][0]))
            ),
        )

    def invalidated_ids(self) -> frozenset[str]:
        """Read once per state of the facts (a fact's provenance never changes)."""
        invalid = self.dialect.json_text("provenance", INVALIDATED_AT)
        return self._per_state(
            "invalidated_ids",
            lambda: frozenset(
                self._read(
                    Read(
                        f"SELECT id FROM facts WHERE {invalid} IS NOT NULL",
                        (),
                        lambda rows: [r[0] for r in rows],
                    )
                )
            ),
        )

    def change_mark(self) -> tuple[int, int] | None:
        return self._newest_change()

    def changed_since(self, mark: tuple[int, int] | None) -> list[int] | None:
        if mark is None:
            return None
        since = self._changed_since(mark)
        return None if since is None else [p - 1 for p in since]

    def supersessions(self) -> Mapping[int, int]:
        """Read once per state of the facts (`_per_state`): whole the first time, then only
        the facts the change log names since; read-only."""
        answer: Mapping[int, int] = self._per_state(
            "supersessions", self._read_supersessions, self._patched_supersessions
        )
        return answer

    def _read_supersessions(self) -> Mapping[int, int]:
        rows = self._conn.execute(
            "SELECT pos - 1, supersedes_pos - 1 FROM facts WHERE supersedes_pos IS NOT NULL"
        ).fetchall()
        return MappingProxyType({int(p): int(t) for p, t in rows})

    def _patched_supersessions(self, kept: Mapping[int, int], positions: list[int]) -> Mapping[int, int]:
        """`kept` with the facts at `positions` (from 1: added or updated since) read again."""
        fresh: dict[int, int | None] = {}
        for at in range(0, len(positions), _PATCH_CHUNK):
            some = positions[at : at + _PATCH_CHUNK]
            rows = self._conn.execute(
                f"SELECT pos - 1, supersedes_pos - 1 FROM facts WHERE pos IN ({', '.join('?' * len(some))})",
                tuple(some),
            ).fetchall()
            fresh.update((int(p), None if t is None else int(t)) for p, t in rows)
        if all(kept.get(p) == t for p, t in fresh.items()):
            return kept
        out = {p: t for p, t in kept.items() if p not in fresh}
        out.update((p, t) for p, t in fresh.items() if t is not None)
        return MappingProxyType(out)

    def _per_state(
        self, what: str, compute: Callable[[], _T], patch: Callable[[_T, list[int]], _T] | None = None
    ) -> _T:
        """`compute()`, a read of what changes only with the facts, computed once per state
        of the facts and kept by `what`: the change log's newest entry names that state
        (every change of a fact, by whichever writer, adds one with a fresh random token;
        entries become visible in the order of their seq on both backends), so asked again
        in that state it costs an index look-up. The entry and the answer are read in one
        snapshot; inside a transaction its own changes are entries too, and one rolled back
        leaves a token never seen again. A store without the log (older than m003,
        read-only) computes it every time.

        `patch(kept, positions)`, for an answer that changes only with the facts it is
        about: the kept answer brought to this state from the positions (from 1) of the
        facts added or updated since, while the log still holds the kept entry and logged
        nothing else since (a fact deleted or moved, a log begun again: `compute`)."""
        with self.snapshot():
            state = self._newest_change()
            known = self._known.get(what)
            if state is not None and known is not None and known[0] == state:
                return known[1]
            if (
                patch is not None
                and state is not None
                and known is not None
                and (since := self._changed_since(known[0])) is not None
            ):
                value = patch(known[1], since)
            else:
                value = compute()
        if state is None:
            self._known.pop(what, None)
        else:
            self._known[what] = (state, value)
        return value

    PATCH_MAX = 2_000  # logged changes past which `_per_state` computes again rather than patch

    def _changed_since(self, entry: tuple[int, int]) -> list[int] | None:
        """The positions (from 1) of the facts added or updated after the log's `entry`
        (seq, token), in order; None when the log no longer holds that entry (pruned, or
        the token of a write rolled back), or logged a deletion, a move or a new start
        since, or more than PATCH_MAX changes."""
        seq, token = entry
        held = self._conn.execute("SELECT token FROM facts_changes WHERE seq = ?", (seq,)).fetchall()
        if not held or int(held[0][0]) != token:
            return None
        rows = self._conn.execute(
            "SELECT pos, kind FROM facts_changes WHERE seq > ? ORDER BY seq LIMIT ?",
            (seq, self.PATCH_MAX + 1),
        ).fetchall()
        if len(rows) > self.PATCH_MAX or any(kind not in ("i", "u") for _, kind in rows):
            return None
        return list(dict.fromkeys(int(pos) for pos, _ in rows))

    def _newest_change(self) -> tuple[int, int] | None:
        """(seq, token) of the change log's newest entry; None without a log."""
        rows = self._conn.execute("SELECT seq, token FROM facts_changes ORDER BY seq DESC LIMIT 1").fetchall()
        return (int(rows[0][0]), int(rows[0][1])) if rows else None

    def meta(self, key: str) -> Any:
        """A value kept in `meta` (as JSON), None when absent."""
        return self._read(self._meta_read(key))

    def _meta_read(self, key: str) -> Read:
        return Read(
            "SELECT value FROM meta WHERE key = ?",
            (key,),
            lambda rows: json_column(rows[0][0]) if rows else None,
        )

    def _meta_prefix_read(self, prefix: str) -> Read:
        return Read(
            "SELECT key, value FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key",
            (len(prefix), prefix),
            lambda rows: [(key, json_column(value)) for key, value in rows],
        )

    def set_meta(self, key: str, value: Any) -> None:
        """Keep `value` in `meta` as JSON, in a transaction of its own."""
        with self.transaction() as conn:
            conn.execute(
                self.dialect.upsert("meta", ("key", "value"), "key", "VALUES (?, ?)"),
                (key, json.dumps(value)),
            )

    def count(self) -> int:
        return self._conn.execute("SELECT count(*) FROM facts").fetchone()[0]

    def load(self, config: Config) -> tuple[list[str], FactArrays]:
        """Fact ids by position and the arithmetic's inputs, from one snapshot: each column
        comes back as one aggregated value, so a million facts cost a handful of Python
        objects instead of millions of row tuples (a file keeps a cache beside it: sqlite/load.py)."""
        signers = json.dumps(list(config.trust.signers))
        with self.snapshot():
            return self._load_sql(signers)

    def warm(self, config: Config) -> None:
        """Nothing to leave for the next open (a file's load cache: sqlite/load.py)."""

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

    @abc.abstractmethod
    def _supersedes_positions(self) -> np.ndarray:
        """Every fact's `supersedes` as a position (-1: none), in store order, in one value."""

    @abc.abstractmethod
    def _scan(
        self, signers: str, n: int, where: str = "", args: tuple = (), limit: bool = False
    ) -> tuple[np.ndarray, np.ndarray, list[str], int]:
        """Every fact's numbers (n x 9), events and ids in one pass over the table, in
        position order, and the last position read; `where` (with `args`) picks the facts,
        `limit` stops after n."""

    def fact_inputs(self, fact_ids: list[str], config: Config) -> dict[int, Inputs]:
        """The arithmetic's inputs of a few facts (unknown ids are left out), by 0-based
        position (see `load`)."""
        return self.ask(FactInputs.of(fact_ids, config))

    def _fact_inputs_read(self, fact_ids: Sequence[str], signers: Sequence[str]) -> Read:
        d = self.dialect
        return Read(
            f"SELECT pos, id, r, s, {_TIER_CODE}, sig_state, (sig_key IS NOT NULL AND {d.in_list('sig_key')}),"
            " coalesce(o1_count, 0), coalesce(supersedes_pos, 0) - 1, deleted, events FROM facts"
            f" WHERE {d.in_list('id')}",
            (d.list_arg(signers), d.list_arg(fact_ids)),
            _inputs,
        )

    def texts(self, positions: list[int] | np.ndarray) -> list[str]:
        """Fact texts for 0-based positions, in the order asked."""
        if len(positions) == 0:
            return []
        wanted = [int(p) + 1 for p in positions]
        rows = dict(
            self._conn.execute(
                f"SELECT pos, text FROM facts WHERE {self.dialect.in_list('pos')}",
                (self.dialect.list_arg(wanted),),
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
            reinforced_at=json_column(reinforced_at, list),
            reinforcement_count=o1,
            supersedes=supersedes,
            note=note,
            entities=[e for e in json_column(entities, list) or [] if isinstance(e, str)],
            provenance=json_column(provenance, dict),
            signature=json_column(signature, dict),
            sig_state=sig_state,
            extra=json_column(extra, dict) or {},
        )

    def record(self, fact_id: str) -> FactRecord | None:
        return self._read(self._record_read(fact_id))

    def _record_read(self, fact_id: str) -> Read:
        return Read(
            f"SELECT {self._RECORD_COLS} FROM facts WHERE id = ?",
            (fact_id,),
            lambda rows: self._record(rows[0]) if rows else None,
        )

    def _detail_reads(self, fact_id: str) -> list[Read]:
        """What `show` reads of one fact beside its scores (`Detail`): their answers make a
        FactDetail."""
        return [
            self._record_read(fact_id),
            _superseded_by_read(fact_id),
            _embedding_kind_read(fact_id),
            self.audit.history_read(fact_id),
        ]

    def _read(self, read: Read) -> Any:
        return answer(self._conn, read)

    # -- typed reads asked together (ops.py) ------------------------------------------------

    def batch(self, ops: Sequence[Op[Any]]) -> list[Any]:
        plans = [self._plan(op) for op in ops]
        return _answers(plans, self._read_all([read for reads, _ in plans for read in reads]))

    def batch_soon(self, ops: Sequence[Op[Any]]) -> Callable[[], list[Any]]:
        plans = [self._plan(op) for op in ops]
        soon = self._read_soon([read for reads, _ in plans for read in reads])
        return lambda: _answers(plans, soon())

    def _plan(self, op: Op[Any]) -> tuple[list[Read], Callable[[list[Any]], Any]]:
        """The statements that answer `op`, and what makes its answer of theirs."""
        match op:
            case FactInputs(ids, signers):
                return [self._fact_inputs_read(ids, signers)], _first
            case TriageFields(fact_id):
                return [self.review.fields_read(fact_id)], _first
            case Supersessors(fact_ids):
                return [self._supersessors_read(fact_ids)], _first
            case ChangedSince(seq):
                return [self.audit.facts_since_read(seq)], _first
            case AuditSince(fact_ids, seq):
                return self.audit.about_since_reads(fact_ids, seq), oldest_first
            case NextBatch():
                return [self.audit.next_batch_read()], _first
            case NewestEntry():
                return [self.audit.newest_read()], _first
            case CurrentMarks():
                return [self._marks_read()], _first
            case DataVersion():
                return [self._data_version_read()], _first
            case Meta(key):
                return [self._meta_read(key)], _first
            case MetaPrefix(prefix):
                return [self._meta_prefix_read(prefix)], _first
            case Detail(fact_id):
                return self._detail_reads(fact_id), lambda answers: FactDetail(*answers)
        raise TypeError(f"not a read the store answers: {op!r}")

    def _read_soon(self, reads: Sequence[Read]) -> Callable[[], list[Any]]:
        """`_read_all` sent with the store's next statement (inside a write transaction, with
        its COMMIT, on a server): call the result for the answers once the next statement
        or the transaction's end has gone. A file's store answers at once."""
        answers = self._read_all(reads)
        return lambda: answers

    def _read_all(self, reads: Sequence[Read]) -> list[Any]:
        """Each read's answer, in order; a server's store sends them all before waiting for
        any (one round trip), a file's asks them one after the other."""
        return [self._read(read) for read in reads]

    def own_fields(self, fields: Sequence[str]) -> list[tuple[np.ndarray, tuple[str | None, ...]]]:
        d = self.dialect
        src = d.json_texts("provenance", ["x-source"])
        sources = {  # each source's name, and the text its group is selected by
            got[0]: text
            for (text,) in self._conn.execute(f"SELECT DISTINCT {src} FROM facts")
            if (got := json_column(text, list)) and isinstance(got[0], str)
        }
        out = []
        # a source's name is data: only a plain name ever becomes part of a JSON path
        for source in sorted(s for s in sources if _PLAIN_NAME.match(s)):
            values = d.json_texts("provenance", [f"x-{source}-{f}" for f in fields])
            groups = self._conn.execute(
                f"SELECT {values}, {d.positions()} FROM facts WHERE {src} = ? GROUP BY 1",
                (sources[source],),
            )
            for text, joined in groups:  # one row per distinct set of values: a store has few
                got = json_column(text, list)
                if got is None or len(got) != len(fields):
                    continue
                own = tuple(None if v is None or isinstance(v, (list, dict)) else str(v) for v in got)
                out.append((np.fromstring(joined, dtype=np.int64, sep=","), own))
        return out

    def records(self) -> Iterator[FactRecord]:
        for row in self._conn.execute(f"SELECT {self._RECORD_COLS} FROM facts ORDER BY pos"):
            yield self._record(row)

    def finder_rows(self) -> Iterator[FinderRow]:
        """Just the finders' columns, each JSON column decoded as `_record` decodes it (once
        per distinct value: a note's facts share their headings)."""
        entities: dict[str | None, tuple[str, ...]] = {}
        for pos, fid, text, created_at, reinforced_at, supersedes, note, named in self._conn.execute(
            "SELECT pos, id, text, created_at, reinforced_at, supersedes, note, entities FROM facts ORDER BY pos"
        ):
            got = entities.get(named)
            if got is None:
                got = entities[named] = tuple(e for e in json_column(named, list) or [] if isinstance(e, str))
            seen = None if reinforced_at is None else json_column(reinforced_at, list)
            yield (pos - 1, fid, text, created_at, seen, supersedes, note, got)

    def ids_at(self, positions: list[int]) -> list[str]:
        rows = dict(
            self._conn.execute(
                f"SELECT pos, id FROM facts WHERE {self.dialect.in_list('pos')}",
                (self.dialect.list_arg(int(p) + 1 for p in positions),),
            )
        )
        return [rows[int(p) + 1] for p in positions]

    def supersessors(self, fact_ids: Sequence[str]) -> list[Supersession]:
        """(old, new) for every fact that supersedes one of `fact_ids`."""
        return self._read(self._supersessors_read(fact_ids))

    def _supersessors_read(self, fact_ids: Sequence[str]) -> Read:
        return Read(
            f"SELECT supersedes, id FROM facts WHERE {self.dialect.in_list('supersedes')}",
            (self.dialect.list_arg(fact_ids),),
            lambda rows: [Supersession(*row) for row in rows],
        )

    def id_texts(self) -> Iterator[tuple[str, str]]:
        """(id, text) of every fact, in no particular order."""
        return iter(self._conn.execute("SELECT id, text FROM facts"))

    def superseded_by(self, fact_id: str) -> list[str]:
        return self._read(_superseded_by_read(fact_id))

    def history(self, fact_id: str) -> list[AuditEntry]:
        return self.audit.history(fact_id)


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
