"""LangGraph's store (SPEC 9), which LangMem writes: the `store` table of a SQLite file or
of a PostgreSQL database.

The table is langgraph-checkpoint-sqlite's (`langgraph/store/sqlite/base.py`, MIGRATIONS):
`store(prefix, key, value, created_at, updated_at, expires_at, ttl_minutes)`, primary key
(prefix, key), `prefix` the namespace joined by `.`, `value` JSON (text or the bytes orjson
wrote), times `CURRENT_TIMESTAMP` text in UTC; `store_vectors(prefix, key, field_name,
embedding)` holds float32 vectors (`sqlite_vec.serialize_float32`) when the store is indexed.
On PostgreSQL (langgraph-checkpoint-postgres, `langgraph/store/postgres/base.py`) the same
columns hold `jsonb` and `timestamptz`, `store_vectors.embedding` is pgvector's `vector` or
`halfvec` (read as its text form, so pgvector's Python package is not needed), and the
connection is read-only.

Mapping. A row is a record `<prefix>:<key>`, one fact per text it held. LangGraph allows a
`:` in a namespace label and any character in a key, so the record id escapes what would
make two rows one id or an id unreadable (`%XX`, UTF-8): in the prefix `%`, `:` and control
or invisible characters; in the key `%`, control or invisible characters, and the `@` of a
key ending in `@<digits>` (a fact id's version suffix). Every other id is the plain
`<prefix>:<key>`. LangMem's value
shapes give the text: `{"content": str}` (its manage-memory tool), `{"kind": K, "content":
{"content": str, ...}}` (its memory manager); another `content` object, or a value without
`content`, is kept as its JSON (`left_out` counts them). The namespace is the note and goes
to provenance.

Versions. LangGraph keeps only the current row, and its `INSERT OR REPLACE` resets
`created_at` on every write, so creation is never known: a row seen for the first time is
version 1 dated from its `updated_at` (`x-langgraph-time` says "updated_at; creation
unknown"). PostgreSQL's upsert keeps `created_at`, so there a row first seen is dated from it
when it was never updated ("created_at"), else from its `updated_at` with `created_at` kept
in provenance ("updated_at; created earlier, its first text unknown"). A row whose `updated_at` or text changed since the last sync (this reader takes
`known`) is the next version, dated from that `updated_at`, superseding the one before.

Gone. A record missing from the table is deleted by the agent, unless its `expires_at` has
passed: then LangGraph's TTL sweep removed it (a row still present past its `expires_at` is
as good as gone). Both are flagged `deleted`; an expired one's reason is recorded (meta
`deleted.why.ID` = "expired", through `Snapshot.expired`) and `left_out` says how many.

Embeddings only with `model` (`--model NAME`): the store does not record which model made
them, and a store never mixes two spaces.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from synapse_tui.core.base.clock import Clock, format_time, source_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.limits import brief, counted
from synapse_tui.core.base.location import Location, locate
from synapse_tui.core.base.textsafe import first_unsafe
from synapse_tui.core.ingest.adapters import (
    KnownFact,
    Snapshot,
    errors_at,
    every,
    fact_id,
    open_read_only,
    own_key,
    source_provenance,
)
from synapse_tui.core.ingest.interchange import ParsedFact, Progress, parse_line
from synapse_tui.core.store.postgres.connect import connect, errors_named

SYSTEM = "langgraph"
EXPECTED = "a LangGraph store (a SQLite file or PostgreSQL database with langgraph's `store` table)"
COLUMNS = {"prefix", "key", "value", "created_at", "updated_at"}
FILE = own_key(SYSTEM, "file")
UPDATED = own_key(SYSTEM, "updated_at")
EXPIRES = own_key(SYSTEM, "expires_at")
FIRST_SEEN = "updated_at; creation unknown"
CHANGED = "updated_at"
CREATED = "created_at"  # PostgreSQL: a row never updated since it was created
CREATED_EARLIER = "updated_at; created earlier, its first text unknown"
TEXT_FIELDS = ("content", "$", "content.content")  # the vector of the fact's text, most likely first


def read(
    source: Path | str,
    *,
    known: list[KnownFact] | None = None,
    model: str | None = None,
    progress: Progress | None = None,
    now: float | None = None,
) -> Snapshot:
    """The store as it stands (see the module docstring). `now` decides which rows have
    expired (default: SYNAPSE_NOW, else the wall clock)."""
    table = _open(source, model is not None)
    name, own = table.name, table.own
    now = Clock.from_option(None).now() if now is None else now
    heads = _heads(known, own)
    facts: list[ParsedFact] = []
    seen: set[str] = set()
    kept: set[str] = set()
    as_json = stale = 0
    report = every(progress, 1000)
    for n, row in enumerate(table.rows, start=1):
        report(n, len(table.rows))
        prefix, key, value, updated, expires, _, _ = row
        record = record_id(prefix, key)
        if _passed(expires, now):
            stale += 1
            continue
        seen.add(record)
        text, kind, plain = _text(_value(value, name, record))
        as_json += not plain
        vec = table.vectors.get((prefix, key))
        step = _next_version(heads.get(record), text, updated, vec is not None and model is not None)
        if step is None:
            kept.add(heads[record].id)  # as imported: nothing to check again
            continue
        version, supersedes = step
        fact = _fact(table, row, record, text, kind, version, supersedes)
        if vec is not None:
            fact["embedding"] = vec
        facts.append(parse_line(fact, errors_at(name, n), n))
    expired = {k.id for r, k in heads.items() if r not in seen and not k.deleted and _expired(k, now)}
    deleted = {k.id for r, k in heads.items() if r not in seen and not k.deleted}
    left_out = _left_out(as_json, stale, len(expired), "store_vectors" in table.tables and model is None)
    return Snapshot(
        SYSTEM,
        name,
        facts,
        deleted,
        left_out,
        space=model if table.vectors else None,
        kept=kept,
        expired=expired,
    )


def _heads(known: list[KnownFact] | None, own: str) -> dict[str, KnownFact]:
    """Record -> its latest version in the store, among the facts read from this store."""
    heads: dict[str, KnownFact] = {}
    for k in known or []:
        if k.provenance.get(FILE) == own and (k.record not in heads or k.version > heads[k.record].version):
            heads[k.record] = k
    return heads


def _next_version(
    head: KnownFact | None, text: str, updated: Any, with_vector: bool
) -> tuple[int, str | None] | None:
    """(version, id it supersedes) of a row's text against the store's latest version of
    its record; None when that one is the row as it is, and there is no vector to check."""
    if head is None:
        return 1, None
    if head.text != text or head.provenance.get(UPDATED) != updated:
        return head.version + 1, head.id
    return (head.version, None) if with_vector else None


@dataclass
class _Table:
    """A store's `store` rows as read (prefix, key, value, updated_at, expires_at,
    ttl_minutes, created_at), its tables, and the rows' vectors when asked for."""

    name: str  # the store as shown in messages (a server's with no password)
    own: str  # its identity in provenance: the file's resolved path, the server's name
    rows: list[tuple]
    tables: set[str]
    vectors: dict[tuple[str, str], list[float]]


