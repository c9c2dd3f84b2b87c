"""The triage queues: which facts each holds and in which order (most decision-worthy first).

Pure numpy over a Memory; the browser shows them as tabs with live counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.trust import FLAG_SIG_INVALID, FLAG_SIG_UNTRUSTED, SIGNED

if TYPE_CHECKING:
    from ..core.memory import Memory


@dataclass(frozen=True)
class Queue:
    key: str
    title: str
    short: str  # for narrow terminals
    why: str
    mask: Callable[[Memory, np.ndarray | None], np.ndarray]
    # sort keys for np.lexsort: the LAST key is the primary one
    order: Callable[[Memory], list[np.ndarray]]


def _all(m: Memory, suspect: np.ndarray | None) -> np.ndarray:
    return np.ones(len(m), dtype=bool)


def _stale(m: Memory, suspect: np.ndarray | None) -> np.ndarray:
    return m.scores.freshness < m.config.review.threshold


def _disputed(m: Memory, suspect: np.ndarray | None) -> np.ndarray:
    return m.scores.guidance == 0


def _uncertain(m: Memory, suspect: np.ndarray | None) -> np.ndarray:
    return m.scores.guidance == 1


def _superseded(m: Memory, suspect: np.ndarray | None) -> np.ndarray:
    return m.scores.k > 0


def _suspect(m: Memory, suspect: np.ndarray | None) -> np.ndarray:
    if suspect is None:
        return np.zeros(len(m), dtype=bool)
    return suspect


def _signature(m: Memory, suspect: np.ndarray | None) -> np.ndarray:
    return (m.scores.flags & (FLAG_SIG_INVALID | FLAG_SIG_UNTRUSTED)) != 0


def _pos(m: Memory) -> np.ndarray:
    return np.arange(len(m))


QUEUES: tuple[Queue, ...] = (
    Queue("all", "All", "All", "every fact, in store order", _all, lambda m: [_pos(m)]),
    Queue(
        "stale",
        "Stale",
        "Stale",
        "freshness below the review threshold; confident-but-stale current versions first",
        _stale,
        lambda m: [_pos(m), -(m.scores.confidence * (1 - m.scores.freshness)), m.scores.k > 0],
    ),
    Queue(
        "disputed",
        "Disputed",
        "Disp",
        "contradictions weigh d >= disputed_d; most contested first",
        _disputed,
        lambda m: [_pos(m), -(m.arrays.r + m.arrays.s), -m.scores.d],
    ),
    Queue(
        "uncertain",
        "Uncertain",
        "Unc",
        "too little evidence (u >= uncertain_u); freshest first",
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


def queue_order(memory: Memory, queue: Queue, suspect: np.ndarray | None) -> np.ndarray:
    """Positions of the queue's facts, most decision-worthy first."""
    mask = queue.mask(memory, suspect)
    keys = [np.asarray(k)[mask] for k in queue.order(memory)]
    return np.flatnonzero(mask)[np.lexsort(keys)]


def counts(memory: Memory, suspect: np.ndarray | None, within: np.ndarray | None) -> list[int]:
    """Facts per queue, counting only `within` (a boolean mask) when a search is active."""
    out = []
    for q in QUEUES:
        mask = q.mask(memory, suspect)
        out.append(int((mask & within).sum() if within is not None else mask.sum()))
    return out


SORTS: tuple[tuple[str, str], ...] = (
    ("queue", "queue order"),
    ("trust", "trust"),
    ("age", "age"),
    ("tier", "tier"),
    ("guidance", "guidance"),
    ("id", "id"),
)


def sort_key(memory: Memory, column: str) -> np.ndarray | None:
    sc = memory.scores
    if column == "trust":
        return sc.trust
    if column == "age":
        return sc.age_days
    if column == "tier":
        return sc.tier.astype(np.float64) + sc.trust  # tier, then trust within a tier
    if column == "guidance":
        return sc.guidance.astype(np.float64) + sc.trust
    if column == "id":
        return memory_id_rank(memory)
    return None


_ID_RANK_CACHE: dict[int, np.ndarray] = {}


def memory_id_rank(memory: Memory) -> np.ndarray:
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
