"""What the views ask of the browser and nothing changes: a fact's explanation, its
neighbours, the path between two facts, a search, the session's log.

Each runs in a worker against the installed state (`Browser.state`) and returns a value;
none takes a turn or makes a `State`. `Browser` keeps the methods the UI calls and hands
them here, so the session's own module is its state and its turns.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.ids import AmbiguousId, name_id
from synapse_tui.core.browser.state import Search, State
from synapse_tui.core.review import query as fq
from synapse_tui.core.review import sessionlog
from synapse_tui.core.review.sessionlog import LogEntry
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.trust.explanation import Explanation

if TYPE_CHECKING:  # the graph views' modules (networkx) load when a view first opens
    from synapse_tui.core.browser.session import Browser
    from synapse_tui.core.graph.read import GraphRead


def resolve(browser: Browser, typed: str) -> str | None:
    """The fact an id or a shortened one names as the list shows it (a unique prefix, or
    '…' and a unique tail: `name_id`), or None; `AmbiguousId` when it names several."""
    memory = browser.memory
    if memory is None:
        return None
    return name_id(typed, memory.ids, memory.index)


ID_CANDIDATES = 100  # a shortened id beginning more ids than this is a word, not an id


def search(browser: Browser, source: str) -> Search:
    """Run a query (raises QueryError on a typo); an id as the list shows it finds that
    fact (`mem0:3f2c9a1e`, `…c3d4` are no filter typos). One that names several lists
    them first, and the search's `note` says it is ambiguous, naming them."""
    note, first = "", np.empty(0, dtype=np.int64)
    if " " not in source.strip():
        try:
            named = browser.resolve(source)
        except AmbiguousId as exc:
            named = None
            if len(exc.candidates) <= ID_CANDIDATES:
                index = browser.loaded_memory.index
                note, first = str(exc), np.array([index[c] for c in exc.candidates], dtype=np.int64)
        if named is not None:
            return Search(source, np.array([browser.loaded_memory.index[named]], dtype=np.int64), True)
    try:
        parsed = fq.parse(source.replace("…", " ") if note else source)
    except SynapseError:
        if not note:
            raise
        return Search(source, first, True, note)  # an id's prefix, not a filter: its candidates
    if parsed.empty:
        return Search(source, first, True, note) if note else Search(source)
    with browser.lock:
        positions = fq.run(browser.loaded_memory, parsed)
    if note:  # the candidates first, then what else the words match
        return Search(source, np.concatenate([first, positions[~np.isin(positions, first)]]), True, note)
    # how the query was read, where a person may have meant a filter (`trust<` half typed)
    return Search(source, positions, bool(parsed.words), "; ".join(fq.hints(parsed)))


def texts(browser: Browser, positions: list[int]) -> list[str]:
    with browser.lock:
        return browser.store.texts(positions)


def explain(browser: Browser, fact_id: str) -> dict[str, Any] | None:
    """`Memory.explain` (the show --json object) plus what the browser adds: the newer
    versions, transitively, and why it is in a problem queue."""
    memory = browser.loaded_memory
    with browser.lock:
        ex = memory.explain(fact_id)
        if ex is None:
            return None
        ex["chain_newer"] = _newer(browser, fact_id)
        i = memory.index[fact_id]
        ex["suspect"] = browser.reason(i) or None
        ex["as_of"] = browser.as_of
        if browser.as_of is not None:  # the counts as they stood then, not today's
            ex["corroborations"] = int(memory.arrays.r[i])
            ex["contradictions"] = int(memory.arrays.s[i])
        ex["chain_texts"] = {
            fid: text
            for fid, text in zip(
                ex["chain_older"] + ex["chain_newer"],
                browser.store.texts([memory.index[f] for f in ex["chain_older"] + ex["chain_newer"]]),
                strict=True,
            )
        }
    return ex


def explanation(browser: Browser, fact_id: str) -> Explanation | None:
    """`explain`, typed: what the detail views show."""
    ex = browser.explain(fact_id)
    return None if ex is None else Explanation.from_show(ex)


