"""A reply read with its question (SPEC 6): in a conversation kept a turn a fact, the answer
is often the turn after a question and shares none of its words.

`Caroline: Wow, what a family pic! How long have you been married?` holds the words of
`How long have Mel and her husband been married?`; the answer, `Melanie: 5 years
already!`, holds only a name. So among the first REPLY_SOURCES facts of the order, a fact
asking something (it holds a question mark) ranks the fact written next among the facts
searched (the scope and the filters), within REPLY_GAP seconds, just after itself, when
the words reach that fact and it ranked lower. Nothing is added that the words do not
reach, and nothing moves when no fact of the first ones asks anything (a store of
statements, as the sample's). The rule has no weight to tune: the reply takes the place
just below its question, as a newer version takes the place just above what it replaced.

Read by eye on LoCoMo's dev chats (benchmarks/locomo.py): of the 128 questions whose
evidence was not in the first ten, 40 had it as the turn after one of the first five, 35
of those a question.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory

REPLY_SOURCES = 30  # the first facts of the order whose next fact may be read as a reply
REPLY_GAP = 3600.0  # seconds: a turn written an hour after another is no reply to it


@dataclass(frozen=True)
class Replies:
    """Questions among the first facts of an order and the facts that reply to them:
    indices into the `pos` searched (`reply` -1 where the reply is outside it), with the
    reply's position in the store."""

    question: np.ndarray
    reply: np.ndarray
    reply_pos: np.ndarray


def replies(memory: Memory, pos: np.ndarray, key: np.ndarray, inside: np.ndarray | None) -> Replies:
    """The replies to the questions among the first REPLY_SOURCES of `key`'s order (ties in
    position order) over `pos` (ascending positions): each question's next fact among
    `inside` (every fact when None), written within REPLY_GAP seconds of it."""
    none = np.empty(0, dtype=np.int64)
    if not len(pos):
        return Replies(none, none, none)
    first = _first(pos, key, REPLY_SOURCES)
    asks = np.array(["?" in t for t in memory.store.texts(pos[first])], dtype=bool)
    question = first[asks]
    if inside is None:  # every fact searched: the next position
        nxt = pos[question] + 1
        ok = nxt < len(memory)
        question, nxt = question[ok], nxt[ok]
    else:
        rows = np.flatnonzero(inside)
        after = np.searchsorted(rows, pos[question], side="right")
        ok = after < len(rows)
        question, nxt = question[ok], rows[after[ok]]
    created = memory.arrays.created
    ok = np.abs(created[nxt] - created[pos[question]]) <= REPLY_GAP
    question, nxt = question[ok], nxt[ok]
    at = np.minimum(np.searchsorted(pos, nxt), len(pos) - 1)
    reply = np.where(pos[at] == nxt, at, -1)
    return Replies(question, reply, nxt)


def _first(pos: np.ndarray, key: np.ndarray, k: int) -> np.ndarray:
    """Indices of the `k` highest keys, best first, ties in position order: a partition,
    then a sort of those at or above the k-th key only."""
    if len(key) > k:
        cut = np.partition(key, len(key) - k)[len(key) - k]
        at = np.flatnonzero(key >= cut)
        return at[np.lexsort((pos[at], -key[at]))][:k]
    return np.lexsort((pos, -key))


def after_questions(key: np.ndarray, found: Replies, ids: list[str]) -> tuple[np.ndarray, dict[int, str]]:
    """`key` with each reply that the words reach raised to just below its question (never
    lowered), and per raised index what the ranking read; `ids`: each question's fact id."""
    out = key.copy()
    said: dict[int, str] = {}
    for q, r, fact in zip(found.question.tolist(), found.reply.tolist(), ids, strict=True):
        below = np.nextafter(key[q], -np.inf)
        if r >= 0 and below > out[r]:
            out[r] = below
            said[r] = f"replies to {fact}, which asks what the words match: ranked just after it"
    return out, said
