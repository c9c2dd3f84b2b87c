"""A walk along a supersession chain: each fact names at most one predecessor, so finding
whether one fact leads to another is a walk, not a search. An import (a snapshot's links
in a dict) and triage (the store's links, read one step at a time) both refuse a link that
would close a cycle by asking this before they write it.
"""

from __future__ import annotations

from collections.abc import Callable


def leads_to(start: str, goal: str, predecessor: Callable[[str], str | None]) -> bool:
    """Whether following `predecessor` (what a fact `supersedes`) from `start` arrives at
    `goal`; a chain that already loops ends the walk where it comes round again."""
    seen: set[str] = set()
    at: str | None = start
    while at is not None and at not in seen:
        if at == goal:
            return True
        seen.add(at)
        at = predecessor(at)
    return False