def _newer(browser: Browser, fact_id: str, limit: int = 100) -> list[str]:
    out: list[str] = []
    frontier = [fact_id]
    while frontier and len(out) < limit:
        nxt = [n for f in frontier for n in browser.store.superseded_by(f) if n not in out and n != fact_id]
        out.extend(nxt)
        frontier = nxt
    return out


def related(browser: Browser, fact_id: str, exclude: tuple[str, ...] = (), limit: int = 50) -> GraphRead:
    """The blast radius of `fact_id` (a `BlastRadius` as the read's value), read as the
    graph views read (`read_graph`): the read's `error` says the graph is not built or the
    fact is unknown; a store that cannot be read raises, for the caller to report."""
    from synapse_tui.core.graph.read import read_graph
    from synapse_tui.core.review.blast import blast_radius

    store = browser.store
    with browser.lock:
        return read_graph(store, lambda: blast_radius(store, fact_id, exclude=exclude, limit=limit))


def neighbourhood(browser: Browser, fact_id: str) -> GraphRead:
    """The neighbour view's ego graph of `fact_id` (`egograph.neighbourhood`); as of an
    instant, without the facts created after it (nor what is reached only through them)."""
    from synapse_tui.core.graph.ego import FACT, EgoGraph, neighbourhood, walk
    from synapse_tui.core.graph.read import GraphRead

    with browser.lock:
        read = neighbourhood(browser.store, fact_id, browser.config)
    later = _later_ids(browser.scored)
    if read.value is None or not later:
        return read
    if fact_id in later:
        return GraphRead(error=_not_yet(browser, fact_id))
    ego = read.value
    graph = ego.graph.copy()
    graph.remove_nodes_from([(FACT, f) for f in later])
    rows = tuple(walk(graph, (FACT, fact_id)))
    return replace(read, value=EgoGraph(ego.id, ego.text, graph, rows))


def path(browser: Browser, a: str, b: str) -> GraphRead:
    """How `a` is connected to `b`: the strongest chain of links (`graphpath`); as of an
    instant, through the facts that existed then."""
    from synapse_tui.core.graph.path import find_path
    from synapse_tui.core.graph.read import GraphRead

    try:  # P takes the ids as the list shows them
        a, b = browser.resolve(a) or a, browser.resolve(b) or b
    except AmbiguousId as exc:
        return GraphRead(error=str(exc))
    state = browser.scored
    later = _later_ids(state)
    for fid in (a, b):
        if fid in later:
            return GraphRead(error=_not_yet(browser, fid))
    exclude = frozenset(int(i) + 1 for i in _later_positions(state)) if later else frozenset()
    with browser.lock:  # graph positions count from 1
        return find_path(browser.store, a, b, browser.config, exclude)


def _later_positions(state: State | None) -> np.ndarray:
    """As of an instant, the positions of the facts created after it (none when viewing now)."""
    if state is None or state.exists is None:
        return np.empty(0, np.int64)
    return np.flatnonzero(~state.exists)


def _later_ids(state: State | None) -> frozenset[str]:
    """As of an instant, the facts created after it (empty when viewing now)."""
    if state is None:
        return frozenset()
    return frozenset(state.memory.ids[int(i)] for i in _later_positions(state))


def _not_yet(browser: Browser, fact_id: str) -> str:
    """A fact created after the instant shown (only asked while one is)."""
    from synapse_tui.core.base.clock import format_time

    when = browser.as_of
    return f"{fact_id} did not exist yet as of {format_time(when) if when is not None else 'now'}"


def session_log(browser: Browser) -> tuple[LogEntry, ...]:
    """Every audited action since the browser opened, by anyone, newest first."""
    with browser.lock:
        return sessionlog.session_log(browser.store, browser.session_start or 0, config=browser.config)


def session_batch(browser: Browser, batch: int) -> tuple[LogEntry, ...]:
    """The facts of one action of the log (a bulk expanded)."""
    with browser.lock:
        return sessionlog.session_batch(browser.store, batch)


def check_supersede(browser: Browser, old: str, target: str) -> str | None:
    """Why `target` cannot replace `old` (a cycle...), or None: nothing is written."""
    with browser.lock:
        try:
            Triage(browser.store, browser.clock, config=browser.config).check_supersede(old, target)
        except SynapseError as exc:
            return str(exc)
    return None
