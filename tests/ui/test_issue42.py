"""Pilot tests of the browser defects of issue 42, each as a user would meet it."""

from __future__ import annotations

from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import SIZE, record_notices, searched, settle


async def _type_search(pilot, text: str) -> None:
    await pilot.press("slash")
    pilot.app.main.query_one("#search").insert_text_at_cursor(text)
    await searched(pilot)


async def test_11_an_invalid_filter_lists_nothing_so_nothing_can_be_marked(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        everything = len(app.main.query_one(FactList).order)
        assert everything > 5
        await _type_search(pilot, "is:stal paylane")
        facts = app.main.query_one(FactList)
        assert len(facts.order) == 0
        assert "no facts here" in facts.render_line(0).text
        facts.focus()
        await pilot.press("M")
        await settle(pilot)
        assert not app.browser.marks
        await pilot.press("v")
        await settle(pilot)
        assert not any("verify" in text and "trust" in text for _, text in notices)
        # corrected, the list follows the query again
        box = app.main.query_one("#search")
        box.value = "is:stale"
        await searched(pilot)
        assert 0 < len(facts.order) < everything


async def test_16_undoing_a_bulk_puts_the_cursor_back_where_the_bulk_started(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")  # Stale
        await settle(pilot)
        facts = app.main.query_one(FactList)
        for _ in range(3):
            await pilot.press("down")
        started = app.main.current_fact_id()
        stale = len(facts.order)
        await pilot.press("M")
        await pilot.press("v")
        await settle(pilot)
        if app.screen is not app.main:  # asked to confirm
            await pilot.press("y")
            await settle(pilot)
        assert len(facts.order) < stale  # verified: they left the Stale queue
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert len(facts.order) == stale
        assert app.main.current_fact_id() == started
        assert facts.cursor == 3
