"""Versions in a ranking (SPEC 6): the current version of a fact before the one it replaced.

Two kinds of evidence raise a newer fact to just above an older one, among the facts a
query's words reach; neither changes a score, a flag or the store:

- recorded: a fact that supersedes another (`supersedes`) ranks above it, along the chain;
- suggested: among the first EVIDENCE_WINDOW facts of the order, two current facts about
  the entity the question names (both hold its name) that `suggest`'s `replaced` finder
  pairs (SPEC 13: the same features and threshold, the newer saying it updates) rank the
  newer first, and each says so in its `rank_reason`. Nobody marked it: the ranking reads
  the evidence and shows it, and a person still accepts (`supersede`) or dismisses it; a
  dismissed pair is not used. The finder's rule that a fact names one predecessor is for
  accepting, not for reading: a fact that replaced one version may be the newer of
  another (the sample's `the Paylane contract renews on 2025-10-14`, a copy of the date
  that `Paylane now renews on 2026-06-29` replaced).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory

EVIDENCE_WINDOW = 30  # the first facts of the order read for suggested replacements


def versions(memory: Memory, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of reached facts, a newer version (ascending) and the version it replaced, as
    indices into `pos`: looked up for the store's facts that replaced one only."""
    sup = memory.arrays.supersedes  # what each fact replaced, -1 for nothing
    newer = np.flatnonzero(sup >= 0)
    new = np.searchsorted(pos, newer)
    reached = new < len(pos)
    reached[reached] = pos[new[reached]] == newer[reached]
    new, replaced = new[reached], sup[newer[reached]]
    old = np.searchsorted(pos, replaced)
    reached = old < len(pos)
    reached[reached] = pos[old[reached]] == replaced[reached]
    return new[reached], old[reached]


def newer_first(memory: Memory, pos: np.ndarray, score: np.ndarray) -> np.ndarray:
    """A newer version that the words reach too ranks just above the version it replaced
    (transitively, along the chain): an agent asking about a slot gets the current value
    first and the history after it. Versions the words do not reach are not added."""
    new, old = versions(memory, pos)
    if not len(new):
        return score
    return lift(score, new, old, int(memory.scores.k.max(initial=0)) + 1)


def lift(score: np.ndarray, new: np.ndarray, old: np.ndarray, passes: int) -> np.ndarray:
    """`score` with each `new` raised to just above its `old`, one step of a chain per pass."""
    score = score.copy()
    for _ in range(passes):
        lifted = np.maximum(score[new], score[old] * (1 + 1e-9) + 1e-12)
        if np.array_equal(lifted, score[new]):
            break
        score[new] = lifted
    return score


def suggested_first(
    memory: Memory, pos: np.ndarray, score: np.ndarray, subject: Sequence[np.ndarray], names: Sequence[str]
) -> tuple[np.ndarray, dict[int, str]]:
    """`score` with the newer of each suggested pair just above the older (see the module),
    and per position what the ranking read (for `rank_reason`). `subject`: the hits of the
    names the question asks about (every one held by both facts); none, nothing read."""
    from synapse_tui.core.review.suggest import REPLACED, Item, ReplacedFinder
    from synapse_tui.core.review.suggest_state import dismissals

    if not subject:
        return score, {}
    top = np.argsort(-score, kind="stable")[:EVIDENCE_WINDOW]
    held = np.ones(len(top), dtype=bool)
    for h in subject:
        found = np.minimum(np.searchsorted(h, pos[top]), max(len(h) - 1, 0))
        held &= h[found] == pos[top] if len(h) else False
    top = top[held & (memory.scores.k[pos[top]] == 0)]  # a superseded fact has its successor
    if len(top) < 2:
        return score, {}
    arrays, ids = memory.arrays, memory.ids
    texts = memory.store.texts(pos[top])
    items = []
    for i, text in zip(top.tolist(), texts, strict=True):
        p = int(pos[i])
        created = float(arrays.created[p])
        seen = float(arrays.events_of(p).max(initial=created))
        entities = tuple(names)  # the subject both hold, as the finder's shared scope
        ended = arrays.invalidated is not None and bool(arrays.invalidated[p])  # it replaces nothing
        items.append(
            Item(
                ids[p], text, created, None, entities, last_seen=seen if seen > created else None, ended=ended
            )
        )
    finder = ReplacedFinder.build(items)
    candidates = finder.suggestions()
    if not candidates:
        return score, {}
    dismissed = dismissals(memory.store).pairs(REPLACED)
    index = {ids[int(pos[i])]: i for i in top.tolist()}
    new, old, said = [], [], {}
    for s in candidates:
        if (s.fact, s.other) in dismissed:
            continue
        o, n = index[s.fact], index[s.other]
        old.append(o)
        new.append(n)
        said[int(pos[o])] = f"probably replaced by {s.other} ({s.why}): ranked after it, not applied"
        said[int(pos[n])] = f"ranked above {s.fact}, which it probably replaces (not applied)"
    if not new:
        return score, {}
    return lift(score, np.array(new), np.array(old), len(new) + 1), said
