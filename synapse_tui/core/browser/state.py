"""The browser's values, frozen: what a worker hands the main thread and what the list
is painted from.

The browser starts `Unloaded` (a config, nothing scored); its first load makes a
`State`, whose memory, suspects and queues are always there, so what runs after loading
reads them without checking for None. A worker computes the next `State` from the newest
before it and returns it (in a `Loaded` or a `TriageResult`); the main thread installs it
whole (`Browser.install`). No field is written after it is handed out, arrays included,
so a painter never sees half an update.
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
class Unloaded:
    """The browser before its first load: the config, and where the session's log starts
    when a caller set it (tests); nothing is scored yet. `load` turns it into a `State`."""

    config: Config
    session_start: int | None = None  # None: the first load marks it
    serial: int = 0  # the turn that made it (`State.serial`)


@dataclass(frozen=True, eq=False)
class State:
    """The scored memory and what the list is painted from, once the store is loaded. A
    worker computes the next one from the newest before it and returns it; the main
    thread installs it whole (`Browser.install`), so a painter never pairs one update's
    memory with another's masks. What is loaded is never None here; None is only where
    a field says so (as of, a duplicate search not run yet, no notice told)."""

    config: Config
    live: Memory  # the store now
    memory: Memory  # what is shown: `live`, or the store as of `as_of`
    duplicates: Suspects  # what the duplicate detectors found (none until they have run)
    suspects: Suspects  # the duplicates plus the unsupported claims, among what is shown
    masks: np.ndarray  # queue x position membership
    data_version: int  # the store's version this state has read
    loaded: int  # the audit's newest entry when `live` was read: actions are decided on it
    session_start: int  # the audit's newest entry when the browser opened
    as_of: float | None = None  # None: now
    exists: np.ndarray | None = None  # as of: the facts created by then (None: now)
    suspects_ready: bool = False  # the duplicate detectors have run
    texts: TextGroups | None = None  # the exact duplicates: a reload reads only appended texts
    seen: int | None = None  # the newest audit entry another writer's notice has told
    own: frozenset[int] = frozenset()  # the actions this browser made (the log tells them apart)
    undone: tuple[int, ...] = ()  # the batches this browser's undos took back: ctrl+y's stack
    serial: int = 0  # the turn that made it: a worker's result posted late never undoes a newer one


def require_loaded(state: Unloaded | State) -> State:
    """`state`, loaded: what runs only once the store is loaded (a move, a reload, as of)
    says so plainly when asked before, rather than failing on a missing memory."""
    if not isinstance(state, State):
        raise RuntimeError("the memory is not loaded yet")
    return state


@dataclass(frozen=True, eq=False)
class Loaded:
    """A worker's new state (load, duplicates, reload, as of, config, the clock)."""

    state: State
    elsewhere: str = ""  # a reload's notice of what another writer changed