def _open(source: Path | str, vectors: bool) -> _Table:
    where = locate(source)
    if where.is_server:
        rows, tables, found = _server_rows(where, vectors=vectors)
        return _Table(where.shown, where.shown, rows, tables, found)
    path = Path(source).expanduser()
    rows, names = _rows(path)
    return _Table(str(source), str(path.resolve()), rows, names, _vectors(path) if vectors else {})


def _fact(
    table: _Table,
    row: tuple,
    record: str,
    text: str,
    kind: str | None,
    version: int,
    supersedes: str | None,
) -> dict[str, Any]:
    """One row's text as an interchange object (its embedding not yet added)."""
    prefix, key, _, updated, expires, ttl, created = row
    prov = source_provenance(
        SYSTEM,
        record,
        version,
        file=table.own,
        namespace=prefix.split("."),
        key=key,
        kind=kind,
        updated_at=updated,
        expires_at=expires,
        ttl_minutes=ttl,
        created_at=created if created != updated else None,
        time=CHANGED if version > 1 else _first_seen(created, updated),
    )
    try:
        written = _instant(updated)
    except (TypeError, ValueError):
        raise InputError(
            f"record {record}: updated_at {brief(updated)} is not a time; expected {EXPECTED}",
            file=table.name,
        ) from None
    fact: dict[str, Any] = {
        "id": fact_id(SYSTEM, record, version),
        "text": text,
        "created_at": format_time(written),
        "note": prefix,
        "provenance": prov,
    }
    if supersedes:
        fact["supersedes"] = supersedes
    return fact


