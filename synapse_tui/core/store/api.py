"""What the store is: the one interface every layer above `core/store` calls.

A *store* holds a memory's facts, their triage fields, the audit log of every decision,
the word index and the neighbour graph's tables. Everything above this package (trust,
graph, review, ingest, browser, the agent, the front-ends) talks to it through `Store`, the
abstract class below, and never through SQL or a connection. Two backends implement it:

- a SQLite file (`core/store/sqlite/`, the `SqliteStore`), the default: WAL lets the
  browser read while an agent writes;
- a PostgreSQL server (`core/store/postgres/`, the `PgStore`), for a team sharing one
  memory (docs/postgres.md).

The two are siblings: neither inherits the other. What they answer with the same
statements (records, meta, marks, the typed reads of ops.py) is `SqlStore`'s (sql.py),
written once; each answers the rest its own way.

`Store.open(location)` picks the backend from the location (`core/base/location.py`: a
`postgresql://` URL is a server, anything else a file) and returns a `Store`; callers never
name a backend class.

What a caller may rely on, whichever the backend:

- **Snapshots and transactions.** `snapshot()` reads one consistent state of the store for
  every call inside it; `transaction()` is one write that lands whole or not at all, and
  writers take turns (SQLite's BEGIN IMMEDIATE, the server's advisory lock).
- **Components.** `audit` (the triage log: append, undo and redo state, history), `review`
  (a fact's triage fields, read and written by id), `imports` (new facts, a sync's flags
  and evidence, export's extras) and `graph` (the neighbour graph's tables) are the store's parts, each written once over the
  backend's connection.
- **Capabilities, not probes.** What a backend or a login can do is asked of
  `capabilities` (the role a server's session acts as, the moves it may not make) and of
  `listener()` (another writer's change notices, or None where polling `data_version` is
  how a reader notices): never by looking for an attribute.
- **Reads asked together.** `batch(ops)` takes typed reads (`core/store/ops.py`: frozen
  dataclasses naming what is asked, never SQL) and answers each, typed: a file answers them
  one after the other, a server in one round trip. `ask(op)` is one alone; `batch_soon`
  sends them with the next statement (inside a write transaction, with its COMMIT).

How to add a backend (say, another SQL server):

1. Subclass `Store` (or, for a SQL database, `SqlStore` with a `Dialect` of its own:
   dialect.py names what the shared statements spell differently) and implement every
   abstract method (`batch` answers each operation of
   `ops.py`); `tests/backends.py`'s `backend`
   fixture is where a third parameter would run the core's tests on it too.
2. Give it the components (`audit`, `review`, `imports`, `graph`) over its connection:
   `Audit` and `Imports` leave abstract the few reads each database words its own way
   (a file's are `sqlite/parts.py`, a server's `postgres/store.py`); a `Dialect`'s
   `insert_rows` is how plain rows in bulk go. Answer `capabilities` and `listener()` for
   what it can do.
3. Teach the package's opener (`core/store/__init__.py`, which `Store.open` calls) its
   locations (and `core/base/location.py` to tell them apart).

The design and what it replaced: docs/decisions/0013-one-store-interface.md.
"""

from __future__ import annotations

import abc
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.base.location import Location
from synapse_tui.core.store.ops import FactRecord, Inputs, Marks, Op, Supersession

if TYPE_CHECKING:
    from synapse_tui.core.store.arrays import FactArrays
    from synapse_tui.core.store.audit import Audit, AuditEntry
    from synapse_tui.core.store.db import WordHits
    from synapse_tui.core.store.graph import GraphTables
    from synapse_tui.core.store.imports import Imports
    from synapse_tui.core.store.review import Review


T = TypeVar("T")
# (pos, id, text, created_at, reinforced_at, supersedes, note, entities): `Store.finder_rows`
FinderRow = tuple[int, str, str, str, list[Any] | None, str | None, str | None, tuple[str, ...]]


@dataclass(frozen=True)
class Capabilities:
    """What this store, opened by this login, can do beyond reading and triage.

    `role`: the database role a server's session acts as (a title says it), None for a file.
    `refused`: {move: why this login may not make it} (an agent's role on a server lacks
    `accept` and `supersede`); empty where every move is allowed.
    `notices`: whether `Store.listener()` gives another writer's change notices (a server);
    False where a reader polls `data_version` instead (a file, where that is cheap)."""

    role: str | None = None
    refused: Mapping[str, str] = field(default_factory=dict)
    notices: bool = False


@dataclass(frozen=True)
class Changes:
    """What changed since a listener last looked: the facts at `positions` (0-based,
    ascending) changed or are new; `reload` says positions may have moved (a delete) or
    the log no longer reaches back, so only reading everything again is sure."""

    seq: int
    positions: tuple[int, ...]
    reload: bool = False


