"""A new user's first session: what went wrong once, each as a pilot test."""

from __future__ import annotations

import sqlite3
import time

import pytest

from synapse_tui.core.base.clock import Clock, parse_time
from synapse_tui.core.base.config import load_config
from synapse_tui.core.store.db import Store
from synapse_tui.ui.app import SynapseApp
from synapse_tui.ui.screens.confirm import ConfirmScreen
from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.screens.neighbours import NeighbourScreen
from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import (
    NOW,
    audit,
    candidates_listed,
    footer_line,
    record_notices,
    screen_text,
    select,
    settle,
)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_bulk_confirmation_shows_its_question(app, db, size):
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("M", "v")  # 30 marked: it asks first
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        text = screen_text(app)
        question = app.screen.question  # how many it touches, and how many are out of sight
        assert question.startswith("verify 30 marked facts")
        assert question.endswith("as one action (ctrl+z undoes it)?")
        assert "not on screen" in question  # 30 rows do not fit above the pane
        assert "verify 30 marked facts" in text and "(ctrl+z undoes it)?" in text
        assert "y / enter: yes" in text and "n / escape: no" in text
        box = app.screen.query_one("#confirm-box").region
        assert box.width >= min(60, size[0] - 4) and box.height >= 6
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert audit(db) == []


async def test_a_key_acts_on_the_fact_the_user_saw_never_twice(app, db):
    async with app.run_test(size=(100, 30)) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        await pilot.press("2")  # Stale: a corroborated fact leaves it
        first = app.main.current_fact_id()
        app.browser.lock.acquire()  # the worker cannot answer before the next keys
        try:
            for _ in range(10):
                await pilot.press("c")
                await pilot.pause(0.1)
        finally:
            app.browser.lock.release()
        await settle(pilot)
        assert [e["fact_id"] for e in audit(db)] == [first]  # once, not ten times
        assert sum("still being changed" in n[1] for n in notices) == 9
        # and at human speed, each key acts on the next fact, none twice
        for _ in range(5):
            await pilot.press("c")
            await pilot.pause(0.1)
        await settle(pilot)
        ids = [e["fact_id"] for e in audit(db)]
        assert len(ids) == len(set(ids)) >= 2


class WallClock(Clock):
    """The wall clock of a session that started at NOW: a minute passes per reading."""

    def __init__(self) -> None:
        object.__setattr__(self, "t", parse_time(NOW))

    def now(self) -> float:
        object.__setattr__(self, "t", self.t + 60)
        return self.t


async def test_the_clock_moves_while_the_app_runs(db, monkeypatch):
    """A fact just triaged is scored at the new instant (its event is not "in the
    future"); the action rescores only its own facts (a full rescore is too slow for a
    keypress at a million facts), and the store poll then brings every other score up to
    the clock."""
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.ui.screens import main as main_screen

    monkeypatch.setattr(main_screen, "POLL_SECONDS", 0.1)
    store = Store.open(db)
    app = SynapseApp(
        store=store,
        config=load_config(db.with_name("memory.synapse.toml")),
        clock=WallClock(),
        theme="textual-dark",
    )
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await select(pilot, "f-old-1")
        await pilot.press("v")
        await settle(pilot)
        i = app.memory.index["f-old-1"]
        assert "clock_skew" not in app.memory.scores.flag_names(i)
        assert "clock_skew" not in screen_text(app)
        for _ in range(50):  # the poll runs every 0.1 s here
            if not app.memory.mixed:
                break
            await pilot.pause(0.1)
        await settle(pilot)
        assert not app.memory.mixed
        scores = app.memory.scores  # the poll keeps catching up: this clock runs fast
        fresh = Memory(store, app.browser.config, scores.now)
        assert (scores.trust == fresh.scores.trust).all()
        assert "clock_skew" not in screen_text(app)
    store.close()


async def test_as_of_shows_the_store_as_it_was_read_only(app, db):
    async with app.run_test(size=(100, 30)) as pilot:
        notices = record_notices(app)
        await settle(pilot)
        app.set_as_of(parse_time("2026-10-01T00:00:00Z"))
        await settle(pilot)
        text = screen_text(app)
        assert "AS OF 2026-10-01T00:00:00Z" in text and "read-only" in text
        shown = {app.memory.ids[p] for p in app.main.query_one(FactList).order}
        assert "f-db-v3" not in shown and "f-pay-01" not in shown and "f-db-v1" in shown
        assert f"All {len(shown)}" in text
        assert not [f for f in shown if "clock_skew" in app.memory.scores.flag_names(app.memory.index[f])]
        await pilot.press("c", "ctrl+z")
        await settle(pilot)
        assert [n[0] for n in notices[-2:]] == ["warning", "warning"]
        assert "the past is read-only" in notices[-1][1]
        app.set_as_of(None)
        await settle(pilot)
        assert "All 30" in screen_text(app) and "AS OF" not in screen_text(app)
    assert audit(db) == []


