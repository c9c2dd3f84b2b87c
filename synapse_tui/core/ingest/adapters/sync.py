"""Make a store agree with a source's Snapshot: the import that is also a sync (SPEC 9).

A fact is identified by its id alone. An id the store lacks is imported; an id it has is
left as it is, so corroborations, contradictions, verifications, acceptances and
supersessions made here survive every later sync. Facts the source deleted get the flag
`deleted` in the same transaction as the new facts, so a sync lands whole or not at all,
and a sync with nothing new writes nothing at all.

The one change a sync makes to a fact already here is what changed in the source's own
evidence (`Snapshot.evidence`: an edge Graphiti re-asserted in new episodes; an OpenClaw
claim's new status or evidence entries): added on top of the fact's triage, in that same
transaction, as actions by the actor `source:<system>` (`corroborate` for corroborations and
reinforcement times, `contradict` for contradictions, `retract` for what the source withdrew
(counts and the reinforcement times of entries it no longer lists), never more than its own
share: the fact's counts and times less every live change by anyone else), `accept` for a
person's hand it now records (a text read before anyone committed it, committed since by a
person), audited like a person's action (with score_before) so each shows in the fact's
history; the actions of one sync are one batch, so one `undo` gives every fact back as it
was before the sync. The source's record of what it has counted (its provenance) is not
part of those actions: an undone change stays undone at the next sync.

One store, one embedding space (SPEC 9). The space of a snapshot's embeddings is the one
its adapter names (`Snapshot.space`: the model where the source records it, else the
place they all came from, `mem0:<collection>` or `graphiti`), and the store records its
space in `meta` (`embed.model`, as `synapse-tui embed` does). The first embeddings into
a store set its space; a later sync of that space adds to it; embeddings of any other
space (or into a store whose embeddings name no space) are dropped, the facts imported
without them, and `left_out` says so: vectors of two models, even of one dimension, are
never compared in one kNN graph.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import StoreError
from synapse_tui.core.base.limits import counted
from synapse_tui.core.graph.embed import record_model, recorded_space
from synapse_tui.core.ingest.adapters import Evidence, Snapshot
from synapse_tui.core.ingest.interchange import ParsedFact, Progress, import_facts, link_landed
from synapse_tui.core.review.triage import RETRACT, Outcome, Triage, one_for_one
from synapse_tui.core.store.audit import AuditEntry
from synapse_tui.core.store.db import INVALIDATED_AT, Store


@dataclass(frozen=True)
class SyncResult:
    system: str
    source: str
    added: int  # facts new to the store that its source still holds
    # facts this run flagged deleted, already here or arriving deleted (flagged before: not counted)
    newly_deleted: int
    unchanged: int  # facts of the snapshot already in the store, left untouched
    reasserted: int = 0  # facts already here given the source's new corroborations
    restored: int = 0  # facts flagged deleted before that the source holds again
    # facts already here the source now says are no longer valid, none named in their place
    # (flag `invalidated`: an OpenClaw claim now `superseded`), and those it holds valid again
    invalidated: int = 0
    valid_again: int = 0
    accepted: int = 0  # facts already here of tier auto the source now records a person's hand in
    left_out: list[str] = field(default_factory=list)  # every line, what this sync read passed over
    warnings: list[str] = field(default_factory=list)
    # of `left_out`, the lines the last sync of this source did not say (each, at the first)
    left_out_new: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def left_out_said(self) -> list[str]:
        """The `left out` lines a person is told: those new since the last sync of this
        source, then one line counting the others (unchanged: said before, `--json` lists
        every line), so an unchanged source does not repeat itself at every sync."""
        again = len(self.left_out) - len(self.left_out_new)
        more = [f"{again} more, as at the last sync (--json lists every line)"] if again else []
        return [*self.left_out_new, *more]


def sync_snapshot(
    store: Store,
    snapshot: Snapshot,
    config: Config,
    progress: Progress | None = None,
    graph_progress: Progress | None = None,
    clock: Clock | None = None,
    recorded_as: str | None = None,
) -> SyncResult:
    """Import what is new in `snapshot`, flag what it deleted, add the source's new evidence
    for facts already here, and update the graph. `clock` times the evidence's audit entry
    (default: SYNAPSE_NOW, else the wall clock). `recorded_as`: the source as the store
    records it (a file's absolute path, a server's location without its password), which
    keys what this sync said of it, so `import --from ./dir` and a later `sync` agree."""
    present = store.imports.ids()
    new = [f for f in snapshot.facts if f.id not in present]
    new, space, dropped = _one_space(store, snapshot, new)
    to_flag = sorted(snapshot.deleted)
    pending = store.imports.not_deleted(to_flag)
    evidence = [e for e in snapshot.evidence if e.id in present]
    newly_deleted = restored = 0
    moved = _Moved()
    # Each fact is counted once (docs/adapters.md): one this run flags deleted is newly
    # deleted, neither added (it arrives already deleted at its source) nor unchanged (a
    # version the source still lists as history: mem0, a git replay), so the counts add up
    # to the facts the source gives plus those it no longer lists that this run flagged.
    listed = {f.id for f in snapshot.facts} | snapshot.kept
    arriving = [fid for fid in to_flag if fid not in present]
    here_listed = [fid for fid in to_flag if fid in present and fid in listed]
    arrived_deleted = listed_deleted = 0
    warnings: list[str] = []
    back = sorted(snapshot.restored & present - snapshot.deleted)
    if new or pending or evidence or back:

        def flag_deleted(_store: Store, _positions: list[int]) -> None:
            nonlocal newly_deleted, moved, restored, arrived_deleted, listed_deleted
            now = (clock or Clock.from_option(None)).now()
            restored = store.imports.restore(back) if back else 0
            expired = sorted(snapshot.expired & snapshot.deleted)
            # asked in the write, before the flags: which of those this run flags
            arrived_deleted = store.imports.not_deleted(arriving) if arriving else 0
            listed_deleted = store.imports.not_deleted(here_listed) if here_listed else 0
            newly_deleted = store.imports.flag_deleted(to_flag, now, snapshot.deleted_at, expired)
            if space is not None:
                record_model(store, space)
            if evidence:
                moved = _add_evidence(store, snapshot.system, evidence, config, clock)

        # import_facts re-checks every id inside its write transaction, so an agent writing
        # the same store meanwhile makes this sync fail whole rather than half land.
        result = import_facts(
            store, new, snapshot.source, progress=progress, after_insert=flag_deleted, space=_space(snapshot)
        )
        warnings = result.warnings
        if new:
            # The graph is derived data, in its own transaction like `import` (SPEC 3); a
            # failure there says what of the sync landed.
            landed = f"{counted(len(new), 'fact')} added, {newly_deleted} flagged deleted, {moved.reasserted} re-asserted (committed)"
            link_landed(store, config, landed, graph_progress)
    left_out = list(snapshot.left_out) + dropped + _not_revisited(store, snapshot, present)
    wrote = _record_read(store, snapshot) or bool(new or pending or evidence or back)
    return SyncResult(
        system=snapshot.system,
        source=snapshot.source,
        added=len(new) - arrived_deleted,
        newly_deleted=newly_deleted,
        unchanged=len(snapshot.facts)
        - len(new)
        - moved.reasserted
        - moved.invalidated
        - moved.valid_again
        - moved.accepted
        - restored
        + len(snapshot.kept)
        - listed_deleted,
        reasserted=moved.reasserted,
        restored=restored,
        invalidated=moved.invalidated,
        valid_again=moved.valid_again,
        accepted=moved.accepted,
        left_out=left_out,
        warnings=warnings,
        left_out_new=_new_left_out(
            store, f"{snapshot.system} {recorded_as or snapshot.source}", left_out, wrote
        ),
    )


def read_record_key(system: str) -> str:
    """The meta key of a reader's record of the files it read (`Snapshot.read_record`)."""
    return f"read.{system}"


