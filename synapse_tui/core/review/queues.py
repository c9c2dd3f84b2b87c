"""The triage queues: which facts each holds and in which order (most decision-worthy first).

Pure numpy over a Memory. A queue's membership is a per-position test, so after a triage
action the browser re-tests just the positions whose score changed (`masks_at`) instead
of the whole store. Facts the source system deleted leave every triage queue (All keeps
them, dimmed); a superseded fact has had its dispute resolved by a newer version.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from synapse_tui.core.trust.score import (
    FLAG_DELETED,
    FLAG_EXPIRED,
    FLAG_SIG_INVALID,
    FLAG_SIG_UNTRUSTED,
    SIGNED,
)

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory

At = Any  # an index array of positions, or slice(None) for every fact


@dataclass(frozen=True)
class Queue:
    key: str
    title: str
    short: str  # for narrow terminals
    why: str
    # membership at positions `at`, given the suspect mask
    test: Callable[[Memory, np.ndarray | None, At], np.ndarray]
    # sort keys for np.lexsort: the LAST key is the primary one
    order: Callable[[Memory], list[np.ndarray]]

    def mask(self, memory: Memory, suspect: np.ndarray | None) -> np.ndarray:
        return self.test(memory, suspect, slice(None))


def _size(m: Memory, at: At) -> int:
    return len(m) if isinstance(at, slice) else len(at)


def _live(m: Memory, at: At) -> np.ndarray:
    return (m.scores.flags[at] & (FLAG_DELETED | FLAG_EXPIRED)) == 0


def _all(m: Memory, suspect: np.ndarray | None, at: At) -> np.ndarray:
    return np.ones(_size(m, at), dtype=bool)


def _stale(m: Memory, suspect: np.ndarray | None, at: At) -> np.ndarray:
    return (m.scores.freshness[at] < m.config.review.threshold) & _live(m, at)


def _disputed(m: Memory, suspect: np.ndarray | None, at: At) -> np.ndarray:
    return (m.scores.guidance[at] == 0) & (m.scores.k[at] == 0) & _live(m, at)


def _uncertain(m: Memory, suspect: np.ndarray | None, at: At) -> np.ndarray:
    return (m.scores.guidance[at] == 1) & (m.scores.k[at] == 0) & _live(m, at)


def _superseded(m: Memory, suspect: np.ndarray | None, at: At) -> np.ndarray:
    return (m.scores.k[at] > 0) & _live(m, at)


def _suspect(m: Memory, suspect: np.ndarray | None, at: At) -> np.ndarray:
    if suspect is None:
        return np.zeros(_size(m, at), dtype=bool)
    return suspect[at] & _live(m, at)


def _signature(m: Memory, suspect: np.ndarray | None, at: At) -> np.ndarray:
    return ((m.scores.flags[at] & (FLAG_SIG_INVALID | FLAG_SIG_UNTRUSTED)) != 0) & _live(m, at)


def _pos(m: Memory) -> np.ndarray:
    return np.arange(len(m))


QUEUES: tuple[Queue, ...] = (
    Queue("all", "All", "All", "every fact, in store order", _all, lambda m: [_pos(m)]),
    Queue(
        "stale",
        "Stale",
        "Stale",
        "freshness below the review threshold; the stalest current versions first",
        _stale,
        lambda m: [_pos(m), m.scores.freshness, m.scores.k > 0],
    ),
    Queue(
        "disputed",
        "Disputed",
        "Disp",
        "current versions whose contradictions weigh d >= disputed_d; most contested first",
        _disputed,
        lambda m: [_pos(m), -(m.arrays.r + m.arrays.s), -m.scores.d],
    ),
    Queue(
        "uncertain",
        "Uncertain",
        "Unc",
        "current versions with too little evidence (u >= uncertain_u); highest Freshness score first",
        _uncertain,
        lambda m: [_pos(m), -m.scores.freshness],
    ),
    Queue(
        "superseded",
        "Superseded",
        "Sup",
        "replaced by a newer fact (k > 0); still-trusted first",
        _superseded,
        lambda m: [_pos(m), -m.scores.trust],
    ),
    Queue(
        "suspect",
        "Suspect",
        "Susp",
        "duplicates, near-duplicates and unsupported claims",
        _suspect,
        lambda m: [_pos(m), -m.scores.trust],
    ),
    Queue(
        "signature",
        "Signature",
        "Sig",
        "a signature that does not verify or is not trusted; facts that claim 'signed' first",
        _signature,
        lambda m: [_pos(m), -m.scores.trust, (m.arrays.declared != SIGNED)],
    ),
)


def queue_order(
    memory: Memory, queue: Queue, suspect: np.ndarray | None, within: np.ndarray | None = None
) -> np.ndarray:
    """Positions of the queue's facts (only those in `within`, a mask), most decision-worthy first."""
    mask = queue.mask(memory, suspect)
    if within is not None:
        mask = mask & within
    keys = [np.asarray(k)[mask] for k in queue.order(memory)]
    return np.flatnonzero(mask)[np.lexsort(keys)]


def all_masks(memory: Memory, suspect: np.ndarray | None) -> np.ndarray:
    """Membership of every queue, one row per queue."""
    return (
        np.stack([q.mask(memory, suspect) for q in QUEUES])
        if len(memory)
        else np.zeros((len(QUEUES), 0), bool)
    )


def masks_at(memory: Memory, suspect: np.ndarray | None, at: np.ndarray) -> np.ndarray:
    """Membership of every queue at positions `at` only (after a few facts changed)."""
    return np.stack([q.test(memory, suspect, at) for q in QUEUES])


SORTS: tuple[tuple[str, str], ...] = (
    ("queue", "queue order"),
    ("trust", "trust"),
    ("fresh", "freshness"),
    ("age", "age"),
    ("tier", "tier"),
    ("guidance", "guidance"),
    ("id", "id"),
)


def sort_key(memory: Memory, column: str) -> np.ndarray | None:
    sc = memory.scores
    if column == "trust":
        return sc.trust
    if column == "fresh":
        return sc.freshness
    if column == "age":
        return sc.age_days
    if column == "tier":
        return sc.tier.astype(np.float64) + sc.trust  # tier, then trust within a tier
    if column == "guidance":
        return sc.guidance.astype(np.float64) + sc.trust
    if column == "id":
        return _id_rank(memory)
    return None


_ID_RANK_CACHE: dict[int, np.ndarray] = {}


def _id_rank(memory: Memory) -> np.ndarray:
    key = id(memory.ids)
    if key not in _ID_RANK_CACHE:
        _ID_RANK_CACHE.clear()
        rank = np.empty(len(memory.ids), dtype=np.int64)
        rank[np.argsort(np.array(memory.ids, dtype=object))] = np.arange(len(memory.ids))
        _ID_RANK_CACHE[key] = rank
    return _ID_RANK_CACHE[key]


def apply_sort(memory: Memory, order: np.ndarray, column: str, reverse: bool) -> np.ndarray:
    """Re-sort an order by a column (stable, so ties keep the queue's order)."""
    key = sort_key(memory, column)
    if key is not None:
        k = key[order]
        order = order[np.argsort(-k if reverse else k, kind="stable")]
    elif reverse:
        order = order[::-1]
    return order
