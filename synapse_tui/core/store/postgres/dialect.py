"""The Store's SQL on psycopg: a connection that speaks the statements `core/store/` writes.

Why an adapter and not a second set of statements: the Store and its components (audit,
review, imports, the graph's tables) hold about a hundred statements, and all but a handful
are plain SQL both databases read alike. Spelling each twice would give every change two
homes, which is what issue 21 took away. So the components run over this connection as
they stand, and what the two databases spell differently each statement asks of the
store's `Dialect` where it is built (`PostgresDialect` below: a list bound at a
placeholder, a planner hint, an upsert, a day count, a JSON key, a bulk insert). What only
SQLite answers (FTS5's word index, PRAGMAs, json_extract's typed values, the bulk load's
byte aggregates) is the SQLite store's own (store/sqlite/); the PgStore answers each of
those its own way (store.py), so no statement is inspected on its way to the server.

What this connection does to a statement, and nothing more, is psycopg's spelling of its
placeholders: `?` becomes `%s`, and a literal `%` becomes `%%` (`translate`, a plain
replacement). Beside that, each asked for by name, checked by tests/postgres/test_dialect.py:

- `insert_rows(table, columns, rows)` (through `Dialect.insert_rows`: an import's facts
  and mentions, the graph's edges, an action's audit entries) sends the rows as one
  `COPY table (columns) FROM STDIN`: the same rows and the same refusals (a clashing key),
  without a round of the protocol per row; one row alone (a triage action's audit entry)
  is a plain INSERT, one round trip where COPY takes two;
- inside a transaction a statement is sent when its answer is asked for (its rows, its
  rowcount), or with the next statement that is (see `Connection`): a write nobody asks
  about goes with the next read or the COMMIT, so a triage action's round trips are its reads.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import Location
from synapse_tui.core.store.dialect import Dialect
from synapse_tui.core.store.errors import NOTHING_WRITTEN
from synapse_tui.core.store.postgres.connect import describe, dropped, lost_words, refusal

_DATA_VERSION = (
    "SELECT (SELECT coalesce(max(seq), 0) FROM facts_changes) * 4294967296"
    " + (SELECT coalesce(max(seq), 0) FROM audit)"
)
# SQLite's julianday: the instant rounded to the millisecond, as a count of days since the
# Julian epoch (210,866,760,000,000 ms before Unix's), so the same double comes back
_JULIAN = (
    "((floor(extract(epoch FROM ({})::timestamptz) * 1000 + 0.5) + 210866760000000) / 86400000.0)::float8"
)


class PostgresDialect(Dialect):
    """The server's spellings of what the shared statements spell differently (the base
    class is SQLite's: core/store/dialect.py)."""

    def in_list(self, expr: str) -> str:
        return f"{expr} = ANY(?)"

    def list_arg(self, values: Iterable[Any]) -> Any:
        return list(values)  # psycopg sends a list as an array

    def unindexed(self, table: str) -> str:
        return table  # PostgreSQL plans its own way

    def data_version(self) -> str:
        """The change log's and the audit's newest entries in one number: every committed
        change of a fact or a triage entry moves one of them."""
        return _DATA_VERSION

    def day_number(self, expr: str) -> str:
        return _JULIAN.format(expr)

    def json_text(self, column: str, key: str) -> str:
        return f"(CASE WHEN {column} IS JSON OBJECT THEN {column}::json ->> '{key}' END)"

    def json_texts(self, column: str, keys: Sequence[str]) -> str:
        values = ", ".join(f"{column}::json ->> '{k}'" for k in keys)
        return f"(CASE WHEN {column} IS JSON OBJECT THEN json_build_array({values})::text END)"

    def positions(self) -> str:
        return "string_agg((pos - 1)::text, ',')"

    def upsert(self, table: str, columns: Sequence[str], key: str, source: str) -> str:
        update = ", ".join(f"{c} = excluded.{c}" for c in columns if c != key)
        return (
            f"INSERT INTO {table} ({', '.join(columns)}) {source} ON CONFLICT ({key}) DO UPDATE SET {update}"
        )

    def insert_ignore(self, table: str, columns: Sequence[str], source: str) -> str:
        return f"INSERT INTO {table} ({', '.join(columns)}) {source} ON CONFLICT DO NOTHING"

    def insert_rows(
        self, conn: Any, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
    ) -> None:
        """One COPY (`Connection.insert_rows`)."""
        conn.insert_rows(table, columns, rows)


