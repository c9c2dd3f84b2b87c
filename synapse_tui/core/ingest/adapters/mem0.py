"""mem0 (open source, Python and TypeScript SDKs), read from its own files (SPEC 9).

mem0 logs every change of a memory in `history.db` (ADD, UPDATE, DELETE, each with the
text before and after) and keeps only the memory's present state in its vector store.
The history gives the chain of texts; the vector store gives who and which session, the
entities and the embedding of the current text. mem0 itself need not be installed.

The history table has had four shapes, all read:
- `history(id, memory_id, old_memory, new_memory, event, created_at, updated_at,
  is_deleted, actor_id, role)`: the Python SDK now;
- the same with `new_value` and without `actor_id`/`role`: the Python SDK before its
  group-chat migration, and the TypeScript SDK's first SQLite history;
- `history(id, memory_id, prev_value, new_value, event, timestamp, is_deleted)`: the
  first Python SDK;
- `memory_history(id, memory_id, previous_value, new_value, action, created_at,
  updated_at, is_deleted)`: the TypeScript SDK.

mem0 wrote local US/Pacific times with their offset before it moved to UTC: each is
converted to UTC (the instant is kept, the wall-clock reading is not), and the verbatim
string stays in provenance.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from synapse_tui.core.base.clock import format_time, parse_time
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.base.limits import counted
from synapse_tui.core.ingest.adapters import (
    Snapshot,
    every,
    fact_id,
    open_read_only,
    own_key,
    source_provenance,
)
from synapse_tui.core.ingest.adapters.mem0_vectors import Vectors, default_location, read_vectors
from synapse_tui.core.ingest.interchange import ParsedFact, Progress, parse_line

SYSTEM = "mem0"
EXPECTED = "mem0's history.db (a table history or memory_history of ADD/UPDATE/DELETE events)"

_PY_NOW = {"id", "memory_id", "old_memory", "new_memory", "event", "created_at", "updated_at"}
_PY_FIRST = {"id", "memory_id", "prev_value", "new_value", "event", "timestamp"}
_TS = {"id", "memory_id", "previous_value", "new_value", "action", "created_at", "updated_at"}
_PAYLOAD_KEYS = ("user_id", "agent_id", "run_id", "actor_id", "role")
# Keys of the payload that describe the memory as it is now: kept on its head version only.
_HEAD_KEYS = ("attributed_to", "expiration_date", "memory_type")
_NOT_METADATA = {
    "data",
    "hash",
    "created_at",
    "updated_at",
    "id",
    "text_lemmatized",
    *_HEAD_KEYS,
    *_PAYLOAD_KEYS,
}


@dataclass(frozen=True)
class Event:
    row: int  # rowid: the order mem0 wrote the events in
    id: str  # the history record's id
    memory: str
    old: str | None
    new: str | None
    event: str
    created_at: Any
    updated_at: Any
    actor_id: Any
    role: Any


def default_source() -> Path:
    """Where mem0 keeps its history unless told otherwise."""
    return Path(os.environ.get("MEM0_DIR") or Path.home() / ".mem0") / "history.db"


def read(
    source: Path,
    *,
    vectors: Path | None = None,
    progress: Progress | None = None,
) -> Snapshot:
    """mem0's history at `source` (and its vectors) as a Snapshot; the files are only read.

    No `known`: mem0 keeps its own history, every version is in history.db."""
    source = Path(source)
    events, typescript = read_history(source)
    left_out: list[str] = []
    store = _vectors(source, vectors, typescript, left_out)
    return _snapshot(source, events, store, left_out, progress)


def read_history(source: Path) -> tuple[list[Event], bool]:
    """Every event of a history.db in the order mem0 wrote them; True for the TS SDK's table."""
    name = str(source)
    if not source.is_file():
        what = "a folder" if source.is_dir() else "no such file"
        raise InputError(f"{what}; expected {EXPECTED}", file=name)
    try:
        conn = open_read_only(source)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"cannot open ({exc}); expected {EXPECTED}", file=name) from None
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        sql, typescript = _select(conn, tables, name)
        rows = conn.execute(sql).fetchall()
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc):
            raise InputError(f"cannot read ({exc}); expected {EXPECTED}", file=name) from None
        raise InputError("locked by mem0 while it writes; try again in a moment", file=name) from None
    except sqlite3.DatabaseError as exc:
        raise InputError(f"not a SQLite database ({exc}); expected {EXPECTED}", file=name) from None
    finally:
        conn.close()
    return [Event(*row) for row in rows], typescript


