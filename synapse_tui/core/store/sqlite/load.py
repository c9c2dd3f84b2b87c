"""A file's load of the arithmetic's arrays: one aggregated scan (`_scan`), and the load
cache beside a large store (loadcache.py, decision 0008), patched from the change log."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.store import loadcache
from synapse_tui.core.store.arrays import FactArrays
from synapse_tui.core.store.sql import _PER_FACT, _TIER_CODE, INVALIDATED_AT, SqlStore, _arrays

# "a valid signature by a trusted signer", the signers bound as a JSON list
_TRUSTED = "(sig_key IS NOT NULL AND sig_key IN (SELECT value FROM json_each(?)))"

_INVALIDATED = f"json_extract(provenance, '$.\"{INVALIDATED_AT}\"') IS NOT NULL"
# A fact its source removed by TTL, not its agent (a LangGraph row): the flag `expired`,
# from the reason a sync records (meta `deleted.why.ID`); only deleted facts look it up.
_EXPIRED = "deleted = 1 AND EXISTS (SELECT 1 FROM meta WHERE meta.key = 'deleted.why.' || facts.id)"
# What `load` reads per fact, in the order FactArrays is built from (see `_scan`).
_LOAD_COLUMNS = (
    "r",
    "s",
    f"{_TIER_CODE} + 4 * sig_state + 16 * {_TRUSTED}",
    "coalesce(o1_count, 0)",
    "coalesce(supersedes_pos, 0) - 1",
    "deleted",
    _INVALIDATED,
    _EXPIRED,
    "length(events) / 8",
)


class CachedLoad(SqlStore):
    """`load` through the load cache beside a file, and SQLite's aggregated scan."""

    _conn: sqlite3.Connection
    path: Path

    def load(self, config: Config) -> tuple[list[str], FactArrays]:
        """Fact ids by position and the arithmetic's inputs, from one snapshot.

        A large store keeps a copy of these beside it (`loadcache`): read as it is while
        no fact has changed since it was written, patched with the facts changed since
        while the store's change log reaches back to it. Otherwise each column comes back
        as one aggregated value (group_concat), so a million facts cost a handful of
        Python objects instead of millions of row tuples, and the copy is rewritten.
        """
        signers = json.dumps(list(config.trust.signers))
        with self.snapshot():
            cached = self._from_cache(signers)
            if cached is None:
                ids, arrays = self._load_sql(signers)
            else:
                ids, arrays, patched = cached
            rewrite = (cached is None or patched > loadcache.REWRITE_AFTER) and len(
                ids
            ) >= loadcache.MIN_FACTS
            state = self._cache_state(len(ids)) if rewrite else None
        if state is not None and _writable(self.path):
            token, seq = state
            loadcache.write(loadcache.cache_path(self.path), token, seq, signers, ids, arrays)
        return ids, arrays

    def warm(self, config: Config) -> None:
        """Leave the load cache a large store's next open maps (after an import: the first
        open of a million new facts then reads a tenth of a second instead of seconds)."""
        (top,) = self._conn.execute("SELECT max(pos) FROM facts").fetchone()
        if (top or 0) >= loadcache.MIN_FACTS:
            self.load(config)

    def generation(self) -> int | None:
        """The token of the newest change of a fact (schema m003); None before m003."""
        newest = self._newest_change()
        return None if newest is None else newest[1]

    def _newest_change(self) -> tuple[int, int] | None:
        try:
            return super()._newest_change()
        except sqlite3.OperationalError:  # a store older than m003, opened read-only
            return None

    def _cache_state(self, n: int) -> tuple[int, int | None] | None:
        """What a cache of this snapshot is written under: the token, and the change log's
        newest entry when later changes can be patched in (positions dense: 1..n)."""
        newest = self._newest_change()
        if newest is None:
            return None
        seq, token = newest
        (top,) = self._conn.execute("SELECT max(pos) FROM facts").fetchone()
        return token, seq if (top or 0) == n else None

    def _from_cache(self, signers: str) -> tuple[list[str], FactArrays, int] | None:
        """Ids, arrays and how many facts were patched in, from the cache; None when it
        is missing, damaged, for other signers, or stale past what the log can patch."""
        token = self.generation()
        if token is None:
            return None
        path = loadcache.cache_path(self.path)
        header = loadcache.read_header(path, signers)
        if header is None:
            return None
        if header.get("token") == token:
            hit = loadcache.read(path, header)
            return None if hit is None else (*hit, 0)
        seq = header.get("seq")
        if not isinstance(seq, int):
            return None
        row = self._conn.execute("SELECT token FROM facts_changes WHERE seq = ?", (seq,)).fetchone()
        if row is None or row[0] != header.get("token"):  # the log no longer reaches back to it
            return None
        changes = self._conn.execute(
            "SELECT count(*), sum(kind NOT IN ('i', 'u')), group_concat(DISTINCT pos)"
            " FROM facts_changes WHERE seq > ?",
            (seq,),
        ).fetchone()
        count, moved, text = changes
        if not count or moved or count > loadcache.PATCH_MAX:
            return None
        hit = loadcache.read(path, header)
        if hit is None:
            return None
        positions = np.unique(np.fromstring(text, dtype=np.int64, sep=","))
        try:
            return self._patch(*hit, positions, signers)
        except StoreError:
            return None

    def _patch(
        self, ids: list[str], arrays: FactArrays, positions: np.ndarray, signers: str
    ) -> tuple[list[str], FactArrays, int] | None:
        """The cached ids and arrays with the facts at `positions` (1-based) read anew:
        changed ones in place, new ones (the positions after the cached n) appended."""
        n, total = len(ids), self.count()
        (top,) = self._conn.execute("SELECT max(pos) FROM facts").fetchone()
        added = positions[positions > n]
        if top != total or not np.array_equal(added, np.arange(n + 1, total + 1)):
            return None  # positions moved or a gap: only a full load is sure
        nums, events, fresh, _ = self._scan(
            signers,
            len(positions),
            " WHERE pos IN (SELECT value FROM json_each(?))",
            (json.dumps(positions.tolist()),),
        )
        part = _arrays(nums, events, fresh)
        changed = len(positions) - len(added)
        at = positions[:changed] - 1
        for name in (*_PER_FACT, "deleted", "invalidated", "expired"):
            getattr(arrays, name)[at] = getattr(part, name)[:changed]
        for j, i in enumerate(at.tolist()):
            ids[i] = fresh[j]
            new, old = part.events_of(j), arrays.events_of(i)
            if len(new) != len(old) or not np.array_equal(new, old):
                arrays.moved[i] = new
        arrays = arrays.compacted()
        if len(added):
            tail = part.span(changed, len(positions))
            joined: dict[str, Any] = {
                name: np.concatenate([getattr(arrays, name), getattr(tail, name)])
                for name in (
                    "r",
                    "s",
                    "declared",
                    "sig_state",
                    "sig_trusted",
                    "created",
                    "events",
                    "o1_count",
                    "supersedes",
                    "deleted",
                    "invalidated",
                    "expired",
                )
            }
            joined["offsets"] = np.concatenate([arrays.offsets, tail.offsets + len(arrays.events)])
            arrays = FactArrays(**joined)
            ids = ids + fresh[changed:]
        return ids, arrays, len(positions)

    def load_chunks(
        self, config: Config, size: int
    ) -> tuple[np.ndarray, Iterator[tuple[list[str], FactArrays]]]:
        """`SqlStore.load_chunks`, from the load cache when it is valid."""
        if not self._conn.in_transaction:
            raise RuntimeError("load_chunks reads a snapshot: call it inside Store.snapshot()")
        signers = json.dumps(list(config.trust.signers))
        if (cached := self._from_cache(signers)) is not None:
            ids, arrays, _ = cached
            spans = ((ids[c : c + size], arrays.span(c, c + size)) for c in range(0, len(ids), size))
            return arrays.supersedes, spans
        return super().load_chunks(config, size)

    def _supersedes_positions(self) -> np.ndarray:
        """Every fact's `supersedes` as a position (-1: none), in store order, in one value."""
        factory = self._conn.text_factory
        self._conn.text_factory = bytes
        try:
            (text,) = self._conn.execute(
                "SELECT group_concat(coalesce(supersedes_pos, 0) - 1, ',')"
                " FROM (SELECT supersedes_pos FROM facts ORDER BY pos)"
            ).fetchone()
        finally:
            self._conn.text_factory = factory
        return np.fromstring(text.decode("ascii"), dtype=np.int64, sep=",") if text else np.empty(0, np.int64)

    def _scan(self, signers: str, n: int, where: str = "", args: tuple = (), limit: bool = False):
        """Every fact's numbers (n x 7), events and ids in one pass over the table, in
        position order, and the last position read; `where` (with `args`) picks the facts,
        `limit` stops after n.

        One statement reads one consistent snapshot; each column aggregates into a single
        value (group_concat), so a million facts cost a handful of Python objects instead
        of millions of row tuples (measured at a million: 1.5 s of CPU, against 2.4 s for
        one scan per column and 2.4 s for one concatenated string per row).
        """
        inner = ", ".join(f"{expr} AS c{i}" for i, expr in enumerate(_LOAD_COLUMNS))
        outer = ", ".join(f"group_concat(c{i}, ',')" for i in range(len(_LOAD_COLUMNS)))
        last_n = f" LIMIT {int(n)}" if limit else ""
        factory = self._conn.text_factory
        self._conn.text_factory = bytes
        try:
            *texts, blob, joined, last = self._conn.execute(
                f"SELECT {outer}, group_concat(events, x''), group_concat(id, char(30)), max(pos)"
                f" FROM (SELECT {inner}, events, id, pos FROM facts{where} ORDER BY pos{last_n})",
                (signers, *args),
            ).fetchone()
        finally:
            self._conn.text_factory = factory
        nums = np.empty((n, len(texts)), dtype=np.int64)
        for i, text in enumerate(texts):
            values = np.fromstring((text or b"").decode("ascii"), dtype=np.int64, sep=",")
            if len(values) != n:
                raise StoreError(f"{self.path}: the facts table changed while loading; try again")
            nums[:, i] = values
        ids = joined.decode("utf-8").split("\x1e")
        if len(ids) != n:  # an id containing the separator: take the slow, exact path
            rows = self._conn.execute(f"SELECT id FROM facts{where} ORDER BY pos{last_n}", args)
            ids = [row[0] for row in rows]
        events = np.frombuffer(blob or b"", dtype=np.float64)
        return nums, events, ids, last


def _writable(path: Path) -> bool:
    """May a file go beside this store? Not beside a read-only one: its file or folder
    refuses us, or carries no write permission for anyone (which binds even root)."""
    try:
        return all(os.access(p, os.W_OK) and os.stat(p).st_mode & 0o222 for p in (path, path.parent))
    except OSError:
        return False
