"""The audit log: every triage decision in order, and what undo, redo, the session log,
as-of and the verdicts read from it (`store.audit`).

An entry records the changed fields of one fact before and after; the entries of one
action share a batch (one undo step). Undo and redo are entries too, naming in `undoes`
the batch they revert: a batch is undone when the newest entry naming it is an undo.
"""

from __future__ import annotations

import abc
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.store.dialect import SQLITE, Dialect
from synapse_tui.core.store.read import Read, answer, json_column

_UNIX_EPOCH_JD = 2440587.5  # julianday('1970-01-01'): julian days to epoch seconds
_COLUMNS = "seq, at, actor, action, fact_id, batch, before, after, undoes, score_before"
# the same without score_before, for reads that never show it (undo, the session log): a
# bulk action's entries are parsed in their thousands
_BRIEF = "seq, at, actor, action, fact_id, batch, before, after, undoes, NULL"

# the batches an undo took back and no redo brought back: the newest entry naming each
# batch in `undoes` decides
_UNDONE = """
WITH last AS (
    SELECT undoes, action FROM audit
    WHERE seq IN (SELECT max(seq) FROM audit WHERE undoes IS NOT NULL GROUP BY undoes)
)
"""
_LIVE = "(a.batch IS NULL OR a.batch NOT IN (SELECT undoes FROM last WHERE action = 'undo'))"
# what a verdict row reads of its score_before, in this order, then the fact's x-source
VERDICT_KEYS = ("trust", "B", "r", "s", "k", "tier", "reinforcement_count")


def _verdicts_sql(d: Dialect) -> str:
    """The verdicts' statement in `d`'s spelling, with {values}, {source}, {holds} and
    {actors} left to fill."""
    at = d.day_number("a.at")
    return (
        _UNDONE
        + f"""SELECT a.seq, ({at} - {_UNIX_EPOCH_JD}) * 86400.0, a.action,
       a.score_before IS NOT NULL, {{values}},
       {at} - {d.day_number(d.json_text("a.score_before", "last_reinforced_at"))},
       {{source}}, a.fact_id, a.actor
FROM audit a LEFT JOIN facts f ON f.id = a.fact_id
WHERE a.fact_id IS NOT NULL
  AND (a.action IN ({{holds}}, 'contradict')
       OR (a.action = 'supersede' AND {d.json_text("a.after", "superseded_by")} IS NOT NULL))
  AND """
        + _LIVE
        + f"""
  AND ({{actors}})
  AND (CAST(? AS TEXT) IS NULL OR {at} >= {d.day_number("?")})
ORDER BY a.seq
"""
    )


@dataclass(frozen=True)
class AuditEntry:
    seq: int
    at: str
    actor: str
    action: str
    fact_id: str | None
    batch: int | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    undoes: int | None
    score_before: dict[str, Any] | None = None  # the fact's score just before (SPEC 8)
    # the database role that wrote it (a server's session login; None on a file or when
    # unknown): shown to people beside the actor, never in the JSON, and not compared, so
    # the same actions read alike on both backends
    role: str | None = field(default=None, compare=False)


def _entry(row: tuple) -> AuditEntry:
    """An entry from the ten columns of _COLUMNS, and its role when an eleventh follows."""
    seq, at, actor, action, fid, batch, before, after, undoes, score_before = row[:10]
    role = row[10] if len(row) > 10 else None
    # an object, else None: a row someone wrote by hand reads as unknown (json_column)
    before, after, score_before = (json_column(v, dict) for v in (before, after, score_before))
    return AuditEntry(seq, at, actor, action, fid, batch, before, after, undoes, score_before, role)


def oldest_first(parts: Sequence[list[AuditEntry]]) -> list[AuditEntry]:
    """The answers of `Audit.about_since_reads` as one list, oldest first."""
    return sorted((e for part in parts for e in part), key=lambda e: e.seq)


def _marks(n: int) -> str:
    return ",".join("?" * n)