def _record_read(store: Store, snapshot: Snapshot) -> bool:
    """Keep the reader's record of the files it read, each root it read replaced whole, for
    its next read (`read_before`); written only when it changed (whether it was). Written
    once the sync has landed: a record lost (a crash between) only costs the next sync a
    full read."""
    if snapshot.read_record is None:
        return False
    key = read_record_key(snapshot.system)
    before = store.meta(key)
    before = before if isinstance(before, dict) else {}
    after = {root: files for root, files in {**before, **snapshot.read_record}.items() if files}
    if after == before:
        return False
    store.set_meta(key, after)
    return True


def _new_left_out(store: Store, source: str, left_out: list[str], wrote: bool) -> list[str]:
    """The lines of `left_out` the last sync of this source that recorded what it said did
    not say; every line of this sync is kept for the next (meta `said.left_out.<system>
    <source>`) when some are new and the sync wrote to the store anyway: a sync with nothing
    new for the store writes nothing, and a line new then is said again until one does. A
    line gone is no news."""
    key = f"said.left_out.{source}"
    before = store.meta(key)
    said = {line for line in before if isinstance(line, str)} if isinstance(before, list) else set()
    new = [line for line in left_out if line not in said]
    if new and wrote:
        store.set_meta(key, sorted(set(left_out)))
    return new


@dataclass(frozen=True)
class _Moved:
    """The facts already here a sync's evidence changed, each counted once: flagged
    `invalidated` (or no longer) by the source, accepted by it, else re-asserted."""

    reasserted: int = 0
    invalidated: int = 0
    valid_again: int = 0
    accepted: int = 0


