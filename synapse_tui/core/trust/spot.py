"""The score of a few facts, read straight from the store, without loading the rest.

Triage records each fact's score as it stood just before an action (SPEC 8), inside the
action's transaction, and a writer may be an agent's short-lived process: loading every
fact to score two would cost a second on a large store. The arithmetic is `trust.score`
on just those rows; the one non-local input, the supersession depth k, is found by
walking up the chain of supersessors from the fact.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.store.api import Store
from synapse_tui.core.store.ops import FactInputs, Inputs, Op, Supersession, Supersessors
from synapse_tui.core.trust.kinds import NONE, kind_of
from synapse_tui.core.trust.row import ScoreRecord
from synapse_tui.core.trust.score import FactArrays, score


def depth(store: Store, fact_id: str, first: list[Supersession] | None = None) -> int:
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
    return scored(store, config, now, *store.batch(spot_reads(config, fact_ids)))


def spot_reads(config: Config, fact_ids: list[str]) -> list[Op[Any]]:
    """What `spot_scores` reads (the inputs, and the first step of each depth), to ask
    with other reads (`Store.batch`): their answers go to `scored`."""
    ids = tuple(dict.fromkeys(fact_ids))
    return [FactInputs.of(ids, config), Supersessors(ids)]


def scored(
    store: Store, config: Config, now: float, rows: dict[int, Inputs], above: list[Supersession]
) -> dict[str, dict[str, Any]]:
    """`spot_scores` from the answers of `spot_reads` (a deeper chain's depth reads on)."""
    if not rows:
        return {}
    order = sorted(rows)
    facts = [rows[p] for p in order]
    by_pos = {p: fact.id for p, fact in zip(order, facts, strict=True)}
    counts = np.array([len(f.events) for f in facts], dtype=np.int64)
    offsets = np.zeros(len(order), dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    flat = np.concatenate([f.events for f in facts])
    arrays = FactArrays(
        r=np.array([f.r for f in facts], dtype=np.int64),
        s=np.array([f.s for f in facts], dtype=np.int64),
        declared=np.array([f.declared for f in facts], dtype=np.int8),
        sig_state=np.array([f.sig_state for f in facts], dtype=np.int8),
        sig_trusted=np.array([f.trusted for f in facts], dtype=bool),
        created=flat[offsets],
        events=flat,
        offsets=offsets,
        o1_count=np.array([f.o1_count for f in facts], dtype=np.int64),
        supersedes=np.full(len(order), -1, dtype=np.int64),
        deleted=np.array([f.deleted for f in facts], dtype=bool),
    )
    if config.freshness.kind:  # a kind's own constants (SPEC 14): the few facts' kinds
        kinds = [kind_of(rec.provenance if (rec := store.record(by_pos[p])) else None) for p in order]
        names = tuple(sorted({k for k in kinds if k is not None}))
        code = np.array([names.index(k) if k is not None else NONE for k in kinds], dtype=np.int16)
        arrays = replace(arrays, kind=code, kind_names=names)
    k = np.array([depth(store, by_pos[p], above) for p in order], dtype=np.int64)
    sc = score(arrays, config, now, k)
    return {by_pos[p]: ScoreRecord.of(by_pos[p], sc, arrays, j).to_json() for j, p in enumerate(order)}