class Audit(abc.ABC):
    """The audit table of one store's connection. Appends join the caller's transaction
    (`Store.transaction`), so an action and its entries land together or not at all.

    The three reads each database answers in its own words are abstract: a file's
    (sqlite/parts.py) and a server's (postgres/store.py) each give them."""

    def __init__(self, conn: Any, dialect: Dialect = SQLITE) -> None:
        self._conn: Any = conn  # sqlite3's, or a server's (postgres/dialect.Connection)
        self._dialect = dialect  # the spellings the two databases read differently
        self._role: str | None = None

    @abc.abstractmethod
    def role_column(self) -> str:
        """`role` where the audit has that column, else `NULL`: a store of schema 4 or
        older read as it is (read-only) has none."""

    # -- writing -------------------------------------------------------------------------

    def append(
        self,
        actor: str,
        action: str,
        at: str,
        changes: Sequence[tuple[str, dict[str, Any], dict[str, Any]]],
        scores: Mapping[str, dict[str, Any]],
        undoes: int | None = None,
        batch: int | None = None,
    ) -> int:
        """One action's entries, (fact id, before, after) each, as the next batch: its
        number. `scores`: each fact's score just before, by id (`score_before`). `batch`:
        `next_batch_read`'s answer, when read earlier in the same write transaction."""
        if batch is None:
            batch = answer(self._conn, self.next_batch_read())
        self._dialect.insert_rows(
            self._conn,
            "audit",
            ("at", "actor", "action", "fact_id", "batch", "before", "after", "undoes", "score_before"),
            [
                (
                    at,
                    actor,
                    action,
                    fid,
                    batch,
                    json.dumps(before),
                    json.dumps(after),
                    undoes,
                    json.dumps(scores[fid]) if fid in scores else None,
                )
                for fid, before, after in changes
            ],
        )
        return batch

    def next_batch_read(self) -> Read:
        """The number the next action's entries take (read inside its write transaction)."""
        return Read("SELECT coalesce(max(batch), 0) + 1 FROM audit", (), lambda rows: rows[0][0])

    def newest_read(self) -> Read:
        """The newest entry's (seq, at), or None: a new entry must not be dated before it."""
        return Read(
            "SELECT seq, at FROM audit ORDER BY seq DESC LIMIT 1",
            (),
            lambda rows: tuple(rows[0]) if rows else None,
        )

    # -- undo and redo -------------------------------------------------------------------

    def live_batch(self, actions: Sequence[str], undone: bool = False) -> int | None:
        """The batch to undo (the live action among `actions` applied most recently: a
        redo applies its batch anew, so the next undo takes it back) or, with `undone`, to
        redo (the most recently undone one), editor-style: the undone actions newer than
        every live one form the redo stack, and a new action empties it."""
        rows = self._conn.execute(
            "SELECT a.batch, (SELECT u.action FROM audit u WHERE u.undoes = a.batch"
            " ORDER BY u.seq DESC LIMIT 1), max(a.seq), (SELECT max(r.seq) FROM audit r"
            " WHERE r.undoes = a.batch AND r.action = 'redo') FROM audit a"
            f" WHERE a.action IN ({_marks(len(actions))})"
            " GROUP BY a.batch ORDER BY a.batch DESC",
            tuple(actions),
        ).fetchall()
        if not undone:
            live = [(max(own, redone or 0), batch) for batch, last, own, redone in rows if last != "undo"]
            return max(live)[1] if live else None
        redo = None
        for batch, last, _own, _redone in rows:
            if last != "undo":  # live
                return redo
            redo = batch
        return redo

    def redoable(self, actions: Sequence[str], only: int | None = None) -> int | None:
        """The batch the newest undo still standing took back (or `only`, if that is one),
        unless an action among `actions` came after that undo: a new action empties the
        redo stack."""
        row = self._conn.execute(
            "SELECT u.undoes FROM audit u WHERE u.action = 'undo' AND (CAST(? AS TEXT) IS NULL OR u.undoes = ?)"
            " AND u.seq = (SELECT max(v.seq) FROM audit v WHERE v.undoes = u.undoes)"
            " AND u.seq > (SELECT coalesce(max(n.seq), 0) FROM audit n"
            f" WHERE n.action IN ({_marks(len(actions))})) ORDER BY u.seq DESC LIMIT 1",
            (only, only, *actions),
        ).fetchone()
        return row[0] if row else None

    def undone_batches(self) -> set[int]:
        """Every batch an undo took back and no redo brought back."""
        return {
            batch
            for batch, last in self._conn.execute(
                "SELECT u.undoes, u.action FROM audit u WHERE u.undoes IS NOT NULL"
                " AND u.seq = (SELECT max(v.seq) FROM audit v WHERE v.undoes = u.undoes)"
            )
            if last == "undo"
        }

    # -- reading -------------------------------------------------------------------------

    def mark(self) -> int:
        """The newest entry's seq (0: none yet): entries after it are what comes next."""
        return self._conn.execute("SELECT coalesce(max(seq), 0) FROM audit").fetchone()[0]

    def facts_since(self, seq: int) -> list[str]:
        """The facts the entries after `seq` changed, each once."""
        return answer(self._conn, self.facts_since_read(seq))

    def facts_since_read(self, seq: int) -> Read:
        return Read(
            "SELECT DISTINCT fact_id FROM audit WHERE seq > ? AND fact_id IS NOT NULL",
            (seq,),
            lambda rows: [row[0] for row in rows],
        )

    def about_since(self, fact_ids: Sequence[str], seq: int) -> list[AuditEntry]:
        """The entries after `seq` about any of `fact_ids`, oldest first (no score_before):
        what was done to those facts since the state at entry `seq`, the optimistic check of
        triage (an index lookup per fact; usually nothing)."""
        return oldest_first([answer(self._conn, read) for read in self.about_since_reads(fact_ids, seq)])

    def about_since_reads(self, fact_ids: Sequence[str], seq: int) -> list[Read]:
        """`about_since` as reads, to send with others: their answers go to `oldest_first`."""
        ids = list(dict.fromkeys(fact_ids))
        return [
            Read(
                f"SELECT {_BRIEF} FROM audit WHERE seq > ? AND fact_id IN ({_marks(len(part))})",
                (seq, *part),
                lambda rows: [_entry(row) for row in rows],
            )
            for part in (ids[i : i + 500] for i in range(0, len(ids), 500))
        ]

    def batch(self, batch: int) -> list[AuditEntry]:
        """The entries of one action, in the order it changed its facts (no score_before)."""
        rows = self._conn.execute(f"SELECT {_BRIEF} FROM audit WHERE batch = ? ORDER BY seq", (batch,))
        return [_entry(row) for row in rows]

    def entries(self) -> Iterator[AuditEntry]:
        """Every entry, oldest first."""
        role = self.role_column()
        return (
            _entry(row) for row in self._conn.execute(f"SELECT {_COLUMNS}, {role} FROM audit ORDER BY seq")
        )

    def history(self, fact_id: str) -> list[AuditEntry]:
        """The entries about one fact, oldest first."""
        return answer(self._conn, self.history_read(fact_id))

    def history_read(self, fact_id: str) -> Read:
        return Read(
            f"SELECT {_COLUMNS}, {self.role_column()} FROM audit WHERE fact_id = ? ORDER BY seq",
            (fact_id,),
            lambda rows: [_entry(row) for row in rows],
        )

    @abc.abstractmethod
    def batch_heads(self, since: int) -> list[tuple[AuditEntry, int]]:
        """Every action after entry `since`, newest first: its first entry (no score_before)
        and how many facts it changed."""

    def batch_actions(self, since: int) -> dict[int, str]:
        """Each action's name after entry `since`, by batch: its actions in the order it
        wrote them, joined by `+` as undo names them (a sync's one step:
        `corroborate+retract`)."""
        rows = self._conn.execute(
            "SELECT batch, action, min(seq) FROM audit WHERE seq > ? AND batch IS NOT NULL"
            " GROUP BY batch, action ORDER BY 3",
            (since,),
        ).fetchall()
        out: dict[int, list[str]] = {}
        for batch, action, _ in rows:
            out.setdefault(batch, []).append(action)
        return {batch: "+".join(actions) for batch, actions in out.items()}

    def superseded_entries(self, batches: Sequence[int]) -> dict[int, AuditEntry]:
        """The entry of the superseded fact in each of `batches` that holds one, by batch
        (no score_before)."""
        out = {}
        for part in (batches[i : i + 500] for i in range(0, len(batches), 500)):
            for row in self._conn.execute(
                f"SELECT {_BRIEF} FROM audit WHERE batch IN ({_marks(len(part))})"
                " AND (before LIKE '%superseded_by%' OR after LIKE '%superseded_by%')",
                tuple(part),
            ):
                out[row[5]] = _entry(row)
        return out

    def changes_after(self, when: float) -> list[tuple[str, dict[str, Any]]]:
        """(fact id, fields before) of every entry after the instant `when`, newest first."""
        rows = self._conn.execute(
            "SELECT fact_id, before FROM audit WHERE at > ? AND fact_id IS NOT NULL ORDER BY seq DESC",
            (format_time(when),),
        ).fetchall()
        return [(fid, json_column(before, dict) or {}) for fid, before in rows]

    def live_afters(self, action: str) -> list[tuple[str, dict[str, Any]]]:
        """(fact id, fields after) of every live entry of `action`, oldest first: the
        standing dismissals are the live `dismiss` entries (core/review/suggestions.py)."""
        rows = self._conn.execute(
            _UNDONE
            + "SELECT a.fact_id, a.after FROM audit a WHERE a.action = ? AND a.fact_id IS NOT NULL"
            + f" AND {_LIVE} ORDER BY a.seq",
            (action,),
        ).fetchall()
        return [
            (fid, after if isinstance(after, dict) else json_column(after, dict) or {}) for fid, after in rows
        ]

    def live_entries(self, action: str, after: float, until: float) -> list[tuple[str, float]]:
        """(fact id, epoch seconds) of the live entries of `action` in (after, until], the
        entry of the fact replaced for a supersession."""
        d = self._dialect
        at, given = d.day_number("a.at"), d.day_number("?")
        replaced = (
            f" AND {d.json_text('a.after', 'superseded_by')} IS NOT NULL" if action == "supersede" else ""
        )
        rows = self._conn.execute(
            _UNDONE
            + f"SELECT a.fact_id, {at} FROM audit a WHERE a.action = ? AND a.fact_id IS NOT NULL"
            + f" AND {_LIVE}{replaced} AND {at} > {given} AND {at} <= {given}",
            (action, format_time(after), format_time(until)),
        ).fetchall()
        return [(fid, (jd - _UNIX_EPOCH_JD) * 86400.0) for fid, jd in rows]

    @abc.abstractmethod
    def verdict_rows(
        self, holds: Sequence[str], actor_prefixes: Sequence[str], since: float | None
    ) -> list[tuple]:
        """The live verdicts of actors named with one of `actor_prefixes`, at or after
        `since`, in seq order; `holds`: the actions saying a fact holds. One row each:
        seq, epoch seconds, action, whether it logged a score_before, then its trust, B, r,
        s, k, tier and reinforcement_count, days since its last reinforcement, the fact's
        x-source, its id and the actor (`_verdicts`, with the JSON values read each
        database's way)."""

    def _verdicts(
        self,
        holds: Sequence[str],
        actor_prefixes: Sequence[str],
        since: float | None,
        values: str,
        source: str,
    ) -> list[tuple]:
        """`verdict_rows` with the score_before values and the x-source read by `values`
        and `source` (a file's json_extract, a server's two JSON texts)."""
        who = " OR ".join("a.actor LIKE ?" for _ in actor_prefixes)
        holding = ", ".join(f"'{a}'" for a in holds)
        sql = _verdicts_sql(self._dialect).format(values=values, source=source, holds=holding, actors=who)
        when = None if since is None else format_time(since)
        return self._conn.execute(sql, (*(p + "%" for p in actor_prefixes), when, when)).fetchall()
