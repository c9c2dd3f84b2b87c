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
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from synapse_tui.core.base.clock import Clock, format_time, parse_time
from synapse_tui.core.base.config import Config, config_for
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.store.arrays import event_blob
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.spot import spot_scores


class Action(StrEnum):
    """The triage actions: one vocabulary for the browser's keys, the CLI verbs, the MCP
    tools and the audit log (each member is its own string, as the audit stores it)."""

    CORROBORATE = "corroborate"
    CONTRADICT = "contradict"
    VERIFY = "verify"
    ACCEPT = "accept"
    SUPERSEDE = "supersede"

    @property
    def summary(self) -> str:
        return _SUMMARIES[self]


_SUMMARIES = {
    Action.CORROBORATE: "another source confirms it (r + 1, and a reinforcement now)",
    Action.CONTRADICT: "evidence against it (s + 1)",
    Action.VERIFY: "checked, and it still holds (a reinforcement now)",
    Action.ACCEPT: "a person vouches for it (declared tier auto becomes human)",
    Action.SUPERSEDE: "a newer fact replaces it (the newer one names it in `supersedes`)",
}
ACTIONS: tuple[str, ...] = tuple(a.value for a in Action)
# What an agent may do (MCP): add evidence. Accepting (and signing) stays a person's call.
AGENT_ACTIONS = (Action.CORROBORATE, Action.CONTRADICT, Action.VERIFY)


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
    # each changed fact's score just before (the audit's score_before), by id
    scores_before: dict[str, dict[str, Any]] = field(default_factory=dict)
    # for undo and redo: who made the reverted action, and when
    undone_actor: str | None = None
    undone_at: str | None = None

    @property
    def fact_ids(self) -> list[str]:
        return [c.fact_id for c in self.changes]


def default_actor() -> str:
    """`user:LOGIN`, the actor of the browser's and the CLI's triage (SPEC 8)."""
    try:
        return f"user:{getpass.getuser()}"
    except Exception:  # no login name in some containers
        return "user:unknown"


# The fields triage changes, as audit entries name them, and their columns.
_COLUMNS = {
    "corroborations": "r",
    "contradictions": "s",
    "tier": "tier",
    "reinforced_at": "reinforced_at",
    "reinforcement_count": "o1_count",
    "supersedes": "supersedes",
}


def _read(conn: Any, fid: str) -> dict[str, Any] | None:
    """A fact's triage fields by their audit names (reinforced_at as a list), or None."""
    row = conn.execute(f"SELECT {', '.join(_COLUMNS.values())} FROM facts WHERE id = ?", (fid,)).fetchone()
    if row is None:
        return None
    values = dict(zip(_COLUMNS, row, strict=True))
    values["reinforced_at"] = json.loads(values["reinforced_at"]) if values["reinforced_at"] else None
    return values


