"""Live change notices reach a running session (issue 25 point 3): a browser open on a
server shows another connection's action within a second with its poll made an hour long,
so the notice did it; the MCP session's very next answer after another writer's action holds
it, with no notice awaited (it asks the store on every call, as on a file)."""

from __future__ import annotations

import asyncio
import time

import pytest

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.review.triage import Action, Triage
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.postgres import live
from tests.helpers import write_jsonl
from tests.postgres.browsing import ui_store_on_server
from tests.ui.helpers import NOW, SIZE, make_app, select, settle, trust

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def server_store(tmp_path_factory, new_database):
    _, url, config = ui_store_on_server(tmp_path_factory.mktemp("live"), new_database)
    return url, config


def corroborate_elsewhere(url: str, fact_id: str) -> None:
    with Store.open(url) as other:  # another person's browser, another connection
        Triage(other, Clock(parse_time(NOW)), "user:other").apply(Action.CORROBORATE, [fact_id])


async def notice_to_screen(app, url: str, fact_id: str) -> tuple[float, float, float]:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, fact_id)
        before = trust(app, fact_id)
        corroborate_elsewhere(url, fact_id)
        start = time.monotonic()
        while trust(app, fact_id) == before and time.monotonic() - start < 10:
            await pilot.pause(0.01)
        elapsed = time.monotonic() - start
        await settle(pilot)
        return before, trust(app, fact_id), elapsed


def test_another_writers_action_reaches_an_open_browser_within_a_second(server_store, monkeypatch):
    import synapse_tui.ui.screens.main as main_screen

    monkeypatch.setattr(main_screen, "POLL_SECONDS", 3600.0)  # the poll cannot be what shows it
    url, config = server_store
    app = make_app(url, config=config)
    before, after, elapsed = asyncio.run(notice_to_screen(app, url, "f-pay-03"))
    assert after > before
    assert elapsed < 1.0


def test_the_mcp_sessions_next_answer_holds_another_writers_action(server_store, tmp_path, monkeypatch):
    url, config = server_store
    late = live.Listener._catch_up  # a notice read late: a busy machine, a slow network

    def slow(self):
        time.sleep(0.3)
        return late(self)

    monkeypatch.setattr(live.Listener, "_catch_up", slow)
    with Store.open(url) as store, Store.open(url) as other:  # another person's, another connection
        recall = Recall(store, config, Clock(parse_time(NOW)))
        before = recall.show("f-pay-02")
        Triage(other, Clock(parse_time(NOW)), "user:other").apply(Action.CORROBORATE, ["f-pay-02"])
        after = recall.show("f-pay-02")  # at once
        assert after["corroborations"] == before["corroborations"] + 1
        assert after["trust"] > before["trust"] and after["history"][-1]["actor"] == "user:other"
        for n in range(3):
            fact = {"id": f"late-{n}", "text": f"quokka sighting number {n}", "created_at": NOW}
            src = write_jsonl(tmp_path / f"late-{n}.jsonl", [fact])
            import_facts(other, parse_file(src), str(src))
            found = recall.search("quokka sighting", limit=10)["results"]  # at once
            assert {r["id"] for r in found} == {f"late-{i}" for i in range(n + 1)}
