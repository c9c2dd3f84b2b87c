"""The session log: every triage action since the browser opened, by anyone (an agent
writing alongside through the MCP server or the CLI counts too), newest first.

A session is "audit entries after the newest one when it began" (`session_mark`), not a
time window: the browser's clock may be pinned, and another writer's clock is its own.
Undo reverts the newest live action only (SPEC 8, whoever made it), so each entry says
whether it is that one; `Triage.undo_target` is the one rule for which it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from synapse_tui.core.review.triage import Triage

# how a change reads to a person: audit field -> short name
_FIELDS = {
    "corroborations": "r",
    "contradictions": "s",
    "tier": "tier",
    "reinforcement_count": "reinforcements",
    "supersedes": "supersedes",
    "superseded_by": "superseded by",
}


@dataclass(frozen=True)
class LogEntry:
    """One action (a batch): a bulk of 1,719 facts is one entry, its facts read on demand
    (`session_batch`); an entry of that read is one fact of it."""

    seq: int
    at: str
    actor: str
    action: str  # corroborate ... supersede, or undo / redo
    fact_id: str  # the fact it acted on (a supersession: the superseded one; a bulk: the first)
    batch: int
    before: dict[str, Any]
    after: dict[str, Any]
    undoes: int | None  # the batch an undo or redo reverses
    undone: bool  # an action whose newest undo/redo is an undo
    next_undo: bool  # what ctrl+z would revert now
    facts: int = 1  # how many facts the action changed

    @property
    def bulk(self) -> bool:
        return self.facts > 1 and not self.chained

    @property
    def chained(self) -> bool:
        """A supersession (or its undo / redo): two facts, told as one change."""
        return "superseded_by" in self.before or "superseded_by" in self.after

    @property
    def change(self) -> str:
        if self.bulk:
            return f"{self.facts} facts: {describe_change(self.before, self.after)} … (enter lists them)"
        return describe_change(self.before, self.after)

    @property
    def what(self) -> str:
        """The action as a person names it: 'corroborate', 'undo of #12'."""
        return f"{self.action} of #{self.undoes}" if self.undoes is not None else self.action


def describe_change(before: dict[str, Any], after: dict[str, Any]) -> str:
    """'r 1 -> 2, reinforcements 3 -> 4': each changed field, before -> after."""
    parts = []
    for key in dict.fromkeys([*before, *after]):
        old, new = before.get(key), after.get(key)
        if key == "reinforced_at":  # a list of times: its length is what a person follows
            old, new = len(old or []) + 1, len(new or []) + 1
            key = "reinforcement_count"
        if old == new:
            continue
        parts.append(
            f"{_FIELDS.get(key, key)} {'—' if old is None else old} -> {'—' if new is None else new}"
        )
    return ", ".join(parts) or "no change"


def session_mark(store: Any) -> int:
    """The newest audit entry now: entries after it belong to the session starting now."""
    return store.conn.execute("SELECT coalesce(max(seq), 0) FROM audit").fetchone()[0]


def _undone(conn: Any) -> set[int]:
    return {
        batch
        for batch, last in conn.execute(
            "SELECT u.undoes, u.action FROM audit u WHERE u.undoes IS NOT NULL"
            " AND u.seq = (SELECT max(v.seq) FROM audit v WHERE v.undoes = u.undoes)"
        )
        if last == "undo"
    }


def session_log(store: Any, since: int, config: Any = None) -> tuple[LogEntry, ...]:
    """Every action (batch) after `since` (a `session_mark`), newest first, one entry each
    however many facts it changed. `config`: the caller's (the browser's), so the config
    file is not read again."""
    conn = store.conn
    target = Triage(store, clock=None, config=config).undo_target()  # a read: no clock needed
    undone = _undone(conn)
    # the bare columns come from the batch's first row (SQLite: the row of min(seq))
    rows = conn.execute(
        "SELECT min(seq), at, actor, action, fact_id, batch, before, after, undoes,"
        " count(DISTINCT fact_id) FROM audit WHERE seq > ? GROUP BY batch ORDER BY batch DESC",
        (since,),
    ).fetchall()
    pairs = [r[5] for r in rows if r[9] == 2]  # a supersession is told by its superseded fact
    superseded = {}
    for part in (pairs[i : i + 500] for i in range(0, len(pairs), 500)):
        for seq, fid, batch, before, after in conn.execute(
            f"SELECT seq, fact_id, batch, before, after FROM audit WHERE batch IN ({','.join('?' * len(part))})"
            " AND (before LIKE '%superseded_by%' OR after LIKE '%superseded_by%')",
            part,
        ):
            superseded[batch] = (seq, fid, before, after)
    out = []
    for seq, at, actor, action, fid, batch, before, after, undoes, n in rows:
        if batch in superseded:
            seq, fid, before, after = superseded[batch]
        out.append(_entry(seq, at, actor, action, fid, batch, before, after, undoes, undone, target, n))
    return tuple(out)


def session_batch(store: Any, batch: int) -> tuple[LogEntry, ...]:
    """The facts of one action, one entry each, in the order it changed them."""
    conn = store.conn
    undone = _undone(conn)
    rows = conn.execute(
        "SELECT seq, at, actor, action, fact_id, batch, before, after, undoes FROM audit"
        " WHERE batch = ? ORDER BY seq",
        (batch,),
    ).fetchall()
    return tuple(_entry(*row, undone, None, 1) for row in rows)


def _entry(seq, at, actor, action, fid, batch, before, after, undoes, undone, target, n) -> LogEntry:
    return LogEntry(
        seq,
        at,
        actor,
        action,
        fid or "",
        batch,
        json.loads(before) if before else {},
        json.loads(after) if after else {},
        undoes,
        undoes is None and batch in undone,
        undoes is None and batch == target,
        n,
    )
