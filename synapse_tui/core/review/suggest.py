"""Suggestions: evidence the store finds itself (SPEC 13), for a person to accept or dismiss.

A suggestion never scores: it flags (`suggested_replaced`, `broken_referent`) until a
person accepts (the kind's own triage action) or dismisses it. Kinds share one shape
(`Suggestion`), one dismissal (`Dismissed`), one flag mechanism (`KINDS[k].flag`) and one
queue; a kind is a finder registered in `KINDS`.

The `replaced` finder (`ReplacedFinder`): for each fact with no successor, the newer fact of
the same note or scope that most probably says the same thing differently. Candidates come
from an inverted index of (scope, word) -> facts, so a fact only ever meets the facts it
shares a scope and a naming word with; a new fact costs work proportional to those
neighbours, not to the store (`ReplacedFinder.add`). Each candidate pair is scored from
features a person can check (`suggest_text`), and the best pairs are matched one to one,
best first: an edit replaces one block with one block, and each older fact is offered its
best candidate (SPEC 13).

In a note whose facts name a subject (a Markdown heading), a newer fact under another
subject is held against the pair (`Weights.apart`) unless the older's subject moved there:
at the newer's instant another fact of the older's subject has a look-alike written under
the newer's, and nothing is written under the older's subject afterwards (`_moved`).
"""

from __future__ import annotations

import bisect
import functools
import gc
import heapq
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from synapse_tui.core.review.suggest_text import Pair, Text, compare, dice, first_change

REPLACED, REFERENT = "replaced", "referent"


@dataclass(frozen=True)
class Kind:
    name: str
    other: str  # the JSON key naming the other side: "by" (a fact) or "referent" (a path)
    flag: str  # the flag a standing suggestion of this kind puts on its fact
    accept: str  # what accepting does, as a person reads it


KINDS: dict[str, Kind] = {
    REPLACED: Kind(REPLACED, "by", "suggested_replaced", "supersede: the newer fact replaces it"),
    REFERENT: Kind(REFERENT, "referent", "broken_referent", "contradict: the repository says it is gone"),
}


@dataclass(frozen=True, order=True)
class Suggestion:
    """One standing suggestion: `fact` is probably replaced by / names the gone `other`."""

    kind: str
    fact: str
    other: str
    score: float
    why: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "fact": self.fact,
            KINDS[self.kind].other: self.other,
            "score": self.score,
            "why": self.why,
        }

    def brief(self) -> dict[str, Any]:
        """What MCP carries on a fact: `{"kind", "by" or "referent", "why"}` (SPEC 10)."""
        return {"kind": self.kind, KINDS[self.kind].other: self.other, "why": self.why}

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.fact, self.other)


def ranked(found: Iterable[Suggestion]) -> list[Suggestion]:
    """Best first; ties by kind, fact and other, so the same store prints the same bytes."""
    return sorted(found, key=lambda s: (-s.score, s.kind, s.fact, s.other))


# -- the replaced finder ---------------------------------------------------------------

Progress = Callable[[int, int], None]  # (done, total): how far a long build is
_TOLD = 2_000  # facts between two progress calls


@dataclass(frozen=True, slots=True)
class Item:
    """What the finder reads of one fact."""

    id: str
    text: str
    created: float  # epoch seconds
    note: str | None = None
    entities: tuple[str, ...] = ()
    successor: bool = False  # something already supersedes it: never suggested
    predecessor: bool = False  # it already names the fact it replaces: it can replace no other
    gone: float | None = None  # when its source deleted it, if known
    last_seen: float | None = None  # its last reinforcement, if any after its creation
    replaces: str | None = None  # the fact it names as the one it replaces
    ended: bool = False  # its source says it no longer holds (`invalidated`): it replaces nothing


