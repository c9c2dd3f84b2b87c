"""Did low trust predict what happened next? The backtest of SPEC 11.4: the store as it was
at T (the browser's as-of view), and what became of each fact alive then within the horizon,
from the store's own history. On a store imported from mem0 this asks, of the agent's own
record, whether the memories it later rewrote or deleted were the ones the score doubted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.review.asof import memory_as_of
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.trust import reliability as rel
from synapse_tui.core.trust.score import DAY

# what became of a fact alive at T, first event in the window wins; y = 1 only for survived
OUTCOMES = ("replaced", "deleted", "contradicted", "survived")
_KIND = {0: rel.REPLACED, 1: rel.WRONG, 2: rel.WRONG, 3: rel.HOLDS}


@dataclass(frozen=True)
class Backtest:
    at: float
    horizon_days: float
    outcome: np.ndarray  # index into OUTCOMES, per fact alive at T
    trust: np.ndarray  # its trust as of T
    positions: np.ndarray  # the facts alive at T

    def counts(self) -> dict[str, int]:
        n = np.bincount(self.outcome, minlength=len(OUTCOMES))
        return {name: int(c) for name, c in zip(OUTCOMES, n, strict=True)}

    def to_json(self) -> dict[str, Any]:
        y = (self.outcome == 3).astype(np.float64)
        kind = np.array([_KIND[o] for o in range(4)], dtype=np.int8)[self.outcome]
        h = self.horizon_days
        return {
            "at": format_time(self.at),
            "horizon_days": int(h) if float(h).is_integer() else h,
            "facts": len(self.trust),
            **self.counts(),
            "bins": rel.bins(self.trust, kind),
            "log_loss": rel.log_loss(self.trust, y),
            "auc": rel.auc(self.trust, y),
        }


def _first(times: np.ndarray, positions: list[int], when: list[float]) -> None:
    if positions:
        np.minimum.at(times, np.asarray(positions, dtype=np.int64), np.asarray(when))


def backtest(memory: Memory, at: float, horizon_days: float) -> Backtest:
    """Facts alive at `at` (created by then, a head then, not deleted then), scored as of
    `at`, and what happened to each within (at, at + horizon]."""
    past, exists = memory_as_of(memory, at)
    deleted = past.arrays.deleted
    alive = exists & (past.k == 0)
    if deleted is not None:
        alive &= ~deleted
    end = at + horizon_days * DAY
    n = len(memory)
    first = np.full((3, n), np.inf)  # replaced, deleted, contradicted: when it first happened
    # replaced: a fact made in the window names it (today's `supersedes`), or a person's
    # supersession in the window
    a = memory.arrays
    made = np.flatnonzero((a.created > at) & (a.created <= end) & (a.supersedes >= 0))
    _first(first[0], a.supersedes[made].tolist(), a.created[made].tolist())
    index = memory.index
    for row, action in ((0, "supersede"), (2, "contradict")):
        hits = [(index[f], t) for f, t in memory.store.audit.live_entries(action, at, end) if f in index]
        _first(first[row], [i for i, _ in hits], [t for _, t in hits])
    # deleted: its source deleted it in the window (a sync records the instant)
    when = [(pos, t) for pos, t in memory.store.review.deleted_at() if pos < n]
    inside = [(pos, t) for pos, t in when if at < t <= end]
    _first(first[1], [p for p, _ in inside], [t for _, t in inside])
    positions = np.flatnonzero(alive)
    times = first[:, positions]
    happened = np.isfinite(times).any(axis=0)
    outcome = np.where(happened, np.argmin(times, axis=0), 3).astype(np.int64)  # ties: listed order
    return Backtest(at, horizon_days, outcome, past.scores.trust[positions], positions)
