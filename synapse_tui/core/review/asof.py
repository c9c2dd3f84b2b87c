"""The store as it was at an instant T: facts created by T, events up to T, the
triage fields (r, s, tier, supersedes) as the audit log says they stood at T, and the
flag `deleted` as it stood at T (a sync records when it flags a fact, meta `deleted.at.ID`;
a flag set without that record, from before it, says "deleted, when unknown" and stays).

A read-only copy of a Memory: the browser's "as of" view shows it, and never writes.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np

from synapse_tui.core.base.clock import format_time, parse_time
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.trust.score import AUTO, HUMAN, SIGNED, supersession_depth

_TIER = {"auto": AUTO, "human": HUMAN, "signed": SIGNED}


def events_up_to(arrays, when: float):
    """The arrays with every reinforcement after `when` dropped (creation is kept)."""
    n = len(arrays)
    if n == 0:
        return arrays
    counts = np.diff(np.append(arrays.offsets, len(arrays.events)))
    seg = np.repeat(np.arange(n), counts)
    first = np.zeros(len(arrays.events), dtype=bool)
    first[arrays.offsets[counts > 0]] = True
    keep = first | (arrays.events <= when)
    new_counts = np.bincount(seg[keep], minlength=n)
    offsets = np.zeros(n, dtype=np.int64)
    np.cumsum(new_counts[:-1], out=offsets[1:])
    events = arrays.events[keep]
    return replace(arrays, events=events, offsets=offsets, created=events[offsets])


def deleted_as_of(memory: Memory, when: float) -> np.ndarray | None:
    """The `deleted` flags as they stood at `when`: a fact flagged after `when` was not
    deleted yet."""
    deleted = memory.arrays.deleted
    if deleted is None or not deleted.any():
        return deleted
    later = [pos for pos, at in memory.store.review.deleted_at() if at > when and pos < len(deleted)]
    if not later:
        return deleted
    deleted = deleted.copy()
    deleted[later] = False
    return deleted


def memory_as_of(memory: Memory, when: float) -> tuple[Memory, np.ndarray]:
    """A copy of `memory` as it stood at `when`, and the mask of facts that existed then."""
    a = memory.arrays.compacted()  # triage may have moved event lists out of the flat array
    exists = a.created <= when
    r, s, declared, o1, sup = (
        a.r.copy(),
        a.s.copy(),
        a.declared.copy(),
        a.o1_count.copy(),
        a.supersedes.copy(),
    )
    for fid, before in memory.store.audit.changes_after(when):  # newest first: the oldest `before` wins
        i = memory.index.get(fid)
        if i is None:
            continue
        if "corroborations" in before:
            r[i] = before["corroborations"]
        if "contradictions" in before:
            s[i] = before["contradictions"]
        if before.get("tier") in _TIER:
            declared[i] = _TIER[before["tier"]]
        if before.get("reinforcement_count") is not None:
            o1[i] = before["reinforcement_count"]
        if "supersedes" in before:
            old = before["supersedes"]
            sup[i] = memory.index.get(old, -1) if old else -1
    sup[~exists] = -1  # a fact made later replaced nothing yet
    arrays = replace(
        events_up_to(a, when),
        r=r,
        s=s,
        declared=declared,
        o1_count=o1,
        supersedes=sup,
        deleted=deleted_as_of(memory, when),
    )
    past = copy.copy(memory)
    past.arrays = arrays
    past.k = supersession_depth(arrays.supersedes)
    past.rescore(when)
    return past, exists


def _past_fact(past: Memory, exists: np.ndarray, fact_id: str) -> int | None:
    i = past.index.get(fact_id)
    return None if i is None or not exists[i] else i


def _supersedes_then(past: Memory, i: int, named: str | None) -> str | None:
    """What fact i named in `supersedes` at the instant: the audit's value, or an unknown
    id as it was imported (an id the store does not hold is never a triage target)."""
    j = int(past.arrays.supersedes[i])
    if j >= 0:
        return past.ids[j]
    return named if named is not None and named not in past.index else None


def explain_as_of(past: Memory, exists: np.ndarray, fact_id: str, when: float) -> dict | None:
    """`show --as-of T`: the `show` object of the fact as it stood at `when` (None when it
    did not exist yet): its counts, tier, reinforcements and supersession then, its history
    up to then, scored at then. The text and provenance are today's (triage never changes
    them)."""
    i = _past_fact(past, exists, fact_id)
    if i is None:
        return None
    out = past.explained(fact_id)
    if out is None:
        return None
    a = past.arrays
    out["corroborations"] = int(a.r[i])
    out["contradictions"] = int(a.s[i])
    out["declared_tier"] = ("auto", "human", "signed")[int(a.declared[i])]
    out["supersedes"] = _supersedes_then(past, i, out["supersedes"])
    newer = np.flatnonzero((a.supersedes == i) & exists)
    out["superseded_by"] = sorted(past.ids[j] for j in newer.tolist())
    if "reinforced_at" in out:
        out["reinforced_at"] = [t for t in out["reinforced_at"] if parse_time(t) <= when]
    out["history"] = [h for h in out["history"] if parse_time(h["at"]) <= when]
    out["as_of"] = format_time(when)
    return out


def export_as_of(past: Memory, exists: np.ndarray, objs, when: float):
    """`export --as-of T`: the interchange objects `objs` (the store's, in import order) of
    the facts that existed at `when`, with the triage fields as they stood then."""
    a = past.arrays
    deleted = a.deleted
    for obj in objs:
        i = _past_fact(past, exists, obj["id"])
        if i is None:
            continue
        obj["corroborations"] = int(a.r[i])
        obj["contradictions"] = int(a.s[i])
        obj["tier"] = ("auto", "human", "signed")[int(a.declared[i])]
        if "reinforced_at" in obj:
            obj["reinforced_at"] = [t for t in obj["reinforced_at"] if parse_time(t) <= when]
        if a.o1_count[i]:
            obj["reinforcement_count"] = int(a.o1_count[i])
        named = _supersedes_then(past, i, obj.get("supersedes"))
        if named is None:
            obj.pop("supersedes", None)
        else:
            obj["supersedes"] = named
        if deleted is None or not deleted[i]:
            obj.pop("deleted", None)
        yield obj


def audit_as_of(entries, when: float):
    """`export --audit --as-of T`: the audit as it stood, entries up to `when`."""
    for entry in entries:
        if parse_time(entry["at"]) <= when:
            yield entry
