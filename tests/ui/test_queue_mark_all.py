"""Acting on every suggestion of a queue took a `space` per suggestion (104 presses for
104): `M` marks them all, as it does in the list, and `u` clears the marks."""

from __future__ import annotations

from synapse_tui.ui.screens.help import binding_rows
from synapse_tui.ui.screens.replaced import ReplacedScreen
from tests.ui.helpers import SIZE, db_row, imported, make_app, screen_text, settle
from tests.ui.three_pairs import FACTS, PAIRS, SHOWN


async def test_mark_all_then_dismiss_and_one_undo_brings_all_back(tmp_path):
    db = imported(tmp_path, "memory", FACTS)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ReplacedScreen)
        assert all(s in screen_text(app) for s in SHOWN), screen_text(app)
        assert "mark every suggestion" in dict(binding_rows(app.screen))["M"].lower()
        await pilot.press("M")
        await settle(pilot)
        assert "(3 marked)" in screen_text(app)
        await pilot.press("u")
        await settle(pilot)
        assert "(0 marked)" in screen_text(app)
        await pilot.press("M", "D")
        await settle(pilot)
        assert "dismiss 3 marked suggestions" in screen_text(app)
        await pilot.press("y")  # the confirmation
        await settle(pilot)
        await settle(pilot)
        assert not any(s in screen_text(app) for s in SHOWN), screen_text(app)
        await pilot.press("ctrl+z")
        await settle(pilot)
        await settle(pilot)
        assert all(s in screen_text(app) for s in SHOWN), screen_text(app)


async def test_mark_all_then_accept_supersedes_every_one(tmp_path):
    db = imported(tmp_path, "memory", FACTS)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        await pilot.press("M", "Y")
        await settle(pilot)
        assert "accept 3 marked suggestions" in screen_text(app)
        await pilot.press("y")  # the confirmation
        await settle(pilot)
        await settle(pilot)
        assert [db_row(db, f"{p}2")["supersedes"] for p, *_ in PAIRS] == ["a1", "c1", "e1"]


async def test_the_gone_queue_has_the_same_keys(tmp_path):
    db = imported(tmp_path, "memory", FACTS)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await settle(pilot)
        rows = dict(binding_rows(app.screen))
        assert "mark every one" in rows["M"].lower() and "clear every mark" in rows["u"].lower(), rows