@dataclass(frozen=True)
class Weights:
    """How the features add up to a score in [0, 1]. Set by hand from the dev split of the
    real corpus (benchmarks/bench_suggest_real.py), never from the held-out one."""

    chars: float = 0.65  # character-trigram Dice: wording shared, robust to inflection
    words: float = 0.25  # content-word Jaccard: the same things named
    value: float = 0.12  # a value (number, date, version) swapped for another
    update: float = 0.08  # the newer says "now", "instead", "no longer"...
    label: float = 0.05  # both name one label ("**Go version**:") under one heading of one note
    # where the store records when a fact left its source (a git-synced note): the older
    # leaving the instant the newer came is the edit's signature; one that stayed, or left
    # at another time, was not replaced by it
    gone: float = 0.10  # the older was deleted the instant the newer was written
    stayed: float = -0.45  # it was not, in a note where the store records deletions
    other_scope: float = -0.08  # only an entity in common, not the note
    apart: float = -0.25  # both name entities (a section, a system) and share none...
    # ...unless the older's subject moved there: at the newer's instant another fact of the
    # older's subject (same note) has a look-alike written under the newer's subject, and
    # nothing is written under the older's subject afterwards (a heading renamed or merged)
    moved_chars: float = 0.5  # a look-alike: half the character trigrams shared
    moved_apart: float = -0.1  # the subjects' penalty then
    later: float = 0.02  # less per later edit instant between the two: an edit is the next version
    threshold: float = 0.42  # at or above: suggested
    by_time: bool = True  # candidates nearest in time first (else: sharing the rarest words)
    candidates: int = 20  # per fact, the neighbours scored
    min_shared: float = 0.4  # of the older text's naming words, at least this share in common
    common: int = 400  # a (note, word) held by more facts than this does not pair them
    scope_max: int = 250  # an entity held by more facts is a topic, not a subject: no pairing across notes
    common_across: int = 40  # the same across notes (an entity's scope is wider than a note's)


WEIGHTS = Weights()


_PERCENT = re.compile(r"[~≈]?\d+(?:[.,]\d+)?\s*%")


@functools.lru_cache(maxsize=4096)  # a note's headings repeat over all its facts
def subject(entity: str) -> str:
    """An entity as a subject: its words, without the status a progress log keeps in its
    headings ("🟡 Infrastructure (40%)" and "🟢 Infrastructure (60%)" are one subject). A
    heading of nothing but status keeps its text."""
    low = entity.strip().lower()
    words = "".join(ch if ch.isalnum() or ch.isspace() else " " for ch in _PERCENT.sub(" ", low))
    return " ".join(words.split()) or low


def subjects_of(item: Item) -> tuple[str, ...]:
    """The subjects a fact is written under, sorted."""
    return tuple(sorted({subject(e) for e in item.entities if e.strip()}))


def _same_case(a: str, b: str) -> bool:
    """Texts equal up to white space (an edit of only the letter case is an edit)."""
    return a.split() == b.split()


def _refused(a: Item, b: Item, pair: Pair) -> bool:
    """The pairs never suggested, however alike."""
    if pair.identical and _same_case(a.text, b.text):  # the same text again: a duplicate
        return True
    if pair.restated:  # the same words in another order, or only "took over" for "handed"
        return True
    if pair.other_date:  # "incident 2025-09-18: ..." / "incident 2025-09-20: ...": two events
        return True
    return a.last_seen is not None and a.last_seen > b.created  # still held after the newer came


def _trim_name(name: str, limit: int = 40) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def scopes(item: Item) -> list[tuple[str, str]]:
    """The note, then each entity; a fact with neither shares the unnamed scope."""
    out = [("note", item.note)] if item.note else []
    out += [("entity", e.strip().lower()) for e in item.entities if e.strip()]
    return out or [("none", "")]


# the facts of one scope naming one word, in creation order: a list while it grows, a
# tuple once built (`_packed`): the cyclic collector stops visiting a tuple of numbers after
# its first look, where it would walk hundreds of thousands of lists at every full collection
Posting = Sequence[int]


