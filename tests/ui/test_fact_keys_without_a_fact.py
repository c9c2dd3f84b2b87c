"""A triage key help lists (c x v a s, "on the highlighted row's fact") pressed on a view
of facts with none under the cursor (the session log before any action, a search that
matched nothing) says "no fact selected", as `y` does there, and writes nothing."""

from __future__ import annotations

from synapse_tui.ui.screens.help import binding_rows
from synapse_tui.ui.screens.session_log import SessionLogScreen
from tests.ui.helpers import SIZE, audit, record_notices, settle

KEYS = ["c", "x", "v", "a", "s"]


async def pressed(pilot, keys) -> list[tuple[str, str]]:
    notices = record_notices(pilot.app)
    for key in keys:
        await pilot.press(key)
        await settle(pilot)
    return notices


async def test_a_triage_key_in_the_empty_session_log_says_no_fact_selected(app, db):
    before = audit(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, SessionLogScreen) and app.screen.entries == ()
        listed = dict(binding_rows(app.screen))
        assert all(key in listed for key in KEYS)  # help offers them here
        notices = await pressed(pilot, KEYS)
        assert notices == [("warning", "no fact selected")] * len(KEYS)
        assert isinstance(app.screen, SessionLogScreen)  # `s` opened no chooser
    assert audit(db) == before


async def test_a_triage_key_on_an_empty_list_says_no_fact_selected_and_typing_is_not_a_key(app, db):
    before = audit(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        typing = await pressed(pilot, ["slash", "z", "q", "x", "c", "v"])  # a search: words, not keys
        assert typing == []
        await pilot.press("enter")
        await settle(pilot)
        assert app.shown_fact_id() is None
        assert await pressed(pilot, ["c"]) == [("warning", "no fact selected")]
    assert audit(db) == before


async def test_the_logs_own_keys_in_the_empty_log_say_why_they_did_nothing(app, db):
    """`o` (open fact) and `u` (undo this), in the log's Footer before any action, say
    the log is empty and what fills it, rather than nothing."""
    before = audit(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        notices = await pressed(pilot, ["o", "u"])
        empty = "nothing in the log yet: triage (c x v a s) shows up here, and o / u then act on it"
        assert notices == [("information", empty)] * 2, notices
        assert isinstance(app.screen, SessionLogScreen)
    assert audit(db) == before
