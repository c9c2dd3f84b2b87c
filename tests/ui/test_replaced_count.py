"""The Replaced? queue on a real store's history holds hundreds of suggestions, and at 80x24
its list shows nine: the header says how many and which one the cursor is on, as the main
list's status line does (`All · 9/30`)."""

from __future__ import annotations

from tests.ui.helpers import imported, make_app, screen_text, settle

FACTS = [
    {"id": "a1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "a2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
    {
        "id": "c1",
        "text": "the API rate limit is 600 requests per minute",
        "created_at": "2025-01-01T00:00:00Z",
        "note": "api",
    },
    {
        "id": "c2",
        "text": "the API rate limit is now 900 requests per minute",
        "created_at": "2025-04-01T00:00:00Z",
        "note": "api",
    },
]


async def test_the_header_counts_the_queue_and_follows_the_cursor(tmp_path):
    app = make_app(imported(tmp_path, "memory", FACTS))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert "Replaced? 1/2" in screen_text(app).splitlines()[0], screen_text(app)
        await pilot.press("down")
        await settle(pilot)
        assert "Replaced? 2/2" in screen_text(app).splitlines()[0]
        await pilot.press("d")  # dismissed: one left
        await settle(pilot)
        assert "Replaced? 1/1" in screen_text(app).splitlines()[0], screen_text(app)
    app.store.close()
