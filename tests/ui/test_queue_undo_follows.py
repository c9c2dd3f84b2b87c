"""The "Replaced?" queue after ctrl+z: the cursor follows the suggestion that came back, as
the list's does, so the next `y` acts on the fact the undo brought back (a newcomer dismissed
the second suggestion, undid it, pressed `y`, and accepted the first one instead)."""

from __future__ import annotations

from synapse_tui.ui.screens.replaced import ReplacedScreen
from tests.ui.helpers import SIZE, audit, db_row, imported, make_app, screen_text, settle

FACTS = [
    {"id": "a1", "text": "deploys run on Fridays", "created_at": "2025-01-01T00:00:00Z", "note": "ops"},
    {
        "id": "a2",
        "text": "deploys run on Tuesdays since March",
        "created_at": "2025-03-05T00:00:00Z",
        "note": "ops",
    },
    {"id": "c1", "text": "the build takes 5 minutes", "created_at": "2025-01-01T00:00:00Z", "note": "ci"},
    {"id": "c2", "text": "the build takes 3 minutes now", "created_at": "2025-03-01T00:00:00Z", "note": "ci"},
]


async def test_undo_of_a_dismiss_brings_the_cursor_back_to_it(tmp_path):
    db = imported(tmp_path, "memory", FACTS)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ReplacedScreen)
        assert "a1 → a2" in screen_text(app) and "c1 → c2" in screen_text(app)
        first = app.screen.current()
        assert first is not None
        await pilot.press("down")  # the second suggestion
        await settle(pilot)
        second = app.screen.current()
        assert second is not None and second.fact != first.fact
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("ctrl+z")
        await settle(pilot)
        await settle(pilot)
        assert app.screen.current() == second  # the one the undo brought back
        await pilot.press("y")
        await settle(pilot)
        await settle(pilot)
        assert [e["action"] for e in audit(db)][-1] == "supersede"
        assert db_row(db, second.other)["supersedes"] == second.fact
        assert db_row(db, first.other)["supersedes"] is None


async def test_help_says_when_the_bulk_keys_ask(tmp_path):
    """Help said `D  Dismiss every marked suggestion as one action (asks first)`; with one
    marked it dismisses at once (a bulk asks from two): help says when it asks."""
    from synapse_tui.ui.screens.help import binding_rows

    db = imported(tmp_path, "memory", FACTS)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        rows = dict(binding_rows(app.screen))
        assert "more than one" in rows["D"] and "more than one" in rows["Y"], rows
        await pilot.press("space", "D")
        await settle(pilot)
        assert isinstance(app.screen, ReplacedScreen)  # no question for one
        assert [e["action"] for e in audit(db)] == ["dismiss"]
        await pilot.press("B")
        await settle(pilot)
        rows = dict(binding_rows(app.screen))
        assert "more than one" in rows["D"] and "more than one" in rows["Y"], rows
