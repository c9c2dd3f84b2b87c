"""Triage: the only writes a person makes to a store, each audited and undoable.

Every action is one transaction holding the change and its audit entries, so a crash at
any instant leaves either all of it or none of it. The audit log is the source of undo
and redo: an entry records the changed fields of one fact before and after, and undo
writes the `before` back as a new, audited action (so undo survives a restart).
"""

from __future__ import annotations

import getpass
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from synapse_tui.core.base.chain import leads_to
from synapse_tui.core.base.clock import Clock, format_time, parse_time
from synapse_tui.core.base.config import Config, config_for
from synapse_tui.core.base.errors import SynapseError, missing_fact
from synapse_tui.core.store.api import Store
from synapse_tui.core.store.audit import AuditEntry
from synapse_tui.core.store.ops import AuditSince, NewestEntry, NextBatch, Op, TriageFields
from synapse_tui.core.trust.spot import scored, spot_reads


class Action(StrEnum):
    """The triage actions: one vocabulary for the browser's keys, the CLI verbs, the MCP
    tools and the audit log (each member is its own string, as the audit stores it)."""

    CORROBORATE = "corroborate"
    CONTRADICT = "contradict"
    VERIFY = "verify"
    ACCEPT = "accept"
    SUPERSEDE = "supersede"
    DISMISS = "dismiss"

    @property
    def summary(self) -> str:
        return _SUMMARIES[self]


_SUMMARIES = {
    Action.CORROBORATE: "another source confirms it (r + 1, and a reinforcement now)",
    Action.CONTRADICT: "evidence against it (s + 1)",
    Action.VERIFY: "checked, and it still holds (a reinforcement now)",
    Action.ACCEPT: "a person vouches for it (declared tier auto becomes human)",
    Action.SUPERSEDE: "a newer fact replaces it (the newer one names it in `supersedes`)",
    Action.DISMISS: "a suggestion about it is wrong: it never comes back (SPEC 13)",
}
ACTIONS: tuple[str, ...] = tuple(a.value for a in Action)
# A source withdrawing evidence it had given (a wiki claim's contest resolved, its evidence
# entries removed): audited and undone like an action, but no one's verb (no CLI command,
# no key, no verdict)
RETRACT = "retract"
UNDOABLE: tuple[str, ...] = (*ACTIONS, RETRACT)
# What an agent may do (MCP): add evidence. Accepting (and signing) stays a person's call.
AGENT_ACTIONS = (Action.CORROBORATE, Action.CONTRADICT, Action.VERIFY)


class TriageError(SynapseError):
    """An action that cannot apply (read-only store, a cycle, nothing to undo...)."""


def no_such_fact(store: Store, fact_id: str) -> TriageError:
    """An unknown id, in the words `show` uses: the id and the store it is not in."""
    return TriageError(missing_fact(fact_id, store.path))


class StaleError(TriageError):
    """An action decided on a state another writer has since changed: refused, nothing
    written. `entry` is that writer's newest entry about the fact (who, when, what)."""

    def __init__(self, message: str, entry: AuditEntry) -> None:
        super().__init__(message)
        self.entry = entry


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
    # the answers of `Triage.apply`'s reads_after
    read_after: list[Any] = field(default_factory=list)

    @property
    def fact_ids(self) -> list[str]:
        return [c.fact_id for c in self.changes]


def default_actor(store: Store | None = None) -> str:
    """`user:LOGIN`, the actor of the browser's and the CLI's triage (SPEC 8); under a
    server login that may not make a person's moves (the agent's role of docs/postgres.md),
    `agent:ROLE`: the server refuses such a login the audit as a person (issue 37)."""
    caps = getattr(store, "capabilities", None)
    if caps is not None and caps.role and "accept" in caps.refused:
        return f"agent:{caps.role}"
    try:
        return f"user:{getpass.getuser()}"
    except Exception:  # no login name in some containers
        return "user:unknown"


