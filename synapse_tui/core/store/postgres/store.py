"""The store on a PostgreSQL server, over psycopg: the `PgStore`.

`PgStore` is a sibling of the file's `SqliteStore` under the abstract `Store` (api.py):
both take the statements they answer alike from `SqlStore` (sql.py: records, meta, marks,
the typed reads) and the components (audit, review, imports), here over the dialect's
adapter (dialect.py). What the server answers its own way is here, and only that:

- snapshots are REPEATABLE READ READ ONLY transactions (SQLite's read transaction under WAL);
- the load of the arithmetic's arrays aggregates each column on the server (string_agg, as
  SQLite's group_concat does), so a hundred thousand facts cross as a dozen values, not as
  row tuples; there is no load cache beside a server, whose scan is the fast path;
- word search runs words.py as it stands over a copy of the word index this process keeps
  (postgres/words.py), so the terms and BM25 are FTS5's own, byte for byte;
- what SQLite keeps in PRAGMAs (data_version, quick_check, checkpoints) has the server's
  equivalent or none.

Triage and imports write through the Store's own statements too, in a transaction holding
the store's advisory lock, so two imports (or an import and a reviewer) take turns. The
graph's update files beside a store are a file's only: on a server an update reads the
store's rows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import Location, locate
from synapse_tui.core.store.api import Capabilities, Store
from synapse_tui.core.store.audit import VERDICT_KEYS, Audit, AuditEntry, _entry
from synapse_tui.core.store.imports import Imports, as_sqlite
from synapse_tui.core.store.ops import WordHits
from synapse_tui.core.store.postgres import schema
from synapse_tui.core.store.postgres.connect import again, describe, driver, errors_named
from synapse_tui.core.store.postgres.dialect import POSTGRES, Connection
from synapse_tui.core.store.postgres.live import Listener
from synapse_tui.core.store.postgres.server import open_server
from synapse_tui.core.store.postgres.words import Mirror
from synapse_tui.core.store.read import Read
from synapse_tui.core.store.review import TRIAGE_FIELDS, PerState, Review
from synapse_tui.core.store.sql import INVALIDATED_AT, SqlStore
from synapse_tui.core.store.words import WordIndex

# `load`'s columns (sqlite/load.py's _LOAD_COLUMNS) in PostgreSQL's spelling: the signers
# bound as a list.
_TRUSTED = "(sig_key IS NOT NULL AND sig_key = ANY(%s))::int"
_INVALIDATED = (
    "(CASE WHEN provenance IS JSON OBJECT THEN provenance::json ->> "
    + "'"
    + INVALIDATED_AT
    + "' END IS NOT NULL)::int"
)
_EXPIRED = "(deleted = 1 AND EXISTS (SELECT 1 FROM meta WHERE meta.key = 'deleted.why.' || facts.id))::int"
_LOAD_COLUMNS = (
    "r",
    "s",
    f"CASE tier WHEN 'auto' THEN 0 WHEN 'human' THEN 1 ELSE 2 END + 4 * sig_state + 16 * {_TRUSTED}",
    "coalesce(o1_count, 0)",
    "coalesce(supersedes_pos, 0) - 1",
    "deleted",
    _INVALIDATED,
    _EXPIRED,
    "octet_length(events) / 8",
)


_NEWEST = (
    "SELECT (SELECT coalesce(max(seq), 0) FROM facts_changes), (SELECT coalesce(max(seq), 0) FROM audit)"
)
# and the transaction's id, asked in the same round trip: a COMMIT whose answer a lost
# connection never brought is looked up by it (dialect.Connection's `xid`)
_BEGUN = f"{_NEWEST}, pg_current_xact_id()::text"


def open_store(location: str | os.PathLike[str], *, create: bool = False, readonly: bool = False) -> Store:
    """`Store.open` of a server's location."""
    where = locate(location)
    raw = open_server(where, create=create, readonly=readonly)
    raw.autocommit = True  # transactions are the Store's: BEGIN in `snapshot`
    raw.execute(_UTC)
    return PgStore(where, raw, readonly)


