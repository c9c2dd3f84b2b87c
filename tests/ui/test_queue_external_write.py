"""Another process triages while the browser's Replaced? queue is open (the CLI beside it):
once the browser's poller has read the store again the queue no longer lists what was
accepted elsewhere, even when the queue was found again in the seconds before the poll,
with the memory as it was (the answer kept for the store must be of the store)."""

from __future__ import annotations

import json
import time

from tests.cli_run import run
from tests.ui.helpers import SIZE, imported, make_app, screen_text, settle
from tests.ui.three_pairs import FACTS, SHOWN, listed


def superseded_by(db, fid: str) -> list[str]:
    return json.loads(run("show", db, fid, "--json").output)["superseded_by"]


async def _gone_after_poll(pilot, shown: str, within: float = 8.0) -> str:
    deadline = time.monotonic() + within
    text = screen_text(pilot.app)
    while time.monotonic() < deadline and shown in text:
        await pilot.pause(0.1)
        text = screen_text(pilot.app)
    return text


async def test_a_supersede_by_the_cli_leaves_the_queue_after_the_poll(tmp_path):
    db = imported(tmp_path, "memory", FACTS)
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        text = await listed(pilot, True)
        assert all(s in text for s in SHOWN), text
        await pilot.press("escape")
        await settle(pilot)
        run("supersede", db, "a1", "a2")  # another process, its own connection
        assert superseded_by(db, "a1") == ["a2"]
        await pilot.press("R")  # the queue opened again before the poller saw the write
        await settle(pilot)
        app.poll_store()  # the poller's tick (every 2 s): the browser reads the store again
        text = await _gone_after_poll(pilot, SHOWN[0])
        assert SHOWN[0] not in text, text
        assert SHOWN[1] in text and SHOWN[2] in text, text


async def test_an_undo_by_the_cli_brings_the_pair_back_after_the_poll(tmp_path):
    db = imported(tmp_path, "memory", FACTS)
    run("supersede", db, "a1", "a2")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        text = await listed(pilot, True, within=2.0)
        assert SHOWN[0] not in text and SHOWN[1] in text, text
        await pilot.press("escape")
        await settle(pilot)
        run("undo", db)
        await pilot.press("R")
        await settle(pilot)
        app.poll_store()
        deadline = time.monotonic() + 8.0
        text = screen_text(app)
        while time.monotonic() < deadline and SHOWN[0] not in text:
            await pilot.pause(0.1)
            text = screen_text(app)
        assert SHOWN[0] in text, text
