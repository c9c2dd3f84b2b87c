"""A triage move's turn: the store written in one audited transaction, the facts it
changed rescored, the queues patched where they changed, and the notice the user reads.

`Browser.triage` takes the move's turn and the store's lock and calls `apply_move`; the
`TriageResult` it returns carries the next `State` for the main thread to install.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from synapse_tui.core.base.clock import Clock, format_time
from synapse_tui.core.base.errors import StoreError, SynapseError
from synapse_tui.core.base.limits import counted
from synapse_tui.core.browser.state import State, TriageResult, Unloaded, require_loaded
from synapse_tui.core.review.junk import text_groups
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.notices import describe
from synapse_tui.core.review.queues import all_masks, masks_at
from synapse_tui.core.review.reasons import find_duplicates, recheck, with_unsupported
from synapse_tui.core.review.triage import Outcome, Triage, TriageError
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.score import Scores

Progress = Callable[[int, int, str], None]  # (step, steps, what it does), as each step starts
STEPS = 3  # writing, rescoring, and the browser's repaint (the main thread's)
RESCORING = 2  # the step after the write: a move that reached it is in the store


def refusal(store: Store, as_of: float | None, move: str | None = None) -> str | None:
    """Why triage is off (a read-only store, the past on screen), or None; with `move`,
    also why this store's login may not make that one (a server's agent role: accept)."""
    if store.readonly:  # and why, when it was opened for writing (its folder, say)
        why = store.readonly_why or f"{store.path} cannot be written"
        return f"read-only: {why}; triage is off"
    if as_of is not None:
        return f"as of {format_time(as_of)}: the past is read-only; escape returns to now"
    lacking = withheld(store)
    if move in lacking:
        return f"{lacking[move]}; nothing was tried"
    return None


def withheld(store: Store) -> dict[str, str]:
    """{move: why this store's login may not make it}: on a server, an agent's role lacks
    accept and supersede; a file's login, and a server's owner, may make every move."""
    return dict(store.capabilities.refused)


def login(store: Store) -> str | None:
    """The role a server's session acts as (a title says it), or None for a file."""
    return store.capabilities.role


def apply_move(
    store: Store,
    clock: Clock,
    head: Unloaded | State,
    move: str,
    fact_ids: list[str],
    target: str | None,
    from_marks: bool,
    expect: int | None,
    progress: Progress | None = None,
) -> TriageResult:
    """One move as one audited transaction (the caller holds the store's lock, in the
    move's turn): the changed facts rescored, and the next state, not yet installed. An
    undo with `expect` reverts batch `expect` or nothing (`Triage.undo`). A refused move
    returns its reason in `error`; a store that fails under the write (a lock, a file that
    cannot be written: `StoreError` or the driver's error) raises, and nothing was written."""
    asked = tuple(fact_ids)
    refused = refusal(store, head.as_of if isinstance(head, State) else None, move)
    if refused:
        return TriageResult(move, None, "", error=refused, fact_ids=asked)
    head = require_loaded(head)
    memory = head.live
    triage = Triage(store, clock, config=head.config)
    undone = list(head.undone)
    told = progress or (lambda step, steps, what: None)
    told(1, STEPS, f"writing {counted(len(fact_ids), 'fact')}" if fact_ids else f"{move} in the store")
    try:
        if move == "undo":
            batch = triage.undo_target() if expect is None else expect
            if batch is None:  # what `undo` says too: it would find none either
                raise TriageError("nothing to undo")
            outcome = triage.undo(expect=batch)
            undone.append(batch)
        elif move == "redo":
            # exactly what this browser's last undo took back, or nothing: never an
            # older undo, nor another writer's (after a restart: the store's newest)
            outcome = triage.redo(expect=undone.pop() if undone else None)
        else:
            # decided on what the list shows: refused if another writer changed a fact since
            outcome = triage.apply(move, fact_ids, target, seen=head.loaded, own=head.own)
            undone.clear()  # a new action: what was undone before it stays undone
    except StoreError:
        raise  # the write failed (a lock, a store that cannot be written): not a refusal
    except SynapseError as exc:
        # a refused redo still used up the undo it meant
        state = replace(head, undone=tuple(undone)) if tuple(undone) != head.undone else None
        return TriageResult(move, None, "", error=str(exc), fact_ids=asked, state=state)
    before = memory.scores
    ids = list(dict.fromkeys(outcome.fact_ids))
    told(RESCORING, STEPS, f"rescoring {counted(len(ids), 'fact')}")
    foreign = store.data_version() != head.data_version  # another process committed
    if (foreign and store.count() != len(memory)) or any(f not in memory.index for f in ids):
        loaded = store.audit.mark()
        memory = Memory(store, head.config, clock.now())  # another process added facts
        texts = text_groups(store, memory.ids, memory.index, head.texts)
        found = find_duplicates(memory, exact=texts.groups)
        suspects = with_unsupported(found, memory)
        state = replace(
            head,
            live=memory,
            memory=memory,
            loaded=loaded,
            duplicates=found,
            suspects_ready=True,
            texts=texts,
            suspects=suspects,
            masks=all_masks(memory, suspects.mask),
        )
        repaint = None
    else:
        # the changed facts at the clock's instant (it moves); the rest catch up later
        changed = memory.refresh(ids, clock.now())
        touched = np.array(sorted({memory.index[f] for f in ids}), dtype=np.int64)
        rescored = np.union1d(touched, changed)
        state = _requeue(head, rescored)
        repaint = _looks_different(before, memory.scores, rescored)
    state = replace(
        state,
        data_version=store.data_version(),
        own=head.own | {outcome.batch},
        undone=tuple(undone),
    )
    notice = describe(outcome, ids, memory.index, before, memory.scores, memory.config.guidance)
    follow = _came_back(outcome) if move in ("undo", "redo") else None
    return TriageResult(
        move,
        outcome,
        notice,
        follow=follow,
        from_marks=from_marks,
        repaint=repaint,
        fact_ids=asked,
        state=state,
    )


def _requeue(state: State, positions: np.ndarray) -> State:
    """Queue membership after a change at `positions`."""
    suspects = recheck(state.suspects, state.live, positions)
    masks = state.masks.copy()  # never write an array already handed out
    masks[:, positions] = masks_at(state.live, suspects.mask, positions)
    return replace(state, suspects=suspects, masks=masks)


def _came_back(outcome: Outcome) -> str | None:
    """The fact an undo or redo gives back, for the cursor to follow: the one fact it
    changed, the superseded one of a supersession (not its replacement), or None for a
    bulk (the cursor stays where the user was)."""
    changes = outcome.changes
    chained = [c.fact_id for c in changes if "superseded_by" in c.before or "superseded_by" in c.after]
    if chained:
        return chained[0]
    ids = list(dict.fromkeys(c.fact_id for c in changes))
    return ids[0] if len(ids) == 1 else None


def _looks_different(before: Scores, after: Scores, positions: np.ndarray) -> np.ndarray:
    """Of `positions` (the rescored ones), those whose list row shows something else now:
    trust to two decimals, band, guidance, depth, tier, flags, age in days."""
    differs = np.round(before.trust[positions], 2) != np.round(after.trust[positions], 2)
    for name in ("band", "guidance", "k", "tier", "flags"):
        differs |= getattr(before, name)[positions] != getattr(after, name)[positions]
    differs |= np.floor(before.age_days[positions]) != np.floor(after.age_days[positions])
    return positions[differs]
