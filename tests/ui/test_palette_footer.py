"""The command palette (ctrl+p) has a Footer of its own: `esc close`, not the list's keys
(`/ find`, `n nbr`, `␣ mark`...) showing through from underneath, which are typed into the
palette's box while it is open. Its keys still work: the arrows move, enter runs, escape
closes, and the list's Footer is back after."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette

from synapse_tui.ui.screens.main import MainScreen
from tests.ui.helpers import footer_line, settle

LIST_KEYS = ("find", "nbr", "mark", "sort", "triage", "queue")


@pytest.mark.parametrize("size", [(80, 24), (160, 40)])
async def test_the_palette_footer_names_its_own_keys(app, size):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert CommandPalette.is_open(app)
        shown = await footer_line(pilot, "esc close", absent=LIST_KEYS)
        assert "esc close" in shown and not any(word in shown for word in LIST_KEYS), shown
        await pilot.press("n")  # typed into the box, as the Footer no longer says otherwise
        await settle(pilot)
        assert CommandPalette.is_open(app)
        await pilot.press("escape")
        await settle(pilot)
        shown = await footer_line(pilot, "find")
        assert isinstance(app.screen, MainScreen) and "find" in shown, shown


async def test_the_palette_still_runs_the_highlighted_command(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        for key in "Queue: Stale":
            await pilot.press("space" if key == " " else key)
        await settle(pilot, 0.2)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.browser.view.queue == 1, app.browser.view  # the second queue, Stale
