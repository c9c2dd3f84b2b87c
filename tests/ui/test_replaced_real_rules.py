"""The Replaced? queue on a real project's rules (Cursor's `.mdc`, CLAUDE.md): hundreds of
suggestions, many of them bullets with nested lines."""

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
    """At 80x24 the list shows nine: the header says how many and which one the cursor is
    on, as the main list's status line does (`All · 9/30`)."""
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


NESTED = [
    {
        "id": "k1",
        "text": "**Key Parameters:**\n*   `id`: the task to expand\n*   `num`: how many subtasks",
        "created_at": "2025-01-01T00:00:00Z",
        "note": "rules",
    },
    {
        "id": "k2",
        "text": "**Key Parameters:**\n*   `id`: the task to expand\n*   `num`: how many subtasks, by default 5",
        "created_at": "2025-02-01T00:00:00Z",
        "note": "rules",
    },
]


async def test_the_pane_keeps_a_nested_bullets_lines(tmp_path):
    """A rule's bullet with nested lines read as one run with `␊` between them in the pane,
    both texts alike, hard to compare; the pane has room: each line is its own, as the
    detail view shows them. The list's one-line rows still mark them."""
    app = make_app(imported(tmp_path, "memory", NESTED))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        seen = screen_text(app).splitlines()
        pane = seen[next(i for i, line in enumerate(seen) if "OLDER" in line) :]
        assert not any("␊" in line for line in pane), "\n".join(pane)
        assert any(line.strip() == "*   `num`: how many subtasks, by default 5" for line in pane), "\n".join(
            pane
        )
        assert any("␊" in line for line in seen if "k1 → k2" in line)
    app.store.close()
