"""What triage reads and writes of a fact (`store.review`): its triage fields by the names
the audit log gives them, its place in a supersession chain, and when its source deleted it.

Writes join the caller's transaction (`Store.transaction`): triage holds one for an action
and its audit entries together.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.store.arrays import event_blob
from synapse_tui.core.store.read import Read, answer

# The fields triage changes, as audit entries name them, and their columns.
TRIAGE_FIELDS = {
    "corroborations": "r",
    "contradictions": "s",
    "tier": "tier",
    "reinforced_at": "reinforced_at",
    "reinforcement_count": "o1_count",
    "supersedes": "supersedes",
}


def _fields(rows: list[tuple]) -> dict[str, Any] | None:
    if not rows:
        return None
    values = dict(zip(TRIAGE_FIELDS, rows[0], strict=True))
    values["reinforced_at"] = json.loads(values["reinforced_at"]) if values["reinforced_at"] else None
    return values


# `SqlStore._per_state`: (a name, a read, how to patch its answer) -> the read's answer,
# computed once per state of the facts
PerState = Callable[[str, Callable[[], Any], Callable[[Any, list[int]], Any]], Any]
PATCH_CHUNK = 500  # positions per statement of a patch (SQLite's limit on parameters is far above)


def _every_time(_what: str, compute: Callable[[], Any], _patch: Any = None) -> Any:
    return compute()


class Review:
    """The triage fields of one store's facts, read and written by id."""

    def __init__(self, conn: sqlite3.Connection, per_state: PerState | None = None) -> None:
        self._conn: Any = conn  # sqlite3's, or a server's (postgres/dialect.Connection)
        self._per_state = per_state or _every_time
        self._when: Mapping[int, float] | None = None  # the deletion times last read

    def exists(self, fact_id: str) -> bool:
        return self._conn.execute("SELECT 1 FROM facts WHERE id = ?", (fact_id,)).fetchone() is not None

    def fields(self, fact_id: str) -> dict[str, Any] | None:
        """A fact's triage fields by their audit names (reinforced_at as a list), or None."""
        return answer(self._conn, self.fields_read(fact_id))

    def fields_read(self, fact_id: str) -> Read:
        return Read(
            f"SELECT {', '.join(TRIAGE_FIELDS.values())} FROM facts WHERE id = ?", (fact_id,), _fields
        )

    def write(self, fact_id: str, fields: dict[str, Any], created: float | None = None) -> None:
        """Set triage fields by their audit names, in one UPDATE; a field that is no column
        (the note `superseded_by` on a replaced fact) is left to the audit log. `created`:
        the fact's creation, the first of its events, when the caller has read them."""
        conn = self._conn
        sets, args = [], []
        for key, value in fields.items():
            if key == "reinforced_at":  # the list, and the event blob the arithmetic reads
                if created is None:
                    created = conn.execute(
                        "SELECT created_ts FROM facts WHERE id = ?", (fact_id,)
                    ).fetchone()[0]
                sets += ["reinforced_at = ?", "events = ?"]
                args += [
                    None if value is None else json.dumps(value),
                    event_blob(created, [parse_time(t) for t in value or []]),
                ]
            elif key in TRIAGE_FIELDS:
                sets.append(f"{TRIAGE_FIELDS[key]} = ?")
                args.append(value)
            if key == "supersedes":  # its resolved position, from the id itself
                sets.append("supersedes_pos = (SELECT f2.pos FROM facts f2 WHERE f2.id = ?)")
                args.append(value)
        if sets:
            conn.execute(f"UPDATE facts SET {', '.join(sets)} WHERE id = ?", (*args, fact_id))

    def supersedes(self, fact_id: str) -> tuple[bool, str | None]:
        """(whether the fact exists, the id it names in `supersedes`)."""
        row = self._conn.execute("SELECT supersedes FROM facts WHERE id = ?", (fact_id,)).fetchone()
        return (False, None) if row is None else (True, row[0])

    def predecessor(self, fact_id: str) -> str | None:
        """The fact `fact_id` supersedes, if that one is in the store."""
        row = self._conn.execute(
            "SELECT f2.id FROM facts f JOIN facts f2 ON f2.pos = f.supersedes_pos WHERE f.id = ?", (fact_id,)
        ).fetchone()
        return row[0] if row else None

    def deleted_at(self) -> list[tuple[int, float]]:
        """(position from 0, epoch seconds) of every fact a sync flagged deleted and
        recorded when (meta `deleted.at.ID`); see `deleted_when`."""
        return list(self.deleted_when().items())

    def deleted_when(self) -> Mapping[int, float]:
        """When each fact a sync flagged deleted left its source (meta `deleted.at.ID`,
        epoch seconds), by position from 0. Read-only: every caller gets the same mapping,
        read once per state of the facts (`SqlStore._per_state`): whole the first time, then
        only the facts the change log names since (a triage action, a sync), and the same
        object again while it holds the same times, so a caller that kept it tells by `is`
        that nothing moved.

        Kept by the state of the facts although `meta` has no change log, because every
        writer of these keys writes a fact's key with a logged change of that fact, in one
        transaction: an import inserts the fact (`Imports.insert`), a sync flags it
        (`Imports.flag_deleted`: the keys of the facts not yet flagged, then the flag of
        those same facts) or restores it (`Imports.restore`: the keys, and the flag of those
        flagged; a fact that is not flagged holds no key); `copy` writes a new store's
        facts with them. A hand edit of `meta` alone (sqlite3, psql) is seen at the next
        change of the fact it names, as the load cache sees the `expired` flag, which it
        reads from `meta` too."""
        answer: Mapping[int, float] = self._per_state("deleted_at", self._read_deleted_when, self._patched)
        return answer

    def _read_deleted_when(self) -> Mapping[int, float]:
        rows = self._conn.execute(
            "SELECT f.pos - 1, m.value FROM meta m JOIN facts f ON f.id = substr(m.key, 12)"
            " WHERE substr(m.key, 1, 11) = 'deleted.at.'"
        )
        return self._kept_if_same({pos: float(json.loads(value)) for pos, value in rows})

    def _patched(self, kept: Mapping[int, float], positions: list[int]) -> Mapping[int, float]:
        """`kept` with the times of the facts at `positions` (from 1: added or updated since
        it was read) read again, each with the key it names."""
        fresh: dict[int, float | None] = {}
        for at in range(0, len(positions), PATCH_CHUNK):
            some = positions[at : at + PATCH_CHUNK]
            rows = self._conn.execute(
                "SELECT f.pos - 1, m.value FROM facts f LEFT JOIN meta m ON m.key = 'deleted.at.' || f.id"
                f" WHERE f.pos IN ({', '.join('?' * len(some))})",
                tuple(some),
            )
            fresh.update((pos, None if value is None else float(json.loads(value))) for pos, value in rows)
        if all(kept.get(pos) == when for pos, when in fresh.items()):
            return kept
        out = {pos: when for pos, when in kept.items() if pos not in fresh}
        out.update((pos, when) for pos, when in fresh.items() if when is not None)
        return self._kept_if_same(out)

    def _kept_if_same(self, fresh: dict[int, float]) -> Mapping[int, float]:
        """The mapping last given when it holds the same times, else `fresh`, read-only."""
        if self._when is None or self._when != fresh:
            self._when = MappingProxyType(fresh)
        return self._when