class Listener(Protocol):
    """Another writer's change notices, on a connection of the listener's own: `wait`
    blocks until changes landed (or `timeout` seconds passed: None). Not for sharing
    across threads: a browser runs it in one worker that posts what it returns."""

    @property
    def connected(self) -> bool: ...

    def wait(self, timeout: float) -> Changes | None: ...

    def close(self) -> None: ...


class Opener(Protocol):
    """Opens the store at a location: what `Store.open` calls (see `register_opener`)."""

    def __call__(self, location: str | os.PathLike[str], *, create: bool, readonly: bool) -> Store: ...


_opener: Opener | None = None


def register_opener(opener: Opener) -> None:
    """Name the function `Store.open` calls. The package's `__init__` registers the one that
    picks SQLite or PostgreSQL: the interface knows no backend module, so none of them
    imports back into a circle."""
    global _opener
    _opener = opener


class Store(abc.ABC):
    """An open store (see the module's docstring). Use `Store.open(location)`; close it or
    use `with`. Every method reads or writes through the backend's own connection, which
    nothing outside `core/store` touches."""

    path: Path | Location  # where it is: a file's path, or a server's location
    readonly: bool
    # why a store opened for writing is read-only (its file, its folder), None when the
    # caller asked for read-only or it is writable
    readonly_why: str | None
    # One user of the connection at a time, for callers sharing the store across threads
    # (the browser's workers): `close` takes it too.
    lock: threading.RLock
    audit: Audit  # triage's log: append, undo and redo state, history
    review: Review  # the triage fields of facts, read and written by id
    imports: Imports  # new facts, a sync's flags and evidence, export's extras
    graph: GraphTables  # the neighbour graph's tables, as the graph's views read them

    @classmethod
    def open(cls, location: str | os.PathLike[str], *, create: bool = False, readonly: bool = False) -> Store:
        """The store at `location`: a PostgreSQL server's URL (psycopg imported only then)
        or a SQLite file. `create`: make it when missing; `readonly`: never write.

        The backends are below this interface, so this module does not import them: the
        package (`core/store/__init__.py`, run before any of its modules) registers the
        function that picks one, and this calls it."""
        if _opener is None:  # pragma: no cover - the package's __init__ always sets it
            raise RuntimeError("no store backend registered (import synapse_tui.core.store)")
        return _opener(location, create=create, readonly=readonly)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what it can do --------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities:
        """What this store and its login can do (see `Capabilities`); a file: everything,
        and no notices."""
        return Capabilities()

    def listener(self) -> Listener | None:
        """Another writer's change notices (for one worker to wait on), or None where a
        reader polls `data_version` (a file, whose poll is cheap)."""
        return None

    # -- typed reads (ops.py) ----------------------------------------------------------------

    @abc.abstractmethod
    def batch(self, ops: Sequence[Op[Any]]) -> list[Any]:
        """Each operation's answer, in order, all read from one state of the store when
        asked inside a snapshot or a transaction: a file asks them one after the other, a
        server sends them all before waiting for any (one round trip)."""

    @abc.abstractmethod
    def batch_soon(self, ops: Sequence[Op[Any]]) -> Callable[[], list[Any]]:
        """`batch` sent with the store's next statement (inside a write transaction, with
        its COMMIT, on a server): call the result for the answers once that has gone."""

    def ask(self, op: Op[T]) -> T:
        """One operation's answer (`batch` of one)."""
        answer: T = self.batch([op])[0]
        return answer

    # -- opening, closing, writing -----------------------------------------------------------

    @abc.abstractmethod
    def close(self) -> None: ...

    @abc.abstractmethod
    def read_only_because(self) -> str:
        """`LOCATION: opened read-only` and why, for a refused write."""

    @abc.abstractmethod
    def check_health(self) -> None:
        """Refuse to write into a store that reports damage, before a large write (a file
        checks its pages within a budget of time; a server looks after its own)."""

    @abc.abstractmethod
    def transaction(self) -> AbstractContextManager[Any]:
        """One write transaction: all of it lands or none of it does; writers take turns."""

    @abc.abstractmethod
    def snapshot(self) -> AbstractContextManager[Any]:
        """Every read inside sees one consistent state of the store; nested uses share the
        outer one."""

    @abc.abstractmethod
    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file (before copying the file)."""

    # -- marks a long-lived reader compares ------------------------------------------------

    @abc.abstractmethod
    def data_version(self) -> int:
        """Changes when another connection commits (not for this store's own commits)."""

    @abc.abstractmethod
    def marks(self) -> Marks:
        """The last fact's position and the last audit entry's seq."""

    # -- meta ------------------------------------------------------------------------------

    @abc.abstractmethod
    def meta(self, key: str) -> Any:
        """A value kept in `meta` (as JSON), None when absent."""

    @abc.abstractmethod
    def set_meta(self, key: str, value: Any) -> None:
        """Keep `value` in `meta` as JSON, in a transaction of its own."""

    # -- facts -----------------------------------------------------------------------------

    @abc.abstractmethod
    def count(self) -> int: ...

    @abc.abstractmethod
    def deleted_count(self) -> int: ...

    def change_mark(self) -> tuple[int, int] | None:
        """The change log's newest entry (a state of the facts), None without a log: what
        `changed_since` is later asked about."""
        return None

    def changed_since(self, mark: tuple[int, int] | None) -> list[int] | None:
        """The positions (from 0) of the facts added or updated since `mark`, in order; None
        when that cannot be told (no log, the mark pruned, a deletion or move since, too
        many changes): the caller reads everything again."""
        return None

    @abc.abstractmethod
    def supersessions(self) -> Mapping[int, int]:
        """Position -> the position of the fact it supersedes (both from 0), for every fact
        that names one, as the store holds them now (not as a memory loaded earlier)."""

    @abc.abstractmethod
    def invalidated_ids(self) -> frozenset[str]:
        """The facts their source marks no longer valid, no successor named (the flag
        `invalidated`: provenance `x-invalidated-at`)."""

    @abc.abstractmethod
    def load(self, config: Config) -> tuple[list[str], FactArrays]:
        """Fact ids by position and the arithmetic's inputs, from one snapshot."""

    @abc.abstractmethod
    def load_chunks(
        self, config: Config, size: int
    ) -> tuple[np.ndarray, Iterator[tuple[list[str], FactArrays]]]:
        """`load` a chunk at a time, inside a snapshot: every fact's `supersedes` first."""

    @abc.abstractmethod
    def warm(self, config: Config) -> None:
        """Leave what the next open of a large store maps (a file's load cache)."""

    @abc.abstractmethod
    def fact_inputs(self, fact_ids: list[str], config: Config) -> dict[int, Inputs]:
        """The arithmetic's inputs of a few facts, by 0-based position."""

    @abc.abstractmethod
    def texts(self, positions: list[int] | np.ndarray) -> list[str]:
        """Fact texts for 0-based positions, in the order asked."""

    @abc.abstractmethod
    def record(self, fact_id: str) -> FactRecord | None: ...

    @abc.abstractmethod
    def own_fields(self, fields: Sequence[str]) -> list[tuple[np.ndarray, tuple[str | None, ...]]]:
        """The facts whose provenance names its source (`x-source`, a name of letters,
        digits, `-` and `_`), grouped by their values of `x-<source>-<field>` for each of
        `fields` (as text, None where absent): (0-based positions, values) per group. What a
        fact's kind is read from (core/trust/kinds.py): the database reads and groups them,
        one query per source, so a store of many facts and few kinds crosses as few rows."""

    @abc.abstractmethod
    def records(self) -> Iterator[FactRecord]:
        """Every fact as stored, in position order."""

    def finder_rows(self) -> Iterator[FinderRow]:
        """What the suggestion finders read of every fact (core/review/suggest_state.py), in
        position order: (pos, id, text, created_at, reinforced_at, supersedes, note,
        entities), each as `records` reads it. A backend may read just these columns."""
        for r in self.records():
            yield (
                r.pos,
                r.id,
                r.text,
                r.created_at,
                r.reinforced_at,
                r.supersedes,
                r.note,
                tuple(r.entities),
            )

    @abc.abstractmethod
    def ids_at(self, positions: list[int]) -> list[str]: ...

    @abc.abstractmethod
    def id_texts(self) -> Iterator[tuple[str, str]]:
        """(id, text) of every fact, in no particular order."""

    @abc.abstractmethod
    def supersessors(self, fact_ids: Sequence[str]) -> list[Supersession]:
        """(old, new) for every fact that supersedes one of `fact_ids`."""

    @abc.abstractmethod
    def superseded_by(self, fact_id: str) -> list[str]: ...

    @abc.abstractmethod
    def history(self, fact_id: str) -> list[AuditEntry]: ...

    # -- finding facts ---------------------------------------------------------------------

    @abc.abstractmethod
    def search(self, query: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Facts holding every word (each a prefix): positions and relevance."""

    @abc.abstractmethod
    def search_any(self, terms: Sequence[str], weights: Sequence[float] | None = None) -> WordHits:
        """Facts holding any of the terms, with their BM25."""

    @abc.abstractmethod
    def prepare_search(self) -> None:
        """Read what the first broad search would (for a long-running process to call)."""

    @abc.abstractmethod
    def provenance_positions(self, key: str, value: str, start: int = 0) -> np.ndarray:
        """0-based positions from `start` on whose provenance holds KEY equal to VALUE."""

    @abc.abstractmethod
    def note_positions(self, note: str, start: int = 0) -> np.ndarray:
        """0-based positions from `start` on of the facts of one note: the note itself, or a
        path whose last parts it is (`CLAUDE.md` finds `packages/api/CLAUDE.md`)."""