def _left_out(as_json: int, stale: int, expired: int, unknown_model: bool) -> list[str]:
    """What the snapshot says it did not carry over, or carried over otherwise."""
    left_out = []
    if as_json:
        left_out.append(
            f"{counted(as_json, 'value')} with no LangMem `content` text: the JSON is the fact's text"
        )
    if stale:
        left_out.append(
            f"{counted(stale, 'row')} past their expires_at (expired by LangGraph's TTL) not imported"
        )
    if expired:
        left_out.append(
            f"{counted(expired, 'record')} expired (TTL), not deleted by the agent; flagged deleted"
        )
    if unknown_model:
        left_out.append(
            "the store's embeddings not carried over: it does not record their model (--model NAME)"
        )
    return left_out


def _escape(text: str, also: str) -> str:
    return "".join(
        "".join(f"%{b:02X}" for b in ch.encode("utf-8")) if ch in also or first_unsafe(ch) else ch
        for ch in text
    )


def record_id(prefix: str, key: str) -> str:
    """The record of a row: `<prefix>:<key>`, escaped so that two rows never share it, no
    version suffix can be read into it, and it holds only visible text."""
    key = _escape(str(key), "%")
    if _VERSIONED.search(key):
        cut = key.rindex("@")
        key = f"{key[:cut]}%40{key[cut + 1 :]}"
    return f"{_escape(str(prefix), '%:')}:{key}"


_VERSIONED = re.compile(r"@\d+$")


def _rows(path: Path) -> tuple[list[tuple], set[str]]:
    name = str(path)
    if not path.is_file():
        what = "a folder, not a file" if path.is_dir() else "no such file"
        raise InputError(f"{what}; expected {EXPECTED}", file=name)
    try:
        with path.open("rb") as fh:
            magic = fh.read(16)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=name) from None
    if magic != b"SQLite format 3\x00":
        raise InputError(f"not a SQLite database; expected {EXPECTED}", file=name)
    conn = open_read_only(path)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "store" not in tables:
            raise InputError(f"has no `store` table; expected {EXPECTED}", file=name)
        have = {r[1] for r in conn.execute("PRAGMA table_info(store)")}
        missing = sorted(COLUMNS - have)
        if missing:
            raise InputError(f"its `store` table lacks {', '.join(missing)}; expected {EXPECTED}", file=name)
        extra = [c if c in have else "NULL" for c in ("expires_at", "ttl_minutes")]
        rows = conn.execute(
            f"SELECT prefix, key, value, updated_at, {extra[0]}, {extra[1]}, NULL FROM store ORDER BY prefix, key"
        ).fetchall()  # NULL: SQLite's INSERT OR REPLACE resets created_at, so it says nothing
    except sqlite3.DatabaseError as exc:
        raise InputError(f"cannot be read ({exc}); expected {EXPECTED}", file=name) from None
    finally:
        conn.close()
    return rows, tables