def one_for_one(items: Sequence[str], taken: Sequence[str]) -> list[str]:
    """`items` less each of `taken` once, in `items`' order (a multiset difference): the
    reinforcement times a fact holds less those an action took, each time counted."""
    left = list(taken)
    out = []
    for t in items:
        if t in left:
            left.remove(t)
        else:
            out.append(t)
    return out


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
    config file is read (as the CLI would).

    Every write is refused when dated before the newest audit entry; with `in_order`,
    also before the creation of a fact it changes (the CLI, when --now or SYNAPSE_NOW pins
    its clock: a source's clock skew, a fact dated ahead of the wall clock, stays
    triageable)."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        actor: str | None = None,
        *,
        config: Config | None = None,
        in_order: bool = False,
    ) -> None:
        self.store = store
        self.clock = clock
        self.actor = actor or default_actor(store)
        self.config = config if config is not None else config_for(store.path)
        self.in_order = in_order

    # -- the actions -------------------------------------------------------------------

    def apply(
        self,
        action: str,
        fact_ids: list[str],
        target: str | None = None,
        *,
        seen: int | None = None,
        own: Collection[int] = (),
        reads_after: Sequence[Op[Any]] = (),
    ) -> Outcome:
        """Apply one action to every fact in `fact_ids` as one batch (one undo step).

        `seen`: the audit's newest entry (`store.audit.mark()`, read no later than the state
        the action was decided on): if another writer has acted on one of these facts since
        (any entry after it, but for the batches in `own`, the session's own), the action
        is refused with `StaleError` and nothing is written. None decides now (the CLI).

        `reads_after`: reads of the store as the action leaves it, asked inside its
        transaction (on a server, with its COMMIT): their answers are `Outcome.read_after`."""
        if action not in ACTIONS or action == Action.DISMISS:
            raise TriageError(f"unknown action {action!r}")
        if not fact_ids:
            raise TriageError("no facts selected")
        self._check_writable()
        with self.store.transaction():
            outcome = self.apply_in(action, fact_ids, target, seen=seen, own=own)
            answers = self.store.batch_soon(reads_after) if reads_after else None
        return outcome if answers is None else replace(outcome, read_after=answers())

    def apply_in(
        self,
        action: str,
        fact_ids: list[str],
        target: str | None = None,
        *,
        seen: int | None = None,
        own: Collection[int] = (),
    ) -> Outcome:
        """`apply` inside a transaction the caller holds (`remember` imports a fact and
        supersedes with it in one)."""
        now = self.clock.now()
        store = self.store
        ids = list(dict.fromkeys(fact_ids))
        # the facts and (with `seen`) what was done to them since, asked together; with them,
        # but for a supersession (whose changed facts are not these), what `_land` reads
        checked = [*ids, *([target] if target else [])]
        since: list[Op[Any]] = [] if seen is None else [AuditSince(tuple(checked), seen)]
        landing = [] if action == Action.SUPERSEDE else self._land_reads(ids)
        found = store.batch([*(TriageFields(fid) for fid in ids), *since, *landing])
        rows = dict(zip(ids, found[: len(ids)], strict=True))
        for fid, row in rows.items():
            if row is None:
                raise no_such_fact(self.store, fid)
        if seen is not None:  # inside the write transaction: nobody lands between check and write
            self._check_unchanged(action, found[len(ids)], own)
        read = found[len(found) - len(landing) :] if landing else None
        if action == Action.SUPERSEDE:
            changes = self._supersede(list(rows), target)
        else:
            changes = [self._change(action, fid, row, now) for fid, row in rows.items()]
            changes = [c for c in changes if c.before != c.after]
            if not changes:
                why = f" (already {rows[fact_ids[0]]['tier']})" if action == Action.ACCEPT else ""
                raise TriageError(f"{action} {', '.join(rows)}: nothing to change{why}")
        batch, scores = self._land(str(action), changes, now, read=read)
        return Outcome(str(action), batch, tuple(changes), scores)

    def _check_unchanged(self, action: str, since: list[AuditEntry], own: Collection[int]) -> None:
        """Refuse an action decided on the facts as they stood at audit entry `seen`, when
        another writer has acted on one of them since (`since`: the entries about them after
        it). The signal is the audit, not a version column: every triage write (undo, redo, a
        sync's evidence included) lands with its entries, and the entry says who and when."""
        theirs = [e for e in since if e.batch not in own]
        if theirs:
            last = theirs[-1]
            raise StaleError(
                f"{action} {last.fact_id}: changed by {last.actor} at {last.at} since you loaded it;"
                " reload to see it",
                last,
            )

    def _check_writable(self) -> None:
        if self.store.readonly:
            raise TriageError(f"{self.store.read_only_because()}: triage cannot change it")

    def _change(self, action: str, fid: str, fact: dict[str, Any], now: float) -> Change:
        s, tier = fact["contradictions"], fact["tier"]
        if action == Action.CONTRADICT:
            return Change(fid, {"contradictions": s}, {"contradictions": s + 1})
        if action == Action.ACCEPT:
            return Change(fid, {"tier": tier}, {"tier": "human" if tier == "auto" else tier})
        return _evidence(fid, fact, int(action == Action.CORROBORATE), [format_time(now)])

    def add_evidence_in(
        self, evidence: dict[str, tuple[int, list[str]]], batch: int | None = None
    ) -> Outcome | None:
        """Corroborations and reinforcement times a source itself recorded for facts already
        in the store (`{id: (added r, new times)}`), as one `corroborate` action by this
        actor inside the caller's transaction: added on top of whatever triage did here,
        audited with score_before and undoable like a person's. None when nothing changes.
        `batch`: an undo step this transaction began already (a sync's other actions), to
        join; None, a step of its own."""
        now = self.clock.now()
        changes = []
        for fid, (r, times) in evidence.items():
            fact = self.store.review.fields(fid)
            if fact is None:
                raise no_such_fact(self.store, fid)
            changes.append(_evidence(fid, fact, r, times))
        changes = [c for c in changes if c.before != c.after]
        if not changes:
            return None
        action = str(Action.CORROBORATE)
        batch, scores = self._land(action, changes, now, batch=batch)
        return Outcome(action, batch, tuple(changes), scores)

    def add_counts_in(
        self,
        action: str,
        counts: dict[str, tuple[int, int]],
        times_out: dict[str, list[str]] | None = None,
        batch: int | None = None,
    ) -> Outcome | None:
        """Corroborations and contradictions a source added (`contradict`) or withdrew
        (`retract`) for facts already in the store, `{id: (r added, s added)}` (below 0:
        taken back; the caller bounds that by the source's own share), and `times_out`, the
        reinforcement times it withdrew (`{id: times}`, one for one, of a fact holding its
        times as a list), as one action by this actor inside the caller's transaction,
        audited and undoable (`batch`: as `add_evidence_in`). None: nothing changes."""
        changes = []
        times_out = times_out or {}
        for fid in dict.fromkeys([*counts, *times_out]):
            r, s = counts.get(fid, (0, 0))
            fact = self.store.review.fields(fid)
            if fact is None:
                raise no_such_fact(self.store, fid)
            before = {k: fact[k] for k, d in (("corroborations", r), ("contradictions", s)) if d}
            after: dict[str, Any] = {
                k: max(v + (r if k == "corroborations" else s), 0) for k, v in before.items()
            }
            held = one_for_one(fact["reinforced_at"] or [], times_out.get(fid, []))
            if times_out.get(fid) and held != list(fact["reinforced_at"] or []):
                before["reinforced_at"], after["reinforced_at"] = fact["reinforced_at"], held or None
            if before != after:
                changes.append(Change(fid, before, after))
        if not changes:
            return None
        batch, scores = self._land(action, changes, self.clock.now(), batch=batch)
        return Outcome(action, batch, tuple(changes), scores)

    def accept_in(self, fact_ids: Sequence[str], batch: int | None = None) -> Outcome | None:
        """`accept` of those of `fact_ids` still of tier `auto`, by this actor inside the
        caller's transaction (`batch`: as `add_evidence_in`): a source that now records a
        person's hand in them (a text committed by a person since a sync read it
        uncommitted). None: nothing changes."""
        now = self.clock.now()
        changes = []
        for fid in dict.fromkeys(fact_ids):
            fact = self.store.review.fields(fid)
            if fact is None:
                raise no_such_fact(self.store, fid)
            changes.append(self._change(Action.ACCEPT, fid, fact, now))
        changes = [c for c in changes if c.before != c.after]
        if not changes:
            return None
        action = str(Action.ACCEPT)
        batch, scores = self._land(action, changes, now, batch=batch)
        return Outcome(action, batch, tuple(changes), scores)

    def dismiss(self, pairs: Sequence[tuple[str, dict[str, Any]]]) -> Outcome:
        """Dismiss suggestions, (fact id, what the entry records) each, as one audited batch
        (one undo step). The record is a field no column holds, so nothing of the fact
        changes: the live entry itself is the dismissal (core/review/suggestions.py)."""
        if not pairs:
            raise TriageError("no suggestions selected")
        self._check_writable()
        now = self.clock.now()
        with self.store.transaction():
            for fid, _ in pairs:
                if not self.store.review.exists(fid):
                    raise no_such_fact(self.store, fid)
            changes = [Change(fid, {}, dict(record)) for fid, record in pairs]
            batch, scores = self._land(str(Action.DISMISS), changes, now)
        return Outcome(str(Action.DISMISS), batch, tuple(changes), scores)

    def check_supersede(self, old: str, target: str | None) -> None:
        """Raise the TriageError `apply("supersede", [old], target)` would, writing nothing:
        the browser previews a supersession (and refuses a cycle) before it is confirmed."""
        if not self.store.review.exists(old):
            raise no_such_fact(self.store, old)
        self._supersede([old], target)

    def supersede_all(self, pairs: Sequence[tuple[str, str]]) -> Outcome:
        """Each (old, new) of `pairs`: new replaces old (it names it in `supersedes`), as
        one audited batch (one undo step): accepting several `replaced` suggestions (SPEC 13).
        Each pair meets every rule of a single `supersede` (both facts exist, new names no
        other predecessor, no cycle), checked against the store as the pairs before it leave
        it, and what a suggestion promises: old has no successor, new was created after it.
        One pair refused refuses them all: nothing is written, the message names the pair."""
        if not pairs:
            raise TriageError("no suggestions selected")
        self._check_writable()
        with self.store.transaction():
            return self.supersede_all_in(pairs)

    def supersede_all_in(self, pairs: Sequence[tuple[str, str]], batch: int | None = None) -> Outcome:
        """`supersede_all` inside a transaction the caller holds (`batch`: as
        `add_evidence_in`; the browser's `Y` joins the contradictions it records with them)."""
        now = self.clock.now()
        changes = self._supersede_each(pairs)
        read = self.store.batch(self._land_reads([c.fact_id for c in changes]))
        created = {row.id: float(row.events[0]) for row in read[0].values()}
        for old, new in pairs:
            if old in created and new in created and created[new] <= created[old]:
                raise TriageError(
                    f"supersede {old} by {new}: {new} was not created after {old}; nothing changed"
                )
        batch, scores = self._land(str(Action.SUPERSEDE), changes, now, read=read, batch=batch)
        return Outcome(str(Action.SUPERSEDE), batch, tuple(changes), scores)

    def _supersede_each(self, pairs: Sequence[tuple[str, str]]) -> list[Change]:
        """The changes of `supersede_all`, each pair checked as the ones before it leave the store."""
        review = self.store.review
        names: dict[str, str] = {}  # new -> old, of the pairs before

        def predecessor(fid: str) -> str | None:
            return names[fid] if fid in names else review.predecessor(fid)

        changes: list[Change] = []
        replaced: set[str] = set()
        for old, new in pairs:
            try:
                if not review.exists(old):
                    raise no_such_fact(self.store, old)
                if old in replaced or self.store.superseded_by(old):
                    raise TriageError(f"{old} already has a successor")
                changes += self._supersede([old], new, names.get(new), predecessor)
            except TriageError as exc:
                said, pair = str(exc), f"supersede {old} by {new}: "
                raise TriageError(f"{'' if said.startswith(pair) else pair}{said}; nothing changed") from exc
            names[new] = old
            replaced.add(old)
        return changes

    def _supersede(
        self,
        fact_ids: list[str],
        target: str | None,
        planned: str | None = None,
        predecessor: Callable[[str], str | None] | None = None,
    ) -> list[Change]:
        """`target` replaces each fact in `fact_ids`: it names it in `supersedes`.
        `planned`, `predecessor`: what `target` names and each fact's predecessor as the
        earlier pairs of a `supersede_all` leave them (default: the store's)."""
        if len(fact_ids) != 1:
            raise TriageError("supersede one fact at a time: a fact names one predecessor")
        old = fact_ids[0]
        if not target:
            raise TriageError("supersede needs the replacing fact")
        if target == old:
            raise TriageError("a fact cannot supersede itself")
        found, named = self.store.review.supersedes(target)
        if not found:
            raise no_such_fact(self.store, target)
        named = planned or named
        if named == old:  # read inside the write transaction: a racing writer sees it too
            raise TriageError(
                f"supersede {old} by {target}: nothing to change ({target} already supersedes {old})"
            )
        if named:
            raise TriageError(f"{target} already supersedes {named}; a fact names one predecessor")
        if leads_to(old, target, predecessor or self.store.review.predecessor):
            raise TriageError(
                f"{target} cannot supersede {old}: {old} already leads to {target} "
                "(that would be a supersession cycle)"
            )
        return [
            Change(target, {"supersedes": named}, {"supersedes": old}),
            Change(old, {}, {"superseded_by": target}),
        ]

    # -- undo / redo -------------------------------------------------------------------

    def undo(self, expect: int | None = None) -> Outcome:
        """Revert the newest live action; with `expect`, only while that is still batch
        `expect` (the session log undoes the row the user chose, or nothing)."""
        batch = self._live_batches(undone=False)
        if batch is None:
            raise TriageError("nothing to undo")
        if expect is not None and batch != expect:
            newest = self.store.audit.batch(batch)[0]
            raise TriageError(
                f"the newest live action is #{batch}, not #{expect}: nothing undone"
                f" (#{batch} is {newest.actor}'s {newest.action} at {newest.at})"
            )
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
        return self.store.audit.redoable(UNDOABLE, only)

    def undo_target(self) -> int | None:
        """The batch `undo` would revert now (the newest live action), or None."""
        return self._live_batches(undone=False)

    def _live_batches(self, undone: bool) -> int | None:
        """The batch to undo or (`undone`) to redo, editor-style (`Audit.live_batch`)."""
        return self.store.audit.live_batch(UNDOABLE, undone)

    def _revert(self, batch: int, kind: str) -> Outcome:
        self._check_writable()
        now = self.clock.now()
        with self.store.transaction():
            current = self._redoable(batch) if kind == "redo" else self._live_batches(undone=False)
            if current != batch:  # another writer got in first
                raise TriageError(f"cannot {kind} #{batch}: another action landed meanwhile; nothing changed")
            entries = self.store.audit.batch(batch)
            if not entries:
                raise TriageError(f"cannot {kind} #{batch}: its audit entries are gone; nothing changed")
            recorded = _recorded(entries, kind, batch)
            # a sync's one step may hold several actions (corroborate+retract)
            action = "+".join(dict.fromkeys(e.action for e in entries))
            actor, at = entries[0].actor, entries[0].at
            if kind == "undo":
                self._check_undoable(batch, action, entries)
            changes = []
            # Each change is checked against the fact as the ones before it in this revert
            # leave it (a fact a sync changed twice, by its corroborate and its retract).
            pending: dict[str, dict[str, Any]] = {}
            for entry in _newest_first_per_fact(recorded) if kind == "undo" else recorded:
                fid = entry.fact_id
                frm, to = (entry.after, entry.before) if kind == "undo" else (entry.before, entry.after)
                fields = self._current(fid, frm) | {k: v for k, v in pending.get(fid, {}).items() if k in frm}
                if fields != frm:
                    raise TriageError(
                        f"cannot {kind} {action} on {fid}: it changed since ({fields} is not {frm})"
                    )
                pending.setdefault(fid, {}).update(to)
                changes.append(Change(fid, frm, to))
            new_batch, scores = self._land(kind, changes, now, undoes=batch)
        return Outcome(f"{kind} {action}", new_batch, tuple(changes), scores, actor, at)

    def _check_undoable(self, batch: int, action: str, entries: list[AuditEntry]) -> None:
        """Refuse to undo an action when a later change of one of its facts still stands:
        an action of a live batch, or a redo whose batch is live (a change undone since is
        no change); "later" counts from the action's newest redo, if it was redone. Undo takes the newest live action, so this is rare (an older action
        redone after it), but then undoing would write over that change."""
        later = self.store.audit.about_since([e.fact_id for e in entries if e.fact_id], entries[-1].seq)
        # a redo applies the batch anew: what came before its newest redo is not later
        redone = [i for i, e in enumerate(later) if e.action == "redo" and e.undoes == batch]
        if redone:
            later = later[redone[-1] + 1 :]
        if not later:
            return
        undone = self.store.audit.undone_batches()
        for e in reversed(later):
            made = e.batch if e.action in UNDOABLE else e.undoes if e.action == "redo" else None
            if made is not None and made != batch and made not in undone:
                raise TriageError(
                    f"cannot undo {action} on {e.fact_id}: changed by {e.actor} at {e.at} since"
                    f" ({e.action}, #{e.batch}); nothing undone"
                )

    # -- storage -----------------------------------------------------------------------

    def _current(self, fid: str, fields: dict[str, Any]) -> dict[str, Any]:
        values = self.store.review.fields(fid) or {}
        return {k: values.get(k, fields[k]) for k in fields}

    def _land_reads(self, fact_ids: list[str]) -> list[Op[Any]]:
        """What `_land` reads before its first write: the scores' inputs of the changed facts
        (asked of `fact_ids`, which hold them) and the batch's number."""
        return [*spot_reads(self.config, fact_ids), NextBatch(), NewestEntry()]

    def _land(
        self,
        action: str,
        changes: list[Change],
        now: float,
        undoes: int | None = None,
        read: list[Any] | None = None,
        batch: int | None = None,
    ) -> tuple[int, dict[str, dict[str, Any]]]:
        """Write `changes` and their audit entries as one batch, each entry with its fact's
        score just before (scored before the first write): the batch and those scores.
        `read`: the answers of `_land_reads`, when asked already in this transaction.
        `batch`: a batch this transaction landed already, joined (one undo step), else the next."""
        store = self.store
        changed = [c.fact_id for c in changes]
        inputs, above, next_batch, newest = (
            read if read is not None else store.batch(self._land_reads(changed))
        )
        batch = next_batch if batch is None else batch
        named = set(changed)  # a set: a bulk `Y` lands thousands (a list here was quadratic)
        inputs = {pos: row for pos, row in inputs.items() if row.id in named}  # a fact left unchanged
        created = {row.id: float(row.events[0]) for row in inputs.values()}  # a fact's first event
        _check_in_order(action, now, newest, created if self.in_order else {})
        scores = scored(store, self.config, now, inputs, above)
        for change in changes:
            store.review.write(change.fact_id, change.after, created.get(change.fact_id))
        rows = [(c.fact_id, c.before, c.after) for c in changes]
        return store.audit.append(self.actor, action, format_time(now), rows, scores, undoes, batch), scores