def _select(conn: sqlite3.Connection, tables: set[str], name: str) -> tuple[str, bool]:
    """The query that reads this file's shape of history as Event columns."""

    def columns(table: str) -> set[str]:
        return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}

    if "history" in tables:
        cols = columns("history")

        def opt(col: str) -> str:
            return col if col in cols else "NULL"

        if _PY_NOW <= cols:
            text = "coalesce(new_memory, new_value)" if "new_value" in cols else "new_memory"
            return (
                f"SELECT rowid, id, memory_id, old_memory, {text}, event, created_at, updated_at,"
                f" {opt('actor_id')}, {opt('role')} FROM history ORDER BY rowid",
                False,
            )
        if _PY_FIRST <= cols:
            return (
                "SELECT rowid, id, memory_id, prev_value, new_value, event, timestamp, timestamp,"
                " NULL, NULL FROM history ORDER BY rowid",
                False,
            )
        raise InputError(
            f"table history has columns {', '.join(sorted(cols))}; expected {EXPECTED}", file=name
        )
    if "memory_history" in tables:
        cols = columns("memory_history")
        if _TS <= cols:
            return (
                "SELECT rowid, id, memory_id, previous_value, new_value, action, created_at, updated_at,"
                " NULL, NULL FROM memory_history ORDER BY rowid",
                True,
            )
        raise InputError(
            f"table memory_history has columns {', '.join(sorted(cols))}; expected {EXPECTED}", file=name
        )
    names = sorted(tables)
    found = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "") or "none"
    raise InputError(
        f"a SQLite database with no mem0 history (tables: {found}); expected {EXPECTED}", file=name
    )


def _vectors(source: Path, vectors: Path | None, typescript: bool, left_out: list[str]) -> Vectors | None:
    where = vectors if vectors is not None else default_location(source, typescript)
    if where is None:
        left_out.append(
            "no vector store named (--vectors DIR; mem0's default /tmp/qdrant is read only when named):"
            " user, agent and run ids, entities and embeddings live only there, so facts carry none of them"
        )
        return None
    store = read_vectors(Path(where))
    left_out.extend(store.left_out)
    return store


def _instant(ev: Event, fld: str, source: Path) -> tuple[str, str]:
    """(UTC RFC 3339, the verbatim value) of an event's timestamp field."""
    value = ev.created_at if fld == "created_at" else ev.updated_at
    if isinstance(value, str):
        try:
            return format_time(parse_time(value.strip())), value
        except ValueError:
            pass
    shown = "missing" if value is None else f"not a timestamp: {value!r}"
    raise _errors(ev, source)(fld, shown)


def _errors(ev: Event, source: Path) -> Callable[[str | None, str], InputError]:
    """`err(field, message)` naming one history record: history.db has no lines to name."""

    def err(fld: str | None, msg: str) -> InputError:
        return InputError(
            f"history record {ev.id!r} (memory {ev.memory!r}), field '{fld}': {msg}", file=str(source)
        )

    return err


def _once(events: list[Event], source: Path) -> tuple[list[Event], int]:
    """Each history record once, and how many repeats were dropped. A history.db merged
    from two copies holds its rows twice; read twice, a memory's old text would come back
    as a newer version and become the head. The same id with other content is not a copy:
    which one mem0 wrote cannot be told, so the history is refused naming it."""
    first: dict[Any, Event] = {}
    kept: list[Event] = []
    for ev in events:
        if ev.id is None:  # no id to tell a copy by (never written by mem0): read as it is
            kept.append(ev)
            continue
        seen = first.setdefault(ev.id, ev)
        if seen is ev:
            kept.append(ev)
        elif replace(seen, row=ev.row) != ev:
            raise InputError(
                f"history record {ev.id!r} appears twice with different content (rows {seen.row}"
                f" and {ev.row}); which one mem0 wrote cannot be told, so nothing is imported",
                file=str(source),
            )
    return kept, len(events) - len(kept)


@dataclass
class _Version:
    text: str
    at: str
    verbatim: str
    ev: Event


