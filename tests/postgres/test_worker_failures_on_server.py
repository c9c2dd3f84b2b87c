"""The browser on a server whose connection goes away (the server restarted, the network
dropped it: here its backends are terminated by another real connection): the browser
keeps running, a triage key says "Not saved" and writes nothing, and the poll that looks
for other writers' changes says once that it cannot read the store, not every two seconds."""

from __future__ import annotations

import asyncio

import pytest

from synapse_tui.core.store.db import Store
from tests.postgres.browsing import ui_store_on_server
from tests.postgres.sessions import server_gone
from tests.ui.helpers import SIZE, make_app, record_notices, row_of, screen_text, select, settle, trust
from tests.ui.helpers import errors as error_notices

pytestmark = pytest.mark.postgres


async def corroborate_after_the_server_dropped_us(app, url: str) -> tuple[list[tuple[str, str]], bool, bool]:
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, "f-pay-03")
        before = (trust(app, "f-pay-03"), row_of(app, "f-pay-03"))
        text = app.texts([app.memory.index["f-pay-03"]])[0][:30]  # read now: the server goes
        with server_gone(url):  # a session ended is opened again: here it cannot be
            await pilot.press("c")
            await settle(pilot)
            await pilot.pause(4.5)  # two more polls of the store (every 2 s)
        row = next(line for line in screen_text(app).splitlines() if text in line)
        unchanged = (trust(app, "f-pay-03"), row) == before
        return notices, app.is_running, unchanged


def test_a_server_gone_under_a_triage_key_is_not_saved_and_the_browser_goes_on(tmp_path, new_database):
    db, url, config = ui_store_on_server(tmp_path, new_database)
    with Store.open(url) as store:
        before = store.record("f-pay-03").corroborations
    app = make_app(url, config=config)
    try:
        notices, running, unchanged = asyncio.run(corroborate_after_the_server_dropped_us(app, url))
    finally:
        app.store.close()
    assert running and unchanged
    errors = error_notices(notices)
    saved = [t for t in errors if t.startswith("Not saved: corroborate f-pay-03: the connection to")]
    polled = [t for t in errors if t.startswith("Could not check the store for changes: the connection to")]
    assert len(saved) == 1 and "postgresql://" in saved[0]
    assert len(polled) == 1  # said once, however many polls failed
    with Store.open(url) as store:
        assert store.record("f-pay-03").corroborations == before