def _recorded(entries: list[AuditEntry], kind: str, batch: int) -> list[Change]:
    """The changes a batch's audit entries record, as written. A row no writer of ours
    makes (a server's login may append any) is refused, not a crash."""
    changes = []
    for e in entries:
        if not e.fact_id or not isinstance(e.before, dict) or not isinstance(e.after, dict):
            raise TriageError(
                f"cannot {kind} #{batch}: its audit entry #{e.seq} (by {e.actor}) does not say what it"
                " changed; nothing changed"
            )
        changes.append(Change(e.fact_id, e.before, e.after))
    return changes


def _newest_first_per_fact(changes: list[Change]) -> list[Change]:
    """A batch's changes in the order an undo takes them back: each fact's newest first (a
    fact a sync changed twice, by its corroborate then its retract, comes back exactly as it
    was before the batch), the facts in the batch's order (`export --audit` reads alike)."""
    places: dict[str, list[int]] = {}
    for i, c in enumerate(changes):
        places.setdefault(c.fact_id, []).append(i)
    out = list(changes)
    for at in places.values():
        for i, j in zip(at, reversed(at), strict=True):
            out[i] = changes[j]
    return out


def _check_in_order(
    action: str, now: float, newest: tuple[int, str] | None, created: dict[str, float]
) -> None:
    """History is written in order: an action dated before the newest audit entry, or
    before the creation of a fact it changes (of `created`: a 2020 reinforcement of a 2024
    fact, a clock pinned by --now or SYNAPSE_NOW), is refused before anything is written."""
    when = format_time(now)
    if newest is not None and now < parse_time(newest[1]):
        raise TriageError(
            f"{action} at {when} is earlier than the newest audit entry (#{newest[0]} at {newest[1]});"
            " history is written in order, so check --now / SYNAPSE_NOW; nothing changed"
        )
    early = [fid for fid, at in created.items() if now < at]
    if early:
        fid = min(early)
        raise TriageError(
            f"{action} {fid} at {when} is earlier than its creation ({format_time(created[fid])});"
            " check --now / SYNAPSE_NOW; nothing changed"
        )


def export_audit(store: Store) -> Iterator[dict[str, Any]]:
    """Every triage decision as one JSON object, oldest first (`export --audit`)."""
    for e in store.audit.entries():
        obj = {
            "seq": e.seq,
            "at": e.at,
            "actor": e.actor,
            "action": e.action,
            "id": e.fact_id,
            "batch": e.batch,
            "before": e.before,
            "after": e.after,
            "score_before": e.score_before,
        }
        if e.undoes is not None:
            obj["undoes"] = e.undoes
        yield obj
