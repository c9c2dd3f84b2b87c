"""Pilot tests of triage in the browser: every key, undo chains (across a restart), bulk
marks, supersede (refusal and success), read-only stores, and that viewing never writes."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from synapse_tui.core.store.db import Store
from synapse_tui.ui.screens.confirm import ConfirmScreen
from synapse_tui.ui.screens.detail import DetailScreen
from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.screens.supersede import SupersedeScreen
from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import (
    NOW,
    SIZE,
    audit,
    candidates_listed,
    db_row,
    make_app,
    record_notices,
    row_of,
    screen_text,
    searched,
    select,
    settle,
    trust,
)


@pytest.mark.parametrize(
    ("key", "action", "fact_id", "column", "expected"),
    [
        ("c", "corroborate", "f-pay-03", "r", 1),
        ("x", "contradict", "f-pay-01", "s", 1),
        ("v", "verify", "f-old-1", "r", 0),
        ("a", "accept", "f-unsup", "tier", "human"),
    ],
)
async def test_each_triage_key_updates_row_detail_store_and_audit(
    app, db, key, action, fact_id, column, expected
):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await select(pilot, fact_id)
        old = trust(app, fact_id)
        await pilot.press(key)
        await settle(pilot)
        new = trust(app, fact_id)
        assert new != old
        assert f"{new:.2f}" in row_of(app, fact_id)
        assert notices[-1] == ("information", notices[-1][1])
        recorded = "contradiction recorded; " if action == "contradict" else ""
        assert notices[-1][1].startswith(f"{action} {fact_id}: {recorded}trust {old:.2f} -> {new:.2f}")
        assert app.main.current_fact_id() == fact_id  # the user's place is kept
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        assert f"{new:.2f}" in screen_text(app).splitlines()[1]  # the detail header: id, band, trust
        # the store, read by another connection, holds the change and its audit entry
        assert db_row(db, fact_id)[column] == expected
        (entry,) = audit(db)
        assert (entry["action"], entry["fact_id"], entry["at"]) == (action, fact_id, NOW)
        assert entry["actor"].startswith("user")
        before, after = json.loads(entry["before"]), json.loads(entry["after"])
        assert before != after
        if action == "verify":
            assert after["reinforced_at"][-1] == NOW


async def test_triage_from_the_detail_view_refreshes_it(app):
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await select(pilot, "f-deploy")
        await pilot.press("enter")
        await settle(pilot)
        old = trust(app, "f-deploy")
        await pilot.press("c")
        await settle(pilot)
        new = trust(app, "f-deploy")
        assert new > old
        text = screen_text(app)
        assert "r=2 s=3" in text and "corroborate" in text.split("HISTORY", 1)[1]


async def test_undo_chain_redo_and_nothing_left_to_undo(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        original = app.memory.rows()
        await select(pilot, "f-pay-03")
        await pilot.press("c")
        await select(pilot, "f-deploy")
        await pilot.press("x")
        await settle(pilot)
        assert db_row(db, "f-pay-03")["r"] == 1 and db_row(db, "f-deploy")["s"] == 4
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert notices[-1][1].startswith("undo contradict f-deploy: trust")
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert notices[-1][1].startswith("undo corroborate f-pay-03: trust")
        assert app.memory.rows() == original
        assert db_row(db, "f-pay-03")["r"] == 0 and db_row(db, "f-deploy")["s"] == 3
        assert [e["action"] for e in audit(db)] == ["corroborate", "contradict", "undo", "undo"]
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert notices[-1] == ("error", "undo: nothing changed: nothing to undo")
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert notices[-1][1].startswith("redo corroborate f-pay-03")
        assert db_row(db, "f-pay-03")["r"] == 1
        assert f"{trust(app, 'f-pay-03'):.2f}" in row_of(app, "f-pay-03")


async def test_a_redo_is_a_change_of_its_own_the_next_undo_undoes_it(db):
    """`x v ctrl+z ctrl+z ctrl+y ctrl+y ctrl+z` on one fact: the undo takes back the last
    redo (the verification), the next one the first (the contradiction), in the browser
    and, after a restart, from the command line."""
    first = make_app(db)
    async with first.run_test(size=SIZE) as pilot:
        notices = record_notices(first)
        await settle(pilot)
        await select(pilot, "f-pay-01")
        s0 = db_row(db, "f-pay-01")["s"]
        for key in ("x", "v", "ctrl+z", "ctrl+z", "ctrl+y", "ctrl+y"):
            await pilot.press(key)
            await settle(pilot)
        assert db_row(db, "f-pay-01")["s"] == s0 + 1
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert notices[-1][0] == "information", notices[-1]
        assert notices[-1][1].startswith("undo verify f-pay-01: trust"), notices[-1]
        await pilot.press("ctrl+y")  # and redone again
        await settle(pilot)
        assert notices[-1][1].startswith("redo verify f-pay-01"), notices[-1]
    first.store.close()
    from tests.helpers import run as cli

    assert cli("undo", db).stdout.startswith("undid verify f-pay-01")
    assert cli("undo", db).stdout.startswith("undid contradict f-pay-01")
    assert db_row(db, "f-pay-01")["s"] == s0
    assert "nothing to undo" in cli("undo", db, ok=False).stderr


async def test_undo_survives_a_restart(db):
    first = make_app(db)
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "f-pay-03")
        original = trust(first, "f-pay-03")
        await pilot.press("c")
        await settle(pilot)
        assert trust(first, "f-pay-03") != original
    first.store.close()
    second = make_app(db)
    async with second.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert trust(second, "f-pay-03") != original
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert trust(second, "f-pay-03") == pytest.approx(original)
        assert f"{original:.2f}" in row_of(second, "f-pay-03")
    second.store.close()
    assert db_row(db, "f-pay-03")["r"] == 0


async def test_bulk_marks_apply_as_one_batch_and_one_undo(app, db):
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        facts = app.query_one(FactList)
        original = app.memory.rows()
        await pilot.press("space", "space", "space")  # marks the first three, moving down
        ids = [app.memory.ids[p] for p in facts.order[:3]]
        assert "● 3 marked" in screen_text(app)
        assert screen_text(app).count("●") == 4  # three gutters and the count
        await pilot.press("v")
        await settle(pilot)
        rows = audit(db)
        assert [r["fact_id"] for r in rows] == ids and len({r["batch"] for r in rows}) == 1
        assert notices[-1][1].startswith("verify 3 facts: mean trust")
        assert "marked" not in screen_text(app)  # marks clear after the action
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.memory.rows() == original
        assert [r["action"] for r in audit(db)].count("undo") == 3  # one undo batch of three
        assert len({r["batch"] for r in audit(db)}) == 2


async def test_mark_all_in_a_queue_asks_first_when_large(app, db):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3", "M")  # Disputed: 3 facts, no question
        assert "● 3 marked" in screen_text(app)
        await pilot.press("u")
        assert "marked" not in screen_text(app)
        await pilot.press("1", "M", "v")  # All: 30 facts, more than 20
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert audit(db) == [] and "● 30 marked" in screen_text(app)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert len(audit(db)) == 30 and len({r["batch"] for r in audit(db)}) == 1


async def _open_supersede(pilot, old: str, query: str, target: str) -> SupersedeScreen:
    await select(pilot, old)
    await pilot.press("s")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SupersedeScreen)
    await pilot.press(*query)
    await candidates_listed(pilot)
    await pilot.press("enter")  # to the candidates
    options = screen.query_one("#sup-candidates")
    index = next(i for i in range(options.option_count) if options.get_option_at_index(i).id == target)
    options.highlighted = index
    await pilot.press("enter")  # preview
    await settle(pilot)
    return screen


async def test_supersede_refuses_a_cycle_and_changes_nothing(app, db):
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        screen = await _open_supersede(pilot, "f-db-v3", "Postgres 12", "f-db-v1")
        text = screen_text(app)
        assert "cannot apply: f-db-v1 cannot supersede f-db-v3" in text
        assert "supersession cycle" in text and "nothing has changed" in text
        await pilot.press("y")  # does nothing: the preview refused
        await settle(pilot)
        assert app.screen is screen
        assert audit(db) == [] and db_row(db, "f-db-v1")["supersedes"] is None
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and audit(db) == []


async def test_supersede_applies_after_the_blast_radius(app, db):
    async with app.run_test(size=(100, 40)) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        assert "Superseded 2" in screen_text(app)
        await _open_supersede(pilot, "f-dup-b", "gateway", "f-dup-a")
        text = screen_text(app)
        assert "f-dup-a would replace f-dup-b" in text and "BLAST RADIUS" in text
        radius = [r.id for r in app.screen.radius.related]
        assert radius and "f-dup-a" not in radius and "f-dup-b" not in radius
        await pilot.press("m")  # mark them, to give them the same treatment next
        assert app.browser.marks == {app.memory.index[f] for f in radius}
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert int(app.memory.scores.k[app.memory.index["f-dup-b"]]) == 1
        assert f"● {len(radius)} marked" in screen_text(app)  # supersede leaves the marks
        await pilot.press("u")
        assert "Superseded 3" in screen_text(app)
        assert db_row(db, "f-dup-a")["supersedes"] == "f-dup-b"
        assert (
            notices[-1][1].startswith("supersede f-dup-b by f-dup-a: trust") and "k 0 -> 1" in notices[-1][1]
        )
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert db_row(db, "f-dup-a")["supersedes"] is None and "Superseded 2" in screen_text(app)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_read_only_store_says_so_and_triage_keys_explain(db):
    before = digest(db)
    store = Store.open(db, readonly=True)
    from synapse_tui.core.base.clock import Clock, parse_time
    from synapse_tui.core.base.config import load_config
    from synapse_tui.ui.app import SynapseApp

    app = SynapseApp(
        store=store,
        config=load_config(db.with_name("memory.synapse.toml")),
        clock=Clock(parse_time(NOW)),
        theme="textual-dark",
    )
    async with app.run_test(size=SIZE) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        assert "read-only" in screen_text(app).splitlines()[0]
        await pilot.press("space")  # marks are viewing, so they work
        for key in ("c", "x", "v", "a", "s", "ctrl+z", "ctrl+y"):
            await pilot.press(key)
            await settle(pilot)
            assert notices[-1] == ("warning", f"read-only: {db} cannot be written; triage is off")
            assert isinstance(app.screen, MainScreen)
        assert len(notices) == 7
    store.close()
    assert digest(db) == before and audit(db) == []


async def test_viewing_never_writes(app, db):
    before = digest(db)
    watcher = sqlite3.connect(db)
    version = watcher.execute("PRAGMA data_version").fetchone()[0]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "end", "pagedown", "home", "tab", "o", "3", "1")
        await pilot.press("slash", *"payments")
        await searched(pilot)
        await pilot.press("enter", "space", "u", "escape")
        await select(pilot, "f-pay-01")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("escape", "escape", "question_mark")
        await settle(pilot)
        await pilot.press("escape")
        await select(pilot, "f-dup-b")
        await pilot.press("s")  # the supersede chooser only reads, until confirmed
        await settle(pilot)
        await pilot.press("escape", "q")
    app.store.close()
    assert watcher.execute("PRAGMA data_version").fetchone()[0] == version
    assert watcher.execute("SELECT count(*) FROM audit").fetchone()[0] == 0
    watcher.close()
    assert digest(db) == before
