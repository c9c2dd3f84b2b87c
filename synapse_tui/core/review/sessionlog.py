"""The session log: every triage action since the browser opened, by anyone (an agent
writing alongside through the MCP server or the CLI counts too), newest first.

A session is "audit entries after the newest one when it began" (`session_mark`), not a
time window: the browser's clock may be pinned, and another writer's clock is its own.
Undo reverts the newest live action only (SPEC 8, whoever made it), so each entry says
whether it is that one; `Triage.undo_target` is the one rule for which it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.audit import AuditEntry
from synapse_tui.core.store.db import Store

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
    action: str  # corroborate ... supersede, or undo / redo; several joined by + (a sync's one step)
    fact_id: str  # the fact it acted on (a supersession: the superseded one; a bulk: the first)
    batch: int
    before: dict[str, Any]
    after: dict[str, Any]
    undoes: int | None  # the batch an undo or redo reverses
    undone: bool  # an action whose newest undo/redo is an undo
    next_undo: bool  # what ctrl+z would revert now
    facts: int = 1  # how many facts the action changed
    role: str | None = None  # the database role that wrote it (a server's; None on a file)

    @property
    def who(self) -> str:
        """The actor, with the database role when the store recorded one:
        'user:alice (role team_rw)'."""
        return who(self.actor, self.role)

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
            return f"{self.facts:,} facts: {describe_change(self.before, self.after)} … (enter lists them)"
        return describe_change(self.before, self.after)

    @property
    def what(self) -> str:
        """The action as a person names it: 'corroborate', 'undo of #12'."""
        return f"{self.action} of #{self.undoes}" if self.undoes is not None else self.action


def who(actor: str, role: str | None) -> str:
    """An actor as a person reads it, with the database role that acted when known."""
    return f"{actor} (role {role})" if role else actor


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


def session_mark(store: Store) -> int:
    """The newest audit entry now: entries after it belong to the session starting now."""
    return store.audit.mark()


def session_log(store: Store, since: int, config: Any = None) -> tuple[LogEntry, ...]:
    """Every action (batch) after `since` (a `session_mark`), newest first, one entry each
    however many facts it changed. `config`: the caller's (the browser's), so the config
    file is not read again."""
    target = Triage(store, clock=Clock(), config=config).undo_target()  # a read: the clock is never read
    undone = store.audit.undone_batches()
    heads = store.audit.batch_heads(since)
    # a supersession is told by its superseded fact
    superseded = store.audit.superseded_entries([e.batch for e, n in heads if n == 2 and e.batch is not None])
    # a batch of several actions (a sync's one step) is named by them all, as undo names it
    named = store.audit.batch_actions(since)
    return tuple(
        _entry(
            replace(head, action=named.get(head.batch, head.action)) if head.batch is not None else head,
            undone,
            target,
            n,
            superseded.get(head.batch) if head.batch is not None else None,
        )
        for head, n in heads
    )


def session_batch(store: Store, batch: int) -> tuple[LogEntry, ...]:
    """The facts of one action, one entry each, in the order it changed them."""
    undone = store.audit.undone_batches()
    return tuple(_entry(e, undone, None, 1) for e in store.audit.batch(batch))


def _entry(
    e: AuditEntry, undone: set[int], target: int | None, n: int, told: AuditEntry | None = None
) -> LogEntry:
    """The log's entry of the action whose first entry is `e`; `told`: the entry that tells
    it (a supersession's superseded fact), when not that one."""
    told = told or e
    batch = e.batch if e.batch is not None else e.seq  # every action has one; a bare row is its own
    return LogEntry(
        told.seq,
        e.at,
        e.actor,
        e.action,
        told.fact_id or "",
        batch,
        told.before or {},
        told.after or {},
        e.undoes,
        e.undoes is None and batch in undone,
        e.undoes is None and batch == target,
        n,
        e.role,
    )
