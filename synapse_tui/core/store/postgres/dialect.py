"""The Store's SQL on psycopg: a connection that speaks the statements `core/store/` writes.

Why an adapter and not a second set of statements: the Store and its components (audit,
review, imports) hold about a hundred statements, and all but a handful are plain SQL
both databases read alike. Spelling each twice would give every change two homes, which
is what issue 21 took away. So the components run over this connection as they stand,
and the few SQLite spellings they use are rewritten here, each by one named rule; what no
rule can carry (the bulk load's byte aggregates, FTS5's word index, PRAGMAs) is the
PgStore's own (store.py). A statement holding a SQLite function no rule carries never
reaches the server: the command says in one line that it does not work on a server yet
(`NEEDS_SQLITE`), and test_dialect.py keeps the rules honest.

What a shared statement spells differently on each database it asks of the store's
`Dialect` where it is built (`PostgresDialect` below: a list bound at a placeholder, a
planner hint, an upsert, a day count, a JSON key). What this connection still does to a
statement (issue 44 would see it go too), each checked by tests/postgres/test_dialect.py:

- `?` placeholders become `%s`, and a literal `%` becomes `%%` (psycopg's escaping);
- `executemany` of a plain `INSERT INTO T (cols) VALUES (?, ...)` (an import's rows, the
  graph's edges) becomes one `COPY T (cols) FROM STDIN` (`copy_target`): the same rows and
  the same refusals (a clashing key), without a round of the protocol per row; one row
  alone (a triage action's audit entry) is a plain INSERT, one round trip where COPY takes two.

Beside the rules: a write inside a transaction waits to go with the next statement (see
`Connection`), so a triage action's round trips are its reads.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import Location
from synapse_tui.core.store.dialect import Dialect
from synapse_tui.core.store.postgres.connect import describe

_DATA_VERSION = (
    "SELECT (SELECT coalesce(max(seq), 0) FROM facts_changes) * 4294967296"
    " + (SELECT coalesce(max(seq), 0) FROM audit)"
)
# SQLite's julianday: the instant rounded to the millisecond, as a count of days since the
# Julian epoch (210,866,760,000,000 ms before Unix's), so the same double comes back
_JULIAN = (
    "((floor(extract(epoch FROM ({})::timestamptz) * 1000 + 0.5) + 210866760000000) / 86400000.0)::float8"
)
# SQLite's own, which no rule here carries: a statement holding one is the PgStore's to answer
_SQLITE_ONLY = re.compile(
    r"\b(PRAGMA|json_each|json_extract|julianday|group_concat|INDEXED|sqlite_master|facts_fts\w*|text_factory|INSERT OR \w+)\b",
    re.I,
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


POSTGRES = PostgresDialect()


class Untranslatable(RuntimeError):
    """A statement in SQLite's dialect that no rule carries to PostgreSQL."""

    def __init__(self, message: str, spelling: str = "") -> None:
        super().__init__(message)
        self.spelling = spelling  # the SQLite function or table it needs


# What a path of the core that still speaks SQLite's own dialect says on a server: the
# command's refusal in one line, as the CLI's guard says it of whole commands.
NEEDS_SQLITE = (
    "{shown}: a PostgreSQL server; this does not work on a server yet (it needs SQLite's"
    " {spelling}); copy the store to a file to use it"
)


@functools.lru_cache(maxsize=512)
def translate(sql: str) -> tuple[str, tuple[bool, ...]]:
    """PostgreSQL's spelling of one of the Store's statements, and per placeholder whether
    its argument is a JSON list to send as an array."""
    if found := _SQLITE_ONLY.search(sql):
        raise Untranslatable(f"internal error: SQLite's {found[0]} reached PostgreSQL: {sql[:120]}", found[0])
    sql = sql.replace("%", "%%")
    head, *pieces = sql.split("?")
    return "%s".join([head, *pieces]), (False,) * len(pieces)


_PLAIN_INSERT = re.compile(r"^INSERT INTO (\w+) \(([\w, ]+)\) VALUES \((\?(?:, ?\?)*)\)$")


