"""Why a fact sits in the Suspect or Signature queue, in words, and which fact it echoes.

Suspects come from the junk detectors (`junk.py`: exact duplicates, near-duplicate
clusters, unsupported claims); signature problems from the score's own arrays (a claim of
`signed` with no signature, one that does not verify, or a valid one by a key nobody
trusts). The browser shows the reason in a column and jumps to the other fact.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from synapse_tui.core.review import junk
from synapse_tui.core.trust.score import FLAG_SIG_INVALID, FLAG_SIG_UNTRUSTED, SIG_NONE

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory


@dataclass(frozen=True)
class Suspects:
    """The Suspect queue's membership, and per member position why and what it echoes."""

    mask: np.ndarray  # bool per position
    why: dict[int, str] = field(default_factory=dict)
    other: dict[int, int] = field(default_factory=dict)  # the duplicate to jump to


def unsupported_reason(memory: Memory) -> str:
    days = memory.config.graph.unsupported_age_days
    return f"unsupported: auto, never corroborated, older than {days:g} days"


def find_duplicates(
    memory: Memory, exists: np.ndarray | None = None, exact: list[tuple[str, ...]] | None = None
) -> Suspects:
    """Exact duplicates and near-duplicate clusters (reads texts and the stored semantic
    edges once per load; they do not depend on the instant). `exists`: only among these
    facts (as of an instant: a fact is no duplicate of one created later). `exact`: the
    exact-duplicate groups when known (`junk.text_groups`), so no text is read."""
    store = memory.store
    index = memory.index
    why: dict[int, str] = {}
    other: dict[int, int] = {}

    def among(groups: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
        kept = [tuple(f for f in g if exists is None or exists[index[f]]) for g in groups]
        return [g for g in kept if len(g) > 1]

    for group in among(junk.exact_duplicates(store) if exact is None else exact):
        for fid in group:
            rest = [g for g in group if g != fid]
            why[index[fid]] = f"exact duplicate of {', '.join(rest)}"
            other[index[fid]] = index[rest[0]]
    for group in among(junk.near_duplicate_clusters(store, memory.config)):
        for fid in group:
            if index[fid] in why:
                continue
            rest = [g for g in group if g != fid]
            more = "…" if len(rest) > 3 else ""
            why[index[fid]] = f"near-duplicate cluster of {len(group)}: with {', '.join(rest[:3])}{more}"
            other[index[fid]] = index[rest[0]]
    mask = np.zeros(len(memory), dtype=bool)
    mask[list(why)] = True
    return Suspects(mask, why, other)


def with_unsupported(duplicates: Suspects, memory: Memory) -> Suspects:
    """The duplicates plus the unsupported claims at the memory's instant."""
    unsupported = junk.unsupported_mask(memory.arrays, memory.config, memory.scores.now)
    why = dict(duplicates.why)
    text = unsupported_reason(memory)
    for i in np.flatnonzero(unsupported & ~duplicates.mask).tolist():
        why[i] = text
    return Suspects(duplicates.mask | unsupported, why, duplicates.other)


def recheck(suspects: Suspects, memory: Memory, positions: np.ndarray) -> Suspects:
    """Triage can only change whether a fact is an unsupported claim: re-test that at
    `positions`; a duplicate stays a duplicate."""
    if not len(positions):
        return suspects
    unsupported = junk.unsupported_mask(memory.arrays, memory.config, memory.scores.now)
    mask, why = suspects.mask.copy(), dict(suspects.why)
    text = unsupported_reason(memory)
    for i in np.asarray(positions).tolist():
        if i in suspects.other:
            continue
        if unsupported[i]:
            why[i], mask[i] = text, True
        else:
            why.pop(i, None)
            mask[i] = False
    return replace(suspects, mask=mask, why=why)


def signature_reason(memory: Memory, i: int) -> str | None:
    flags = int(memory.scores.flags[i])
    if flags & FLAG_SIG_UNTRUSTED:
        return "untrusted key: the signature verifies, but its key is not a trusted signer"
    if flags & FLAG_SIG_INVALID:
        if int(memory.arrays.sig_state[i]) == SIG_NONE:
            return "missing signature: declared signed, but carries none"
        return "forged: the signature does not verify"
    return None


def reason(memory: Memory, suspects: Suspects | None, i: int, signature_first: bool = False) -> str:
    """Why fact `i` is in a problem queue, or ''. The Signature queue asks for the
    signature's problem first, the others for the suspect's."""
    suspect = suspects.why.get(i) if suspects is not None else None
    signature = signature_reason(memory, i)
    first, second = (signature, suspect) if signature_first else (suspect, signature)
    return first or second or ""