def _packed(index: dict[tuple[str, str], dict[str, Posting]]) -> None:
    for words in index.values():
        words.update({word: tuple(post) for word, post in words.items()})


@dataclass
class _Candidate:
    old: int
    new: int
    score: float
    pair: Pair
    same_note: bool
    moved: int = 0  # other facts of the older's subject rewritten under the newer's then
    labelled: bool = False  # both name one label, under one subject of one note
    # its sentence (`ReplacedFinder.why`), kept with what it was said of: both facts as
    # they were (an update puts another `Item` in their place) and whether the older's
    # note records deletions; a pair scored again is a new candidate, with none kept
    said: tuple[Item, Item, bool, str] | None = field(default=None, compare=False, repr=False)


@contextmanager
def collector_off() -> Iterator[None]:
    """The cyclic collector off meanwhile (process-wide), then as it was: for building
    hundreds of thousands of objects none of which is in a cycle."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@dataclass
class ReplacedFinder:
    """The `replaced` kind over a growing set of facts (positions in `items`)."""

    weights: Weights = WEIGHTS
    items: list[Item] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)
    # scope -> word -> facts (a dict per scope: no (kind, scope, word) key built per word)
    postings: dict[tuple[str, str], dict[str, Posting]] = field(default_factory=dict)
    # the same for the facts that say they update something: across notes only these can
    # be the newer fact, so an older fact looks for its successor there
    updating: dict[tuple[str, str], dict[str, Posting]] = field(default_factory=dict)
    # every scored pair at or above the threshold, by the older fact's position
    pairs: dict[int, list[_Candidate]] = field(default_factory=dict)
    by_id: dict[str, int] = field(default_factory=dict)
    olds_of: dict[int, set[int]] = field(default_factory=dict)  # newer -> olds it is a candidate of
    sizes: dict[tuple[str, str], int] = field(default_factory=dict)  # facts per scope
    created: list[float] = field(default_factory=list)  # by position, for the postings' order
    tracked: set[str | None] = field(default_factory=set)  # notes where the store records deletions
    # each fact's newer neighbours, found once (`_refresh`) and scored again as facts change
    near: dict[int, tuple[int, ...]] = field(default_factory=dict)
    subjects: list[tuple[str, ...]] = field(default_factory=list)  # by position: its entities
    # (note, subjects) -> the latest instant a fact was written under them
    last_born: dict[tuple[str | None, tuple[str, ...]], float] = field(default_factory=dict)
    # (note, older's subjects, newer's subjects, newer's instant) -> older -> its look-alikes
    # written there: the evidence that a subject moved (`_moved`)
    moves: dict[tuple[Any, ...], dict[int, set[int]]] = field(default_factory=dict)
    watch: dict[tuple[Any, ...], set[int]] = field(default_factory=dict)  # move key -> olds it decides
    moves_of: dict[int, set[tuple[Any, ...]]] = field(default_factory=dict)  # old -> the move keys it is in
    across: dict[tuple[str | None, tuple[str, ...]], set[int]] = field(
        default_factory=dict
    )  # olds with a newer elsewhere
    # while building: (older, newer) -> their trigram Dice, found when looking for moves and
    # read again when the pair is scored
    _chars: dict[tuple[int, int], float] | None = field(default=None, repr=False)
    _read: dict[str, Text] | None = field(default=None, repr=False)  # while building: each text read once
    _scoped: list[list[tuple[str, str]]] | None = field(
        default=None, repr=False
    )  # building: scopes by position
    twice: bool = False  # some fact names one scope twice ("Auth", "auth"): posted twice there

    # -- building ----------------------------------------------------------------------

    @classmethod
    def build(
        cls, items: Sequence[Item], weights: Weights = WEIGHTS, progress: Progress | None = None
    ) -> ReplacedFinder:
        """The finder over `items`; `progress(done, total)` hears how far it is (three
        passes over the facts: `total` is three times their number)."""
        finder = cls(weights)
        told = progress or (lambda done, total: None)
        n = len(items)
        # hundreds of thousands of new sets would set off the cyclic collector again and
        # again, for nothing: none of them is in a cycle (a quarter of the time at 30,000)
        with collector_off():
            finder._chars, finder._read = {}, {}
            try:
                ordered = sorted(items, key=lambda it: (it.created, it.id))  # in time order
                named = [scopes(item) for item in ordered]
                # a subject held by more facts than `scope_max` is never read (`_neighbours`):
                # known before indexing here, so its facts are not posted under it at all
                size: dict[tuple[str, str], int] = {}
                for these in named:
                    for scope in these:
                        size[scope] = size.get(scope, 0) + 1
                wide = {scope for scope, k in size.items() if k > weights.scope_max and scope[0] != "note"}
                for k, item in enumerate(ordered):
                    finder._index(item, in_order=True, named=named[k], wide=wide)
                    if k % _TOLD == 0:
                        told(k, 3 * n)
                finder._scoped = named  # positions are the order indexed
                for i in range(len(finder.items)):  # every fact's neighbours, then the moves they show
                    finder._refresh(i, changes=False)
                    if i % _TOLD == 0:
                        told(n + i, 3 * n)
                for i in range(len(finder.items)):
                    finder._pairs_of_old(i)
                    if i % _TOLD == 0:
                        told(2 * n + i, 3 * n)
                _packed(finder.postings)
                _packed(finder.updating)
            finally:
                finder._chars = finder._read = finder._scoped = None
        return finder

    def _index(
        self,
        item: Item,
        in_order: bool = False,
        named: list[tuple[str, str]] | None = None,
        wide: set[tuple[str, str]] | None = None,
    ) -> int:
        """Add fact i (`named`: its scopes, when known; `wide`: the scopes held by more facts
        than `scope_max` once every fact is indexed, when known; `in_order`: while building,
        in creation order, its postings still lists)."""
        i = len(self.items)
        self.items.append(item)
        read = self._read
        known = read.get(item.text) if read is not None else None  # a third of a real store's
        text = known if known is not None else Text.of(item.text)  # texts are said again
        if read is not None and known is None:
            read[item.text] = text
        self.texts.append(text)
        self.by_id[item.id] = i
        self.created.append(item.created)
        home = (item.note, subjects_of(item))
        self.subjects.append(home[1])
        if item.created > self.last_born.get(home, float("-inf")):
            self.last_born[home] = item.created
        self._track(item)
        post = self._post
        postings, updating = self.postings, self.updating
        sizes = self.sizes
        if named is None:
            named = scopes(item)
        if len(set(named)) < len(named):
            self.twice = True
        cap = self.weights.scope_max
        for scope in named:
            held = sizes[scope] = sizes.get(scope, 0) + 1
            if scope[0] != "note" and (held > cap or (wide is not None and scope in wide)):
                continue  # a topic, not a subject: never read (`_neighbours`)
            across = bool(text.updates) and scope[0] != "note"
            words = postings.get(scope)
            if words is None:
                words = postings[scope] = {}
            upd = updating.setdefault(scope, {}) if across else None
            if in_order:  # building: the newest so far goes at the end of a list
                growing = cast(dict[str, list[int]], words)
                for word in text.content:
                    got = growing.get(word)
                    if got is None:
                        growing[word] = [i]
                    else:
                        got.append(i)
                    if upd is not None:
                        cast(dict[str, list[int]], upd).setdefault(word, []).append(i)
            else:
                for word in text.content:
                    post(words, word, i)
                    if upd is not None:
                        post(upd, word, i)
        return i

    def _track(self, item: Item) -> None:
        """The first fact of a note known to have left its source: the store records
        deletions there, so the note's facts that stayed are scored again (`stayed`)."""
        if item.gone is None or item.note in self.tracked:
            return
        self.tracked.add(item.note)
        for old in sorted(k for k in self.pairs if self.items[k].note == item.note):
            self._pairs_of_old(old)

    def _post(self, index: dict[str, Posting], key: str, i: int) -> None:
        """Add fact i to a posting list kept in creation order (a fact arriving late in
        time is inserted: `add` may be given an older fact)."""
        got = index.get(key)
        if got is None:
            index[key] = [i]
            return
        post = got if isinstance(got, list) else list(got)  # a tuple once built: grows again
        if self.created[post[-1]] <= self.created[i]:
            post.append(i)
        else:
            bisect.insort_right(post, i, key=self.created.__getitem__)
        index[key] = post

    def _neighbours(self, i: int, newer: bool) -> tuple[int, ...]:
        """The facts sharing a scope and a naming word with fact i, created after it
        (`newer`) or before it, best-sharing first, at most `weights.candidates`."""
        created = self.created
        parts, every = self._shared_words(i, newer)
        if not parts:
            return ()
        # a pair sharing few of the older text's naming words cannot reach the threshold
        minimum = self.weights.min_shared
        if newer and (need := max(1, int(minimum * len(self.texts[i].content)))) == 1:
            close = set(every)
        else:
            count = Counter(every)  # how many of those words each shares (counted in C)
            if newer:
                close = {j for j, c in count.items() if c >= need}
            else:  # fact i is the newer: the share is of each older one's words
                texts = self.texts
                close = {j for j, c in count.items() if c >= max(1, int(minimum * len(texts[j].content)))}
        if not close:
            return ()
        # what each of those shares: its words' weights added in the order above (the same
        # sums to the last bit as adding them fact by fact, so the same ties below)
        shared = dict.fromkeys(close, 0.0)
        if self.twice:  # a fact posted twice under one word: each posting counts
            for w, part in parts:
                for j in part:
                    if j in close:
                        shared[j] += w
        else:
            for w, part in parts:
                for j in close.intersection(part):
                    shared[j] += w
        kept = list(shared.items())
        # those written the instant the older left its source first, then the nearest in time
        at_gone = self._at_gone(i, kept, newer)
        weights = self.weights
        if weights.by_time:  # the nearest in time first: an edit is usually the next version
            sign = 1.0 if newer else -1.0
            if at_gone:
                best = heapq.nsmallest(
                    weights.candidates,
                    kept,
                    key=lambda kv: (kv[0] not in at_gone, sign * created[kv[0]], -kv[1], kv[0]),
                )
            else:
                best = heapq.nsmallest(
                    weights.candidates, kept, key=lambda kv: (sign * created[kv[0]], -kv[1], kv[0])
                )
        else:
            best = heapq.nsmallest(weights.candidates, kept, key=lambda kv: (-kv[1], kv[0]))
        return tuple([j for j, _ in best])  # a tuple: the collector stops visiting it

    def _shared_words(self, i: int, newer: bool) -> tuple[list[tuple[float, Posting]], list[int]]:
        """For each scope and naming word fact i shares with facts newer (older) than it:
        the word's weight (a rarer word says more) and those facts; and all of them, once
        per word shared."""
        item, text = self.items[i], self.texts[i]
        t0, at = item.created, self.created.__getitem__
        parts: list[tuple[float, Posting]] = []
        every: list[int] = []
        for scope in scopes(item) if self._scoped is None else self._scoped[i]:
            if scope[0] == "note":
                index = self.postings
            elif self.sizes.get(scope, 0) > self.weights.scope_max:
                continue
            elif newer:  # across notes the newer must say it updates (`_score`)
                index = self.updating
            elif text.updates:
                index = self.postings
            else:
                continue
            cap = self.weights.common if scope[0] == "note" else self.weights.common_across
            words = index.get(scope)
            if words is None:
                continue
            for word in text.content:
                post = words.get(word)
                if post is None or len(post) > cap:
                    continue
                if newer:  # a posting is in creation order: most hold nothing newer
                    if at(post[-1]) <= t0:
                        continue
                    part = post[bisect.bisect_right(post, t0, key=at) :]
                else:
                    if at(post[0]) >= t0:
                        continue
                    part = post[: bisect.bisect_left(post, t0, key=at)]
                parts.append((1.0 / len(post), part))
                every += part
        return parts, every

    def _at_gone(self, i: int, kept: list[tuple[int, float]], newer: bool) -> set[int]:
        """Of the facts `kept` beside fact i, those written the instant the older of the two
        left its source (the store records when): the edit's other half, first in line."""
        items = self.items
        if newer:
            gone = items[i].gone
            if gone is None:
                return set()
            created = self.created
            return {j for j, _ in kept if abs(created[j] - gone) < 1.0}
        if not self.tracked:  # the store records no deletion at all
            return set()
        t0 = items[i].created
        return {j for j, _ in kept if (g := items[j].gone) is not None and abs(g - t0) < 1.0}

    def _score(self, old: int, new: int, rank: int = 0) -> _Candidate | None:
        a, b = self.items[old], self.items[new]
        if b.predecessor or b.ended:  # a fact names one predecessor (SPEC 2.3); one its source
            return None  # says no longer holds replaces nothing
        told, tnew = self.texts[old], self.texts[new]
        new_updates = tnew.updates - told.updates
        same_note = a.note is not None and a.note == b.note
        if not same_note and not new_updates:  # across notes only a text that says it updates
            return None
        w = self.weights
        shared = told.content & tnew.content
        union = told.content | tnew.content
        words = len(shared) / len(union) if union else 1.0
        gone, came = told.values - tnew.values, tnew.values - told.values
        label = told.label if told.label is not None and told.label == tnew.label else None
        labelled = label is not None and same_note and self.subjects[old] == self.subjects[new]
        apart = self._apart(old, new)
        moved = self._moved(old, new) if apart and same_note else 0

        def rest(s: float) -> float:
            """The score given its wording part `s`: every other feature, added in one order."""
            if gone and came:
                s += w.value
            if new_updates:
                s += w.update
            if a.gone is not None and abs(a.gone - b.created) < 1.0:
                s += w.gone
            elif a.note in self.tracked:
                s += w.stayed
            s -= w.later * rank
            if labelled:  # one key under one heading, given a new value
                s += w.label
            if apart:
                s += w.moved_apart if moved else w.apart
            if not same_note:
                s += w.other_scope
            return min(1.0, max(0.0, s))

        # the wording's best (every trigram shared) cannot reach the threshold: no need to
        # read the trigrams (most neighbours; the sum is monotone, so this drops no pair)
        if w.chars >= 0.0 and rest(w.chars * 1.0 + w.words * words) < w.threshold:
            return None
        memo = self._chars
        chars = memo.get((old, new)) if memo is not None else None
        pair = compare(told, tnew, chars)
        if _refused(a, b, pair):
            return None
        s = rest(w.chars * pair.chars + w.words * pair.words)
        if s < w.threshold:
            return None
        return _Candidate(old, new, round(s, 6), pair, same_note, moved, labelled)

    def _apart(self, old: int, new: int) -> bool:
        """Both facts name subjects (a section, a system) and share none."""
        a, b = self.subjects[old], self.subjects[new]
        if not a or not b:
            return False
        for x in a:
            if x in b:
                return False
        return True

    def _move_key(self, old: int, new: int) -> tuple[Any, ...] | None:
        """Where a move of the older's subject to the newer's would show: both of one note,
        both naming subjects and sharing none."""
        a, b = self.items[old], self.items[new]
        if a.note is None or a.note != b.note or not self._apart(old, new):
            return None
        return (a.note, self.subjects[old], self.subjects[new], b.created)

    def _moved(self, old: int, new: int) -> int:
        """How many other facts of the older's subject have a look-alike written under the
        newer's subject at the newer's instant (0 when nothing is written under the older's
        subject afterwards: it is still in use, so the older stayed there)."""
        key = self._move_key(old, new)
        if key is None:
            return 0
        note, home, _, at = key
        if self.last_born.get((note, home), at) > at:
            return 0
        got = self.moves.get(key)
        if not got:
            return 0
        return sum(1 for i, alike in got.items() if i != old and (len(alike) > 1 or new not in alike))

    def _refresh(self, i: int, changes: bool = True) -> set[tuple[Any, ...]]:
        """Find fact i's newer neighbours again and the moves they show; the move keys
        whose evidence changed (the olds they decide are scored again), when `changes`."""
        before: dict[tuple[Any, ...], set[int]] = {}
        for key in self.moves_of.pop(i, ()):
            got = self.moves.get(key)
            if got is not None and i in got:
                before[key] = got.pop(i)
            self.watch.get(key, set()).discard(i)
        near = self.near[i] = self._neighbours(i, newer=True)
        keys: set[tuple[Any, ...]] = set()
        texts, memo = self.texts, self._chars
        for j in near:
            move = self._move_key(i, j)
            if move is None:
                continue
            key = move
            keys.add(key)
            self.watch.setdefault(key, set()).add(i)
            self.across.setdefault(key[:2], set()).add(i)
            chars = dice(texts[i].grams, texts[j].grams)
            if memo is not None:
                memo[(i, j)] = chars
            if chars >= self.weights.moved_chars:
                self.moves.setdefault(key, {}).setdefault(i, set()).add(j)
        if keys:
            self.moves_of[i] = keys
        if not changes:  # building: nothing was known of fact i before
            return set()
        after = {key: got[i] for key in keys if (got := self.moves.get(key)) and i in got}
        return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}

    def _pairs_of_old(self, i: int) -> None:
        for c in self.pairs.pop(i, ()):
            self.olds_of[c.new].discard(i)
        if self.items[i].successor:
            return
        near = self.near[i]
        if not near:  # most facts: nothing newer shares enough of their words
            return
        instants = sorted({self.items[j].created for j in near})
        rank = {t: r for r, t in enumerate(instants)}
        scored = (self._score(i, j, rank[self.items[j].created]) for j in near)
        found = [c for c in scored if c is not None]
        if found:
            self.pairs[i] = found
            for cand in found:
                self.olds_of.setdefault(cand.new, set()).add(i)

    def add(self, item: Item) -> list[Suggestion]:
        """Index one new fact and score it against the older facts it shares a scope and a
        word with (work proportional to those neighbours): the suggestions it now heads,
        as `suggestions` would give them for those older facts."""
        home = (item.note, subjects_of(item))
        was = self.last_born.get(home)
        j = self._index(item)
        olds = self._neighbours(j, newer=False)
        changed = set()
        for i in olds:  # their candidates, the new one among them, ranked in time
            changed |= self._refresh(i)
        changed |= self._refresh(j)
        again = set(olds) | {j}
        if was is not None and item.created > was:  # its subject is in use later than before:
            # the olds of it with a newer fact elsewhere written since then did not move
            created = self.created
            again |= {
                i
                for i in self.across.get(home, ())
                if any(was <= created[k] < item.created for k in self.near[i] if self._move_key(i, k))
            }
        for key in changed:  # a move's evidence changed: the olds it decides
            again |= self.watch.get(key, set())
        for i in sorted(again):
            self._pairs_of_old(i)
        touched = [i for i in olds if not self.items[i].successor]
        return [s for s in self._matched(self._component(touched)) if s.other == item.id]

    def update(self, item: Item) -> None:
        """A fact already indexed whose standing changed (it gained or lost a successor, or
        now names a predecessor, or left its source): its own pairs and those of the older
        facts it was a candidate of are found again (its neighbours, not the store). The
        text, time and scopes of a fact never change."""
        i = self.by_id[item.id]
        self.items[i] = item
        self._track(item)
        changed = self._refresh(i)
        again = {i} | self.olds_of.get(i, set()) | set(self._neighbours(i, newer=False))
        for key in changed:
            again |= self.watch.get(key, set())
        for old in sorted(again):
            self._pairs_of_old(old)

    def _component(self, olds: list[int]) -> list[_Candidate]:
        """Every pair of the older facts `olds` and of the olds competing for their newer
        facts: what the one-to-one matching of those facts depends on (local, small)."""
        seen = set(olds)
        for i in olds:  # one step out: the matching further away rarely reaches back here
            for c in self.pairs.get(i, ()):
                seen |= self.olds_of.get(c.new, set())
        return [c for i in sorted(seen) for c in self.pairs.get(i, ())]

    # -- answering ---------------------------------------------------------------------

    def suggestions(self, dismissed: frozenset[tuple[str, str]] = frozenset()) -> list[Suggestion]:
        """Every standing `replaced` suggestion, best first: pairs matched one to one, best
        pair first, never a pair in `dismissed` ((old id, new id))."""
        return ranked(self._matched([c for cands in self.pairs.values() for c in cands], dismissed))

    def _matched(
        self, cands: list[_Candidate], dismissed: frozenset[tuple[str, str]] = frozenset()
    ) -> list[Suggestion]:
        items = self.items
        order = sorted(cands, key=lambda c: (-c.score, items[c.old].id, items[c.new].id))
        olds: set[int] = set()
        news: set[int] = set()
        out = []
        for c in order:
            if c.old in olds or c.new in news or (items[c.old].id, items[c.new].id) in dismissed:
                continue
            olds.add(c.old)
            news.add(c.new)
            out.append(Suggestion(REPLACED, items[c.old].id, items[c.new].id, c.score, self.why(c)))
        return out

    def why(self, c: _Candidate) -> str:
        """One sentence a person can check against the two texts: said once per candidate
        (every catch-up asks it again of every suggestion), and again only when what it
        reads moved (`_Candidate.said`)."""
        a, b = self.items[c.old], self.items[c.new]
        tracked = a.note in self.tracked
        said = c.said
        if said is not None and said[0] is a and said[1] is b and said[2] == tracked:
            return said[3]
        why = self._why(c, a, b)
        c.said = (a, b, tracked, why)
        return why

    def _why(self, c: _Candidate, a: Item, b: Item) -> str:
        pair = c.pair
        where = "same note" if c.same_note else "a shared subject"
        parts = [f"{where}, newer, {round(pair.chars * 100)}% of the wording shared"]
        change = first_change(a.text, b.text)
        if pair.identical:
            parts.append("only the letter case differs")
        elif change is not None:
            old, new = change
            if old and new:
                parts.append(f"'{old}' became '{new}'")
            elif new:
                parts.append(f"adds '{new}'")
            else:
                parts.append(f"drops '{old}'")
        if c.labelled:
            parts.append(f"the same label '{_trim_name(pair.same_label or '')}'")
        if pair.new_updates:
            parts.append("the newer says " + ", ".join(f"'{u}'" for u in sorted(pair.new_updates)))
        if self._apart(c.old, c.new):
            was, now = _trim_name(", ".join(a.entities)), _trim_name(", ".join(b.entities))
            if c.moved:
                others = "1 other fact" if c.moved == 1 else f"{c.moved} other facts"
                parts.append(f"its subject '{was}' became '{now}': {others} of it rewritten there then")
            else:
                parts.append(f"though under another subject ('{was}', then '{now}')")
        if a.gone is not None and abs(a.gone - b.created) < 1.0:
            parts.append("the older was removed when the newer was written")
        elif a.note in self.tracked:  # suggested on its wording alone: say what speaks against it
            parts.append("but the older was not removed then")
        return "; ".join(parts)