POSTGRES = PostgresDialect()


@functools.lru_cache(maxsize=512)
def translate(sql: str) -> tuple[str, int]:
    """psycopg's spelling of one of the Store's statements: its `?` placeholders as `%s`,
    a literal `%` as `%%`; and how many placeholders it holds. Nothing else is rewritten:
    what the two databases spell differently the statement asked of its `Dialect`."""
    head, *pieces = sql.replace("%", "%%").split("?")
    return "%s".join([head, *pieces]), len(pieces)


def _args(args: Sequence[Any] | dict[str, Any], marks: int) -> Any:
    if isinstance(args, dict):
        return args
    if len(args) != marks:
        raise RuntimeError(f"internal error: {len(args)} arguments for {marks} placeholders")
    return tuple(args)


class Cursor:
    """What the Store reads of a sqlite3 cursor: rows by fetchone, fetchall or iteration,
    and rowcount."""

    def __init__(self, cur: Any) -> None:
        self._cur = cur
        # whether the result is rows, not a command's status: psycopg's `description`
        # would build a Column object per field at each asking (a fifth of a statement's time)
        res = cur.pgresult
        self.returns_rows = res is not None and res.nfields > 0

    @property
    def rowcount(self) -> int:
        return self._cur.rowcount

    def fetchone(self) -> tuple | None:
        return self._cur.fetchone() if self.returns_rows else None

    def fetchall(self) -> list[tuple]:
        return self._cur.fetchall() if self.returns_rows else []

    def __iter__(self) -> Iterator[tuple]:
        return iter(self._cur) if self.returns_rows else iter(())


