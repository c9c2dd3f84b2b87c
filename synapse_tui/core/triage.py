"""Triage: the only writes a person makes to a store, each audited and undoable.

Every action is one transaction holding the change and its audit entries, so a crash at
any instant leaves either all of it or none of it. The audit log is the source of undo
and redo: an entry records the changed fields of one fact before and after, and undo
writes the `before` back as a new, audited action (so undo survives a restart).
"""

from __future__ import annotations

import getpass
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .clock import Clock, format_time, parse_time
from .errors import SynapseError
from .interchange import event_blob
from .store import Store

ACTIONS = ("corroborate", "contradict", "verify", "accept", "supersede")


class TriageError(SynapseError):
    """An action that cannot apply (read-only store, a cycle, nothing to undo...)."""


@dataclass(frozen=True)
class Change:
    fact_id: str
    before: dict[str, Any]
    after: dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    action: str
    batch: int
    changes: tuple[Change, ...]

    @property
    def fact_ids(self) -> list[str]:
        return [c.fact_id for c in self.changes]


def default_actor() -> str:
    try:
        return f"user:{getpass.getuser()}"
    except Exception:  # no login name in some containers
        return "user"


# The fields triage changes, as audit entries name them, and their columns.
_COLUMNS = {
    "corroborations": "r",
    "contradictions": "s",
    "tier": "tier",
    "reinforced_at": "reinforced_at",
    "reinforcement_count": "o1_count",
    "supersedes": "supersedes",
}


def _leads_to(conn: Any, start: str, goal: str) -> bool:
    """Whether `start`'s chain of predecessors (resolved supersedes) reaches `goal`: then
    `goal` naming `start` would close a cycle. Walks one chain, not the store, so a
    supersession at a million facts costs a few indexed lookups."""
    row = conn.execute("SELECT pos FROM facts WHERE id = ?", (start,)).fetchone()
    goal_row = conn.execute("SELECT pos FROM facts WHERE id = ?", (goal,)).fetchone()
    pos, seen = (row[0] if row else None), set()
    while pos is not None and pos not in seen:
        if goal_row and pos == goal_row[0]:
            return True
        seen.add(pos)
        pos = conn.execute("SELECT supersedes_pos FROM facts WHERE pos = ?", (pos,)).fetchone()[0]
    return False


def _read(conn: Any, fid: str) -> dict[str, Any] | None:
    """A fact's triage fields by their audit names (reinforced_at as a list), or None."""
    row = conn.execute(f"SELECT {', '.join(_COLUMNS.values())} FROM facts WHERE id = ?", (fid,)).fetchone()
    if row is None:
        return None
    values = dict(zip(_COLUMNS, row, strict=True))
    values["reinforced_at"] = json.loads(values["reinforced_at"]) if values["reinforced_at"] else None
    return values


