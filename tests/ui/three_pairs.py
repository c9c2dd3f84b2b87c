"""Three `replaced` suggestions in three notes (a changed day, duration and port), for the
Replaced? queue's tests of marking and acting on several at once, and the queue as shown."""

from __future__ import annotations

import time

from tests.ui.helpers import screen_text

PAIRS = [
    ("a", "deploys run on Fridays", "deploys run on Tuesdays since March", "ops"),
    ("c", "the build takes 5 minutes", "the build takes 3 minutes now", "ci"),
    ("e", "the API listens on port 8080", "the API listens on port 9090 now", "api"),
]
FACTS = [
    fact
    for p, old, new, note in PAIRS
    for fact in (
        {"id": f"{p}1", "text": old, "created_at": "2025-01-01T00:00:00Z", "note": note},
        {"id": f"{p}2", "text": new, "created_at": "2025-03-05T00:00:00Z", "note": note},
    )
]
SHOWN = ("a1 → a2", "c1 → c2", "e1 → e2")


async def listed(pilot, expect: bool, within: float = 10.0) -> str:
    """The screen once the three pairs are all listed (`expect`) or none is (the queue is
    found again in a worker after the browser reloads)."""
    deadline = time.monotonic() + within
    text = screen_text(pilot.app)
    while time.monotonic() < deadline:
        shows = [s in text for s in SHOWN]
        if all(shows) if expect else not any(shows):
            break
        await pilot.pause(0.05)
        text = screen_text(pilot.app)
    return text
