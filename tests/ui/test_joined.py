"""The graph views joined to the browser: the app's keys reach them, a fact opened from
them lands in the list and its detail, triage there goes the app's one way (the session
log's undo carrying the batch it means), the config the browser opened with scores the
audit, and what the neighbour view and the detail say about the store's graph and the
fact's source."""

from __future__ import annotations

import json
import sqlite3

from rich.text import Text

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.review.triage import Triage
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.score import BANDS
from synapse_tui.ui.screens.detail import DetailScreen
from synapse_tui.ui.screens.legend import LegendScreen, legend_text
from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.screens.nav import RowTable
from synapse_tui.ui.screens.neighbours import NeighbourScreen
from synapse_tui.ui.screens.path import PathScreen
from synapse_tui.ui.screens.session_log import SessionLogScreen
from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import NOW, make_app, screen_text, settle


async def select(pilot, fact_id: str) -> None:
    pilot.app.main.go_to_fact(fact_id)
    await settle(pilot)


def agent_writes(db, move: str, fact_id: str) -> None:
    with Store.open(db) as other:
        Triage(other, Clock(parse_time(NOW)), actor="agent:scribe").apply(move, [fact_id])


async def test_a_fact_opened_from_the_neighbour_view_is_the_lists_and_its_detail(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "f-pay-01")
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NeighbourScreen)
        await pilot.press("down")
        target = app.screen.current_fact_id()
        assert target not in (None, "f-pay-01")
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.fact_id == target
        assert app.main.current_fact_id() == target
        assert target in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, NeighbourScreen)
        await pilot.press("escape")
        await settle(pilot)
        # o chose the fact: back on the list, the cursor is on it (issue 23, point 9)
        assert isinstance(app.screen, MainScreen) and app.main.current_fact_id() == target


async def test_l_opens_the_session_log_and_L_the_legend_in_the_lists_colours(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "f-deploy")
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, SessionLogScreen)
        assert [(e.action, e.fact_id) for e in app.screen.entries] == [("corroborate", "f-deploy")]
        await pilot.press("enter")  # jump to the fact: the list's cursor and its detail
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.fact_id == "f-deploy"
        await pilot.press("l")  # back to the log that is open, not a second one
        await settle(pilot)
        assert isinstance(app.screen, SessionLogScreen)
        assert sum(isinstance(s, SessionLogScreen) for s in app.screen_stack) == 1
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("escape", "L")
        await settle(pilot)
        assert isinstance(app.screen, LegendScreen)
        assert "very high" in screen_text(app) and "struck through" in screen_text(app)
        facts = app.main.query_one(FactList)
        table = legend_text(app, tuple(app.config.bands.edges))
        chips = [c for c in table.columns[0].cells if isinstance(c, Text) and c.plain.strip() in BANDS]
        assert [c.style.bgcolor for c in chips] == [
            facts.get_component_rich_style(f"fact-list--band-{i}").bgcolor for i in range(len(BANDS))
        ]
        assert len({c.style.bgcolor for c in chips}) == len(BANDS)  # high and very high differ too
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_the_session_logs_undo_means_its_row_even_when_a_writer_acted_since(app, db):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "f-deploy")
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert app.screen.entries[0].next_undo  # the browser's corroborate is the newest
        agent_writes(db, "contradict", "f-pay-02")  # after the log was painted
        await pilot.press("u")
        await settle(pilot)
        with Store.open(db) as check:
            assert check.record("f-deploy").corroborations == 2  # not undone
            assert check.record("f-pay-02").contradictions == 1  # nor the agent's
        assert any("nothing undone" in n.message for n in app._notifications)  # noqa: SLF001
        entries = app.screen.entries  # the log refreshed: the agent's action on top
        assert [e.actor for e in entries][0] == "agent:scribe" and entries[0].next_undo
        await pilot.press("home", "u")
        await settle(pilot)
        with Store.open(db) as check:
            assert check.record("f-pay-02").contradictions == 0
        assert app.memory.arrays.s[app.memory.index["f-pay-02"]] == 0  # the browser rescored it
        assert app.screen.entries[0].what.startswith("undo of #")


