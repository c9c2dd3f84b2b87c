"""Pilot tests of the neighbour view, the path view, the session log and the legend, each
pushed directly onto the browser (the app wires keys to them)."""

from __future__ import annotations

import math
import re

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.review.sessionlog import session_mark
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.score import FLAG_NAMES
from synapse_tui.ui.screens.legend import LegendScreen
from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.screens.nav import RowTable
from synapse_tui.ui.screens.neighbours import NeighbourScreen
from synapse_tui.ui.screens.path import PathScreen
from synapse_tui.ui.screens.session_log import SessionLogScreen
from tests.ui.helpers import NOW, SIZE, harness, screen_text, settle


async def push(pilot, screen) -> None:
    await settle(pilot)
    pilot.app.push_screen(screen)
    await settle(pilot)


def highlighted(app) -> str:
    return app.screen.rows[app.screen.query_one(RowTable).cursor_row].node


def record(app, fact_id: str):
    return app.store.record(fact_id)


# -- the neighbour view -----------------------------------------------------------------


async def test_neighbours_rows_columns_and_weights(db):
    app = harness(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await push(pilot, NeighbourScreen("f-deploy"))
        text = screen_text(app)
        assert "NEIGHBOURS OF f-deploy" in text and "Production deploys happen on Fridays" in text
        lines = [
            line for line in text.splitlines() if re.match(r" (semantic|shares|2 hops|entity|npmi) ", line)
        ]
        assert len(lines) == len(app.screen.rows) >= 4
        # fixed columns: every row's id starts in the same column, the text too
        starts = {line.find(f" {r.node} ") for line, r in zip(lines, app.screen.rows, strict=True)}
        assert len(starts) == 1 and -1 not in starts, lines
        # f-new-2 shares "deploys", which 3 of the 30 facts name: one chain of two such links
        shared = {r.node: r.weight for r in app.screen.rows if r.section == "shared"}
        specificity = math.log1p(30 / 3) / math.log1p(30)
        assert shared == {"f-new-2": pytest.approx(specificity**2)}
        assert f"{specificity**2:.2f}" == "0.49" and "0.49" in next(
            line for line in lines if " f-new-2 " in line
        )
        assert "deploys · 3 facts name it · importance" in text
    app.store.close()


async def test_neighbours_open_acts_on_the_highlighted_row_and_walking_keeps_the_list(db):
    app = harness(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.go_to_fact("f-sso")
        await pilot.pause()
        queue_before = app.browser.view.queue
        await push(pilot, NeighbourScreen("f-pay-01"))
        await pilot.press("down")
        target = highlighted(app)
        assert target != "f-pay-01"
        await pilot.press("o")
        await pilot.pause()
        assert app.opened == [target]  # not the fact whose neighbours are shown
        await pilot.press("up", "enter")
        await settle(pilot)
        assert app.screen.fact_id == "f-pay-02"
        assert "walked: f-pay-01 › f-pay-02" in screen_text(app)
        await pilot.press("down", "enter")
        await settle(pilot)
        third = app.screen.fact_id
        assert third not in ("f-pay-01", "f-pay-02")
        await pilot.press("backspace")
        await settle(pilot)
        assert app.screen.fact_id == "f-pay-02"
        await pilot.press("backspace")
        await settle(pilot)
        assert app.screen.fact_id == "f-pay-01"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert app.main.current_fact_id() == "f-sso" and app.browser.view.queue == queue_before
    app.store.close()


async def test_triage_keys_act_on_the_highlighted_neighbour(db):
    app = harness(db)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, NeighbourScreen("f-pay-01"))
        await pilot.press("down")
        target = highlighted(app)
        r_before = record(app, target).corroborations
        shown_before = record(app, "f-pay-01").corroborations
        await pilot.press("c")
        await settle(pilot)
        assert record(app, target).corroborations == r_before + 1
        assert record(app, "f-pay-01").corroborations == shown_before
        assert highlighted(app) == target  # the view reloaded and kept the row
        await pilot.press("x")
        await settle(pilot)
        assert record(app, target).contradictions == 1
        # an entity row is not a fact: nothing is written
        rows = app.screen.rows
        app.screen.query_one(RowTable).move_cursor(
            row=next(i for i, r in enumerate(rows) if r.kind == "entity")
        )
        await pilot.press("v")
        await settle(pilot)
        assert record(app, target).contradictions == 1
        assert app.store._conn.execute("SELECT count(*) FROM audit").fetchone()[0] == 2
    app.store.close()


async def test_neighbours_without_a_graph(tmp_path):
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from tests.ui.helpers import FIXTURES

    db = tmp_path / "memory.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(FIXTURES / "facts.jsonl")[:3], "x")
    app = harness(db)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, NeighbourScreen("f-pay-01"))
        assert "graph isn't built" in screen_text(app)
        await push(pilot, PathScreen("f-pay-01", "f-pay-02"))
        assert "graph isn't built" in screen_text(app)
    app.store.close()


# -- the path view ----------------------------------------------------------------------