class Triage:
    def __init__(self, store: Store, clock: Clock, actor: str | None = None) -> None:
        self.store = store
        self.clock = clock
        self.actor = actor or default_actor()

    # -- the actions -------------------------------------------------------------------

    def apply(self, action: str, fact_ids: list[str], target: str | None = None) -> Outcome:
        """Apply one action to every fact in `fact_ids` as one batch (one undo step)."""
        if action not in ACTIONS:
            raise TriageError(f"unknown action {action!r}")
        if not fact_ids:
            raise TriageError("no facts selected")
        if self.store.readonly:
            raise TriageError(f"{self.store.path} is open read-only: triage cannot change it")
        now = self.clock.now()
        with self.store.transaction() as conn:
            rows = {}
            for fid in dict.fromkeys(fact_ids):
                rows[fid] = _read(conn, fid)
                if rows[fid] is None:
                    raise TriageError(f"no fact with id {fid!r}")
            if action == "supersede":
                changes = self._supersede(conn, list(rows), target)
            else:
                changes = [self._change(action, fid, row, now) for fid, row in rows.items()]
                changes = [c for c in changes if c.before != c.after]
                if not changes:
                    raise TriageError(f"{action}: nothing to change")
            for change in changes:
                self._write(conn, change.fact_id, change.after)
            batch = self._audit(conn, action, changes, now)
        return Outcome(action, batch, tuple(changes))

    def _change(self, action: str, fid: str, fact: dict[str, Any], now: float) -> Change:
        r, s, tier, o1 = (
            fact[k] for k in ("corroborations", "contradictions", "tier", "reinforcement_count")
        )
        if action == "contradict":
            return Change(fid, {"contradictions": s}, {"contradictions": s + 1})
        if action == "accept":
            return Change(fid, {"tier": tier}, {"tier": "human" if tier == "auto" else tier})
        before: dict[str, Any] = {}
        after: dict[str, Any] = {}
        if action == "corroborate":
            before["corroborations"], after["corroborations"] = r, r + 1
        if o1 is not None:
            before["reinforcement_count"], after["reinforcement_count"] = o1, o1 + 1
        else:
            before["reinforced_at"] = fact["reinforced_at"]
            after["reinforced_at"] = (fact["reinforced_at"] or []) + [format_time(now)]
        return Change(fid, before, after)

    def check_supersede(self, old: str, target: str | None) -> None:
        """Raise the TriageError `apply("supersede", [old], target)` would, writing nothing:
        the browser previews a supersession (and refuses a cycle) before it is confirmed."""
        conn = self.store.conn
        if conn.execute("SELECT 1 FROM facts WHERE id = ?", (old,)).fetchone() is None:
            raise TriageError(f"no fact with id {old!r}")
        self._supersede(conn, [old], target)

    def _supersede(self, conn: Any, fact_ids: list[str], target: str | None) -> list[Change]:
        """`target` replaces each fact in `fact_ids`: it names it in `supersedes`."""
        if len(fact_ids) != 1:
            raise TriageError("supersede one fact at a time: a fact names one predecessor")
        old = fact_ids[0]
        if not target:
            raise TriageError("supersede needs the replacing fact")
        if target == old:
            raise TriageError("a fact cannot supersede itself")
        row = conn.execute("SELECT supersedes FROM facts WHERE id = ?", (target,)).fetchone()
        if row is None:
            raise TriageError(f"no fact with id {target!r}")
        if row[0] and row[0] != old:
            raise TriageError(f"{target} already supersedes {row[0]}; a fact names one predecessor")
        if _leads_to(conn, old, target):
            raise TriageError(
                f"{target} cannot supersede {old}: {old} already leads to {target} "
                "(that would be a supersession cycle)"
            )
        return [
            Change(target, {"supersedes": row[0]}, {"supersedes": old}),
            Change(old, {}, {"superseded_by": target}),
        ]

    # -- undo / redo -------------------------------------------------------------------

    def undo(self) -> Outcome:
        batch = self._live_batches(undone=False)
        if batch is None:
            raise TriageError("nothing to undo")
        return self._revert(batch, "undo")

    def redo(self) -> Outcome:
        batch = self._live_batches(undone=True)
        if batch is None:
            raise TriageError("nothing to redo")
        return self._revert(batch, "redo")

    def _live_batches(self, undone: bool) -> int | None:
        """The batch to undo (the newest live action) or to redo (the most recently undone
        one), editor-style: the undone actions newer than every live one form the redo
        stack, and a new action empties it.

        A batch is undone when the newest undo/redo entry naming it is an undo.
        """
        rows = self.store.conn.execute(
            "SELECT a.batch, (SELECT u.action FROM audit u WHERE u.undoes = a.batch"
            " ORDER BY u.seq DESC LIMIT 1) FROM audit a"
            f" WHERE a.action IN ({','.join('?' * len(ACTIONS))})"
            " GROUP BY a.batch ORDER BY a.batch DESC",
            ACTIONS,
        ).fetchall()
        redo = None
        for batch, last in rows:
            if last != "undo":  # live
                return redo if undone else batch
            redo = batch
        return redo if undone else None

    def _revert(self, batch: int, kind: str) -> Outcome:
        if self.store.readonly:
            raise TriageError(f"{self.store.path} is open read-only: triage cannot change it")
        now = self.clock.now()
        with self.store.transaction() as conn:
            entries = conn.execute(
                "SELECT fact_id, before, after, action FROM audit WHERE batch = ? ORDER BY seq", (batch,)
            ).fetchall()
            action = entries[0][3]
            changes = []
            for fid, before, after, _ in entries:
                before, after = json.loads(before), json.loads(after)
                frm, to = (after, before) if kind == "undo" else (before, after)
                current = self._current(conn, fid, frm)
                if current != frm:
                    raise TriageError(
                        f"cannot {kind} {action} on {fid}: it changed since ({current} is not {frm})"
                    )
                changes.append(Change(fid, frm, to))
            for change in changes:
                self._write(conn, change.fact_id, change.after)
            new_batch = self._audit(conn, kind, changes, now, undoes=batch)
        return Outcome(f"{kind} {action}", new_batch, tuple(changes))

    # -- storage -----------------------------------------------------------------------

    def _current(self, conn: Any, fid: str, fields: dict[str, Any]) -> dict[str, Any]:
        values = _read(conn, fid) or {}
        return {k: values.get(k, fields[k]) for k in fields}

    def _write(self, conn: Any, fid: str, fields: dict[str, Any]) -> None:
        for key, value in fields.items():
            if key == "reinforced_at":  # the list, and the event blob the arithmetic reads
                created = conn.execute("SELECT created_ts FROM facts WHERE id = ?", (fid,)).fetchone()[0]
                blob = event_blob(created, [parse_time(t) for t in value or []])
                conn.execute(
                    "UPDATE facts SET reinforced_at = ?, events = ? WHERE id = ?",
                    (None if value is None else json.dumps(value), blob, fid),
                )
            elif key in _COLUMNS:  # 'superseded_by' is a note on the old fact, not a column
                conn.execute(f"UPDATE facts SET {_COLUMNS[key]} = ? WHERE id = ?", (value, fid))
            if key == "supersedes":
                conn.execute(
                    "UPDATE facts SET supersedes_pos = (SELECT f2.pos FROM facts f2"
                    " WHERE f2.id = facts.supersedes) WHERE id = ?",
                    (fid,),
                )

    def _audit(
        self, conn: Any, action: str, changes: list[Change], now: float, undoes: int | None = None
    ) -> int:
        batch = conn.execute("SELECT coalesce(max(batch), 0) + 1 FROM audit").fetchone()[0]
        at = format_time(now)
        conn.executemany(
            "INSERT INTO audit (at, actor, action, fact_id, batch, before, after, undoes)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (at, self.actor, action, c.fact_id, batch, json.dumps(c.before), json.dumps(c.after), undoes)
                for c in changes
            ],
        )
        return batch


def export_audit(store: Store) -> Iterator[dict[str, Any]]:
    """Every triage decision as one JSON object, oldest first (`export --audit`)."""
    for seq, at, actor, action, fid, batch, before, after, undoes in store.conn.execute(
        "SELECT seq, at, actor, action, fact_id, batch, before, after, undoes FROM audit ORDER BY seq"
    ):
        obj = {
            "seq": seq,
            "at": at,
            "actor": actor,
            "action": action,
            "id": fid,
            "batch": batch,
            "before": json.loads(before) if before else None,
            "after": json.loads(after) if after else None,
        }
        if undoes is not None:
            obj["undoes"] = undoes
        yield obj