def _add_evidence(
    store: Store, system: str, evidence: list[Evidence], config: Config, clock: Clock | None
) -> _Moved:
    """Write the source's record of what it counted, then what changed in its evidence as
    audited actions (core/review/triage.py writes the entries): new corroborations as one
    `corroborate`, new contradictions as one `contradict`, evidence it withdrew as one
    `retract`, a person's hand it now records as one `accept`, all one batch: one sync is
    one undo step, which gives every fact's triage back as it was before the sync."""
    flagged: dict[str, bool] = {}  # invalidated by this sync (True) or no longer (False)
    read: dict[str, dict[str, Any]] = {}  # each fact's provenance as the sync found it
    for ev in evidence:
        stored = store.imports.provenance(ev.id)
        # a fact two records speak of (a wiki claim's status, its commit) is checked
        # against what the reader saw, not what the first record just wrote
        seen = read.setdefault(ev.id, stored)
        if any(seen.get(key) != value for key, value in ev.seen.items()):
            raise StoreError(
                f"{store.path}: {ev.id} changed while its source was read (another import of it?);"
                " nothing changed: run the import again"
            )
        merged = {**stored, **ev.provenance}  # a key set to None: the source no longer says it
        store.imports.set_provenance(ev.id, {k: v for k, v in merged.items() if v is not None})
        if (seen.get(INVALIDATED_AT) is None) != (merged.get(INVALIDATED_AT) is None):
            flagged[ev.id] = merged.get(INVALIDATED_AT) is not None
    actor = f"source:{system}"
    triage = Triage(store, clock or Clock.from_option(None), actor, config=config)
    added: dict[str, tuple[int, list[str]]] = {}
    fresh: dict[str, list[str]] = {}  # of a source listing every time it holds: those new
    for e in evidence:
        # of such a source, the times the fact lacks (none while it lists fewer entries:
        # for the withdrawn alone); an entry replaced by another, r unchanged, is one
        times = _new_times(store, e.id, e.reinforced_at) if e.every_time else e.reinforced_at
        if e.every_time:
            times = fresh[e.id] = times if e.corroborations >= 0 else []
        if e.corroborations > 0 or times:
            r, held = added.get(e.id, (0, []))
            added[e.id] = (r + max(e.corroborations, 0), held + times)
    contested = {e.id: (0, e.contradictions) for e in evidence if e.contradictions > 0}
    steps: list[Callable[[int | None], Outcome | None]] = [
        lambda batch: triage.add_evidence_in(added, batch),
        lambda batch: triage.add_counts_in("contradict", contested, batch=batch),
        lambda batch: triage.add_counts_in(RETRACT, *_withdrawn(store, actor, evidence, fresh), batch=batch),
        lambda batch: triage.accept_in([e.id for e in evidence if e.tier == "human"], batch),
    ]
    batch = None
    changed: dict[str, str] = {}  # fact -> the last action of the sync that changed it
    for step in steps:
        outcome = step(batch)
        if outcome is not None:
            batch = outcome.batch
            changed.update((c.fact_id, outcome.action) for c in outcome.changes)
    accepted = {fid for fid, action in changed.items() if action == "accept"} - set(flagged)
    return _Moved(
        reasserted=len(set(changed) - set(flagged) - accepted),
        invalidated=sum(flagged.values()),
        valid_again=len(flagged) - sum(flagged.values()),
        accepted=len(accepted),
    )


def _new_times(store: Store, fid: str, times: list[str]) -> list[str]:
    """`times` but those the fact holds already (one for one), for a source that lists every
    time it has again (an OpenClaw claim's evidence): never a reinforcement twice."""
    return one_for_one(times, (store.review.fields(fid) or {}).get("reinforced_at") or [])


def _withdrawn(
    store: Store, actor: str, evidence: list[Evidence], fresh: dict[str, list[str]]
) -> tuple[dict[str, tuple[int, int]], dict[str, list[str]]]:
    """What the source withdrew, as `add_counts_in` takes it: each fact's counts
    (`_own_share`) and reinforcement times (`_withdrawn_times`; `fresh`: the times the sync
    added, each an entry's, so as many entries went as came beyond r's change), each fact's
    audit history read once for both."""
    gone_entries = {e.id: len(fresh.get(e.id, [])) - e.corroborations for e in evidence if e.every_time}
    wanted = [
        e
        for e in evidence
        if e.corroborations < 0 or e.contradictions < 0 or e.withdrawn_at or gone_entries.get(e.id, 0) > 0
    ]
    if not wanted:
        return {}, {}
    undone = store.audit.undone_batches()
    shares, times = {}, {}
    for e in wanted:
        now = store.review.fields(e.id) or {}
        history = store.audit.history(e.id)
        shares[e.id] = _own_share(e, now, history, actor, undone)
        gone = _withdrawn_times(e, now, history, actor, undone, gone_entries.get(e.id, 0))
        if gone:
            times[e.id] = gone
    return shares, times