@functools.lru_cache(maxsize=64)
def copy_target(sql: str) -> str | None:
    """The COPY that takes `executemany(sql, rows)`'s rows, when `sql` inserts plain values
    (one placeholder per column, nothing computed); None for any other statement."""
    m = _PLAIN_INSERT.match(sql.strip())
    if m is None or m[3].count("?") != len(m[2].split(",")):
        return None
    return f"COPY {m[1]} ({m[2]}) FROM STDIN"


def _args(args: Sequence[Any] | dict[str, Any], lists: tuple[bool, ...]) -> Any:
    if isinstance(args, dict):
        return args
    if len(args) != len(lists):
        raise Untranslatable(f"internal error: {len(args)} arguments for {len(lists)} placeholders")
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
    """The cursor of a statement that waits to go with the next one: a write inside a
    transaction (`Connection.execute`), which gives no rows and is sent by asking its
    rowcount; or one of `later` and `read_later`, whose rows are `rows()`."""

    returns_rows = False

    def __init__(self, conn: Connection, write: bool) -> None:
        self._conn = conn
        self.write = write  # its rowcount counts in the connection's total_changes
        self.sent: Any = None  # the psycopg cursor, once sent

    @property
    def rowcount(self) -> int:
        if self.sent is None:
            self._conn.flush()
        return self.sent.rowcount

    def rows(self) -> list[tuple]:
        """A read's rows (`Connection.read_later`), sending it first if it still waits."""
        if self.sent is None:
            self._conn.flush()
        return Cursor(self.sent).fetchall()

    def fetchone(self) -> None:
        return None

    def fetchall(self) -> list[tuple]:
        return []

    def __iter__(self) -> Iterator[tuple]:
        return iter(())


# a statement that changes rows and gives none back: inside a transaction it can wait
_WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b(?!.*\bRETURNING\b)", re.I | re.S)


