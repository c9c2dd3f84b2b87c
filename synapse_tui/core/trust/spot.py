"""The score of a few facts, read straight from the store, without loading the rest.

Triage records each fact's score as it stood just before an action (SPEC 8), inside the
action's transaction, and a writer may be an agent's short-lived process: loading every
fact to score two would cost a second on a large store. The arithmetic is `trust.score`
on just those rows; the one non-local input, the supersession depth k, is found by
walking up the chain of supersessors from the fact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.read import Read
from synapse_tui.core.trust.row import ScoreRecord
from synapse_tui.core.trust.score import FactArrays, score


def depth(store: Store, fact_id: str, first: list[tuple[str, str]] | None = None) -> int:
    """k of one fact: the fewest supersession steps up to a fact nothing supersedes.

    Breadth-first over `supersedes` (indexed), so the cost is the size of the chain.
    `first`: the first step's (old, new) pairs when already read (of this fact, or of
    several facts this one among them)."""
    frontier, seen, level = [fact_id], {fact_id}, 0
    while frontier:
        by: dict[str, list[str]] = {f: [] for f in frontier}
        pairs = store.supersessors(frontier) if first is None else first
        first = None
        for old, new in pairs:
            if old in by:
                by[old].append(new)
        if any(not newer for newer in by.values()):
            return level
        frontier = [n for newer in by.values() for n in newer if n not in seen]
        seen.update(frontier)
        level += 1
    return level  # only on a cycle, which import and triage refuse


def spot_scores(store: Store, config: Config, now: float, fact_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Score and inputs of each fact in `fact_ids` (unknown ids are left out), by id: the
    `ScoreRecord` JSON an audit entry keeps in `score_before` (SPEC 8), full floats."""
    return scored(store, config, now, *store.read_all(spot_reads(store, config, fact_ids)))


def spot_reads(store: Store, config: Config, fact_ids: list[str]) -> list[Read]:
    """What `spot_scores` reads (the inputs, and the first step of each depth), to send
    with other reads: their answers go to `scored`."""
    ids = list(dict.fromkeys(fact_ids))
    return [store.fact_inputs_read(ids, config), store.supersessors_read(ids)]


def scored(
    store: Store, config: Config, now: float, rows: dict[int, tuple], above: list[tuple[str, str]]
) -> dict[str, dict[str, Any]]:
    """`spot_scores` from the answers of `spot_reads` (a deeper chain's depth reads on)."""
    if not rows:
        return {}
    order = sorted(rows)
    cols = list(zip(*(rows[p] for p in order), strict=True))
    by_pos = dict(zip(order, cols[0], strict=True))
    _, r, s, declared, sig_state, trusted, o1, _sup, deleted, events = cols
    counts = np.array([len(e) for e in events], dtype=np.int64)
    offsets = np.zeros(len(order), dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    flat = np.concatenate(events)
    arrays = FactArrays(
        r=np.array(r, dtype=np.int64),
        s=np.array(s, dtype=np.int64),
        declared=np.array(declared, dtype=np.int8),
        sig_state=np.array(sig_state, dtype=np.int8),
        sig_trusted=np.array(trusted, dtype=bool),
        created=flat[offsets],
        events=flat,
        offsets=offsets,
        o1_count=np.array(o1, dtype=np.int64),
        supersedes=np.full(len(order), -1, dtype=np.int64),
        deleted=np.array(deleted, dtype=bool),
    )
    k = np.array([depth(store, by_pos[p], above) for p in order], dtype=np.int64)
    sc = score(arrays, config, now, k)
    return {by_pos[p]: ScoreRecord.of(by_pos[p], sc, arrays, j).to_json() for j, p in enumerate(order)}
