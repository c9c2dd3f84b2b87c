"""A store's standing suggestions (SPEC 13): the finders run over its facts, less what a
person dismissed (the audit's live `dismiss` entries) and what already has a successor.

`standing` is what `suggest`, the flags (`suggested_replaced`, `score --where
is:suggested`), MCP and the browser's "Replaced?" queue all read, so they agree. A
suggestion changes no score: it is a flag beside the number, never a factor in it.

A new kind (issue 40's `referent`) plugs in by registering its finder in `FINDERS` (it
returns `Suggestion(kind, fact, other, score, why)`; `KINDS` already names its JSON key and
flag): `suggest --kind`, `dismiss --kind`, the flags, `is:suggested`, MCP's `suggestions` and
the queue then carry it; the queue's `y` needs its accept action (`ReplacedScreen._accept`).
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.errors import SynapseError, missing_fact
from synapse_tui.core.review.suggest import (
    KINDS,
    REFERENT,
    REPLACED,
    Item,
    ReplacedFinder,
    Suggestion,
    collector_off,
    ranked,
)
from synapse_tui.core.store.db import INVALIDATED_AT, Store

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory

# the kinds' shared state lives below the finders (so a finder imports it without a circle);
# what callers of this module used before is named here too
from synapse_tui.core.review.suggest_state import DISMISS as DISMISS  # noqa: E402
from synapse_tui.core.review.suggest_state import Dismissed, Options, dismissals, items  # noqa: E402
from synapse_tui.core.review.suggest_state import dismissed_entry as dismissed_entry  # noqa: E402

Finder = Callable[[Store, Sequence[Item], Dismissed, Options], list[Suggestion]]


def _replaced(
    store: Store, facts: Sequence[Item], dismissed: Dismissed, options: Options
) -> list[Suggestion]:
    return ReplacedFinder.build(facts).suggestions(dismissed.pairs(REPLACED))


def _referent(
    store: Store, facts: Sequence[Item], dismissed: Dismissed, options: Options
) -> list[Suggestion]:
    from synapse_tui.core.review.referent import find  # issue 40: core/review/referent.py

    return find(store, facts, dismissed, options)


# one finder per kind
FINDERS: dict[str, Finder] = {REPLACED: _replaced, REFERENT: _referent}


@dataclass
class Standing:
    """Every standing suggestion of a store, by kind, as one read of it."""

    found: list[Suggestion] = field(default_factory=list)

    def of(self, fact_id: str) -> list[Suggestion]:
        return [s for s in self.found if s.fact == fact_id]

    def flagged(self, kind: str | None = None) -> dict[str, list[str]]:
        """fact id -> the flags its suggestions put on it."""
        out: dict[str, list[str]] = {}
        for s in self.found:
            if kind is None or s.kind == kind:
                flag = KINDS[s.kind].flag
                if flag not in out.setdefault(s.fact, []):
                    out[s.fact].append(flag)
        return out


def standing(store: Store, kinds: Iterable[str] | None = None, options: Options | None = None) -> Standing:
    """The suggestions of `kinds` (default: every kind with a finder), best first.

    Every kind with default options (what `score`, `show` and MCP ask) is kept in a file
    beside a large store (`DB.synapse.suggest`), named by the store state it was found in:
    the next process reads it instead of finding them again, until a fact or an audit
    entry is added or any fact changes (the change log's newest entry, `_state`)."""
    wanted = list(FINDERS) if kinds is None else list(kinds)
    for k in wanted:
        if k not in KINDS:
            raise SynapseError(f"unknown suggestion kind {k!r}; one of {', '.join(KINDS)}")
        if k not in FINDERS:
            raise SynapseError(f"suggestions of kind {k!r} are not available in this version")
    keep = kinds is None and options is None
    with store.snapshot():
        key: list[Any] = _state(store) if keep else []
        if keep and REFERENT in wanted:  # issue 40: a repository that moved is checked again
            from synapse_tui.core.review.referent import repository_state

            key.append(repository_state(store))
        kept = _read_cache(store, key) if keep else None
        if kept is not None:
            return Standing(kept)
        facts = items(store)
        dismissed = dismissals(store)
    found: list[Suggestion] = []
    for k in wanted:
        found += [s for s in FINDERS[k](store, facts, dismissed, options or Options()) if s not in dismissed]
    found = ranked(found)
    if keep and len(facts) >= CACHE_MIN_FACTS:
        _write_cache(store, key, found)
    return Standing(found)


CACHE_FORMAT = 7  # bump when what a finder finds changes (weights, features)
CACHE_MIN_FACTS = 1_000  # below this a pass takes a tenth of a second: no file is worth it


def _cache_file(store: Store) -> Path | None:
    path = store.path
    return path.with_name(path.name + ".synapse.suggest") if isinstance(path, Path) else None


def _read_cache(store: Store, key: list[Any]) -> list[Suggestion] | None:
    """The kept suggestions when the file names this store state; anything else is a miss."""
    path = _cache_file(store)
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None
        return [Suggestion(str(k), str(f), str(o), float(sc), str(w)) for k, f, o, sc, w in data["found"]]
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _write_cache(store: Store, key: list[Any], found: list[Suggestion]) -> None:
    """Write the file whole or not at all (a temporary file renamed into place); a folder
    that cannot be written keeps no file."""
    path = _cache_file(store)
    if path is None:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        rows = [[s.kind, s.fact, s.other, s.score, s.why] for s in found]
        tmp.write_text(json.dumps({"key": key, "found": rows}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


@dataclass
class _Kept:
    """A long-lived memory's finder (the MCP server's, the browser's), kept up to date by
    adding and updating facts rather than building it again."""

    finder: ReplacedFinder
    ids: list[str]
    supersedes: np.ndarray
    key: list[Any]
    answer: Standing
    gone: Mapping[int, float] = field(default_factory=dict)  # position -> when it left its source
    mark: tuple[int, int] | None = None  # the change log's newest entry the finder was of


# id(store) -> (the store, its kept finder): a process's memories of one store share it, so
# a memory read again (a reload after triage, another writer) catches the finder up rather
# than building it again; a few stores at a time
_KEPT: dict[int, tuple[Store, _Kept]] = {}
_KEPT_MAX = 2

Told = Callable[[str], None]  # what a long read is doing, in words (the browser shows it)
TOLD_EVERY = 0.5  # seconds between two of a build's progress lines


def of_memory(
    memory: Memory,
    progress: Told | None = None,
    early: Callable[[Standing], None] | None = None,
    lock: AbstractContextManager[Any] | None = None,
) -> Standing:
    """The memory's standing suggestions: the flags, the filter, the queue and MCP read the
    same answer. Answered, in turn, from the finder kept for the store when the store has
    not changed since; by catching the kept finder up (new facts added, facts whose
    supersession or deletion changed updated: work proportional to their neighbours;
    dismissals read again); from the file beside the store (`standing`'s) when no finder is
    kept yet; or by building it (`progress` hears how far, and `early` is given the
    `replaced` suggestions before the repository is read for the `referent` ones). A memory
    of part of the store (as of a time, or behind another writer) is answered as `standing`
    answers the store.

    `lock`: the caller's hold on the store and the memory (the browser's), when it does not
    hold it already: taken for every read and let go while the finder is built, so the
    store's other readers (the list, the pane) are not kept waiting seconds. Any caller
    arriving while a finder of the same store is being built (the queue asked again, the
    browser's `is:suggested` search during an `R`) waits for that finder, holding neither
    lock, then answers from it, rather than building another beside it (`_Building`)."""
    return _of_memory(memory, progress, early, nullcontext() if lock is None else lock)


@dataclass(eq=False)
class _Building:
    """A finder being built for a store: who else asks meanwhile waits for it (`wait`)
    rather than building another beside it. The store's lock is let go while waiting, so
    the builder can take it for its reads (`Condition` over the store's reentrant lock
    releases it however often the waiting thread holds it)."""

    store: Store
    done: threading.Condition

    @classmethod
    def of(cls, store: Store) -> _Building | None:
        """Started for `store`, or None when its lock cannot be waited on (not reentrant)."""
        lock = getattr(store, "lock", None)
        if not isinstance(lock, _REENTRANT):
            return None
        return cls(store, threading.Condition(lock))

    def wait(self) -> None:
        with self.done:
            self.done.wait_for(lambda: _BUILDING.get(id(self.store)) is not self)

    def end(self) -> None:
        with self.done:
            if _BUILDING.get(id(self.store)) is self:
                del _BUILDING[id(self.store)]
            self.done.notify_all()


_BUILDING: dict[int, _Building] = {}  # id(store) -> the build under way for it
_REENTRANT = type(threading.RLock())


def _of_memory(
    memory: Memory,
    progress: Told | None,
    early: Callable[[Standing], None] | None,
    hold: AbstractContextManager[Any],
) -> Standing:
    store = memory.store
    told = progress or (lambda what: None)
    while True:
        with hold:
            answer = _answered(memory, told)
            if answer is not None:
                return answer
            building = _BUILDING.get(id(store))
            if building is None or building.store is not store:  # none under way: build it
                building = _Building.of(store)
                if building is not None:
                    _BUILDING[id(store)] = building
                try:
                    read = _Read.of(memory, told)
                except BaseException:
                    if building is not None:
                        building.end()
                    raise
                break
        told("waiting for the suggestions being found")  # then answered from its finder
        building.wait()
    try:
        return _keep(store, _built(store, read, told, early, hold))
    finally:
        if building is not None:
            building.end()


def _answered(memory: Memory, told: Told) -> Standing | None:
    """The answer without building a finder, when there is one: the kept finder's, caught
    up if need be, the file beside the store's, or `standing`'s for part of the store."""
    store = memory.store
    with store.snapshot():
        key = _state(store)
    if len(memory.ids) != key[1]:  # not the store whole as it is now
        return standing(store)
    held = _KEPT.get(id(store))
    kept = held[1] if held is not None and held[0] is store else None
    if kept is not None and kept.key == key:
        return kept.answer
    if kept is not None and _extends(kept, memory):
        with store.snapshot():
            changed = store.changed_since(kept.mark)
            if changed is not None:  # else what changed cannot be told: built again
                told("catching up with what changed")
                kept.key, kept.mark = _state(store), store.change_mark()
                _catch_up(kept, memory, changed)
                dismissed = dismissals(store)
        if changed is not None:
            found = [s for s in kept.finder.suggestions(dismissed.pairs(REPLACED)) if s not in dismissed]
            kept.answer = Standing(ranked([*found, *_referents(memory, dismissed)]))
            return _keep(store, kept)
    cached = _read_cache(store, [*key, _repository(store)])
    if cached is not None:  # found before in this state: no finder needed until it moves
        return Standing(cached)
    return None


def _keep(store: Store, kept: _Kept) -> Standing:
    _KEPT.pop(id(store), None)
    _KEPT[id(store)] = (store, kept)
    while len(_KEPT) > _KEPT_MAX:
        _KEPT.pop(next(iter(_KEPT)))
    return kept.answer


def _state(store: Store) -> list[Any]:
    """What a kept finder's answer is of: the finders' format, the last fact and audit
    entry, the deletions (index look-ups, asked at every question: the deletions are counted
    once per state of the facts, `Store.deleted_count`) and the change log's newest entry
    (a fact updated with no audit entry: a sync's reinforcement or invalidation). A repository that
    moved is seen at the store's next change, as before; the file beside the store, read by
    other processes, names its commit too (`_repository`)."""
    mark = store.change_mark()
    return [CACHE_FORMAT, *store.marks(), store.deleted_count(), None if mark is None else list(mark)]


def _repository(store: Store) -> list[str] | None:
    from synapse_tui.core.review.referent import repository_state

    return repository_state(store)


@dataclass
class _Read:
    """What a build reads of the store and the memory, in one state of both (the memory's
    ids and supersessions copied: a triage may change them while the finder is built)."""

    key: list[Any]
    file_key: list[Any]
    facts: list[Item]
    dismissed: Dismissed
    gone: Mapping[int, float]
    ids: list[str]
    supersedes: np.ndarray
    mark: tuple[int, int] | None

    @classmethod
    def of(cls, memory: Memory, told: Told) -> _Read:
        store = memory.store
        with store.snapshot(), collector_off():  # tens of thousands of facts, kept by the finder
            key = _state(store)
            file_key = [*key, _repository(store)]
            told(f"reading {key[1]:,} facts")
            return cls(
                key,
                file_key,
                items(store),
                dismissals(store),
                store.review.deleted_when(),
                list(memory.ids),
                _supersedes(store, len(memory.ids)),
                store.change_mark(),
            )


def _built(
    store: Store,
    read: _Read,
    told: Told,
    early: Callable[[Standing], None] | None,
    hold: AbstractContextManager[Any],
) -> _Kept:
    """The finder built over every fact (`hold` let go meanwhile), its answer found in the
    one state of the store its facts were read in (so the file beside the store may keep
    it: `standing`'s)."""
    from synapse_tui.core.review.referent import find as referents_in

    last = [time.monotonic()]

    def building(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= TOLD_EVERY:  # a few lines a second: the screen's work is the GIL's too
            last[0] = now
            told(f"comparing each fact with its neighbours: {100 * done // max(total, 1)}%")

    dismissed = read.dismissed
    ok = True
    # the collector is off from the build to the end of the referent check: the finder is
    # hundreds of thousands of new objects, none in a cycle, which it would walk again and
    # again meanwhile (the build turns it off alone; the referent check would not), and a
    # large finder kept alive is then left out of its view for good (`_frozen`)
    with collector_off():
        finder = ReplacedFinder.build(read.facts, progress=building)
        found = [s for s in finder.suggestions(dismissed.pairs(REPLACED)) if s not in dismissed]
        if early is not None:
            early(Standing(ranked(found)))
        told("checking the paths facts name against the repository")
        try:
            with hold:
                found += [
                    s for s in referents_in(store, read.facts, dismissed, Options()) if s not in dismissed
                ]
        except SynapseError:  # a repository git cannot read: none of its kind (as `of_memory` says)
            ok = False  # and no file: `standing` would have said why
        _frozen(len(read.facts))
    answer = ranked(found)
    if ok and len(read.facts) >= CACHE_MIN_FACTS:
        _write_cache(store, read.file_key, answer)
    return _Kept(finder, read.ids, read.supersedes, read.key, Standing(answer), read.gone, read.mark)


FROZEN_MIN_FACTS = 10_000  # below this a full collection walks the finder in a few milliseconds


def _frozen(facts: int) -> None:
    """Leave every object alive now out of the cyclic collector's view (`gc.freeze`) once a
    finder of `facts` facts is built, before the collector is on again.

    The kept finder of 54,803 facts is about 860,000 new objects (sets, texts, tuples of
    positions): the first collection after the build walked 700,000 of them as young ones
    (0.2 s, in whichever thread allocated next: the browser's, mid-keystroke), and every
    full collection after it walked the finder again (0.3 s against 0.06 s without it).
    None of them is in a cycle, so reference counting still frees them when the finder
    is dropped (`_keep`). The price is process-wide: an object alive now that later
    becomes garbage in a cycle is never collected (in the browser the queue's screen and
    what the screens cached meanwhile: about 8,000 objects, 1 MB, once per finder
    built). Only the long-lived callers build here (the browser, the MCP server); a
    small store's finder is too small to be worth it."""
    if facts >= FROZEN_MIN_FACTS:
        gc.freeze()


def _referents(memory: Memory, dismissed: Dismissed) -> list[Suggestion]:
    """Issue 40: the broken referents against the recorded repository (none without one);
    answered per fact and revision from core/review/referent.py's cache."""
    from synapse_tui.core.review.referent import of_memory as referents_of

    return [s for s in referents_of(memory, dismissed) if s not in dismissed]


def _extends(kept: _Kept, memory: Memory) -> bool:
    """Whether the memory holds the kept facts in the same order (and maybe more)."""
    n = len(kept.ids)
    return len(memory.ids) >= n and memory.ids[:n] == kept.ids


def _catch_up(kept: _Kept, memory: Memory, changed: list[int]) -> None:
    """Add the facts appended since, update those the change log names since (`changed`,
    positions from 0: a reinforcement, an invalidation), those whose supersession moved
    (and the facts either end names) or that a sync flagged deleted since (a deletion
    places an edit, `Weights.gone`)."""
    store, finder = memory.store, kept.finder
    n, sup = len(kept.ids), _supersedes(store, len(memory.ids))
    moved = np.flatnonzero(sup[:n] != kept.supersedes).tolist()
    touched = (
        {int(p) for p in moved} | {int(kept.supersedes[p]) for p in moved} | {int(sup[p]) for p in moved}
    )
    touched |= {int(t) for t in sup[n:].tolist() if t >= 0}  # old facts a new one names
    touched |= set(changed)
    gone = store.review.deleted_when()  # the same mapping while no deletion moved
    if gone is not kept.gone:
        touched |= {p for p in gone.keys() | kept.gone.keys() if gone.get(p) != kept.gone.get(p)}
    touched.discard(-1)
    named = sup >= 0
    has_successor = np.zeros(len(sup), dtype=bool)
    has_successor[sup[named]] = True
    for pos in range(n, len(memory.ids)):
        finder.add(_item(store, memory.ids[pos], pos, bool(has_successor[pos]), bool(named[pos]), gone))
    for pos in sorted(p for p in touched if p < n):
        finder.update(_item(store, memory.ids[pos], pos, bool(has_successor[pos]), bool(named[pos]), gone))
    kept.ids = list(memory.ids)
    kept.supersedes = sup
    kept.gone = gone


def _supersedes(store: Store, facts: int) -> np.ndarray:
    """The position each of the first `facts` facts supersedes (-1: none), as the store
    holds them now: never a memory's arrays, which may be behind the store (read before
    another process's triage, or before the writer refreshed it), so a finder caught up
    from them would keep their answer under the store's new state."""
    sup = np.full(facts, -1, dtype=np.int64)
    for pos, target in store.supersessions().items():
        if pos < facts:
            sup[pos] = target
    return sup


def _item(
    store: Store, fid: str, pos: int, successor: bool, predecessor: bool, gone: Mapping[int, float]
) -> Item:
    r = store.record(fid)
    if r is None:
        raise SynapseError(missing_fact(fid, store.path))
    created = parse_time(r.created_at)
    seen = max((parse_time(t) for t in r.reinforced_at), default=None) if r.reinforced_at else None
    return Item(
        r.id,
        r.text,
        created,
        r.note,
        tuple(r.entities),
        successor=successor,
        predecessor=predecessor,
        gone=gone.get(pos),
        last_seen=seen if seen is not None and seen > created else None,
        replaces=r.supersedes or None,
        ended=(r.provenance or {}).get(INVALIDATED_AT) is not None,
    )


def suggested_mask(memory: Memory, kind: str | None = None) -> np.ndarray:
    """Which positions carry a standing suggestion (of `kind`): `is:suggested`."""
    mask = np.zeros(len(memory), dtype=bool)
    index = memory.index
    for fid in of_memory(memory).flagged(kind):
        if fid in index:
            mask[index[fid]] = True
    return mask


def add_flags(rows: list[dict[str, Any]], flagged: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Score rows (`score --json`, MCP results) with their suggestion flags appended."""
    for row in rows:
        extra = flagged.get(row["id"])
        if extra:
            row["flags"] = [*row["flags"], *extra]
    return rows


# -- what an agent is told (SPEC 10) -----------------------------------------------------


def briefs(found: Standing, fact_id: str) -> list[dict[str, Any]]:
    """A fact's standing suggestions as MCP carries them: `[{"kind", "by"|"referent", "why"}]`."""
    return [s.brief() for s in found.of(fact_id)]


def _head(memory: Memory, fact_id: str) -> str:
    """The newest fact of `fact_id`'s supersession chain (itself when nothing replaces it);
    of several successors, the first in store order."""
    successors: dict[int, int] = {}
    sup = memory.arrays.supersedes
    for src in np.flatnonzero(sup >= 0).tolist():
        successors.setdefault(int(sup[src]), src)
    i, seen = memory.index[fact_id], set()
    while i in successors and i not in seen:
        seen.add(i)
        i = successors[i]
    return memory.ids[i]


def stale_premise(
    memory: Memory, found: Standing, query: str, results: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """`{"matched", "current", "why"}` when the result whose text best matches the query's
    wording (character trigrams, ties to the higher-ranked) is superseded or
    suggested-replaced and a current fact replaces it; None when the current fact itself
    matches the query at least as well, or nothing replaces the best match."""
    from synapse_tui.core.review.suggest_text import Text, dice

    if not results or not query.strip():
        return None
    asked = Text.of(query).grams
    match = [dice(asked, Text.of(r["text"]).grams) for r in results]
    best = max(range(len(results)), key=lambda j: (match[j], -j))
    row = results[best]
    fid = row["id"]
    if row["k"] > 0:
        current = _head(memory, fid)
        why = f"{fid} is superseded: {current} replaces it"
    else:
        mine = [s for s in found.of(fid) if s.kind == "replaced"]
        if not mine:
            return None
        current = _head(memory, mine[0].other)
        why = f"{fid} is probably replaced by {mine[0].other}: {mine[0].why}"
    if current == fid or current not in memory.index:
        return None
    texts = {r["id"]: r["text"] for r in results}
    now_text = texts.get(current) or memory.store.texts([memory.index[current]])[0]
    if dice(asked, Text.of(now_text).grams) >= match[best]:
        return None  # the query matches the current fact as well: no outdated premise
    return {"matched": fid, "current": current, "why": why}


def explained(memory: Memory, info: dict[str, Any]) -> dict[str, Any]:
    """`show --json`'s object with the fact's suggestion flags and `suggestions` (SPEC 10,
    13): what `show`, the triage verbs' `--json` and MCP answer alike."""
    found = of_memory(memory)
    add_flags([info], found.flagged())
    info["suggestions"] = briefs(found, info["id"])
    return info
