"""Keys the Footer names, pressed where there is nothing for them to act on (a store with
no facts): the list's `enter`, `n` and `space` say "no fact selected" as c x v a s do; the
Replaced? queue's `y`, `d`, `space` and `M` say the queue is empty; nothing is written."""

from __future__ import annotations

from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.screens.replaced import ReplacedScreen
from tests.ui.helpers import audit, imported, make_app, record_notices, settle


async def test_list_and_queue_keys_on_an_empty_store_say_why_nothing_happened(tmp_path):
    db = imported(tmp_path, "empty", [])
    before = audit(db)
    app = make_app(db)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            notices = record_notices(app)
            for key in ("enter", "n", "space"):
                await pilot.press(key)
                await settle(pilot)
                assert isinstance(app.screen, MainScreen)
            assert notices == [("warning", "no fact selected")] * 3, notices
            await pilot.press("R")
            await settle(pilot)
            await settle(pilot)
            assert isinstance(app.screen, ReplacedScreen) and app.screen.loaded
            del notices[:]
            for key in ("y", "d", "space", "M"):
                await pilot.press(key)
                await settle(pilot)
            assert notices == [("information", "the queue is empty")] * 4, notices
    finally:
        app.store.close()
    assert audit(db) == before