async def test_the_supersede_picker_shows_every_text(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await select(pilot, "f-pay-02")
        await pilot.press("s")
        await settle(pilot)
        flat = " ".join(screen_text(app).split())
        assert "Payments retries use exponential backoff capped at 30 seconds" in flat  # the fact itself
        assert "The payments API rate limit is 100" in flat  # a candidate's text, after its reason
        await pilot.press(*"ledger", "enter")  # enter before the debounced search answered
        await candidates_listed(pilot)
        assert "1 match" in screen_text(app) and "1 matches" not in screen_text(app)
        await pilot.press("enter")  # the first enter on the list previews
        await settle(pilot)
        assert "f-mid-3 would replace f-pay-02" in screen_text(app)


async def test_neighbours_and_back_keep_queue_and_place(app):
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3", "down")  # Disputed, the second fact
        here = app.main.current_fact_id()
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NeighbourScreen)
        await pilot.press("enter")  # walk to a neighbour: the list follows it
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert app.browser.view.queue == 2 and app.main.current_fact_id() == here
        assert "Disputed" in screen_text(app).splitlines()[-2]
        await pilot.press("n")  # however the view closes (another view may pop it)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await app.pop_screen()
        await settle(pilot)
        assert app.browser.view.queue == 2 and app.main.current_fact_id() == here


async def test_undo_brings_the_cursor_back_and_disputes_resolve(app):
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        first = app.main.current_fact_id()
        await pilot.press("c")  # it becomes fresh and leaves Stale
        await settle(pilot)
        assert app.main.current_fact_id() != first
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.main.current_fact_id() == first  # the cursor follows the fact that came back
        await pilot.press("3")
        assert "Disputed 3" in screen_text(app)
        app.start_triage("supersede", ["f-deploy"], "f-deploy-freeze")  # resolved by a newer version
        await settle(pilot)
        assert "Disputed 2" in screen_text(app)
        await pilot.press("enter", "question_mark")
        await settle(pilot)
        help_text = " ".join(screen_text(app).split())
        assert "Corroborate the fact shown" in help_text


async def test_cursor_legend_id_column_and_freshness_sort(app):
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        facts = app.main.query_one(FactList)
        cursor = facts.get_component_rich_style("fact-list--cursor").bgcolor
        bands = {facts.get_component_rich_style(f"fact-list--band-{i}").bgcolor for i in range(5)}
        assert cursor not in bands
        await pilot.press("p")
        assert any(" f-deploy-freeze " in line for line in screen_text(app).splitlines())  # the id column
        await pilot.press("o", "o")  # trust, then freshness
        assert app.browser.view.sort == "fresh"
        fresh = app.memory.scores.freshness[facts.order]
        assert (fresh[:-1] <= fresh[1:]).all()
        await pilot.press("question_mark")
        await settle(pilot)
        box = app.screen.query_one("#help-box")
        box.scroll_to_widget(app.screen.query_one("#help-legend"), animate=False, top=True)
        await pilot.pause()
        legend = " ".join(screen_text(app).split())
        assert "struck through superseded: a newer fact replaces it" in legend
        assert "dim row deleted or expired at the source" in legend


async def test_footer_palette_and_deleted_facts(db):
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE facts SET deleted = 1 WHERE id = 'f-deploy'")
    store = Store.open(db)
    app = SynapseApp(
        store=store,
        config=load_config(db.with_name("memory.synapse.toml")),
        clock=Clock(parse_time(NOW)),
        theme="textual-dark",
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        parts = (
            "/ find",
            "↵ open",
            "n nbr",
            "␣ mark",
            "⇥ queue",
            "o sort",
            "triage",
            "^z^y undo",
            "? help",
            "^p cmds",
        )
        footer = await footer_line(pilot, *parts)
        for part in parts:
            assert part in footer, part
        assert "Disp 2" in screen_text(app)  # the deleted fact left the triage queues
        assert "All 30" in screen_text(app)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"quit")

        def prompts() -> list[str]:
            options = app.screen.query_one("CommandList")
            return [
                str(options.get_option_at_index(i).prompt).split("\n")[0] for i in range(options.option_count)
            ]

        deadline = time.monotonic() + 10  # the palette searches in a worker: wait for its answer
        while not any(t.strip() == "Quit" for t in prompts()) and time.monotonic() < deadline:
            await pilot.pause(0.02)
        await settle(pilot)  # and for the search to finish, so a second Quit would show
        titles = prompts()
        assert sum(t.strip() == "Quit" for t in titles) == 1, titles
    store.close()


async def test_triage_keys_work_in_the_neighbour_view(app, db):
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "f-pay-02")
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NeighbourScreen)
        shown = app.shown_fact_id()
        assert shown is not None
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, NeighbourScreen)  # acted without leaving the view
        assert [e["fact_id"] for e in audit(db)] == [shown]
