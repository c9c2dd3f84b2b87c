"""The arrays the arithmetic reads: every fact's inputs by position, and the event format.

A fact's events are stored as one float64 blob, creation first, then every reinforcement
(`event_blob`); `FactArrays` holds them for N facts at once, in segments.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

# signing.SigState values, repeated here as plain ints for the arrays
SIG_NONE, SIG_VALID, SIG_INVALID = 0, 1, 2


@dataclass(frozen=True, eq=False)
class FactArrays:
    """The inputs of the arithmetic for N facts, aligned by position 0..N-1.

    `events` holds every reinforcement time of every fact, creation first, in segments
    starting at `offsets`; a fact in the O(1) form has just its creation there and its
    count n in `o1_count` (0 means the exact form).
    """

    r: np.ndarray  # int64
    s: np.ndarray  # int64
    declared: np.ndarray  # int8: AUTO / HUMAN / SIGNED
    sig_state: np.ndarray  # int8: SIG_NONE / SIG_VALID / SIG_INVALID
    sig_trusted: np.ndarray  # bool: valid and the key is a trusted signer
    created: np.ndarray  # float64 epoch seconds
    events: np.ndarray  # float64 epoch seconds, segments per fact
    offsets: np.ndarray  # int64 segment starts
    o1_count: np.ndarray  # int64
    supersedes: np.ndarray  # int64 position of the superseded fact, -1 for none
    deleted: np.ndarray | None = None  # bool: the source system deleted it (SPEC 9); None: none is
    # bool: its source marks it invalid and names no successor (SPEC 9); None: none is
    invalidated: np.ndarray | None = None
    # bool: deleted because its source's TTL expired it (meta `deleted.why.ID`); None: none is
    expired: np.ndarray | None = None
    # int16: the fact's kind (SPEC 14), an index into `kind_names`, -1 none; None: not read
    # (read only when the config holds constants per kind: core/trust/kinds.py)
    kind: np.ndarray | None = None
    kind_names: tuple[str, ...] = ()
    # Facts whose events changed since loading, by position: their segment in `events` is
    # stale. A triage action records the new list here instead of rebuilding the flat
    # array (40 MB at a million facts); `compacted()` folds them back in.
    moved: dict[int, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.r)

    def events_of(self, i: int) -> np.ndarray:
        """Fact i's reinforcement times, creation first."""
        if i in self.moved:
            return self.moved[i]
        stop = self.offsets[i + 1] if i + 1 < len(self.offsets) else len(self.events)
        return self.events[self.offsets[i] : stop]

    def rows(self, idx: np.ndarray) -> FactArrays:
        """The facts at positions `idx` as their own compact FactArrays (supersession
        dropped: pass their depths to `score`). Scoring it gives the same bits, row for
        row, as scoring every fact: each fact's events are summed alone either way."""
        idx = np.asarray(idx, dtype=np.int64)
        segs = [self.events_of(int(i)) for i in idx.tolist()]
        counts = np.fromiter(map(len, segs), dtype=np.int64, count=len(segs))
        offsets = np.zeros(len(segs), np.int64)
        np.cumsum(counts[:-1], out=offsets[1:])
        return FactArrays(
            r=self.r[idx],
            s=self.s[idx],
            declared=self.declared[idx],
            sig_state=self.sig_state[idx],
            sig_trusted=self.sig_trusted[idx],
            created=self.created[idx],
            events=np.concatenate(segs) if segs else np.empty(0),
            offsets=offsets,
            o1_count=self.o1_count[idx],
            supersedes=np.full(len(segs), -1, np.int64),
            deleted=None if self.deleted is None else self.deleted[idx],
            invalidated=None if self.invalidated is None else self.invalidated[idx],
            expired=None if self.expired is None else self.expired[idx],
            kind=None if self.kind is None else self.kind[idx],
            kind_names=self.kind_names,
        )

    def span(self, start: int, stop: int) -> FactArrays:
        """Facts start..stop-1 as their own FactArrays, views where slicing allows (moved
        event lists folded in first). Like `rows`, scoring it gives the same bits, row for
        row, as scoring every fact; `supersedes` keeps the store's positions."""
        a = self.compacted()
        stop = min(stop, len(a))
        end = a.offsets[stop] if stop < len(a) else len(a.events)
        first = a.offsets[start] if start < stop else end
        return FactArrays(
            r=a.r[start:stop],
            s=a.s[start:stop],
            declared=a.declared[start:stop],
            sig_state=a.sig_state[start:stop],
            sig_trusted=a.sig_trusted[start:stop],
            created=a.created[start:stop],
            events=a.events[first:end],
            offsets=a.offsets[start:stop] - first,
            o1_count=a.o1_count[start:stop],
            supersedes=a.supersedes[start:stop],
            deleted=None if a.deleted is None else a.deleted[start:stop],
            invalidated=None if a.invalidated is None else a.invalidated[start:stop],
            expired=None if a.expired is None else a.expired[start:stop],
            kind=None if a.kind is None else a.kind[start:stop],
            kind_names=a.kind_names,
        )

    def compacted(self) -> FactArrays:
        """The same facts with every moved event list folded back into one flat array:
        the untouched stretches between moved facts and the moved lists, joined once."""
        if not self.moved:
            return self
        ends = np.append(self.offsets[1:], len(self.events))
        counts = ends - self.offsets
        pieces, at = [], 0
        for i in sorted(self.moved):
            pieces += [self.events[at : self.offsets[i]], self.moved[i]]
            counts[i] = len(self.moved[i])
            at = ends[i]
        pieces.append(self.events[at:])
        events = np.concatenate(pieces).astype(np.float64, copy=False)
        offsets = np.zeros_like(self.offsets)
        np.cumsum(counts[:-1], out=offsets[1:])
        return replace(self, events=events, offsets=offsets, created=events[offsets], moved={})

    def take(self, i: int, **changes: object) -> FactArrays:
        """One fact as its own FactArrays, with what-if changes (scalars or, for
        `extra_events`, a list of times appended to its reinforcement events)."""
        events = np.concatenate(
            [self.events_of(i), np.asarray(changes.pop("extra_events", []), dtype=np.float64)]
        )
        one = {
            name: getattr(self, name)[i : i + 1].copy()
            for name in ("r", "s", "declared", "sig_state", "sig_trusted", "created", "o1_count")
        }
        for name, value in changes.items():
            one[name][0] = value
        return FactArrays(
            events=events,
            offsets=np.zeros(1, np.int64),
            supersedes=np.full(1, -1, np.int64),
            deleted=None if self.deleted is None else self.deleted[i : i + 1].copy(),
            invalidated=None if self.invalidated is None else self.invalidated[i : i + 1].copy(),
            expired=None if self.expired is None else self.expired[i : i + 1].copy(),
            kind=None if self.kind is None else self.kind[i : i + 1].copy(),
            kind_names=self.kind_names,
            **one,
        )


def event_blob(created_ts: float, reinforced_ts: list[float]) -> bytes:
    """The stored events of a fact: creation first, then every reinforcement."""
    return np.asarray([created_ts, *reinforced_ts], dtype=np.float64).tobytes()
