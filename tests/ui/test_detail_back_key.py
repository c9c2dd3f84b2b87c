"""`backspace` in the full view of a fact, which help lists on every fact: after a jump
along the supersession chain it comes back; with nothing jumped from it says so (and what
jumps), instead of doing nothing in silence."""

from __future__ import annotations

from textual.widgets import OptionList

from synapse_tui.ui.screens.detail import DetailScreen
from tests.ui.helpers import record_notices, select, settle


async def test_backspace_with_nothing_to_go_back_to_says_so(app):
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await select(pilot, "f-db-v1")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        notices = record_notices(app)
        await pilot.press("backspace")
        await settle(pilot)
        assert app.screen.fact_id == "f-db-v1"
        assert notices == [
            ("information", "nothing to go back to: enter on a version of the supersession chain jumps to it")
        ]
        chain = app.screen.query_one("#detail-chain", OptionList)
        chain.focus()
        chain.highlighted = 1
        await pilot.press("enter")  # what the notice says: a jump, and then backspace comes back
        await settle(pilot)
        assert app.screen.fact_id == "f-db-v2"
        await pilot.press("backspace")
        await settle(pilot)
        assert app.screen.fact_id == "f-db-v1" and len(notices) == 1
