"""Issue 23, the browser's third edition: every key does what it says, at every width.

Each test is a user's keystrokes on the fixture store at a terminal size, asserting what
they would notice (the store's rows, the screen's text)."""

from __future__ import annotations

import pytest

from synapse_tui.ui.screens.confirm import ConfirmScreen
from synapse_tui.ui.widgets.fact_list import FactList

from .conftest import screen_text, settle
from .test_triage import audit, db_row

SIZES = [(80, 24), (120, 40), (200, 50)]


# -- 1. marks belong to the queue they were made in ---------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_marks_stay_with_their_queue_and_the_key_acts_on_the_row_shown(app, db, size):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("2")  # Stale
        await settle(pilot)
        facts = app.main.query_one(FactList)
        stale = [app.memory.ids[p] for p in facts.order[:2]]
        await pilot.press("space", "space")
        await settle(pilot)
        assert "2 marked" in screen_text(app)  # visible at every width
        await pilot.press("3")  # Disputed
        await settle(pilot)
        shown = app.main.current_fact_id()
        assert shown not in stale
        before = db_row(db, shown)["s"]
        assert "2 marked" not in screen_text(app)  # the marks do not apply here...
        assert "○ 2" in screen_text(app) and "in Stale" in screen_text(app)  # ...and say where
        await pilot.press("x")
        await settle(pilot)
        assert db_row(db, shown)["s"] == before + 1
        assert [r["fact_id"] for r in audit(db)] == [shown]
        await pilot.press("2")  # back in Stale the marks apply again
        await settle(pilot)
        assert "2 marked" in screen_text(app)


async def test_a_bulk_key_names_the_marked_facts_off_screen_before_acting(app, db):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.main.current_fact_id()
        await pilot.press("space", "end")  # the marked fact scrolls out of sight
        await settle(pilot)
        assert first not in screen_text(app)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "1 marked fact" in screen_text(app) and "not on screen" in screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        assert audit(db) == []
        await pilot.press("x", "y")
        await settle(pilot)
        assert [r["fact_id"] for r in audit(db)] == [first]