_UTC = "SET TimeZone TO 'UTC'"  # an instant without a zone is UTC, as SQLite reads it


class PgStore(SqlStore):
    """A store on a server; see the module's docstring for what differs from a file's."""

    _PARAM = "%s"  # psycopg's: `_scan` below runs its statements unrewritten
    audit: _Audit
    imports: _Imports
    dialect = POSTGRES  # the shared statements' spellings for the server (dialect.py)

    def __init__(self, where: Location, raw: Any, readonly: bool) -> None:
        # a connection the server drops while idle is opened again as this one was (dialect.py)
        super().__init__(where, Connection(raw, where, again(where, raw, (_UTC,))), readonly)
        self.where = where
        # what this login may not change (an agent's role, docs/postgres.md): asked once
        (self.login,) = raw.execute("SELECT current_user").fetchone()  # the role a title names
        self.withheld = _withheld(raw, self.login) if not readonly else {}
        self.review = _Review(self._conn, self.withheld, self._per_state)  # type: ignore[arg-type]
        self.imports.defaults_only = _insert_withheld(raw) if not readonly else ()
        self.imports.withheld = self.withheld
        self._words: Mirror | None = (
            None  # the word index's copy (postgres/words.py), made by the first search
        )
        self._writing = False  # inside `transaction`: what it reads may yet roll back
        self._own = (0, 0)  # change log and audit entries this store's transactions added

    def _make_audit(self, conn: Connection) -> _Audit:
        return _Audit(conn, self.dialect)

    def _make_imports(self, conn: Connection) -> _Imports:
        return _Imports(conn, self.dialect)

    @property
    def _raw(self) -> Any:
        return self._conn.raw

    def read_only_because(self) -> str:
        return f"{self.where.shown}: opened read-only"

    def close(self) -> None:
        with self.lock:
            self._conn.close()
            if self._words is not None:
                self._words.close()

    def check_health(self, seconds: float = 0.0) -> None:
        """The server looks after its pages (checksums, WAL); nothing to check from here."""

    def checkpoint(self) -> None:
        """A server's log is its own to fold."""

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One write transaction holding the store's advisory lock: writers take turns, as
        SQLite's BEGIN IMMEDIATE makes them, so an action's check and its write (the next
        audit batch, a supersession's cycle check) see no other writer in between.

        The BEGIN, the lock and the read of where the logs stand go in one round trip; the
        writes go with the next read or the COMMIT (dialect.Connection's waiting statements),
        so an action's round trips are its reads."""
        if self.readonly:
            raise StoreError(f"{self.read_only_because()}; nothing can be changed")
        psycopg = driver()
        self._conn.writing = True  # a refusal from here on says nothing was written
        with errors_named(self.where, "nothing was changed"):
            self._conn.later("BEGIN")
            self._conn.later(schema.LOCK)
            try:
                *before, self._conn.xid = self._conn.run(_BEGUN).fetchone()  # one round trip with the BEGIN
            except BaseException:  # the lock waited on may be given up (^C, lock_timeout)
                self._conn.writing = False
                self._conn.discard()
                raise
        self._writing = True
        try:
            yield self._conn
            # what moved under the lock, and the COMMIT, with the writes still waiting
            newest, _ = self._conn.run_all([(_NEWEST, None), ("COMMIT", None)])
            after = newest.fetchone()
        except psycopg.Error as exc:
            if self._conn.in_transaction:
                self._conn.discard()
                raise
            raise StoreError(f"nothing was changed: {describe(self.where, exc)}") from None  # the COMMIT's
        except BaseException:
            if self._conn.in_transaction:
                self._conn.discard()
            raise
        finally:
            self._writing = self._conn.writing = False
            self._conn.xid = None
        # under the lock nobody else wrote in between: what moved is ours (`data_version`)
        self._own = (self._own[0] + after[0] - before[0], self._own[1] + after[1] - before[1])

    @contextmanager
    def snapshot(self) -> Iterator[Any]:
        """One consistent state of the store for every query inside (REPEATABLE READ):
        a writer committing meanwhile is neither seen nor waited for. The BEGIN goes with
        the first query; a snapshot nothing read sends neither it nor a COMMIT."""
        if self._conn.in_transaction:
            yield self._conn
            return
        self._conn.later("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try:
            yield self._conn
        finally:
            if self._conn.in_transaction:
                self._conn.end_read()

    def _read_soon(self, reads: Sequence[Read]) -> Callable[[], list[Any]]:
        """The reads wait to go with the next statement (dialect.Connection.later)."""
        waiting = [self._conn.read_later(read.sql, read.args) for read in reads]
        return lambda: [read.convert(w.fetchall()) for read, w in zip(reads, waiting, strict=True)]

    def _read_all(self, reads: Sequence[Read]) -> list[Any]:
        """The reads sent together, answered in one round trip."""
        rows = self._conn.read_all([(read.sql, read.args) for read in reads])
        return [read.convert(got) for read, got in zip(reads, rows, strict=True)]

    @property
    def capabilities(self) -> Capabilities:
        """The login's role, the moves its column privileges refuse (asked once at open),
        and change notices (`listener`)."""
        return Capabilities(role=self.login, refused=dict(self.withheld), notices=True)

    def listener(self) -> Listener:
        """Another writer's change notices, on a connection of the listener's own (the
        browser's worker waits on it; `live.py`)."""
        return Listener(self.where, dial=self._conn.dial)

    def data_version(self) -> int:
        """Changes when another connection commits a change of a fact or a triage entry,
        as SQLite's PRAGMA data_version does, and not for this store's own commits: the
        entries its own transactions added are taken off (a session that wrote would
        otherwise reload the whole store after each of its own actions)."""
        return self._read(self._data_version_read())

    def _data_version_read(self) -> Read:
        """The dialect's data_version (the change log's and the audit's newest entries, in
        one number), less this store's own entries when the answer is made."""
        return Read(
            self.dialect.data_version(), (), lambda rows: rows[0][0] - (self._own[0] * 2**32 + self._own[1])
        )

    # -- the arithmetic's arrays ------------------------------------------------------------

    def _supersedes_positions(self) -> np.ndarray:
        """`Store._supersedes_positions` on the server: one aggregated value."""
        (text,) = self._conn.run(
            "SELECT string_agg((coalesce(supersedes_pos, 0) - 1)::text, ',' ORDER BY pos) FROM facts"
        ).fetchone()
        return np.fromstring(text, dtype=np.int64, sep=",") if text else np.empty(0, np.int64)

    def _scan(self, signers: str, n: int, where: str = "", args: tuple = (), limit: bool = False):
        """`Store._scan` on the server: each column aggregated into one text value in
        position order, the events into one bytea, the ids into one string."""
        inner = ", ".join(f"{expr} AS c{i}" for i, expr in enumerate(_LOAD_COLUMNS))
        outer = ", ".join(f"string_agg(c{i}::text, ',' ORDER BY pos)" for i in range(len(_LOAD_COLUMNS)))
        last_n = f" LIMIT {int(n)}" if limit else ""
        where = where.replace("?", "%s")
        *texts, blob, joined, last = self._conn.run(
            f"SELECT {outer}, string_agg(events, ''::bytea ORDER BY pos), string_agg(id, chr(30) ORDER BY pos),"
            f" max(pos) FROM (SELECT {inner}, events, id, pos FROM facts{where} ORDER BY pos{last_n}) t",
            (json.loads(signers), *args),
        ).fetchone()
        nums = np.empty((n, len(texts)), dtype=np.int64)
        for i, text in enumerate(texts):
            values = np.fromstring(text or "", dtype=np.int64, sep=",")
            if len(values) != n:
                raise StoreError(f"{self.where.shown}: the facts table changed while loading; try again")
            nums[:, i] = values
        ids = (joined or "").split("\x1e")
        if len(ids) != n:  # an id holding the separator: read them as rows
            rows = self._conn.run(f"SELECT id FROM facts{where} ORDER BY pos{last_n}", args)
            ids = [row[0] for row in rows]
        return nums, np.frombuffer(blob or b"", dtype=np.float64), ids, last

    # -- positions by what a filter names ---------------------------------------------------

    def provenance_positions(self, key: str, value: str, start: int = 0) -> np.ndarray:
        """`Store.provenance_positions`: a string as it is, a number or boolean as JSON spells
        it, the line's unknown keys (`extra`) counted as provenance (SPEC 4)."""
        each = (
            "SELECT f.pos FROM facts f, json_each(CASE WHEN f.{0} IS JSON OBJECT THEN f.{0}::json END) j"
            " WHERE f.pos > %s AND j.key = %s AND json_typeof(j.value) NOT IN ('object', 'array')"
            " AND CASE json_typeof(j.value) WHEN 'string' THEN j.value #>> '{{}}' ELSE j.value::text END = %s"
        )
        return self._pg_positions(
            f"SELECT string_agg((pos - 1)::text, ',') FROM ({each.format('provenance')}"
            f" UNION ALL {each.format('extra')}) p",
            (start, key, value) * 2,
        )

    def note_positions(self, note: str, start: int = 0) -> np.ndarray:
        """`Store.note_positions`: 0-based positions from `start` on of one note's facts."""
        return self._pg_positions(
            "SELECT string_agg((pos - 1)::text, ',') FROM facts WHERE pos > %s"
            " AND (note = %s OR right(note, length(%s) + 1) = '/' || %s)",
            (start, note, note, note),
        )

    def _pg_positions(self, sql: str, args: tuple) -> np.ndarray:
        with self.snapshot():
            (joined,) = self._conn.run(sql, args).fetchone()
        return np.unique(np.fromstring(joined, dtype=np.int64, sep=",")) if joined else np.empty(0, np.int64)

    # -- words ------------------------------------------------------------------------------

    def _mirror(self) -> WordIndex:
        if self._words is None:
            self._words = Mirror()
        with self.snapshot():
            self._words.sync(self._raw, self._conn.errors_named, writing=self._writing)
        return self._words.index

    def search(self, query: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        return self._mirror().search(query, limit)

    def search_any(self, terms: Sequence[str], weights: Sequence[float] | None = None) -> WordHits:
        return self._mirror().search_any(terms, weights)

    def prepare_search(self) -> None:
        self._mirror().prepare()


class _Imports(Imports):
    """`store.imports` on a server: the Store's own statements, but for the two that differ.
    The word index is the process's own (postgres/words.py reads new facts from the table),
    and a sync's read of its sources' facts picks them by the JSON value at `x-source` as
    SQLite's json_extract compares it (a string only; `->>` would give any value as text).
    test_import_on_server.py compares `from_source` on both."""

    defaults_only: tuple[str, ...] = ()  # columns of facts this login may not insert
    withheld: dict[str, str] = {}  # noqa: RUF012  (PgStore.withheld, set at open)

    def _index_words(self, rows: list[tuple[int, str, str]]) -> None:
        """No FTS5 table on a server: the word index follows the facts table (words.py)."""

    def link_supersessions(self) -> None:
        """The Store's; under a login that may not update the link (an agent's role) it is
        asked only when a fact's link would change, and refused then in one line."""
        if "supersede" in self.withheld:
            waiting = self._conn.execute(
                "SELECT id FROM facts WHERE supersedes IS NOT NULL AND supersedes_pos IS NULL"
                " AND EXISTS (SELECT 1 FROM facts f2 WHERE f2.id = facts.supersedes) LIMIT 1"
            ).fetchone()
            if waiting is None:
                return
            raise StoreError(f"fact {waiting[0]} supersedes another: {self.withheld['supersede']}")
        super().link_supersessions()

    def insert(self, facts: Sequence[Any], signed: Sequence[tuple[int, str | None]], start: int) -> None:
        """The Store's insert; under a login that may not name the tier, signature or
        deletion flag (an agent's role), the facts go without those columns, which then
        take their defaults: a fact holding anything else is refused in one line."""
        if not self.defaults_only:
            return super().insert(facts, signed, start)
        conn = self._conn
        self._conn = _Defaulted(conn, self.defaults_only)  # type: ignore[assignment]
        try:
            return super().insert(facts, signed, start)
        finally:
            self._conn = conn

    def _source_rows(self, system: str) -> list[tuple]:
        return self._conn.execute(
            # the expression of the index p007 adds, word for word, so the server reads it
            f"SELECT id, text, note, deleted, provenance FROM facts WHERE {schema.SOURCE_EXPR}"
            " = to_jsonb(?::text) ORDER BY pos",
            (system,),
        ).fetchall()


def server_schema(conn: Connection) -> tuple[str, str]:
    """The database and schema the store on `conn` lives in (with its location, what names
    the folder of the graph's update files for it: graph/cache.py)."""
    database, schema = conn.run("SELECT current_database(), current_schema()").fetchone()
    return database, schema


def meta_version(conn: Connection, key: str) -> str:
    """The version of the meta row at `key`: the transaction that last wrote it (`xmin`),
    "" when there is none. The graph's update files hold it, and are used only while it
    stands (graph/cache.py's `stamp`)."""
    row = conn.run("SELECT CAST(xmin AS text) FROM meta WHERE key = %s", (key,)).fetchone()
    return row[0] if row else ""


# the moves only a person makes, and the columns each writes (review.TRIAGE_FIELDS)
PERSON_ONLY = {"accept": ("tier",), "supersede": ("supersedes", "supersedes_pos")}


def _lacking(raw: Any, privilege: str, columns: Sequence[str]) -> set[str]:
    """The columns of facts this login lacks `privilege` on, asked in one statement."""
    rows = raw.execute(
        "SELECT c, has_column_privilege('facts', c, %s) FROM unnest(%s::text[]) AS c",
        (privilege, list(columns)),
    ).fetchall()
    return {column for column, granted in rows if not granted}


def _withheld(raw: Any, user: str) -> dict[str, str]:
    """{move: why this login cannot make it} from its column privileges on facts, asked
    of the server once at open (`has_column_privilege`), so the browser and the CLI say so
    before trying instead of failing in the server's words."""
    lacking = _lacking(raw, "UPDATE", sorted({c for cols in PERSON_ONLY.values() for c in cols}))
    out = {}
    for move, cols in PERSON_ONLY.items():
        missing = [c for c in cols if c in lacking]
        if missing:
            out[move] = (
                f"role {user} lacks UPDATE on facts.{', facts.'.join(missing)}: {move} is a person's"
                " (docs/postgres.md, an agent's role)"
            )
    return out


# a new fact's columns an agent's role may leave out, and the value each then takes
_INSERT_DEFAULTS = {"tier": "auto", "signature": None, "sig_state": 0, "sig_key": None, "deleted": 0}


def _insert_withheld(raw: Any) -> tuple[str, ...]:
    """The columns of `_INSERT_DEFAULTS` this login may not insert (docs/postgres.md)."""
    lacking = _lacking(raw, "INSERT", list(_INSERT_DEFAULTS))
    return tuple(col for col in _INSERT_DEFAULTS if col in lacking)  # in the defaults' order


class _Defaulted:
    """The store's connection for one import under an agent's role: its insert of facts
    leaves out the columns the role may not name, when every row holds their default."""

    def __init__(self, conn: Any, columns: tuple[str, ...]) -> None:
        self._conn, self._columns = conn, columns

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def insert_rows(self, table: str, columns: Sequence[str], rows: Any) -> None:
        if table != "facts":
            return self._conn.insert_rows(table, columns, rows)
        drop = [i for i, c in enumerate(columns) if c in self._columns]
        rows = list(rows)
        for row in rows:
            for i in drop:
                if row[i] != _INSERT_DEFAULTS[columns[i]]:
                    (user,) = self._conn.raw.execute("SELECT current_user").fetchone()
                    raise StoreError(
                        f"fact {row[1]}: role {user} lacks INSERT on facts.{columns[i]}: a fact it"
                        " adds is auto and unsigned (docs/postgres.md, an agent's role)"
                    )
        kept = [c for i, c in enumerate(columns) if i not in drop]
        return self._conn.insert_rows(
            "facts", kept, [tuple(v for i, v in enumerate(row) if i not in drop) for row in rows]
        )


class _Review(Review):
    """`store.review` on a server: a triage write of a column this login may not update is
    refused in one line before any statement runs (an undo of an acceptance, too)."""

    def __init__(self, conn: Any, withheld: dict[str, str], per_state: PerState | None = None) -> None:
        super().__init__(conn, per_state)
        self._withheld = withheld

    def write(self, fact_id: str, fields: dict[str, Any], created: float | None = None) -> None:
        for move, cols in PERSON_ONLY.items():
            if move in self._withheld and any(TRIAGE_FIELDS.get(k) in cols for k in fields):
                raise StoreError(self._withheld[move])
        super().write(fact_id, fields, created)


class _Audit(Audit):
    """`store.audit` on a server: the one read that leans on SQLite's bare columns (the
    row of min(seq) in each group) says so in PostgreSQL's words; the same columns as
    Audit.batch_heads (test_triage_on_server compares every audit read on both). The
    verdicts' typed JSON values are read here too (test_calibrate_on_server)."""

    def role_column(self) -> str:
        """`role`, or `NULL` on a store of an older schema read as it is (read-only)."""
        if self._role is None:
            found = self._conn.run(
                "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = 'audit' AND column_name = 'role'"
            ).fetchone()
            self._role = "role" if found else "NULL"
        return self._role

    def batch_heads(self, since: int) -> list[tuple[AuditEntry, int]]:
        rows = self._conn.run(
            "SELECT DISTINCT ON (batch) seq, at, actor, action, fact_id, batch, before, after, undoes,"
            f" NULL, {self.role_column()}, (SELECT count(DISTINCT b.fact_id) FROM audit b WHERE b.seq > %s"
            " AND b.batch IS NOT DISTINCT FROM a.batch) FROM audit a WHERE seq > %s"
            " ORDER BY batch DESC NULLS LAST, seq",
            (since, since),
        ).fetchall()
        return [(_entry(row[:11]), row[11]) for row in rows]

    def verdict_rows(
        self, holds: Sequence[str], actor_prefixes: Sequence[str], since: float | None
    ) -> list[tuple]:
        """The Store's read, but score_before's values and the fact's x-source are taken
        out of the JSON here, as SQLite's json_extract gives them (`->>` gives text)."""
        rows = self._verdicts(holds, actor_prefixes, since, "a.score_before", "f.provenance")
        out = []
        for *head, score, days, provenance, fid, actor in rows:  # head: seq, at, action, logged
            (source,) = _keys(provenance, ("x-source",))
            out.append((*head, *_keys(score, VERDICT_KEYS), days, source, fid, actor))
        return out


def _keys(stored: str | None, keys: Sequence[str]) -> list[Any]:
    """json_extract(stored, '$.key') of each key: None where stored is not an object."""
    value = json.loads(stored) if stored is not None else None
    found = value if isinstance(value, dict) else {}
    return [as_sqlite(found.get(key)) for key in keys]