def _withdrawn_times(
    e: Evidence,
    now: dict[str, Any],
    history: list[AuditEntry],
    actor: str,
    undone: set[int],
    entries: int = 0,
) -> list[str]:
    """The reinforcement times a fact loses with the evidence entries its source withdrew
    (SPEC 2.2 and 9: freshness from evidence the source no longer records is not kept): the
    times the source names withdrawn (`withdrawn_at`: an entry removed or replaced), or, of
    a source listing every time it holds (`every_time`) that withdrew `entries` entries (fewer
    than before, or some replaced by others), the times the fact holds (`now`) that the
    source no longer lists, newest first, at most one per entry withdrawn; never a time another actor's live action added (a person's
    corroboration) or an undo of the source's retract gave back (undone stays undone)."""
    held = list(now.get("reinforced_at") or [])
    listing = e.every_time and entries > 0
    if not held or not (e.withdrawn_at or listing):
        return []
    theirs = []  # times other actors' live actions added, or gave back by an undo standing
    for h in history:
        if h.undoes is not None:
            if h.action != "undo" or h.undoes not in undone:
                continue
        elif h.actor == actor or h.batch in undone:
            continue
        was, then = (h.before or {}).get("reinforced_at") or [], (h.after or {}).get("reinforced_at") or []
        theirs += one_for_one(then, was)
    own = one_for_one(held, theirs)
    if e.withdrawn_at:  # those of them the fact holds of the source's own (one for one)
        return one_for_one(e.withdrawn_at, one_for_one(e.withdrawn_at, own))
    return sorted(one_for_one(own, e.reinforced_at), reverse=True)[:entries]


def _own_share(
    e: Evidence, now: dict[str, Any], history: list[AuditEntry], actor: str, undone: set[int]
) -> tuple[int, int]:
    """What a fact loses of what the source withdrew (negative counts), bounded by the
    source's own share: the fact's r and s (`now`) less every live change by anyone else
    (a person's corroborate or contradict survives; a source's action undone here stays
    undone)."""
    r, s = min(e.corroborations, 0), min(e.contradictions, 0)
    theirs = {"corroborations": 0, "contradictions": 0}
    for h in history:
        if h.actor == actor or h.batch in undone or h.undoes is not None:
            continue
        before, after = h.before or {}, h.after or {}
        for key in theirs:
            if isinstance(after.get(key), int) and isinstance(before.get(key), int):
                theirs[key] += after[key] - before[key]
    share_r = max(now.get("corroborations", 0) - theirs["corroborations"], 0)
    share_s = max(now.get("contradictions", 0) - theirs["contradictions"], 0)
    return -min(-r, share_r), -min(-s, share_s)


def _not_revisited(store: Store, snapshot: Snapshot, present: set[str]) -> list[str]:
    """Say so when the source offers an embedding for a fact imported without one (say, a
    first import without --vectors, or into a store of another space): a fact already here
    is never changed."""
    offered = sorted(f.id for f in snapshot.facts if f.embedding is not None and f.id in present)
    if not offered:
        return []
    missing = len(offered) - store.imports.with_model_embedding(offered)
    if not missing:
        return []
    space = _space(snapshot)
    why = _foreign(store, space)
    if why:
        return [
            f"{counted(missing, 'embedding')} of {space} for facts imported earlier not carried over: {why}"
        ]
    return [
        f"embeddings the source now gives for facts imported earlier without one: {missing},"
        " not carried over (facts already in the store are never changed)"
    ]


def _space(snapshot: Snapshot) -> str:
    return snapshot.space or snapshot.system


def _foreign(store: Store, space: str) -> str | None:
    """Why embeddings of `space` may not join this store's, or None when they may: the store
    holds none yet, or they are of its recorded space."""
    held = store.imports.model_embeddings()
    recorded = recorded_space(store)
    if not held or recorded == space:
        return None
    whose = f"those of {recorded}" if recorded else "of a model it did not record"
    return f"the store's {held} embeddings are {whose}, and one store never mixes two spaces"


def _one_space(
    store: Store, snapshot: Snapshot, new: list[ParsedFact]
) -> tuple[list[ParsedFact], str | None, list[str]]:
    """The new facts as they may enter this store, the space to record (None: leave meta
    as it is), and the line saying what was dropped."""
    carried = sum(f.embedding is not None for f in new)
    if not carried:
        return new, None, []
    space = _space(snapshot)
    why = _foreign(store, space)
    if why is None:
        return new, space, []
    return (
        [replace(f, embedding=None) if f.embedding is not None else f for f in new],
        None,
        [
            f"{counted(carried, 'embedding')} of {space} not carried over: {why}"
            " (the facts are imported; a store of their own keeps them)"
        ],
    )
