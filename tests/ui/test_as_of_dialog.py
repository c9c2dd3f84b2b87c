"""The "as of" dialog (palette, As of) as a person types in it: a time after now is
refused in the dialog with why (`score --as-of` refuses it too: the future is not on
record), where it used to show every fact centuries old; a bare date is its midnight UTC;
an offset into the past works as before."""

from __future__ import annotations

import pytest

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


@pytest.mark.parametrize("text", ["2999-01-01T00:00:00Z", "+2w"])
async def test_a_time_after_now_is_refused_in_the_dialog(app, text):
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await typed(pilot, text)
        assert isinstance(app.screen, AsOfScreen)
        said = str(app.screen.query_one("#asof-error").render())
        assert "is after now (2026-12-01T00:00:00Z)" in said, said
        assert "the future is not on record" in said, said
        await pilot.press("escape")
        await settle(pilot)
        assert app.as_of is None and "AS OF" not in screen_text(app)


async def test_a_date_is_its_midnight_and_an_offset_is_the_past(app):
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await typed(pilot, "2026-06-01")
        assert isinstance(app.screen, MainScreen)
        assert "AS OF 2026-06-01T00:00:00Z" in screen_text(app), screen_text(app)
        await typed(pilot, "-30d")
        assert "AS OF 2026-11-01T00:00:00Z" in screen_text(app), screen_text(app)
