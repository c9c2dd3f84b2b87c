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
    seq: int
    at: str
    actor: str
    action: str  # corroborate ... supersede, or undo / redo
    fact_id: str
    batch: int
    before: dict[str, Any]
    after: dict[str, Any]
    undoes: int | None  # the batch an undo or redo reverses
    undone: bool  # an action whose newest undo/redo is an undo
    next_undo: bool  # what ctrl+z would revert now

    @property
    def change(self) -> str:
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


def session_log(store: Any, since: int, limit: int = 1000, config: Any = None) -> tuple[LogEntry, ...]:
    """Audit entries after `since` (a `session_mark`), newest first, at most `limit`.
    `config`: the caller's (the browser's), so the config file is not read again."""
    conn = store.conn
    target = Triage(store, clock=None, config=config).undo_target()  # a read: no clock needed
    undone = {
        batch
        for batch, last in conn.execute(
            "SELECT u.undoes, u.action FROM audit u WHERE u.undoes IS NOT NULL"
            " AND u.seq = (SELECT max(v.seq) FROM audit v WHERE v.undoes = u.undoes)"
        )
        if last == "undo"
    }
    rows = conn.execute(
        "SELECT seq, at, actor, action, fact_id, batch, before, after, undoes FROM audit"
        " WHERE seq > ? ORDER BY seq DESC LIMIT ?",
        (since, limit),
    ).fetchall()
    return tuple(
        LogEntry(
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
        )
        for seq, at, actor, action, fid, batch, before, after, undoes in rows
    )