def _chains(events: list[Event], source: Path) -> tuple[dict[str, list[_Version]], set[str], list[str]]:
    """Each memory's texts in order, the memories deleted, and notes on what was skipped."""
    chains: dict[str, list[_Version]] = {}
    deleted: set[str] = set()
    orphans = 0
    events, repeated = _once(events, source)
    for ev in events:
        bad = _errors(ev, source)
        if not isinstance(ev.memory, str) or not ev.memory.strip():
            raise bad("memory_id", "missing")
        kind = ev.event.upper() if isinstance(ev.event, str) else ev.event
        versions = chains.get(ev.memory)
        if kind == "DELETE":
            if versions is not None:
                deleted.add(ev.memory)
            continue
        if kind not in ("ADD", "UPDATE"):
            raise bad("event", f"{ev.event!r} is not one of ADD, UPDATE, DELETE")
        if not isinstance(ev.new, str) or not ev.new.strip():
            raise bad("new_memory", "missing text")
        if kind == "ADD":
            at, verbatim = _instant(ev, "created_at", source)
        else:
            # An UPDATE's instant is updated_at; its created_at is the memory's creation.
            at, verbatim = _instant(ev, "updated_at", source)
        if versions is None:
            orphans += kind == "UPDATE"
            chains[ev.memory] = [_Version(ev.new, at, verbatim, ev)]
        elif ev.new != versions[-1].text:  # an UPDATE of metadata only keeps the text
            versions.append(_Version(ev.new, at, verbatim, ev))
    notes = []
    if repeated:
        notes.append(
            f"{repeated} history records appear twice (a merged or copied history.db?): each read once"
        )
    if orphans:
        notes.append(f"{orphans} memories have no ADD record: their first recorded text starts the chain")
    return chains, deleted, notes


def _snapshot(
    source: Path, events: list[Event], store: Vectors | None, left_out: list[str], progress: Progress | None
) -> Snapshot:
    chains, deleted, notes = _chains(events, source)
    left_out.extend(notes)
    facts: list[ParsedFact] = []
    stale, report = 0, every(progress, 2000)
    for done, (memory, versions) in enumerate(chains.items()):
        report(done, len(chains))
        point = store.memories.get(memory) if store else None
        payload = point.payload if point else {}
        head_embedding = None
        if point is not None and point.vector is not None:
            if payload.get("data") in (None, versions[-1].text):
                head_embedding = point.vector.tolist()
            else:
                stale += 1
        for n, version in enumerate(versions, start=1):
            head = n == len(versions)
            obj = _fact(memory, n, version, payload, head)
            if head and store and store.entities.get(memory):
                obj["entities"] = store.entities[memory]
            if head and head_embedding is not None:
                obj["embedding"] = head_embedding
            # "line": the event's row in history.db
            facts.append(parse_line(obj, _errors(version.ev, source), version.ev.row))
    report(len(chains), len(chains))
    if stale:
        left_out.append(
            f"{counted(stale, 'embedding')} not carried over: the vector store's text differs from history's"
        )
    if store:
        missing = sum(1 for m in store.memories if m not in chains)
        if missing:
            left_out.append(f"{missing} memories in the vector store have no history record: not imported")
    heads = {m: fact_id(SYSTEM, m, len(chains[m])) for m in deleted}
    space = f"{SYSTEM}:{store.collection}" if store and any(f.embedding is not None for f in facts) else None
    return Snapshot(SYSTEM, str(source), facts, set(heads.values()), left_out, space)


def _fact(memory: str, n: int, version: _Version, payload: dict[str, Any], head: bool) -> dict[str, Any]:
    ev = version.ev
    event = ev.event.upper()
    from_event = {"actor_id": ev.actor_id, "role": ev.role}  # who made this change
    who = {key: payload.get(key) if from_event.get(key) is None else from_event[key] for key in _PAYLOAD_KEYS}
    prov = source_provenance(
        SYSTEM,
        memory,
        n,
        history_id=str(ev.id),
        event=event,
        # as mem0 wrote it (a local offset, before 2026)
        **{"created_at" if event == "ADD" else "updated_at": version.verbatim},
        **who,
    )
    if head:
        for key in _HEAD_KEYS:
            if payload.get(key) is not None:
                prov[own_key(SYSTEM, key)] = payload[key]
        metadata = {k: v for k, v in payload.items() if k not in _NOT_METADATA}
        if metadata:
            prov[own_key(SYSTEM, "metadata")] = metadata
    obj: dict[str, Any] = {
        "id": fact_id(SYSTEM, memory, n),
        "text": version.text,
        "created_at": version.at,
        "provenance": prov,
    }
    if n > 1:
        obj["supersedes"] = fact_id(SYSTEM, memory, n - 1)
    note = payload.get("run_id") or payload.get("user_id")
    if isinstance(note, str) and note.strip():
        obj["note"] = note
    return obj