def _server_rows(
    where: Location, *, vectors: bool
) -> tuple[list[tuple], set[str], dict[tuple[str, str], list[float]]]:
    """The `store` rows of a PostgreSQL database, in a read-only transaction, shaped as the
    SQLite ones (value as JSON text, times as ISO text in UTC), its tables, and the rows'
    vectors when asked for (and the table exists)."""
    name = where.shown
    conn = connect(where)
    try:
        conn.read_only = True
        with errors_named(where, f"cannot read {EXPECTED}"):
            have = {
                r[0]
                for r in conn.execute(
                    "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass('store')"
                    " AND attnum > 0 AND NOT attisdropped"
                )
            }
            if not have:
                raise InputError(f"has no `store` table; expected {EXPECTED}", file=name)
            missing = sorted(COLUMNS - have)
            if missing:
                raise InputError(
                    f"its `store` table lacks {', '.join(missing)}; expected {EXPECTED}", file=name
                )
            extra = [c if c in have else "NULL" for c in ("expires_at", "ttl_minutes")]
            raw = conn.execute(
                f"SELECT prefix, key, value::text, updated_at, {extra[0]}, {extra[1]}, created_at FROM store"
                ' ORDER BY prefix COLLATE "C", key COLLATE "C"'  # byte order, as SQLite sorts
            ).fetchall()
            tables = {"store"}
            best: dict[tuple[str, str], list[float]] = {}
            if conn.execute("SELECT to_regclass('store_vectors')").fetchone()[0] is not None:
                tables.add("store_vectors")
                if vectors:
                    found = conn.execute("SELECT prefix, key, field_name, embedding::text FROM store_vectors")
                    best = _best_vectors(
                        (p, k, f, np.array(json.loads(v), "<f4").tobytes()) for p, k, f, v in found if v
                    )
    finally:
        conn.close()
    rows = [(p, k, v, _stamp(u), _stamp(e), t, _stamp(c)) for p, k, v, u, e, t, c in raw]
    return rows, tables, best


def _stamp(value: Any) -> Any:
    """A PostgreSQL time as ISO text in UTC (None stays None)."""
    return value.astimezone(UTC).isoformat() if isinstance(value, datetime) else value


def _first_seen(created: Any, updated: Any) -> str:
    if created is None:
        return FIRST_SEEN
    return CREATED if created == updated else CREATED_EARLIER


def _vectors(path: Path) -> dict[tuple[str, str], list[float]]:
    """Each row's vector of its text field: `content`, else the whole value (`$`)."""
    conn = open_read_only(path)
    try:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'store_vectors'").fetchone():
            return {}
        rows = conn.execute("SELECT prefix, key, field_name, embedding FROM store_vectors").fetchall()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"its store_vectors cannot be read ({exc})", file=str(path)) from None
    finally:
        conn.close()
    return _best_vectors(rows)


def _best_vectors(rows: Iterable[tuple[str, str, str, Any]]) -> dict[tuple[str, str], list[float]]:
    """Each (prefix, key)'s vector of its most likely text field, from float32 bytes."""
    best: dict[tuple[str, str], tuple[int, list[float]]] = {}
    for prefix, key, fld, blob in rows:
        if not isinstance(blob, bytes) or len(blob) % 4 or fld not in TEXT_FIELDS:
            continue
        rank = TEXT_FIELDS.index(fld)
        if (prefix, key) not in best or rank < best[(prefix, key)][0]:
            best[(prefix, key)] = (rank, np.frombuffer(blob, "<f4").astype(float).tolist())
    return {k: v for k, (_, v) in best.items()}


def _value(value: Any, name: str, record: str) -> Any:
    try:
        return json.loads(value)
    except (TypeError, ValueError, UnicodeDecodeError):
        raise InputError(f"record {record}: value is not JSON; expected {EXPECTED}", file=name) from None


def _text(obj: Any) -> tuple[str, str | None, bool]:
    """(text, kind, whether LangMem's shape gave it)."""
    kind = obj.get("kind") if isinstance(obj, dict) and isinstance(obj.get("kind"), str) else None
    content = obj.get("content") if isinstance(obj, dict) else None
    if isinstance(content, str) and content.strip():
        return content, kind, True
    if isinstance(content, dict) and isinstance(content.get("content"), str) and content["content"].strip():
        return content["content"], kind, True
    shown = content if content is not None else obj
    return json.dumps(shown, ensure_ascii=False, sort_keys=True, separators=(", ", ": ")), kind, False


_instant = source_time  # a LangGraph time: `CURRENT_TIMESTAMP` text (UTC) or an ISO string


def _expired(k: KnownFact, now: float) -> bool:
    return _passed(k.provenance.get(EXPIRES), now)


def _passed(expires: Any, now: float) -> bool:
    """Whether an `expires_at` is at or before `now`; one that is not a time never passes."""
    try:
        return expires is not None and _instant(expires) <= now
    except (TypeError, ValueError):
        return False
