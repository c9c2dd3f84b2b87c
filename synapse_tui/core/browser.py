"""The browser's state, headless: one owner for the scored memory, the queues and their
counts, marks, sort, search, as-of, the cursor's fact and triage in flight.

The Textual app holds one `Browser`; its workers call the methods that touch the store
(`load`, `search`, `triage`, `explain`, `texts`, `set_as_of`...) and post what they return
to the main thread, which installs it (`install`) and only reads `rows()` (numpy, no I/O)
to paint. Results are immutable (frozen dataclasses, arrays never written after they are
handed out), and a worker assigns nothing the main thread reads, so a widget never sees
half an update. The store's connection is used by one thread at a time (`lock`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.review import query as fq
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.notices import describe, describe_elsewhere
from synapse_tui.core.review.queues import QUEUES, all_masks, apply_sort, masks_at, queue_order
from synapse_tui.core.review.reasons import Suspects, find_duplicates, reason, recheck, with_unsupported
from synapse_tui.core.review.sessionlog import LogEntry, session_batch, session_log, session_mark
from synapse_tui.core.review.triage import Outcome, Triage, default_actor
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.errors import OperationalError
from synapse_tui.core.trust.explanation import Explanation

if TYPE_CHECKING:  # the graph views' modules (networkx) load when a view first opens
    from synapse_tui.core.graph.ego import GraphRead
    from synapse_tui.core.review.blast import BlastRadius


CLOCK_STEP = 60.0  # seconds after which a moving clock's scores are brought up to date


@dataclass(frozen=True, eq=False)
class Search:
    source: str = ""
    positions: np.ndarray | None = None  # None: no search
    ranked: bool = False  # words given: ordered by relevance, then trust


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


class Turns:
    """Triage applies moves in the order the keys were pressed (the lock alone serialises
    them, but not in order)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._issued = 0
        self._serving = 0

    def take(self) -> int:
        with self._cond:
            self._issued += 1
            return self._issued - 1

    @contextmanager
    def turn(self, ticket: int) -> Iterator[None]:
        with self._cond:
            # a turn whose worker never ran (app exiting) must not wedge the rest
            self._cond.wait_for(lambda: self._serving >= ticket, timeout=30)
        try:
            yield
        finally:
            with self._cond:
                self._serving = max(self._serving, ticket + 1)
                self._cond.notify_all()


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
    suspects: Suspects | None = None  # the duplicates plus the unsupported claims
    masks: np.ndarray | None = None  # queue x position membership
    data_version: int | None = None  # the store's version this state has read
    session_start: int | None = None  # the audit's newest entry when the browser opened
    seen: int | None = None  # the newest audit entry another writer's notice has told
    own: frozenset[int] = frozenset()  # the actions this browser made (the log tells them apart)
    undone: tuple[int, ...] = ()  # the batches this browser's undos took back: ctrl+y's stack
    serial: int = 0  # the turn that made it: a worker's result posted late never undoes a newer one


