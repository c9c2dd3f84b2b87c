"""What a loading turn computes: the next `State` from the newest, when the store is read,
re-read, seen as of an instant, rescored under a new config or at the clock's instant.

Each runs in a worker inside the turn `Browser` took for it, and returns the state without
installing it; the session records it as the newest and the main thread installs it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.browser.state import State, Unloaded
from synapse_tui.core.review.junk import TextGroups, text_groups
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.notices import describe_elsewhere
from synapse_tui.core.review.queues import all_masks
from synapse_tui.core.review.reasons import Suspects, find_duplicates, with_unsupported
from synapse_tui.core.review.sessionlog import session_log, session_mark
from synapse_tui.core.trust.score import FLAG_DELETED, FLAG_EXPIRED

if TYPE_CHECKING:
    from synapse_tui.core.browser.session import Browser


def load(browser: Browser, head: Unloaded | State, duplicates: bool = True) -> State:
    """Read and score the store. `duplicates=False` leaves the duplicate detectors (a
    read of every text) to `with_duplicates`, so the list can paint first."""
    store = browser.store
    before = head if isinstance(head, State) else None  # a load after the first keeps its view
    with browser.lock:
        loaded = store.audit.mark()  # before the read: a change landing during it is not "seen"
        live = Memory(store, head.config, browser.clock.now())
        version = store.data_version()
        start = head.session_start
        if start is None:
            start = session_mark(store)
        texts = before.texts if before is not None else None  # checked against the ids when used
        if duplicates:
            found, texts = _duplicates(live, texts)
            store.prepare_search()
            live.ready_spare()
        else:
            found = Suspects(np.zeros(len(live), dtype=bool))
    if before is not None:
        state = replace(
            before,
            live=live,
            data_version=version,
            loaded=loaded,
            session_start=start,
            duplicates=found,
            suspects_ready=duplicates,
            texts=texts,
        )
        return shown_at(browser, state, state.as_of, rescore=False)
    # the first load: what is shown is the store now (as of comes later, from a scored state)
    suspects = with_unsupported(found, live)
    return State(
        config=head.config,
        live=live,
        memory=live,
        duplicates=found,
        suspects=suspects,
        masks=all_masks(live, suspects.mask),
        data_version=version,
        loaded=loaded,
        session_start=start,
        suspects_ready=duplicates,
        texts=texts,
        seen=start if head.session_start is None else None,  # a start set before: told from none
        serial=head.serial,
    )


def with_duplicates(browser: Browser, head: State) -> State:
    with browser.lock:
        found, texts = _duplicates(head.live, head.texts)
        browser.store.prepare_search()  # after first paint: the first `/` costs what later ones do
        head.live.ready_spare()  # and the first action what later ones do
    state = replace(head, duplicates=found, suspects_ready=True, texts=texts)
    return shown_at(browser, state, head.as_of, rescore=False)


def _duplicates(live: Memory, before: TextGroups | None) -> tuple[Suspects, TextGroups]:
    """The duplicates in `live`, reading only the texts appended since `before` (another
    writer's triage changes no text: its reload reads none)."""
    texts = text_groups(live.store, live.ids, live.index, before)
    return find_duplicates(live, exact=texts.groups), texts


def reload(browser: Browser, head: State) -> tuple[State, str]:
    """Re-read everything into a new `Memory`, and the notice of what another writer
    changed."""
    with browser.lock:
        loaded = browser.store.audit.mark()
        live = Memory(browser.store, head.config, browser.clock.now())
        found, texts = _duplicates(live, head.texts)
        version = browser.store.data_version()
        seen, elsewhere = _told_elsewhere(browser, head, live)
    state = replace(
        head,
        live=live,
        duplicates=found,
        suspects_ready=True,
        texts=texts,
        data_version=version,
        loaded=loaded,
        seen=seen,
    )
    return shown_at(browser, state, head.as_of, rescore=False), elsewhere


def _told_elsewhere(browser: Browser, head: State, live: Memory) -> tuple[int | None, str]:
    """What changed since the last notice: facts added, facts a source deleted or a new
    version superseded (a sync: no triage action says so), actions by anyone but this
    browser (a CLI user of the same login too); and the newest entry told. After this
    browser's own sync (`Browser.syncing`) the notice says it was that sync."""
    if head.seen is None:
        return None, ""
    theirs = [
        (e.actor, e.what, e.fact_id, e.facts)
        for e in reversed(session_log(browser.store, head.seen, config=head.config))
        if e.batch not in head.own
    ]
    added = len(live) - len(head.live)
    n = min(len(live), len(head.live))
    old, new = head.live.scores, live.scores
    gone = FLAG_DELETED | FLAG_EXPIRED
    deleted = int(((new.flags[:n] & gone) != 0).sum() - ((old.flags[:n] & gone) != 0).sum())
    superseded = int(((new.k[:n] > 0) & (old.k[:n] == 0)).sum())
    superseded -= sum(1 for e in theirs if e[1] == "supersede")  # named by its action already
    who = "your sync" if browser.syncing else "changed elsewhere"
    notice = describe_elsewhere(
        max(added, 0), max(-added, 0), theirs, max(deleted, 0), max(superseded, 0), head=who
    )
    if browser.syncing and notice:
        browser.syncing = False  # told once
    return session_mark(browser.store), notice


def shown_at(browser: Browser, state: State, when: float | None, rescore: bool = True) -> State:
    """`state` shown at `when` (None: now): the memory, its suspects and queues."""
    from synapse_tui.core.review.asof import memory_as_of

    duplicates, live = state.duplicates, state.live
    with browser.lock:
        if when is None:
            if rescore:
                live.rescore(browser.clock.now())
            memory, exists = live, None
        else:
            memory, exists = memory_as_of(live, when)
            if state.suspects_ready:  # duplicates among the facts that existed then
                texts = state.texts
                exact = texts.groups if texts is not None and texts.ids is live.ids else None
                duplicates = find_duplicates(live, exists, exact)
    suspects = with_unsupported(duplicates, memory)
    return replace(
        state,
        as_of=when,
        memory=memory,
        exists=exists,
        suspects=suspects,
        masks=all_masks(memory, suspects.mask),
    )


def configured(browser: Browser, head: State, config: Config) -> State:
    """Everything rescored under a new config."""
    with browser.lock:
        head.live.config = config
    return shown_at(browser, replace(head, config=config), head.as_of)


def caught_up(browser: Browser, head: State) -> State | None:
    """Every fact scored at the clock's instant and the queues recounted (a full rescore:
    about 0.1 s at a million facts, so a worker's job, not a keypress's). None when the
    past is on screen: it has its own instant."""
    if head.as_of is not None:
        return None
    with browser.lock:
        head.live.rescore(browser.clock.now(), spare=True)
        suspects = with_unsupported(head.duplicates, head.live)
    return replace(head, memory=head.live, suspects=suspects, masks=all_masks(head.live, suspects.mask))
