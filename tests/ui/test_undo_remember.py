"""The browser's ctrl+z takes back an agent's `remember` (the MCP server's own code path,
`core.agent.Recall`, on the real store): the notice says so and the fact is flagged deleted,
kept as history."""

from __future__ import annotations

from synapse_tui.core.agent import Recall
from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import load_config
from synapse_tui.core.store.db import Store
from tests.ui.helpers import NOW, make_app, record_notices, settle


def remembered(db) -> str:
    with Store.open(db) as store:
        recall = Recall(store, load_config(db.with_name("memory.synapse.toml")), Clock(parse_time(NOW)))
        fact = recall.remember("The staging host is stage1", "agent:scout")
        recall.settle()
    return fact["id"]


async def test_ctrl_z_takes_back_an_agent_s_remember(db):
    fact_id = remembered(db)
    app = make_app(db)
    try:
        notices = record_notices(app)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+z")
            await settle(pilot)
        assert any(f"undo remember {fact_id}: flagged deleted, kept as history" in m for _, m in notices), (
            notices
        )
    finally:
        app.store.close()
    with Store.open(db, readonly=True) as store:
        assert fact_id in store.imports.deleted()
