"""`synapse-tui copy SRC DEST`: a whole store, row for row, between a file and a server.

The source is read from one snapshot (SQLite's read transaction, PostgreSQL's repeatable
read), the destination written in one transaction: a copy lands whole or not at all, and a
new file that failed is removed. Into PostgreSQL the rows go by binary COPY (the bulk path
the server has; a row at a time is ten times slower), into a file by executemany (`Dialect.insert_rows`).

Every table of `schema.TABLES` moves as it is, so `export` and `export --audit` of the copy
are the source's byte for byte. What does not move is what each store keeps of its own:
meta's `store.*` keys (a server's kind and version), the change log (the copy's begins with
the copy) and a file's word index, rebuilt from the facts as an import builds it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.location import Location, locate
from synapse_tui.core.store import cjk
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.dialect import SQLITE
from synapse_tui.core.store.postgres import schema
from synapse_tui.core.store.postgres.connect import connect, driver, errors_named
from synapse_tui.core.store.postgres.schema import TABLES, Table
from synapse_tui.core.store.postgres.server import open_server

CHUNK = 5_000  # rows between progress reports (and per insert_rows into a file)
Progress = Callable[[int, int], None]
Rows = Callable[[Table], Iterator[tuple]]


@dataclass(frozen=True)
class Copied:
    """What a copy moved: rows per table, in `TABLES` order."""

    source: str
    dest: str
    rows: dict[str, int]

    @property
    def facts(self) -> int:
        return self.rows.get("facts", 0)


def copy_store(
    src: str | os.PathLike[str], dest: str | os.PathLike[str], progress: Progress | None = None
) -> Copied:
    """Copy the store at `src` into `dest`, which must be new or hold no rows."""
    source, target = locate(src), locate(dest)
    if not source.is_server and not target.is_server and _same_file(source.target, target.target):
        raise StoreError(f"{target.shown}: is the source itself")
    if source.is_server and target.is_server and source.target == target.target:
        raise StoreError(f"{target.shown}: is the source itself")
    if not target.is_server:
        _check_folder(Path(target.target))
    reader = _read_server if source.is_server else _read_file
    with reader(source) as (counts, rows):
        total, done = sum(counts.values()), 0

        def counted(table: Table) -> Iterator[tuple]:
            nonlocal done
            for n, row in enumerate(rows(table), start=1):
                yield row
                if progress is not None and n % CHUNK == 0:
                    progress(done + n, total)
            done += counts[table.name]
            if progress is not None:
                progress(done, total)

        if progress is not None:
            progress(0, total)
        (_write_server if target.is_server else _write_file)(target, counted)
    return Copied(source.shown, target.shown, counts)


# -- reading --------------------------------------------------------------------------------


def _meta_filter(table: Table) -> str:
    return f" WHERE key NOT LIKE '{schema.OWN_KEYS}'" if table.name == "meta" else ""


def _selected(table: Table, present: set[str]) -> str:
    """The table's columns as a source holds them: NULL for one an older store lacks (the
    audit's role before m005 / p003), so a copy of it lands with that column unknown."""
    return ", ".join(c if c in present else f"NULL AS {c}" for c in table.columns)


@contextmanager
def _read_file(where: Location) -> Iterator[tuple[dict[str, int], Rows]]:
    path = Path(where.target)
    if not path.exists():
        raise StoreError(f"{path}: no such database")
    with Store.open(path, readonly=True) as store, store.snapshot() as conn:
        counts = {
            t.name: conn.execute(f"SELECT count(*) FROM {t.name}{_meta_filter(t)}").fetchone()[0]
            for t in TABLES
        }

        def rows(table: Table) -> Iterator[tuple]:
            present = {row[1] for row in conn.execute(f"PRAGMA table_info({table.name})")}
            cols = _selected(table, present)
            yield from conn.execute(
                f"SELECT {cols} FROM {table.name}{_meta_filter(table)} ORDER BY {table.key}"
            )

        yield counts, rows


@contextmanager
def _read_server(where: Location) -> Iterator[tuple[dict[str, int], Rows]]:
    conn = open_server(where, readonly=True)
    try:
        with errors_named(where, "cannot read the store"):
            # one snapshot for every table: the transaction psycopg opens at the first query
            conn.isolation_level = driver().IsolationLevel.REPEATABLE_READ
            conn.read_only = True
            counts = {
                t.name: conn.execute(f"SELECT count(*) FROM {t.name}{_meta_filter(t)}").fetchone()[0]
                for t in TABLES
            }

            def rows(table: Table) -> Iterator[tuple]:
                present = {
                    name
                    for (name,) in conn.execute(
                        "SELECT column_name FROM information_schema.columns"
                        " WHERE table_schema = current_schema() AND table_name = %s",
                        (table.name,),
                    )
                }
                cols = _selected(table, present)
                with conn.cursor(name=f"copy_{table.name}", binary=True) as cur:
                    cur.itersize = CHUNK
                    cur.execute(f"SELECT {cols} FROM {table.name}{_meta_filter(table)} ORDER BY {table.key}")
                    yield from cur

            yield counts, rows
            conn.rollback()
    finally:
        conn.close()