async def test_path_step_by_step_and_from_the_neighbour_view(db):
    app = harness(db)
    async with app.run_test(size=(110, 40)) as pilot:
        await push(pilot, NeighbourScreen("f-pay-01"))
        rows = app.screen.rows
        app.screen.query_one(RowTable).move_cursor(row=[r.node for r in rows].index("f-deploy"))
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, PathScreen)
        text = screen_text(app)
        assert "HOW f-pay-01 IS CONNECTED TO f-deploy" in text
        for part in ("f-pay-02", "ledger", "f-mid-3", "│ mentions", "│ semantic", "0.97", "strength"):
            assert part in text, part
        path = app.screen.path
        assert [n.id for n in path.nodes][0] == "f-pay-01" and path.nodes[-1].id == "f-deploy"
        assert f"strength {path.strength:.2f}" in text
        await pilot.press("enter")  # the first fact of the chain
        await pilot.pause()
        assert app.opened == ["f-pay-01"]
        # another fact, typed
        await pilot.press("slash", "ctrl+u", *"f-nope", "enter")
        await settle(pilot)
        assert "no fact f-nope in this store" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, NeighbourScreen)
    app.store.close()


async def test_path_to_a_typed_id(db):
    app = harness(db)
    async with app.run_test(size=(110, 40)) as pilot:
        await push(pilot, NeighbourScreen("f-pay-01"))
        await pilot.press("P")
        await settle(pilot)
        assert isinstance(app.screen, PathScreen) and app.screen.b is None
        await pilot.press(*"f-mid-3", "enter")
        await settle(pilot)
        assert [n.id for n in app.screen.path.nodes] == ["f-pay-01", "f-pay-02", "ledger", "f-mid-3"]
        assert "HOW f-pay-01 IS CONNECTED TO f-mid-3" in screen_text(app)
    app.store.close()


async def test_path_not_connected(db):
    app = harness(db)
    app.browser.config = app.config.with_values("graph", path_max_hops=1)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, PathScreen("f-pay-01", "f-deploy"))
        assert "f-pay-01 and f-deploy are not connected within 1 hops" in screen_text(app)
    app.store.close()


# -- the session log --------------------------------------------------------------------


def agent_writes(db, move: str, fact_id: str) -> None:
    """Another process (an agent through the MCP server) triages alongside the browser."""
    with Store.open(db) as other:
        Triage(other, Clock(parse_time(NOW)), actor="agent:scribe").apply(move, [fact_id])


async def test_session_log_lists_this_session_and_undoes_only_the_newest(db):
    agent_writes(db, "verify", "f-sso")  # before the session: not listed
    app = harness(db)
    since = session_mark(app.store)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        app.main.go_to_fact("f-deploy")
        await pilot.pause()
        await pilot.press("c")
        await settle(pilot)
        agent_writes(db, "contradict", "f-pay-02")
        assert app.browser.session_start == since
        await push(pilot, SessionLogScreen())
        entries = app.screen.entries
        assert [(e.action, e.fact_id, e.actor) for e in entries] == [
            ("contradict", "f-pay-02", "agent:scribe"),
            (
                "corroborate",
                "f-deploy",
                app.store._conn.execute("SELECT actor FROM audit ORDER BY seq").fetchall()[1][0],
            ),
        ]
        text = screen_text(app)
        assert "s 0 -> 1" in text and "r 1 -> 2" in text and "agent:scribe" in text
        assert "f-sso" not in text
        assert "◀ undo" in text
        # the browser's own action is not the newest: undo refuses and says why
        await pilot.press("down", "u")
        await settle(pilot)
        assert record(app, "f-deploy").corroborations == 2
        assert any(
            f"the newest live action is #{entries[0].batch}, not #{entries[1].batch}: nothing undone"
            in n.message
            for n in app._notifications
        )
        # the newest (the agent's) undoes, whoever made it
        await pilot.press("up", "u")
        await settle(pilot)
        assert record(app, "f-pay-02").contradictions == 0
        entries = app.screen.entries
        assert entries[0].action == "undo" and entries[0].undoes == entries[1].batch
        assert entries[1].undone and entries[2].next_undo
        await pilot.press("end", "enter")
        await pilot.pause()
        assert app.opened == ["f-deploy"]
    app.store.close()


async def test_session_log_follows_a_writer_alongside(db):
    app = harness(db)
    async with app.run_test(size=(120, 30)) as pilot:
        await push(pilot, SessionLogScreen())
        assert app.screen.entries == ()
        agent_writes(db, "verify", "f-oncall")
        app.poll_store()  # what the browser's two-second timer does
        await settle(pilot)
        assert [(e.action, e.fact_id, e.actor) for e in app.screen.entries] == [
            ("verify", "f-oncall", "agent:scribe")
        ]
        assert "agent:scribe" in screen_text(app)
    app.store.close()


async def test_session_log_shows_what_was_done_in_a_view_on_top(db):
    app = harness(db)
    async with app.run_test(size=(120, 30)) as pilot:
        await push(pilot, SessionLogScreen())
        await push(pilot, NeighbourScreen("f-pay-01"))
        await pilot.press("down", "v")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SessionLogScreen)
        assert [e.action for e in app.screen.entries] == ["verify"]
    app.store.close()


async def test_session_log_empty(db):
    app = harness(db)
    async with app.run_test(size=SIZE) as pilot:
        await push(pilot, SessionLogScreen())
        assert "nothing yet" in screen_text(app)
    app.store.close()


# -- the legend -------------------------------------------------------------------------


async def test_legend(db):
    app = harness(db)
    async with app.run_test(size=(100, 60)) as pilot:  # tall enough for every section
        await push(pilot, LegendScreen())
        text = screen_text(app)
        for part in (
            "very low",
            "trust in [0.8, 1.0]",
            "struck through",
            "superseded",
            "dim",
            "signature_untrusted",
            "clock_skew",
            "disputed: go resolve",
            "rarer shared entities",
        ):
            assert part in text, part
        for _, flag in FLAG_NAMES:  # every flag a fact can carry is explained
            assert flag in text, flag
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
    app.store.close()