async def test_triage_from_the_path_view_and_the_log_acts_on_the_highlighted_fact(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "f-pay-01")
        await pilot.press("space")
        await select(pilot, "f-deploy")
        await pilot.press("space")
        app.action_path(from_marks=True)  # the palette's "the two marked facts"
        await settle(pilot)
        assert isinstance(app.screen, PathScreen)
        assert (app.screen.a, app.screen.b) == ("f-pay-01", "f-deploy")
        assert app.screen.path is not None and app.screen.current_fact_id() == "f-pay-01"
        await pilot.press("v")  # acts on the highlighted fact, not on the marks
        await settle(pilot)
        history = app.store.history("f-pay-01")
        assert [h.action for h in history][-1] == "verify"
        assert not app.store.history("f-deploy")
        await pilot.press("l")
        await settle(pilot)
        assert app.screen.current_fact_id() == "f-pay-01"
        await pilot.press("x")
        await settle(pilot)
        assert app.store.record("f-pay-01").contradictions == 1
        assert [e.action for e in app.screen.entries] == ["contradict", "verify"]


async def test_audit_score_before_uses_the_config_the_browser_opened_with(db):
    app = make_app(db)
    app.browser.config = app.config.with_values("confidence", prior_weight=10.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await select(pilot, "f-deploy")
        before = float(app.memory.scores.trust[app.memory.index["f-deploy"]])
        await pilot.press("c")
        await settle(pilot)
        entry = app.store.history("f-deploy")[-1]
        assert abs(entry.score_before["trust"] - before) < 1e-9
    app.store.close()


async def test_the_neighbour_view_says_when_the_graph_is_approximate(db):
    with sqlite3.connect(db) as conn:
        state = {"method": "faiss-hnsw M=32 ef=64", "recall": 0.9937, "recall_sample": 500}
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('graph.semantic.model', ?)",
            (json.dumps(state),),
        )
    app = make_app(db)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert "approximate graph, recall@10 0.994" in screen_text(app)
        assert isinstance(app.screen.query_one(RowTable), RowTable)
    app.store.close()


async def test_an_exact_graph_says_nothing(app):
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert "approximate" not in screen_text(app)


async def test_a_fact_from_another_system_says_where_and_deleted_at_the_source(db):
    provenance = {"x-source": "mem0", "x-source-id": "m-42", "x-source-version": 3, "x-mem0-user-id": "ada"}
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE facts SET provenance = ?, deleted = 1 WHERE id = 'f-deploy'", (json.dumps(provenance),)
        )
    app = make_app(db)
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        await select(pilot, "f-deploy")
        await pilot.press("p", "enter")  # the full view (the pane says the same)
        await settle(pilot)
        text = " ".join(screen_text(app).split())
        assert "deleted at the source" in text
        assert "source: from mem0, record m-42, version 3, by ada" in text
        assert "mem0 never records: corroborations, contradictions, reinforcements, acceptance" in text
    app.store.close()


async def test_help_in_every_view_lists_its_keys_and_the_legend(app):
    views = {
        "main view": ((), ("Session log", "Legend", "Search: full text", "Corroborate the fact shown")),
        "neighbour view": (
            ("n",),
            ("How is this fact connected", "Back to the previous fact", "Corroborate"),
        ),
        "path view": (("p",), ("Type the id of the fact to connect to", "Open the highlighted fact")),
        "session log": (("escape", "escape", "l"), ("Undo the highlighted action", "Jump to the fact")),
    }
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        for title, (keys, parts) in views.items():
            await pilot.press(*keys)
            await settle(pilot)
            await pilot.press("question_mark")
            await settle(pilot)
            text = " ".join(screen_text(app).split())
            assert f"Keys: {title}" in text
            for part in (*parts, "Help: every key"):
                assert part in text, (title, part)
            box = app.screen.query_one("#help-box")
            box.scroll_to_widget(app.screen.query_one("#help-legend-title"), animate=False, top=True)
            await pilot.pause()
            assert "LEGEND" in screen_text(app), title
            app.screen.query_one("#help-box").scroll_end(animate=False)
            await pilot.pause()
            assert "very high" in screen_text(app) and "deleted at the source" in screen_text(app)
            await pilot.press("escape")
            await settle(pilot)
