"""The browser's session: one owner for the scored memory, the queues and their counts,
marks, sort, search, as-of, the cursor's fact and triage in flight.

The Textual app holds one `Browser`; its workers call the methods that touch the store
(`load`, `search`, `triage`, `explain`, `texts`, `set_as_of`...) and post what they return
to the main thread, which installs it (`install`) and only reads `rows()` (numpy, no I/O)
to paint. Results are immutable (`state.py`), and a worker assigns nothing the main thread
reads, so a widget never sees half an update. The store's connection is used by one thread
at a time (`lock`). This module keeps the state and the turns; the work of a turn lives
in `loading.py` and `triage.py`, what only reads in `reads.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config
from synapse_tui.core.browser import loading, reads
from synapse_tui.core.browser.state import (
    Loaded,
    Rows,
    Search,
    State,
    TriageResult,
    Unloaded,
    View,
    require_loaded,
)
from synapse_tui.core.browser.triage import Progress, apply_move, refusal
from synapse_tui.core.browser.turns import Turns
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.queues import QUEUES, apply_sort, queue_order
from synapse_tui.core.review.reasons import Suspects, reason
from synapse_tui.core.review.sessionlog import LogEntry
from synapse_tui.core.review.triage import default_actor
from synapse_tui.core.store.api import Listener, Store
from synapse_tui.core.trust.explanation import Explanation

if TYPE_CHECKING:  # the graph views' modules (networkx) load when a view first opens
    from synapse_tui.core.graph.read import GraphRead


CLOCK_STEP = 60.0  # seconds after which a moving clock's scores are brought up to date


class Browser:
    """Workers call the methods that read or write the store; those that change what is
    shown (`load`, `find_duplicates`, `reload`, `set_as_of`, `set_config`, `catch_up`,
    `triage`) take a turn, compute the next `State` from the newest one (`_head`, which
    only a turn reads or writes) and return it, assigning nothing the main thread reads;
    the main thread's `install` makes it what `rows()` paints. Key order is kept: a
    triage's turn is taken at the keypress."""

    def __init__(self, store: Store, config: Config, clock: Clock) -> None:
        self.store, self.clock = store, clock
        self.lock = store.lock  # one user of the sqlite connection at a time
        self.turns = Turns()
        self.state: Unloaded | State = Unloaded(config)  # installed (main thread): what the views read
        self._head: Unloaded | State = self.state  # the newest computed (in a turn): the next starts here
        self.view = View()
        self._marks: frozenset[int] = frozenset()
        self._marks_made: tuple[int, str] | None = None  # the queue and search they belong to
        self._pending: set[str] = set()  # facts with a triage action in flight
        self.shown: Rows | None = None  # what `rows()` last returned: the list's order
        self.actor = default_actor(store)
        self.elsewhere = ""  # the notice for what another writer changed, until shown
        self.syncing = False  # this browser's own sync wrote: the next notice says so
        self._asked: int | None = None  # the store version a reload was last asked for

    # -- the installed state (main thread) ---------------------------------------------
    @property
    def config(self) -> Config:
        return self.state.config

    @config.setter
    def config(self, config: Config) -> None:
        """Before the first load (the CLI, tests): later, `set_config` in a worker."""
        self.state = self._head = replace(self.state, config=config)

    @property
    def scored(self) -> State | None:
        """The installed state once the store is loaded (None before the first load)."""
        return self.state if isinstance(self.state, State) else None

    @property
    def live(self) -> Memory | None:
        state = self.scored
        return state.live if state else None

    @property
    def memory(self) -> Memory | None:
        state = self.scored
        return state.memory if state else None

    @property
    def loaded_memory(self) -> Memory:
        """`memory`, for what runs only once the store is loaded (raises before)."""
        return require_loaded(self.state).memory

    @property
    def as_of(self) -> float | None:
        state = self.scored
        return state.as_of if state else None

    @property
    def exists(self) -> np.ndarray | None:
        state = self.scored
        return state.exists if state else None

    @property
    def suspects(self) -> Suspects | None:
        state = self.scored
        return state.suspects if state else None

    @property
    def suspects_ready(self) -> bool:
        state = self.scored
        return state.suspects_ready if state else False

    @property
    def session_start(self) -> int | None:
        return self.state.session_start

    @session_start.setter
    def session_start(self, start: int) -> None:
        """Before the first load (tests): the session log starts there."""
        self.state = self._head = replace(self.state, session_start=start)

    @property
    def own_batches(self) -> frozenset[int]:
        state = self.scored
        return state.own if state else frozenset()

    def install(self, result: Loaded | TriageResult | None) -> None:
        """Make a worker's result what the views show (main thread only)."""
        if isinstance(result, TriageResult):
            self._pending.difference_update(result.fact_ids)
            if result.state is not None and result.state.serial > self.state.serial:
                self.state = result.state
            if result.from_marks and result.error is None:
                self.clear_marks()
            return
        if result is None or result.state.serial <= self.state.serial:
            return
        self.state = result.state
        n = len(result.state.live)
        self._marks = frozenset(p for p in self._marks if p < n)
        if result.elsewhere:
            self.elsewhere = result.elsewhere

    # -- time -----------------------------------------------------------------------------
    def now(self) -> float:
        """The instant scores are for: the as-of time, else the clock (which moves unless
        pinned by --now / SYNAPSE_NOW)."""
        return self.as_of if self.as_of is not None else self.clock.now()

    @property
    def readonly_reason(self) -> str | None:
        return refusal(self.store, self.as_of)

    # -- loading (workers: each returns the next state) ----------------------------------
    @contextmanager
    def _turn(self, ticket: int | None = None) -> Iterator[Unloaded | State]:
        """The newest state, for this worker alone until it returns the next one."""
        with self.turns.turn(self.turns.take() if ticket is None else ticket):
            yield self._head

    @contextmanager
    def _loaded_turn(self) -> Iterator[State]:
        """`_turn`, for what only a loaded store has (raises before the first load)."""
        with self._turn() as head:
            yield require_loaded(head)

    def _advance(self, state: State) -> State:
        """Record `state` as the newest (inside a turn), for the next turn to start from."""
        self._head = replace(state, serial=self._head.serial + 1)
        return self._head

    def load(self, duplicates: bool = True) -> Loaded:
        """Read and score the store (`loading.load`)."""
        with self._turn() as head:
            return Loaded(self._advance(loading.load(self, head, duplicates)))

    def find_duplicates(self) -> Loaded:
        """Run the duplicate detectors a first `load(duplicates=False)` left."""
        with self._loaded_turn() as head:
            return Loaded(self._advance(loading.with_duplicates(self, head)))

    def reload(self) -> Loaded:
        """Re-read everything (another process committed), into a new `Memory`: the one
        on screen stays whole until this one replaces it."""
        with self._loaded_turn() as head:
            state, elsewhere = loading.reload(self, head)
            return Loaded(self._advance(state), elsewhere)

    def changed_elsewhere(self) -> bool:
        """Whether another connection committed since the newest state read the store
        (never blocks); True once per new version, so one reload is asked for per change."""
        head = self._head
        if not isinstance(head, State) or not self.lock.acquire(blocking=False):
            return False
        try:
            version = self.store.data_version()
        finally:
            self.lock.release()
        if version in (head.data_version, self._asked):
            return False
        self._asked = version
        return True

    def listener(self) -> Listener | None:
        """Another writer's change notices (the store's `listener()`, for one worker to
        wait on; a notice asks `changed_elsewhere` as the poll does), or None on a file,
        whose poll of data_version is cheap and is how it notices."""
        return self.store.listener()

    def set_as_of(self, when: float | None, rescore: bool = True) -> Loaded:
        """View the store as it was at `when` (None: now). Read-only while set."""
        with self._loaded_turn() as head:
            return Loaded(self._advance(loading.shown_at(self, head, when, rescore)))

    def set_config(self, config: Config) -> Loaded:
        """A new config (calibration wrote one): rescore everything."""
        with self._loaded_turn() as head:
            return Loaded(self._advance(loading.configured(self, head, config)))

    # -- what the list shows (main thread: numpy only) ------------------------------------
    def rows(self, cursor: str | None = None) -> Rows:
        state, view = self.scored, self.view
        if cursor is not None:
            view = self.view = replace(view, cursor=cursor)
        if state is None:
            return Rows(np.empty(0, np.int64), (0,) * len(QUEUES), view, False)
        memory = state.memory
        within = state.exists
        positions = view.search.positions
        if positions is not None:
            hit = np.zeros(len(memory), dtype=bool)
            hit[positions] = True
            within = hit if within is None else within & hit
        queue = QUEUES[view.queue]
        suspect = state.suspects.mask
        ranked = positions is not None and view.search.ranked and view.sort == "queue"
        if ranked and positions is not None:
            member = state.masks[view.queue] if within is None else state.masks[view.queue] & within
            order = positions[member[positions]]
            if view.reverse:
                order = order[::-1]
        else:
            order = apply_sort(memory, queue_order(memory, queue, suspect, within), view.sort, view.reverse)
        masks = state.masks if within is None else state.masks & within
        counts = tuple(
            None if q.key == "suspect" and not state.suspects_ready else int(c)
            for q, c in zip(QUEUES, masks.sum(axis=1), strict=True)
        )
        self.shown = Rows(order, counts, view, ranked)
        return self.shown

    def step(self, fact_id: str, delta: int, order: np.ndarray | None = None) -> str | None:
        """The fact `delta` rows from `fact_id` in `order` (default: the list's order now),
        clamped at its ends, or None when `fact_id` is not in it: the detail view's next /
        previous fact. The view passes the order it opened on, so a fact that left the
        queue (verified in Stale) still has a next one."""
        memory = self.memory
        if order is None:
            order = self.shown.order if self.shown is not None else None
        if memory is None or order is None or fact_id not in memory.index:
            return None
        hits = np.flatnonzero(order == memory.index[fact_id])
        if not len(hits):
            return None
        row = min(max(int(hits[0]) + delta, 0), len(order) - 1)
        return memory.ids[int(order[row])]

    def set_queue(self, index: int) -> None:
        self.view = replace(self.view, queue=index % len(QUEUES))

    def set_sort(self, column: str, reverse: bool | None = None) -> None:
        self.view = replace(self.view, sort=column, reverse=self.view.reverse if reverse is None else reverse)

    def set_search(self, search: Search) -> None:
        self.view = replace(self.view, search=search)

    def restore(self, view: View) -> None:
        self.view = view

    def reason(self, i: int) -> str:
        """Why fact `i` is in the queue shown (Suspect, Signature), or ''."""
        if self.memory is None:
            return ""
        return reason(self.memory, self.suspects, i, QUEUES[self.view.queue].key == "signature")

    def other(self, i: int) -> int | None:
        """The fact a suspect echoes (its duplicate), to jump to."""
        return self.suspects.other.get(i) if self.suspects else None

    # -- marks ----------------------------------------------------------------------------
    # Marks belong to the queue and search they were made in: elsewhere they are kept but
    # inert (`marks` is empty), so a triage key acts on the row the user sees, never on
    # facts hidden in another queue; back there they apply again.
    def _here(self) -> tuple[int, str]:
        search = self.view.search
        return self.view.queue, search.source.strip() if search.positions is not None else ""

    @property
    def marks(self) -> frozenset[int]:
        """The marks that apply to the list shown (empty when they were made elsewhere)."""
        return self._marks if self._marks_made == self._here() else frozenset()

    @marks.setter
    def marks(self, positions: frozenset[int]) -> None:
        self._marks = frozenset(positions)
        self._marks_made = self._here() if self._marks else None

    def marks_elsewhere(self) -> tuple[int, str]:
        """How many marks wait in another queue or search, and its name ('Stale', 'All,
        search "payments"'): (0, '') when none."""
        made = self._marks_made  # set whenever there are marks
        if not self._marks or made is None or made == self._here():
            return 0, ""
        queue, source = made
        where = QUEUES[queue].title + (f', search "{source}"' if source else "")
        return len(self._marks), where

    def toggle_mark(self, position: int) -> None:
        self.marks = self.marks ^ {position}

    def mark(self, positions: Any) -> None:
        self.marks = self.marks | {int(p) for p in positions}

    def clear_marks(self) -> None:
        self.marks = frozenset()

    # -- reads (workers): core/browser/reads.py --------------------------------------------
    def resolve(self, typed: str) -> str | None:
        return reads.resolve(self, typed)

    def search(self, source: str) -> Search:
        return reads.search(self, source)

    def texts(self, positions: list[int]) -> list[str]:
        return reads.texts(self, positions)

    def explain(self, fact_id: str) -> dict[str, Any] | None:
        return reads.explain(self, fact_id)

    def explanation(self, fact_id: str) -> Explanation | None:
        return reads.explanation(self, fact_id)

    def related(self, fact_id: str, exclude: tuple[str, ...] = (), limit: int = 50) -> GraphRead:
        return reads.related(self, fact_id, exclude, limit)

    def neighbourhood(self, fact_id: str) -> GraphRead:
        return reads.neighbourhood(self, fact_id)

    def path(self, a: str, b: str) -> GraphRead:
        return reads.path(self, a, b)

    def session_log(self) -> tuple[LogEntry, ...]:
        return reads.session_log(self)

    def session_batch(self, batch: int) -> tuple[LogEntry, ...]:
        return reads.session_batch(self, batch)

    def check_supersede(self, old: str, target: str) -> str | None:
        return reads.check_supersede(self, old, target)

    # -- triage ---------------------------------------------------------------------------
    def claim(self, fact_ids: list[str]) -> list[str]:
        """Reserve facts for a triage action (main thread, at the keypress; `install`
        releases them). Returns the facts already being changed: a key must act on the
        fact the user saw, never on one whose row is about to change."""
        busy = [f for f in fact_ids if f in self._pending]
        if not busy:
            self._pending.update(fact_ids)
        return busy

    @property
    def pending(self) -> frozenset[str]:
        return frozenset(self._pending)

    def triage(
        self,
        move: str,
        fact_ids: list[str],
        target: str | None = None,
        *,
        from_marks: bool = False,
        ticket: int | None = None,
        expect: int | None = None,
        progress: Progress | None = None,
    ) -> TriageResult:
        """Apply one move as one audited transaction and rescore what changed; the result
        carries the next state. An undo with `expect` reverts batch `expect` or nothing
        (`Triage.undo`). `progress(step, steps, what)` is told each step as it starts."""
        with self._turn(ticket) as head:
            with self.lock:
                result = apply_move(
                    self.store, self.clock, head, move, fact_ids, target, from_marks, expect, progress
                )
            if result.state is not None:
                result = replace(result, state=self._advance(result.state))
            return result

    # -- the moving clock (a worker) ------------------------------------------------------
    def clock_behind(self) -> bool:
        """Whether the live scores are for an earlier instant than the clock's: an action
        scored its facts at a later one (`Memory.mixed`), or CLOCK_STEP has passed."""
        live = self.live
        if live is None or self.as_of is not None or self.clock.pinned is not None or self._pending:
            return False
        return live.mixed or self.clock.now() - live.scores.now >= CLOCK_STEP

    def catch_up(self) -> Loaded | None:
        """Score every fact at the clock's instant (`loading.caught_up`); None when the
        past is on screen: it has its own instant."""
        with self._turn() as head:
            state = loading.caught_up(self, head) if isinstance(head, State) else None
            return None if state is None else Loaded(self._advance(state))
