"""The "as of" dialog (palette, As of) as a person types in it: a bare date is its
midnight UTC (it was refused as "not a time"), an RFC 3339 time and an offset work as
before, and what is no time says how to write one."""

from __future__ import annotations

from synapse_tui.ui.screens.as_of import AsOfScreen
from synapse_tui.ui.screens.main import MainScreen
from tests.ui.helpers import screen_text, settle


async def typed(pilot, text: str) -> None:
    app = pilot.app
    app.action_as_of()
    await settle(pilot)
    app.screen.query_one("#asof-input").value = text
    await pilot.press("enter")
    await settle(pilot)


async def test_a_date_is_its_midnight_and_an_offset_is_relative_to_now(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await typed(pilot, "2026-06-01")
        assert isinstance(app.screen, MainScreen)
        assert "AS OF 2026-06-01T00:00:00Z" in screen_text(app), screen_text(app)
        await typed(pilot, "-30d")
        assert "AS OF 2026-11-01T00:00:00Z" in screen_text(app), screen_text(app)


async def test_what_is_no_time_says_how_to_write_one(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await typed(pilot, "yesterday")
        assert isinstance(app.screen, AsOfScreen)
        said = str(app.screen.query_one("#asof-error").render())
        assert "not a time: 'yesterday'; use RFC 3339 (2025-06-01T00:00:00Z), a date or" in said, said