def _evidence(fid: str, fact: dict[str, Any], r: int, times: list[str]) -> Change:
    """`r` more corroborations and a reinforcement at each of `times`, in the fact's own form
    (the list, or the O(1) count): a person's corroboration or a source's re-assertions."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    if r:
        before["corroborations"], after["corroborations"] = fact["corroborations"], fact["corroborations"] + r
    if times and fact["reinforcement_count"] is not None:
        o1 = fact["reinforcement_count"]
        before["reinforcement_count"], after["reinforcement_count"] = o1, o1 + len(times)
    elif times:
        before["reinforced_at"] = fact["reinforced_at"]
        after["reinforced_at"] = (fact["reinforced_at"] or []) + list(times)
    return Change(fid, before, after)


def trust_change(before: dict[str, Any], after: dict[str, Any]) -> str:
    """'trust 0.13 -> 0.81 (very low -> very high)', from two score objects."""
    text = f"trust {before['trust']:.2f} -> {after['trust']:.2f}"
    if before["band"] != after["band"]:
        text += f" ({before['band']} -> {after['band']})"
    if before["k"] != after["k"]:
        text += f", k {before['k']} -> {after['k']}"
    return text


class Triage:
    """`actor` names who acts in the audit: `user:LOGIN` (default) or `agent:NAME`.

    `config` scores the `score_before` of each audit entry; without it the store's own
    config file is read (as the CLI would)."""

    def __init__(
        self, store: Store, clock: Clock, actor: str | None = None, *, config: Config | None = None
    ) -> None:
        self.store = store
        self.clock = clock
        self.actor = actor or default_actor()
        self.config = config if config is not None else config_for(store.path)

    # -- the actions -------------------------------------------------------------------

    def apply(self, action: str, fact_ids: list[str], target: str | None = None) -> Outcome:
        """Apply one action to every fact in `fact_ids` as one batch (one undo step)."""
        if action not in ACTIONS:
            raise TriageError(f"unknown action {action!r}")
        if not fact_ids:
            raise TriageError("no facts selected")
        self._check_writable()
        with self.store.transaction() as conn:
            return self.apply_in(conn, action, fact_ids, target)

    def apply_in(self, conn: Any, action: str, fact_ids: list[str], target: str | None = None) -> Outcome:
        """`apply` inside a transaction the caller holds (`remember` imports a fact and
        supersedes with it in one)."""
        now = self.clock.now()
        rows = {}
        for fid in dict.fromkeys(fact_ids):
            rows[fid] = _read(conn, fid)
            if rows[fid] is None:
                raise TriageError(f"no fact with id {fid!r}")
        if action == Action.SUPERSEDE:
            changes = self._supersede(conn, list(rows), target)
        else:
            changes = [self._change(action, fid, row, now) for fid, row in rows.items()]
            changes = [c for c in changes if c.before != c.after]
            if not changes:
                why = f" (already {rows[fact_ids[0]]['tier']})" if action == Action.ACCEPT else ""
                raise TriageError(f"{action} {', '.join(rows)}: nothing to change{why}")
        scores = self._scores(changes, now)
        for change in changes:
            self._write(conn, change.fact_id, change.after)
        batch = self._audit(conn, str(action), changes, now, scores)
        return Outcome(str(action), batch, tuple(changes), scores)

    def _check_writable(self) -> None:
        if self.store.readonly:
            raise TriageError(f"{self.store.read_only_because()}: triage cannot change it")

    def _scores(self, changes: list[Change], now: float) -> dict[str, dict[str, Any]]:
        return spot_scores(self.store, self.config, now, [c.fact_id for c in changes])

    def _change(self, action: str, fid: str, fact: dict[str, Any], now: float) -> Change:
        s, tier = fact["contradictions"], fact["tier"]
        if action == Action.CONTRADICT:
            return Change(fid, {"contradictions": s}, {"contradictions": s + 1})
        if action == Action.ACCEPT:
            return Change(fid, {"tier": tier}, {"tier": "human" if tier == "auto" else tier})
        return _evidence(fid, fact, int(action == Action.CORROBORATE), [format_time(now)])

    def add_evidence_in(self, conn: Any, evidence: dict[str, tuple[int, list[str]]]) -> Outcome | None:
        """Corroborations and reinforcement times a source itself recorded for facts already
        in the store (`{id: (added r, new times)}`), as one `corroborate` action by this
        actor inside the caller's transaction: added on top of whatever triage did here,
        audited with score_before and undoable like a person's. None when nothing changes."""
        now = self.clock.now()
        changes = []
        for fid, (r, times) in evidence.items():
            fact = _read(conn, fid)
            if fact is None:
                raise TriageError(f"no fact with id {fid!r}")
            changes.append(_evidence(fid, fact, r, times))
        changes = [c for c in changes if c.before != c.after]
        if not changes:
            return None
        scores = self._scores(changes, now)
        for change in changes:
            self._write(conn, change.fact_id, change.after)
        action = str(Action.CORROBORATE)
        return Outcome(action, self._audit(conn, action, changes, now, scores), tuple(changes), scores)

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
        if row[0] == old:  # read inside the write transaction: a racing writer sees it too
            raise TriageError(
                f"supersede {old} by {target}: nothing to change ({target} already supersedes {old})"
            )
        if row[0]:
            raise TriageError(f"{target} already supersedes {row[0]}; a fact names one predecessor")
        if self._leads_to(conn, old, target):
            raise TriageError(
                f"{target} cannot supersede {old}: {old} already leads to {target} "
                "(that would be a supersession cycle)"
            )
        return [
            Change(target, {"supersedes": row[0]}, {"supersedes": old}),
            Change(old, {}, {"superseded_by": target}),
        ]

    @staticmethod
    def _leads_to(conn: Any, start: str, goal: str) -> bool:
        """Whether following `supersedes` from `start` reaches `goal` (the chain is short;
        each fact names at most one predecessor, so this is a walk, not a search)."""
        seen, fid = set(), start
        while fid is not None and fid not in seen:
            if fid == goal:
                return True
            seen.add(fid)
            row = conn.execute(
                "SELECT f2.id FROM facts f JOIN facts f2 ON f2.pos = f.supersedes_pos WHERE f.id = ?", (fid,)
            ).fetchone()
            fid = row[0] if row else None
        return False

    # -- undo / redo -------------------------------------------------------------------

    def undo(self, expect: int | None = None) -> Outcome:
        """Revert the newest live action; with `expect`, only while that is still batch
        `expect` (the session log undoes the row the user chose, or nothing)."""
        batch = self._live_batches(undone=False)
        if batch is None:
            raise TriageError("nothing to undo")
        if expect is not None and batch != expect:
            raise TriageError(f"the newest live action is #{batch}, not #{expect}: nothing undone")
        return self._revert(batch, "undo")

    def redo(self, expect: int | None = None) -> Outcome:
        """Re-apply what the newest undo took back; with `expect`, batch `expect` or nothing
        (the browser redoes what its own undo took back, whoever undid since)."""
        batch = self._redoable(expect)
        if batch is None:
            raise TriageError(
                "nothing to redo"
                if expect is None
                else f"#{expect} was undone before a newer action: it stays undone"
            )
        return self._revert(batch, "redo")

    def _redoable(self, only: int | None = None) -> int | None:
        """The batch the newest undo still standing took back (or `only`, if that is one),
        unless a new action came after that undo: a new action empties the redo stack."""
        row = self.store.conn.execute(
            "SELECT u.undoes FROM audit u WHERE u.action = 'undo' AND (? IS NULL OR u.undoes = ?)"
            " AND u.seq = (SELECT max(v.seq) FROM audit v WHERE v.undoes = u.undoes)"
            " AND u.seq > (SELECT coalesce(max(n.seq), 0) FROM audit n"
            f" WHERE n.action IN ({','.join('?' * len(ACTIONS))})) ORDER BY u.seq DESC LIMIT 1",
            (only, only, *ACTIONS),
        ).fetchone()
        return row[0] if row else None

    def undo_target(self) -> int | None:
        """The batch `undo` would revert now (the newest live action), or None."""
        return self._live_batches(undone=False)

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
        self._check_writable()
        now = self.clock.now()
        with self.store.transaction() as conn:
            current = self._redoable(batch) if kind == "redo" else self._live_batches(undone=False)
            if current != batch:  # another writer got in first
                raise TriageError(f"cannot {kind} #{batch}: another action landed meanwhile; nothing changed")
            entries = conn.execute(
                "SELECT fact_id, before, after, action, actor, at FROM audit WHERE batch = ? ORDER BY seq",
                (batch,),
            ).fetchall()
            action, actor, at = entries[0][3:]
            changes = []
            for fid, before, after, *_ in entries:
                before, after = json.loads(before), json.loads(after)
                frm, to = (after, before) if kind == "undo" else (before, after)
                current = self._current(conn, fid, frm)
                if current != frm:
                    raise TriageError(
                        f"cannot {kind} {action} on {fid}: it changed since ({current} is not {frm})"
                    )
                changes.append(Change(fid, frm, to))
            scores = self._scores(changes, now)
            for change in changes:
                self._write(conn, change.fact_id, change.after)
            new_batch = self._audit(conn, kind, changes, now, scores, undoes=batch)
        return Outcome(f"{kind} {action}", new_batch, tuple(changes), scores, actor, at)

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
        self,
        conn: Any,
        action: str,
        changes: list[Change],
        now: float,
        scores: dict[str, dict[str, Any]],
        undoes: int | None = None,
    ) -> int:
        batch = conn.execute("SELECT coalesce(max(batch), 0) + 1 FROM audit").fetchone()[0]
        at = format_time(now)
        conn.executemany(
            "INSERT INTO audit (at, actor, action, fact_id, batch, before, after, undoes, score_before)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    at,
                    self.actor,
                    action,
                    c.fact_id,
                    batch,
                    json.dumps(c.before),
                    json.dumps(c.after),
                    undoes,
                    json.dumps(scores[c.fact_id]) if c.fact_id in scores else None,
                )
                for c in changes
            ],
        )
        return batch


def export_audit(store: Store) -> Iterator[dict[str, Any]]:
    """Every triage decision as one JSON object, oldest first (`export --audit`)."""
    for seq, at, actor, action, fid, batch, before, after, undoes, score_before in store.conn.execute(
        "SELECT seq, at, actor, action, fact_id, batch, before, after, undoes, score_before"
        " FROM audit ORDER BY seq"
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
            "score_before": json.loads(score_before) if score_before else None,
        }
        if undoes is not None:
            obj["undoes"] = undoes
        yield obj