# -- writing --------------------------------------------------------------------------------


def _write_server(where: Location, rows: Rows) -> None:
    conn = connect(where)  # another writer holding the store's lock: an error line, not a hang
    try:
        with errors_named(where, "nothing was copied"), _nul_named(where):
            schema.lock(conn)
            if schema.state(conn, where) is not None:
                _refuse_if_filled(where, _server_counts(conn))
            schema.migrate(conn, where)
            types = _column_types(conn)
            for table in TABLES:
                cols = ", ".join(table.columns)
                with (
                    conn.cursor() as cur,
                    cur.copy(f"COPY {table.name} ({cols}) FROM STDIN (FORMAT BINARY)") as cp,
                ):
                    cp.set_types([types[table.name, c] for c in table.columns])
                    for row in rows(table):
                        cp.write_row(row)
                if table.identity:
                    conn.execute(
                        f"SELECT setval(pg_get_serial_sequence(%s, %s), coalesce(max({table.identity}), 0) + 1,"
                        f" false) FROM {table.name}",
                        (table.name, table.identity),
                    )
            conn.commit()
    finally:
        conn.close()


@contextmanager
def _nul_named(where: Location) -> Iterator[None]:
    """Say what PostgreSQL's 'invalid byte sequence ... 0x00' means: SQLite keeps a NUL
    character in text, PostgreSQL's text type cannot hold one."""
    from psycopg.errors import CharacterNotInRepertoire

    try:
        yield
    except CharacterNotInRepertoire as exc:
        if "0x00" not in str(exc):
            raise
        context = " ".join(str(exc).split()).partition("CONTEXT: ")[2]
        raise StoreError(
            f"nothing was copied: {where.shown}: a value holds a NUL character (U+0000), which"
            f" PostgreSQL's text cannot ({context or 'see the source'})"
        ) from None


def _server_counts(conn: Any) -> dict[str, int]:
    return {
        t.name: conn.execute(f"SELECT count(*) FROM {t.name}{_meta_filter(t)}").fetchone()[0] for t in TABLES
    }


def _column_types(conn: Any) -> dict[tuple[str, str], str]:
    """Each copied column's type as COPY's binary format needs it named."""
    rows = conn.execute(
        "SELECT c.relname, a.attname, format_type(a.atttypid, NULL) FROM pg_attribute a"
        " JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = current_schema() AND c.relname = ANY(%s) AND a.attnum > 0 AND NOT a.attisdropped",
        ([t.name for t in TABLES],),
    )
    return {(table, col): kind for table, col, kind in rows}


def _write_file(where: Location, rows: Rows) -> None:
    path = Path(where.target)
    _check_folder(path)
    made = [p for p in _files_of(path) if not p.exists()]
    try:
        with Store.open(path, create=True) as store:
            with store.snapshot() as conn:
                _refuse_if_filled(
                    where,
                    {t.name: conn.execute(f"SELECT count(*) FROM {t.name}").fetchone()[0] for t in TABLES},
                )
            with store.transaction() as conn:
                for table in TABLES:
                    it = rows(table)
                    while chunk := list(islice(it, CHUNK)):
                        SQLITE.insert_rows(conn, table.name, table.columns, chunk)
                    if table.name == "facts":  # the word index, as an import fills it
                        conn.execute(
                            "INSERT INTO facts_fts (rowid, id, text) SELECT pos, id, text FROM facts"
                        )
                        facts = conn.execute("SELECT pos, id, text FROM facts")
                        while some := facts.fetchmany(CHUNK):
                            SQLITE.insert_rows(conn, cjk.TABLE, ("rowid", "grams"), cjk.rows(some))
            store.checkpoint()
    except BaseException:
        if path in made:
            for p in made:
                p.unlink(missing_ok=True)
        raise


def _check_folder(path: Path) -> None:
    if path.is_dir():
        raise StoreError(f"{path}: is a directory, not a database")
    if not path.parent.is_dir():
        raise StoreError(f"{path}: the folder {path.parent} does not exist")


def _refuse_if_filled(where: Location, counts: dict[str, int]) -> None:
    rows = sum(counts.values())
    if rows:
        raise StoreError(
            f"{where.shown}: already holds a store ({counts.get('facts', 0):,} facts, {rows:,} rows);"
            " copy writes only into an empty one"
        )


def _files_of(path: Path) -> list[Path]:
    return [path] + [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal")]


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False
