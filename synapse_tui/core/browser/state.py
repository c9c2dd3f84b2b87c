"""The browser's values, frozen: what a worker hands the main thread and what the list
is painted from.

A worker computes the next `State` from the newest before it and returns it (in a
`Loaded` or a `TriageResult`); the main thread installs it whole (`Browser.install`). No
field is written after it is handed out, arrays included, so a painter never sees half
an update.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.review.junk import TextGroups
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.reasons import Suspects
from synapse_tui.core.review.triage import Outcome


@dataclass(frozen=True, eq=False)
class Search:
    source: str = ""
    positions: np.ndarray | None = None  # None: no search
    ranked: bool = False  # words given: ordered by relevance, then trust
    note: str = ""  # what the search box says under the query (a shortened id naming several)


@dataclass(frozen=True)
class View:
    """Where the user is: restored after a walk through the neighbour view."""

    queue: int = 0
    sort: str = "queue"
    reverse: bool = False
    search: Search = field(default_factory=Search)
    cursor: str | None = None


@dataclass(frozen=True, eq=False)
class Rows:
    """What the list shows: positions in order, the queue counts, where the cursor goes."""

    order: np.ndarray
    counts: tuple[int | None, ...]  # None: not known yet (the duplicate detectors still run)
    view: View
    ranked: bool  # the order is relevance, then trust


@dataclass(frozen=True)
class TriageResult:
    move: str
    outcome: Outcome | None
    notice: str
    error: str | None = None
    follow: str | None = None  # the fact the cursor follows (undo / redo: the one that came back)
    from_marks: bool = False
    repaint: np.ndarray | None = None  # positions whose row looks different now (None: all)
    fact_ids: tuple[str, ...] = ()  # the facts it was asked to change (`claim`ed at the key)
    state: State | None = None  # the browser's next state (None: as it was)


@dataclass(frozen=True, eq=False)
class State:
    """The scored memory and what the list is painted from. A worker computes the next
    one from the newest before it and returns it; the main thread installs it whole
    (`Browser.install`), so a painter never pairs one update's memory with another's masks."""

    config: Config
    live: Memory | None = None  # the store now
    memory: Memory | None = None  # what is shown: `live`, or the store as of `as_of`
    as_of: float | None = None
    exists: np.ndarray | None = None  # as of: the facts created by then
    duplicates: Suspects | None = None  # what the duplicate detectors found
    suspects_ready: bool = False  # the duplicate detectors have run
    texts: TextGroups | None = None  # the exact duplicates: a reload reads only appended texts
    suspects: Suspects | None = None  # the duplicates plus the unsupported claims
    masks: np.ndarray | None = None  # queue x position membership
    data_version: int | None = None  # the store's version this state has read
    loaded: int | None = None  # the audit's newest entry when `live` was read: actions are decided on it
    session_start: int | None = None  # the audit's newest entry when the browser opened
    seen: int | None = None  # the newest audit entry another writer's notice has told
    own: frozenset[int] = frozenset()  # the actions this browser made (the log tells them apart)
    undone: tuple[int, ...] = ()  # the batches this browser's undos took back: ctrl+y's stack
    serial: int = 0  # the turn that made it: a worker's result posted late never undoes a newer one

    # What runs only once the store is loaded (moves, reloads, as of) asks for these: a
    # state before the first load has neither, and saying so beats an AttributeError.
    @property
    def loaded_live(self) -> Memory:
        """`live`, loaded."""
        if self.live is None:
            raise RuntimeError("the memory is not loaded yet")
        return self.live

    @property
    def loaded_memory(self) -> Memory:
        """`memory` (what is shown), loaded."""
        if self.memory is None:
            raise RuntimeError("the memory is not loaded yet")
        return self.memory

    @property
    def loaded_suspects(self) -> Suspects:
        """`suspects` of a loaded state."""
        if self.suspects is None:
            raise RuntimeError("the memory is not loaded yet")
        return self.suspects

    @property
    def loaded_masks(self) -> np.ndarray:
        """`masks` of a loaded state."""
        if self.masks is None:
            raise RuntimeError("the memory is not loaded yet")
        return self.masks


@dataclass(frozen=True, eq=False)
class Loaded:
    """A worker's new state (load, duplicates, reload, as of, config, the clock)."""

    state: State
    elsewhere: str = ""  # a reload's notice of what another writer changed
