"""The browser on a store on a server: its first screen is the file's, and a triage key
lands the same audit entry (issue 25: `synapse-tui postgresql://...`)."""

from __future__ import annotations

import asyncio
import time

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import config_for
from synapse_tui.core.store.db import Store
from tests.helpers import run
from tests.postgres.browsing import ui_store_on_server
from tests.ui.helpers import (
    NOW,
    SIZE,
    make_app,
    record_notices,
    screen_text,
    select,
    settle,
    trust,
)

pytestmark = pytest.mark.postgres


async def first_screen_and_corroborate(app, fact_id: str) -> tuple[str, str]:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = screen_text(app)
        await select(pilot, fact_id)
        await pilot.press("c")
        await settle(pilot)
        return first, screen_text(app)


def test_the_browser_shows_and_triages_as_on_the_file(tmp_path, new_database):
    db, url, config = ui_store_on_server(tmp_path, new_database)
    on_file = asyncio.run(first_screen_and_corroborate(make_app(db, config=config), "f-pay-03"))
    on_server = asyncio.run(first_screen_and_corroborate(make_app(url, config=config), "f-pay-03"))
    for mine, theirs in zip(on_file, on_server, strict=True):
        title, *rest = theirs.splitlines()
        assert rest == mine.splitlines()[1:]  # every line but the title, which names the store
        assert "synapse-tui — postgresql://postgres@/test_browser" in title
    assert run("export", url, "--audit").stdout == run("export", db, "--audit").stdout


async def sees_another_reviewer(app, url: str, fact_id: str) -> tuple[float, float]:
    from synapse_tui.core.review.triage import Action, Triage

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, fact_id)
        before = trust(app, fact_id)
        with Store.open(url) as other:  # another person's browser, another connection
            Triage(other, Clock(parse_time(NOW)), "user:other").apply(Action.CORROBORATE, [fact_id])
        deadline = time.monotonic() + 6  # the browser polls data_version every 2 s
        while trust(app, fact_id) == before and time.monotonic() < deadline:
            await pilot.pause(0.2)
        await settle(pilot)
        return before, trust(app, fact_id)


def test_another_reviewers_action_reaches_an_open_browser(tmp_path, new_database):
    db, url, config = ui_store_on_server(tmp_path, new_database)
    before, after = asyncio.run(sees_another_reviewer(make_app(url, config=config), url, "f-pay-03"))
    assert after > before


async def writes_calibration(app) -> list[tuple[str, str]]:
    from synapse_tui.ui.screens.calibration import CalibrationScreen

    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        notices = record_notices(app)
        app.action_calibrate()
        await settle(pilot)
        assert isinstance(app.screen, CalibrationScreen)
        await pilot.press("w")
        await settle(pilot)
        return notices


def test_calibration_on_a_server_without_a_config_writes_nowhere(tmp_path, new_database, monkeypatch):
    """`synapse-tui postgresql://...` scores with the defaults (no file beside a server):
    applying B0 and s says where it could write instead, and writes no file."""
    _, url, _ = ui_store_on_server(tmp_path, new_database)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    notices = asyncio.run(writes_calibration(make_app(url, config=config_for(url))))
    why = "a server has no config file beside it; open the browser with --config FILE"
    assert notices == [("error", f"B0 and s not written: {why}")]
    assert list(work.rglob("*")) == []
