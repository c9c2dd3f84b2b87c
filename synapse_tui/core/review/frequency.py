"""Count a list of facts by a field (VisiData's frequency sheet, `F`): how many of the
facts listed came from each note, sit in each tier, came from each source or agent.

`facets` reads the note, source and agent of every fact once (a worker's read); `count`
groups any list of positions by one of them, biggest first. Each value carries the query
term that lists its facts, so the browser can narrow the list to it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from synapse_tui.core.trust.score import TIERS

if TYPE_CHECKING:
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.store.db import Store

FIELDS = ("note", "tier", "source", "agent")
# provenance keys naming a fact's source and agent, first found wins
SOURCE_KEYS = ("x-source", "x-ai-source")
AGENT_KEYS = ("x-ai-agent", "x-agent", "agent")
NONE = "(none)"


@dataclass(frozen=True)
class Facets:
    """Per position: (key, value) of note, source and agent; value None when not recorded."""

    note: list[tuple[str, str | None]]
    source: list[tuple[str, str | None]]
    agent: list[tuple[str, str | None]]


@dataclass(frozen=True)
class Group:
    value: str  # as shown (NONE when not recorded)
    count: int
    term: str | None  # the query term listing these facts (None: no term can)


def _first(provenance: dict | None, keys: tuple[str, ...]) -> tuple[str, str | None]:
    for key in keys:
        value = (provenance or {}).get(key)
        if isinstance(value, str) and value:
            return key, value
    return keys[0], None


def facets(store: Store, size: int) -> Facets:
    """Note, source and agent of each of the store's `size` facts, by position."""
    note: list[tuple[str, str | None]] = [("note", None)] * size
    source: list[tuple[str, str | None]] = [(SOURCE_KEYS[0], None)] * size
    agent: list[tuple[str, str | None]] = [(AGENT_KEYS[0], None)] * size
    for record in store.records():
        if 0 <= record.pos < size:
            note[record.pos] = ("note", record.note or None)
            source[record.pos] = _first(record.provenance, SOURCE_KEYS)
            agent[record.pos] = _first(record.provenance, AGENT_KEYS)
    return Facets(note, source, agent)


def _term(field: str, key: str, value: str | None) -> str | None:
    if value is None or '"' in value or "\n" in value:
        return None  # no query term can name it (a quoted value holds no quote)
    if any(ch.isspace() for ch in value):
        value = f'"{value}"'  # a value with spaces is quoted: note:"My Notes.md"
    if field == "note":
        return f"note:{value}"
    if field == "tier":
        return f"tier:{value}"
    return f"prov:{key}={value}"


def count(field: str, positions: np.ndarray, memory: Memory, found: Facets | None) -> list[Group]:
    """The facts at `positions` grouped by `field`, biggest group first (ties by value)."""
    if field not in FIELDS:
        raise ValueError(f"no such field to count by: {field}")
    if field == "tier":
        tiers = np.bincount(memory.scores.tier[positions].astype(np.int64), minlength=len(TIERS))
        keyed = Counter({("tier", TIERS[i]): int(n) for i, n in enumerate(tiers) if n})
    else:
        assert found is not None  # note, source and agent are read first (`facets`)
        column = getattr(found, field)
        keyed = Counter(column[int(p)] for p in positions)
    groups = [
        Group(value if value is not None else NONE, n, _term(field, key, value))
        for (key, value), n in keyed.items()
    ]
    return sorted(groups, key=lambda g: (-g.count, g.value))