class Waiting:
    """The cursor of a statement that waits to go with the next one: any statement inside a
    transaction (`Connection.execute`), a BEGIN or the store's lock (`later`), a read asked
    to go soon (`read_later`). Asking for its answer (its rows, its rowcount) sends it, with
    what waits before it, in one pipeline; nobody asking, it goes with the next statement
    that is asked (at the latest the COMMIT)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self.sent: Any = None  # the psycopg cursor, once sent

    def _answer(self) -> Cursor:
        if self.sent is None:
            self._conn.flush()
        return Cursor(self.sent)

    @property
    def returns_rows(self) -> bool:
        return self._answer().returns_rows

    @property
    def rowcount(self) -> int:
        return self._answer().rowcount

    def fetchone(self) -> tuple | None:
        return self._answer().fetchone()

    def fetchall(self) -> list[tuple]:
        return self._answer().fetchall()

    def __iter__(self) -> Iterator[tuple]:
        return iter(self._answer())


class Connection:
    """A psycopg connection in autocommit mode, driven like the Store's sqlite3 one:
    `execute` and `executemany` with SQLite's placeholders, `in_transaction` true only
    inside an explicit BEGIN (the Store's `snapshot` and `transaction`), and
    `insert_rows` for plain rows in bulk (`Dialect.insert_rows`).

    Inside a transaction nothing is sent before its answer is needed: a statement's cursor
    waits (`Waiting`) until its rows or rowcount are asked for, and then goes with every
    statement waiting before it (a BEGIN, the store's lock, writes nobody asked about) in
    one pipeline, so each of those costs no round trip of its own. A read's answer is asked
    for at once, so it goes at once; a write's (an UPDATE, an audit entry) seldom is, so it
    goes with the next read or the COMMIT. Every way to the server (a statement, `raw`, a
    COPY) sends what waits first, in order, so nothing reads around it; a waiting write's
    error is raised by the statement it went with. Outside a transaction a statement goes
    at once (autocommit: it has landed when `execute` returns).

    A connection the server ended while it sat idle (its idle_session_timeout, a
    pg_terminate_backend, a restart) is opened again by `dial` (connect.again: the same
    location, server and password) before the next statement goes, once; a statement
    that finds it lost on the way is sent again on a new connection, once, only when that
    cannot apply anything twice (`_replayable`). Otherwise the loss is one line naming the
    store (`ConnectionLost`), and the next statement opens the connection again."""

    def __init__(self, raw: Any, where: Location, dial: Callable[[], Any] | None = None) -> None:
        self._raw = raw  # the psycopg.Connection
        self.where = where
        self.dial = dial  # opens the connection again; None: a loss is only told
        self._committing = False  # a COMMIT is on its way: a loss now leaves the write unknown
        self.xid: str | None = None  # the write transaction's id (the PgStore's), for `_commit_lost`
        self._changes = 0  # rows this connection changed (sqlite3's total_changes)
        # statements in PostgreSQL's dialect to send before the next, each with its
        # arguments and the Waiting cursor that tells what it did
        self._waiting: list[tuple[str, Any, Waiting]] = []
        self.writing = False  # inside the store's write transaction: a refusal says nothing landed

    @property
    def raw(self) -> Any:
        """The psycopg connection, once what waits has been sent (and, outside a
        transaction, opened again if the server dropped it)."""
        if self._waiting:
            self.flush()
        elif self.dial is not None and not self._open_transaction() and dropped(self._raw):
            self._redial()
        return self._raw

    @property
    def total_changes(self) -> int:
        """Rows this connection changed (sqlite3's, for caches' marks)."""
        self.flush()
        return self._changes

    @contextmanager
    def errors_named(self) -> Iterator[None]:
        """The server gone, the connection dropped, a lock or a disk, a table renamed or
        dropped by hand: one line naming the location (without its password), as a file's
        I/O errors are (connect.refusal). Any other error is a statement of ours the server
        refused: left to be reported as our bug."""
        from psycopg import Error, OperationalError

        try:
            yield
        except Error as exc:
            if self._raw.closed:  # the server ended the session, or the network dropped it
                raise self._lost(exc) from None
            said = refusal(self.where, exc, self._raw, writing=self.writing)
            if said is not None:
                raise StoreError(said) from None
            if isinstance(exc, OperationalError):
                raise StoreError(f"the server could not answer: {describe(self.where, exc)}") from None
            raise

    def later(self, sql: str, args: Any = None) -> Waiting:
        """One statement in PostgreSQL's dialect, sent with the next statement whose answer
        is asked for, ahead of it in its pipeline (a BEGIN, the store's lock)."""
        later = Waiting(self)
        self._waiting.append((sql, args, later))
        return later

    def read_later(self, sql: str, args: Sequence[Any] = ()) -> Waiting:
        """One of the Store's reads (SQLite's placeholders), sent with the next statement:
        its rows are the Waiting's once that has gone."""
        return self.later(*self._bound(sql, args))

    def run(self, sql: str, args: Any = None) -> Any:
        """One of the PgStore's own statements, in PostgreSQL's dialect: a psycopg cursor."""
        return self.run_all([(sql, args)])[0]

    def run_all(self, statements: Sequence[tuple[str, Any]]) -> list[Any]:
        """The PgStore's own statements, after what waits, all sent before any answer is
        awaited (psycopg's pipeline; one statement alone needs none): a psycopg cursor each.
        A connection the server dropped is opened again first, or once it is found lost
        on the way when sending the statements again cannot apply anything twice."""
        waiting, self._waiting = self._waiting, []
        batch = [(sql, args) for sql, args, _ in waiting] + list(statements)
        try:
            retry = self.dial is not None and not self._open_transaction()
            if retry and dropped(self._raw):
                self._redial()  # nothing was sent on the dropped one
                retry = False  # once
            try:
                sent, out = self._send(batch, len(waiting))
            except ConnectionLost as lost:
                if lost.unknown:
                    raise self._commit_lost(lost) from None
                if not (retry and self._replayable(batch)):
                    raise
                self._redial()
                sent, out = self._send(batch, len(waiting))
        except BaseException:
            _nothing_done(waiting)  # refused, or after a refusal: the transaction keeps none of it
            raise
        for cur, (_sql, _args, later) in zip(sent, waiting, strict=True):
            later.sent = cur
            self._count(Cursor(cur))
        return out

    def _send(self, batch: list[tuple[str, Any]], waited: int) -> tuple[list[Any], list[Any]]:
        """`batch` sent (its first `waited` statements what waited): their psycopg cursors."""
        self._committing = any(sql == "COMMIT" for sql, _ in batch)
        try:
            with self.errors_named():
                if len(batch) == 1:
                    cursors = [self._raw.execute(sql, args) for sql, args in batch]
                else:
                    with self._raw.pipeline():
                        cursors = [self._raw.cursor().execute(sql, args) for sql, args in batch]
        finally:
            self._committing = False
        return cursors[:waited], cursors[waited:]

    def _replayable(self, batch: list[tuple[str, Any]]) -> bool:
        """Whether `batch`, begun with no transaction open and lost on the way, can be sent
        again without applying anything twice: a transaction it begins and does not commit,
        or commits reading only, died with the session (the server keeps no uncommitted
        write past it); a statement outside a transaction is a read (the Store writes only
        in its `transaction`, which `writing` marks)."""
        first = batch[0][0]
        if not first.startswith("BEGIN"):
            return not self.writing
        return "READ ONLY" in first or not any(sql == "COMMIT" for sql, _ in batch)

    def _redial(self) -> None:
        """The connection opened again (`dial`), the lost one closed; its failure is one
        line naming the store."""
        assert self.dial is not None
        old = self._raw
        try:
            self._raw = self.dial()
        except StoreError as exc:  # connect's "cannot connect to LOCATION: why"
            why = str(exc).removeprefix(f"cannot connect to {self.where.shown}: ")
            nothing = NOTHING_WRITTEN if self.writing else ""
            raise ConnectionLost(
                f"the connection to {self.where.shown} was lost, and connecting again failed ({why}){nothing}"
            ) from None
        finally:
            with contextlib.suppress(Exception):
                old.close()

    def _lost(self, exc: BaseException) -> ConnectionLost:
        """One line for a connection lost on the way: whether a write landed is unknown
        while its COMMIT was on its way (`_commit_lost` asks), and certainly not before."""
        lost = f"the connection to {self.where.shown} was lost"
        said = lost_words(self.where, exc)
        if self._committing and self.writing:
            out = ConnectionLost(
                f"{lost} while saving ({said}); check whether the change was saved before trying again"
            )
            out.unknown = f"{lost} while saving ({said})"
            return out
        if self.writing:
            return ConnectionLost(f"{lost} while saving ({said}){NOTHING_WRITTEN}")
        return ConnectionLost(f"{lost} ({said}); try again")

    def _commit_lost(self, lost: ConnectionLost) -> ConnectionLost:
        """A write whose COMMIT was on its way when the connection was lost: what the server
        says of its transaction (`pg_xact_status`, asked on a new connection), or `lost`'s
        line when it cannot say (connecting again failed, the transaction not yet ended);
        `landed` when the server saved it."""
        if self.dial is None or self.xid is None:
            return lost
        try:
            self._redial()
            (status,) = self._raw.execute("SELECT pg_xact_status(%s::xid8)", (self.xid,)).fetchone()
        except Exception:  # noqa: BLE001 - whatever failed, the write's fate stays unknown
            return lost
        if status == "aborted":
            return ConnectionLost(f"{lost.unknown}{NOTHING_WRITTEN}")
        if status == "committed":
            saved = ConnectionLost(f"{lost.unknown}, after the server had saved the change: reload to see it")
            saved.landed = True
            return saved
        return lost

    def _open_transaction(self) -> bool:
        """Whether the server holds a transaction of this connection's (none on a lost one)."""
        return not self._raw.closed and self._raw.pgconn.transaction_status != _idle()

    def _count(self, cur: Cursor) -> None:
        """A statement's changed rows into `total_changes`: its rowcount, where it gave no rows."""
        if not cur.returns_rows and cur.rowcount > 0:
            self._changes += cur.rowcount

    def flush(self) -> None:
        """Send what waits (before the psycopg connection is used directly)."""
        if self._waiting:
            self.run_all([])

    def discard(self) -> None:
        """Roll back the transaction, whatever of it waits unsent (a BEGIN never sent
        needs no ROLLBACK)."""
        waiting, self._waiting = self._waiting, []
        _nothing_done(waiting)
        if self._open_transaction():
            with self.errors_named():
                self._raw.execute("ROLLBACK")

    def end_read(self) -> None:
        """End a read-only transaction: its COMMIT (with any read still waiting, whose
        cursor may yet be read), or nothing when only its BEGIN waits (nothing was read)."""
        if not self._open_transaction() and len(self._waiting) <= 1:
            waiting, self._waiting = self._waiting, []
            _nothing_done(waiting)
        else:
            self.run("COMMIT")

    @property
    def in_transaction(self) -> bool:
        return bool(self._waiting) or self._open_transaction()

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor | Waiting:
        """One of the Store's statements: inside a transaction it waits until its answer is
        asked for (`Waiting`); outside one it goes now."""
        pg, bound = self._bound(sql, args)
        if self.in_transaction:
            return self.later(pg, bound)
        out = Cursor(self.run(pg, bound))
        self._count(out)
        return out

    def read_all(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[list[tuple]]:
        """Each statement's rows, the statements all sent before any answer is awaited
        (psycopg's pipeline): one round trip where one each would wait on the server."""
        cursors = self.run_all([self._bound(sql, args) for sql, args in statements])
        return [Cursor(cur).fetchall() for cur in cursors]

    def _bound(self, sql: str, args: Sequence[Any]) -> tuple[str, Any]:
        pg, marks = translate(sql)
        return pg, _args(args, marks)

    def executemany(self, sql: str, rows: Any) -> Cursor | Waiting:
        """`sql` once per row, in one driver call; one row alone goes as `execute` does
        (inside a transaction, with the next statement: an action's one meta entry)."""
        if isinstance(rows, list) and len(rows) == 1:
            return self.execute(sql, rows[0])
        pg, marks = translate(sql)
        cur = self.raw.cursor()
        with self.errors_named():
            cur.executemany(pg, [_args(row, marks) for row in rows])
        self._changes += max(cur.rowcount, 0)
        return Cursor(cur)

    def insert_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Plain values into `table`'s `columns`, one per column (`Dialect.insert_rows`):
        one `COPY ... FROM STDIN`, the same rows and refusals as an INSERT each; one row
        alone goes as an INSERT by `execute` (inside a transaction, with the next statement)."""
        if isinstance(rows, list) and len(rows) == 1:
            marks = ", ".join("?" * len(columns))
            self.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows[0])
            return
        cur = self.raw.cursor()
        n = 0
        with self.errors_named(), cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as out:
            for row in rows:
                out.write_row(row)
                n += 1
        self._changes += n

    def close(self) -> None:
        self._waiting = []
        self._raw.close()


class ConnectionLost(StoreError):
    """The store's connection lost (the server ended the session, the network dropped it),
    or opening it again failed: one line naming the store, said once for every caller."""

    unknown = ""  # lost while a COMMIT was on its way: the line's head, before what is known


class _Nothing:
    """What a statement that never went did: nothing, and no rows."""

    pgresult = None
    rowcount = 0


def _nothing_done(waiting: list[tuple[str, Any, Waiting]]) -> None:
    for _sql, _args, later in waiting:
        later.sent = _Nothing


def _idle() -> Any:
    from psycopg.pq import TransactionStatus

    return TransactionStatus.IDLE