class Connection:
    """A psycopg connection in autocommit mode, driven like the Store's sqlite3 one:
    `execute` and `executemany` with SQLite's statements, `in_transaction` true only
    inside an explicit BEGIN (the Store's `snapshot` and `transaction`).

    What nobody waits on waits to be sent: a BEGIN and the store's lock (`later`), and a
    write inside a transaction (an UPDATE, an INSERT), go with the next statement that
    needs an answer, all in one pipeline, so each costs no round trip of its own. Every way
    to the server (a statement, `raw`, a COPY) sends them first, in order, so nothing reads
    around them; a waiting write's error is raised by the statement it went with."""

    def __init__(self, raw: Any, where: Location) -> None:
        self._raw = raw  # the psycopg.Connection
        self.where = where
        self._changes = 0  # rows this connection changed (sqlite3's total_changes)
        # statements in PostgreSQL's dialect to send before the next, each with its
        # arguments and the Waiting cursor that tells what it did
        self._waiting: list[tuple[str, Any, Waiting]] = []

    @property
    def raw(self) -> Any:
        """The psycopg connection, once what waits has been sent."""
        self.flush()
        return self._raw

    @property
    def total_changes(self) -> int:
        """Rows this connection changed (sqlite3's, for caches' marks)."""
        self.flush()
        return self._changes

    @contextmanager
    def errors_named(self) -> Iterator[None]:
        """The server gone, the connection dropped, a lock or a disk: one line naming the
        location (without its password), as a file's I/O errors are. Any other error is a
        statement of ours the server refused: left to be reported as our bug."""
        from psycopg import OperationalError

        try:
            yield
        except OperationalError as exc:
            raise StoreError(f"the server could not answer: {describe(self.where, exc)}") from None

    def later(self, sql: str, args: Any = None) -> Waiting:
        """One of the PgStore's own statements whose answer nobody waits for (a BEGIN, a
        lock, a mark read now and looked at later): sent with the next statement, ahead of
        it in its pipeline. Its `sent` is the psycopg cursor, once sent."""
        later = Waiting(self, write=False)
        self._waiting.append((sql, args, later))
        return later

    def read_later(self, sql: str, args: Sequence[Any] = ()) -> Waiting:
        """One of the Store's reads (SQLite's spelling), sent with the next statement: its
        rows are the Waiting's `rows()` once that has gone."""
        return self.later(*self._bound(sql, args))

    def run(self, sql: str, args: Any = None) -> Any:
        """One of the PgStore's own statements, in PostgreSQL's dialect: a psycopg cursor."""
        return self.run_all([(sql, args)])[0]

    def run_all(self, statements: Sequence[tuple[str, Any]]) -> list[Any]:
        """The PgStore's own statements, after what waits, all sent before any answer is
        awaited (psycopg's pipeline): a psycopg cursor each."""
        if not self._waiting and len(statements) == 1:
            with self.errors_named():
                return [self._raw.execute(*statements[0])]
        waiting, self._waiting = self._waiting, []
        try:
            with self.errors_named(), self._raw.pipeline():
                sent = [(self._raw.cursor().execute(sql, args), later) for sql, args, later in waiting]
                out = [self._raw.cursor().execute(sql, args) for sql, args in statements]
        except BaseException:
            _nothing_done(waiting)  # refused, or after a refusal: the transaction keeps none of it
            raise
        for cur, later in sent:
            later.sent = cur
            if later.write:
                self._changes += max(cur.rowcount, 0)
        return out

    def flush(self) -> None:
        """Send what waits (before the psycopg connection is used directly)."""
        if self._waiting:
            self.run_all([])

    def discard(self) -> None:
        """Roll back the transaction, whatever of it waits unsent (a BEGIN never sent
        needs no ROLLBACK)."""
        waiting, self._waiting = self._waiting, []
        _nothing_done(waiting)
        if self._raw.info.transaction_status != _idle():
            with self.errors_named():
                self._raw.execute("ROLLBACK")

    def end_read(self) -> None:
        """End a read-only transaction: its COMMIT, or nothing when its BEGIN never went
        (nothing was read in it)."""
        if self._raw.info.transaction_status == _idle():
            self._waiting = []
        else:
            self.run("COMMIT")

    @property
    def in_transaction(self) -> bool:
        return bool(self._waiting) or self._raw.info.transaction_status != _idle()

    def _translate(self, sql: str) -> tuple[str, tuple[bool, ...]]:
        try:
            return translate(sql)
        except Untranslatable as exc:
            if not exc.spelling:
                raise
            raise StoreError(NEEDS_SQLITE.format(shown=self.where.shown, spelling=exc.spelling)) from None

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor | Waiting:
        pg, bound = self._bound(sql, args)
        if _WRITE.match(pg) and self.in_transaction:  # its answer is only its rowcount
            later = Waiting(self, write=True)
            self._waiting.append((pg, bound, later))
            return later
        out = Cursor(self.run(pg, bound))
        if not out.returns_rows and out.rowcount > 0:
            self._changes += out.rowcount
        return out

    def read_all(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[list[tuple]]:
        """Each statement's rows, the statements all sent before any answer is awaited
        (psycopg's pipeline): one round trip where one each would wait on the server."""
        cursors = self.run_all([self._bound(sql, args) for sql, args in statements])
        return [Cursor(cur).fetchall() for cur in cursors]

    def _bound(self, sql: str, args: Sequence[Any]) -> tuple[str, Any]:
        pg, lists = self._translate(sql)
        return pg, _args(args, lists)

    def executemany(self, sql: str, rows: Any) -> Cursor | Waiting:
        if isinstance(rows, list) and len(rows) == 1:  # an action's one audit entry
            return self.execute(sql, rows[0])  # one round trip, where COPY takes two
        pg, lists = self._translate(sql)
        cur = self.raw.cursor()
        if (copy := copy_target(sql)) is not None:
            n = 0
            with self.errors_named(), cur.copy(copy) as out:
                for row in rows:
                    out.write_row(row)
                    n += 1
            self._changes += n
            return Cursor(cur)
        with self.errors_named():
            cur.executemany(pg, [_args(row, lists) for row in rows])
        self._changes += max(cur.rowcount, 0)
        return Cursor(cur)

    def close(self) -> None:
        self._waiting = []
        self._raw.close()


class _Nothing:
    """What a write that never landed did: nothing."""

    rowcount = 0


def _nothing_done(waiting: list[tuple[str, Any, Waiting]]) -> None:
    for _sql, _args, later in waiting:
        later.sent = _Nothing


def _idle() -> Any:
    from psycopg.pq import TransactionStatus

    return TransactionStatus.IDLE