@dataclass(frozen=True, eq=False)
class Loaded:
    """A worker's new state (load, duplicates, reload, as of, config, the clock)."""

    state: State
    elsewhere: str = ""  # a reload's notice of what another writer changed


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
        self.state = State(config)  # installed (main thread): what the views read
        self._head = self.state  # the newest computed (in a turn): what the next turn starts from
        self.view = View()
        self._marks: frozenset[int] = frozenset()
        self._marks_made: tuple[int, str] | None = None  # the queue and search they belong to
        self._pending: set[str] = set()  # facts with a triage action in flight
        self.shown: Rows | None = None  # what `rows()` last returned: the list's order
        self.actor = default_actor()
        self.elsewhere = ""  # the notice for what another writer changed, until shown
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
    def live(self) -> Memory | None:
        return self.state.live

    @property
    def memory(self) -> Memory | None:
        return self.state.memory

    @property
    def as_of(self) -> float | None:
        return self.state.as_of

    @property
    def exists(self) -> np.ndarray | None:
        return self.state.exists

    @property
    def suspects(self) -> Suspects | None:
        return self.state.suspects

    @property
    def suspects_ready(self) -> bool:
        return self.state.suspects_ready

    @property
    def session_start(self) -> int | None:
        return self.state.session_start

    @session_start.setter
    def session_start(self, start: int | None) -> None:
        """Before the first load (tests): the session log starts there."""
        self.state = self._head = replace(self.state, session_start=start)

    @property
    def own_batches(self) -> frozenset[int]:
        return self.state.own

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
        n = len(result.state.live) if result.state.live is not None else 0
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
        return self._readonly(self.as_of)

    def _readonly(self, as_of: float | None) -> str | None:
        if self.store.readonly:  # and why, when it was opened for writing (its folder, say)
            why = self.store.readonly_why or f"{self.store.path} cannot be written"
            return f"read-only: {why}; triage is off"
        if as_of is not None:
            from synapse_tui.core.base.clock import format_time

            return f"as of {format_time(as_of)}: the past is read-only; escape returns to now"
        return None

    # -- loading (workers: each returns the next state) ----------------------------------
    @contextmanager
    def _turn(self, ticket: int | None = None) -> Iterator[State]:
        """The newest state, for this worker alone until it returns the next one."""
        with self.turns.turn(self.turns.take() if ticket is None else ticket):
            yield self._head

    def _advance(self, state: State) -> State:
        """Record `state` as the newest (inside a turn), for the next turn to start from."""
        self._head = replace(state, serial=self._head.serial + 1)
        return self._head

    def load(self, duplicates: bool = True) -> Loaded:
        """Read and score the store. `duplicates=False` leaves the duplicate detectors (a
        read of every text) to `find_duplicates`, so the list can paint first."""
        with self._turn() as head:
            with self.lock:
                live = Memory(self.store, head.config, self.clock.now())
                version = self.store.data_version()
                start = head.session_start
                if start is None:
                    start = session_mark(self.store)
                found = find_duplicates(live) if duplicates else Suspects(np.zeros(len(live), dtype=bool))
                if duplicates:
                    self.store.prepare_search()
                    live.ready_spare()
            seen = head.seen if head.session_start is not None else start
            state = replace(
                head,
                live=live,
                data_version=version,
                session_start=start,
                seen=seen,
                duplicates=found,
                suspects_ready=duplicates,
            )
            return Loaded(self._advance(self._at(state, state.as_of, rescore=False)))

    def find_duplicates(self) -> Loaded:
        with self._turn() as head:
            with self.lock:
                found = find_duplicates(head.live)
                self.store.prepare_search()  # after first paint: the first `/` costs what later ones do
                head.live.ready_spare()  # and the first action what later ones do
            state = replace(head, duplicates=found, suspects_ready=True)
            return Loaded(self._advance(self._at(state, head.as_of, rescore=False)))

    def reload(self) -> Loaded:
        """Re-read everything (another process committed), into a new `Memory`: the one
        on screen stays whole until this one replaces it."""
        with self._turn() as head:
            with self.lock:
                live = Memory(self.store, head.config, self.clock.now())
                found = find_duplicates(live)
                version = self.store.data_version()
                seen, elsewhere = self._told_elsewhere(head, len(live) - len(head.live))
            state = replace(
                head, live=live, duplicates=found, suspects_ready=True, data_version=version, seen=seen
            )
            return Loaded(self._advance(self._at(state, head.as_of, rescore=False)), elsewhere)

    def _told_elsewhere(self, head: State, added: int) -> tuple[int | None, str]:
        """What another writer did since the last notice: facts added, actions by anyone
        but this browser (a CLI user of the same login too); and the newest entry told."""
        if head.seen is None:
            return None, ""
        theirs = [
            (e.actor, e.what, e.fact_id, e.facts)
            for e in reversed(session_log(self.store, head.seen, config=head.config))
            if e.batch not in head.own
        ]
        return session_mark(self.store), describe_elsewhere(max(added, 0), max(-added, 0), theirs)

    def changed_elsewhere(self) -> bool:
        """Whether another connection committed since the newest state read the store
        (never blocks); True once per new version, so one reload is asked for per change."""
        head = self._head
        if head.live is None or not self.lock.acquire(blocking=False):
            return False
        try:
            version = self.store.data_version()
        finally:
            self.lock.release()
        if head.data_version is None or version in (head.data_version, self._asked):
            return False
        self._asked = version
        return True

    def set_as_of(self, when: float | None, rescore: bool = True) -> Loaded:
        """View the store as it was at `when` (None: now). Read-only while set."""
        with self._turn() as head:
            return Loaded(self._advance(self._at(head, when, rescore)))

    def _at(self, state: State, when: float | None, rescore: bool = True) -> State:
        """`state` shown at `when` (None: now): the memory, its suspects and queues."""
        from synapse_tui.core.review.asof import memory_as_of

        duplicates, live = state.duplicates, state.live
        with self.lock:
            if when is None:
                if rescore:
                    live.rescore(self.clock.now())
                memory, exists = live, None
            else:
                memory, exists = memory_as_of(live, when)
                if state.suspects_ready:  # duplicates among the facts that existed then
                    duplicates = find_duplicates(live, exists)
        suspects = with_unsupported(duplicates, memory)
        return replace(
            state,
            as_of=when,
            memory=memory,
            exists=exists,
            suspects=suspects,
            masks=all_masks(memory, suspects.mask),
        )

    def set_config(self, config: Config) -> Loaded:
        """A new config (calibration wrote one): rescore everything."""
        with self._turn() as head:
            with self.lock:
                head.live.config = config
            return Loaded(self._advance(self._at(replace(head, config=config), head.as_of)))

    # -- what the list shows (main thread: numpy only) ------------------------------------
    def rows(self, cursor: str | None = None) -> Rows:
        state, view = self.state, self.view
        memory = state.memory
        if cursor is not None:
            view = self.view = replace(view, cursor=cursor)
        if memory is None or state.masks is None:
            return Rows(np.empty(0, np.int64), (0,) * len(QUEUES), view, False)
        within = state.exists
        search = view.search
        if search.positions is not None:
            hit = np.zeros(len(memory), dtype=bool)
            hit[search.positions] = True
            within = hit if within is None else within & hit
        queue = QUEUES[view.queue]
        suspect = state.suspects.mask if state.suspects else None
        ranked = search.positions is not None and search.ranked and view.sort == "queue"
        if ranked:
            member = state.masks[view.queue] if within is None else state.masks[view.queue] & within
            order = search.positions[member[search.positions]]
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
        if not self._marks or self._marks_made == self._here():
            return 0, ""
        queue, source = self._marks_made
        where = QUEUES[queue].title + (f', search "{source}"' if source else "")
        return len(self._marks), where

    def toggle_mark(self, position: int) -> None:
        self.marks = self.marks ^ {position}

    def mark(self, positions: Any) -> None:
        self.marks = self.marks | {int(p) for p in positions}

    def clear_marks(self) -> None:
        self.marks = frozenset()

    # -- reads (workers) ------------------------------------------------------------------
    def resolve(self, typed: str) -> str | None:
        """The fact an id or a unique prefix of one names (the list shows ids shortened as
        git shows hashes), or None."""
        memory, typed = self.memory, typed.strip()
        if memory is None or not typed:
            return None
        if typed in memory.index:
            return typed
        found = [f for f in memory.ids if f.startswith(typed)]
        return found[0] if len(found) == 1 else None

    def search(self, source: str) -> Search:
        """Run a query (raises QueryError on a typo); an id's prefix as shown in the list
        finds that fact (`mem0:3f2c9a1e` is no filter typo)."""
        named = self.resolve(source) if " " not in source.strip() else None
        if named is not None:
            return Search(source, np.array([self.memory.index[named]], dtype=np.int64), True)
        parsed = fq.parse(source)
        if parsed.empty:
            return Search(source)
        with self.lock:
            positions = fq.run(self.memory, parsed)
        return Search(source, positions, bool(parsed.words))

    def texts(self, positions: list[int]) -> list[str]:
        with self.lock:
            return self.store.texts(positions)

    def explain(self, fact_id: str) -> dict[str, Any] | None:
        """`Memory.explain` (the show --json object) plus what the browser adds: the newer
        versions, transitively, and why it is in a problem queue."""
        memory = self.memory
        with self.lock:
            ex = memory.explain(fact_id)
            if ex is None:
                return None
            ex["chain_newer"] = self._newer(fact_id)
            i = memory.index[fact_id]
            ex["suspect"] = self.reason(i) or None
            ex["as_of"] = self.as_of
            if self.as_of is not None:  # the counts as they stood then, not today's
                ex["corroborations"] = int(memory.arrays.r[i])
                ex["contradictions"] = int(memory.arrays.s[i])
            ex["chain_texts"] = {
                fid: text
                for fid, text in zip(
                    ex["chain_older"] + ex["chain_newer"],
                    self.store.texts([memory.index[f] for f in ex["chain_older"] + ex["chain_newer"]]),
                    strict=True,
                )
            }
        return ex

    def explanation(self, fact_id: str) -> Explanation | None:
        """`explain`, typed: what the detail views show."""
        ex = self.explain(fact_id)
        return None if ex is None else Explanation.from_show(ex)

    def _newer(self, fact_id: str, limit: int = 100) -> list[str]:
        out: list[str] = []
        frontier = [fact_id]
        while frontier and len(out) < limit:
            nxt = [n for f in frontier for n in self.store.superseded_by(f) if n not in out and n != fact_id]
            out.extend(nxt)
            frontier = nxt
        return out

    def related(self, fact_id: str, exclude: tuple[str, ...] = (), limit: int = 50) -> BlastRadius | None:
        """The blast radius of `fact_id` (None: the store has no graph yet)."""
        from synapse_tui.core.review.blast import blast_radius

        with self.lock:
            try:
                return blast_radius(self.store, fact_id, exclude=exclude, limit=limit)
            except (KeyError, *OperationalError):
                return None

    def neighbourhood(self, fact_id: str) -> GraphRead:
        """The neighbour view's ego graph of `fact_id` (`egograph.neighbourhood`); as of an
        instant, without the facts created after it (nor what is reached only through them)."""
        from synapse_tui.core.graph.ego import FACT, EgoGraph, GraphRead, neighbourhood, walk

        with self.lock:
            read = neighbourhood(self.store, fact_id, self.config)
        later = self._later_ids()
        if read.value is None or not later:
            return read
        if fact_id in later:
            return GraphRead(error=self._not_yet(fact_id))
        ego = read.value
        graph = ego.graph.copy()
        graph.remove_nodes_from([(FACT, f) for f in later])
        rows = tuple(walk(graph, (FACT, fact_id)))
        return replace(read, value=EgoGraph(ego.id, ego.text, graph, rows))

    def path(self, a: str, b: str) -> GraphRead:
        """How `a` is connected to `b`: the strongest chain of links (`graphpath`); as of an
        instant, through the facts that existed then."""
        from synapse_tui.core.graph.ego import GraphRead
        from synapse_tui.core.graph.path import find_path

        a, b = self.resolve(a) or a, self.resolve(b) or b  # P takes the list's short ids
        later = self._later_ids()
        for fid in (a, b):
            if fid in later:
                return GraphRead(error=self._not_yet(fid))
        exclude = frozenset(int(i) + 1 for i in np.flatnonzero(~self.exists)) if later else frozenset()
        with self.lock:  # graph positions count from 1
            return find_path(self.store, a, b, self.config, exclude)

    def _later_ids(self) -> frozenset[str]:
        """As of an instant, the facts created after it (empty when viewing now)."""
        if self.exists is None or self.memory is None:
            return frozenset()
        ids = self.memory.ids
        return frozenset(ids[int(i)] for i in np.flatnonzero(~self.exists))

    def _not_yet(self, fact_id: str) -> str:
        from synapse_tui.core.base.clock import format_time

        return f"{fact_id} did not exist yet as of {format_time(self.as_of)}"

    def session_log(self) -> tuple[LogEntry, ...]:
        """Every audited action since the browser opened, by anyone, newest first."""
        with self.lock:
            return session_log(self.store, self.session_start or 0, config=self.config)

    def session_batch(self, batch: int) -> tuple[LogEntry, ...]:
        """The facts of one action of the log (a bulk expanded)."""
        with self.lock:
            return session_batch(self.store, batch)

    def check_supersede(self, old: str, target: str) -> str | None:
        """Why `target` cannot replace `old` (a cycle...), or None: nothing is written."""
        with self.lock:
            try:
                Triage(self.store, self.clock, config=self.config).check_supersede(old, target)
            except SynapseError as exc:
                return str(exc)
        return None

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
    ) -> TriageResult:
        """Apply one move as one audited transaction and rescore what changed; the result
        carries the next state. An undo with `expect` reverts batch `expect` or nothing
        (`Triage.undo`)."""
        with self._turn(ticket) as head:
            with self.lock:
                result = self._triage(head, move, fact_ids, target, from_marks, expect)
            if result.state is not None:
                result = replace(result, state=self._advance(result.state))
            return result

    def _triage(
        self,
        head: State,
        move: str,
        fact_ids: list[str],
        target: str | None,
        from_marks: bool,
        expect: int | None,
    ) -> TriageResult:
        asked = tuple(fact_ids)
        refusal = self._readonly(head.as_of)
        if refusal:
            return TriageResult(move, None, "", error=refusal, fact_ids=asked)
        memory = head.live
        triage = Triage(self.store, self.clock, config=head.config)
        undone = list(head.undone)
        try:
            if move == "undo":
                batch = triage.undo_target() if expect is None else expect
                outcome = triage.undo(expect=batch)
                undone.append(batch)
            elif move == "redo":
                # exactly what this browser's last undo took back, or nothing: never an
                # older undo, nor another writer's (after a restart: the store's newest)
                outcome = triage.redo(expect=undone.pop() if undone else None)
            else:
                outcome = triage.apply(move, fact_ids, target)
                undone.clear()  # a new action: what was undone before it stays undone
        except SynapseError as exc:
            # a refused redo still used up the undo it meant
            state = replace(head, undone=tuple(undone)) if tuple(undone) != head.undone else None
            return TriageResult(move, None, "", error=str(exc), fact_ids=asked, state=state)
        before = memory.scores
        ids = list(dict.fromkeys(outcome.fact_ids))
        foreign = self.store.data_version() != head.data_version  # another process committed
        if (foreign and self.store.count() != len(memory)) or any(f not in memory.index for f in ids):
            memory = Memory(self.store, head.config, self.clock.now())  # another process added facts
            found = find_duplicates(memory)
            suspects = with_unsupported(found, memory)
            state = replace(
                head,
                live=memory,
                memory=memory,
                duplicates=found,
                suspects_ready=True,
                suspects=suspects,
                masks=all_masks(memory, suspects.mask),
            )
            repaint = None
        else:
            # the changed facts at the clock's instant (it moves); the rest catch up later
            changed = memory.refresh(ids, self.clock.now())
            touched = np.array(sorted({memory.index[f] for f in ids}), dtype=np.int64)
            rescored = np.union1d(touched, changed)
            state = self._updated(head, rescored)
            repaint = _looks_different(before, memory.scores, rescored)
        state = replace(
            state,
            data_version=self.store.data_version(),
            own=head.own | {outcome.batch},
            undone=tuple(undone),
        )
        notice = describe(outcome, ids, memory.index, before, memory.scores)
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

    # -- the moving clock (a worker) ------------------------------------------------------
    def clock_behind(self) -> bool:
        """Whether the live scores are for an earlier instant than the clock's: an action
        scored its facts at a later one (`Memory.mixed`), or CLOCK_STEP has passed."""
        live = self.live
        if live is None or self.as_of is not None or self.clock.pinned is not None or self._pending:
            return False
        return live.mixed or self.clock.now() - live.scores.now >= CLOCK_STEP

    def catch_up(self) -> Loaded | None:
        """Score every fact at the clock's instant and recount the queues (a full
        rescore: about 0.1 s at a million facts, so a worker's job, not a keypress's).
        None when the past is on screen: it has its own instant."""
        with self._turn() as head:
            if head.as_of is not None or head.live is None:
                return None
            with self.lock:
                head.live.rescore(self.clock.now(), spare=True)
                suspects = with_unsupported(head.duplicates, head.live)
            state = replace(
                head, memory=head.live, suspects=suspects, masks=all_masks(head.live, suspects.mask)
            )
            return Loaded(self._advance(state))

    def _updated(self, state: State, positions: np.ndarray) -> State:
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


def _looks_different(before, after, positions: np.ndarray) -> np.ndarray:
    """Of `positions` (the rescored ones), those whose list row shows something else now:
    trust to two decimals, band, guidance, depth, tier, flags, age in days."""
    differs = np.round(before.trust[positions], 2) != np.round(after.trust[positions], 2)
    for name in ("band", "guidance", "k", "tier", "flags"):
        differs |= getattr(before, name)[positions] != getattr(after, name)[positions]
    differs |= np.floor(before.age_days[positions]) != np.floor(after.age_days[positions])
    return positions[differs]
