"""Pilot tests of the main screen: list, keys, queues, sort, search and its errors."""

from __future__ import annotations

from synapse_tui.ui.screens.main import MainScreen
from synapse_tui.ui.widgets.fact_list import FactList
from tests.ui.helpers import SIZE, screen_text, searched, settle


def current_id(app) -> str | None:
    return app.main.current_fact_id()


async def test_list_shows_every_column(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(app)
        row = next(line for line in text.splitlines() if "payments API rate limit" in line)
        for part in ("high", "0.76", "10d", "human", "supported"):
            assert part in row
        assert "All 30" in text
        assert "Disputed 3" in text


async def test_markup_and_escapes_are_shown_literally(app):
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        await pilot.press("p")  # the list alone, full width
        text = screen_text(app)
        assert "Use [red]bold[/red] and [link=https://evil.example]click[/link] ␛[31mESC␛[0m" in text


async def test_movement_keys(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        facts = app.query_one(FactList)
        assert current_id(app) == "f-pay-01"
        await pilot.press("down", "j")
        assert facts.cursor == 2
        await pilot.press("k")
        assert current_id(app) == "f-pay-02"
        await pilot.press("up")
        assert facts.cursor == 0
        await pilot.press("end")
        assert facts.cursor == 29 and current_id(app) == "f-contested-signed"
        await pilot.press("home")
        assert facts.cursor == 0
        await pilot.press("pagedown")
        page = facts.cursor
        assert page > 5
        await pilot.press("pageup")
        assert facts.cursor == 0
        assert "The incident commander" not in screen_text(app)
        await pilot.press("end")
        await pilot.pause()
        assert "The incident commander" in screen_text(app)  # the list scrolled to the cursor


async def test_queues_switch_with_number_and_tab_keys(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        facts = app.query_one(FactList)
        await pilot.press("3")
        assert len(facts.order) == 3
        assert {app.memory.ids[p] for p in facts.order} == {"f-deploy", "f-old-3", "f-contested-signed"}
        await pilot.press("tab")  # uncertain: current versions only (f-db-v2 is superseded)
        assert len(facts.order) == 19
        await pilot.press("tab")  # superseded
        assert [app.memory.ids[p] for p in facts.order] == ["f-db-v2", "f-db-v1"]
        await pilot.press("shift+tab", "shift+tab", "shift+tab", "shift+tab")
        assert len(facts.order) == 30
        await pilot.press("7")
        ids = {app.memory.ids[p] for p in facts.order}
        assert ids == {"f-badsig", "f-stranger", "f-nosig"}
        await pilot.press("2")
        stale = [app.memory.ids[p] for p in facts.order]
        # the stalest current versions first; superseded history last
        sc = app.memory.scores
        fresh = [sc.freshness[app.memory.index[i]] for i in stale]
        assert fresh[:-2] == sorted(fresh[:-2]) and app.main.current_fact_id() == stale[0]
        assert set(stale[-2:]) == {"f-db-v1", "f-db-v2"}
        assert "Stale 12" in screen_text(app)


async def test_suspect_queue_holds_duplicates(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("6")
        ids = {app.memory.ids[p] for p in app.query_one(FactList).order}
        assert {"f-dup-a", "f-dup-b"} <= ids


async def test_sort_cycles_and_reverses(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        facts = app.query_one(FactList)
        await pilot.press("o")  # trust ascending
        trust = app.memory.scores.trust[facts.order]
        assert (trust[:-1] <= trust[1:]).all()
        assert "trust▲" in screen_text(app)
        await pilot.press("O")
        trust = app.memory.scores.trust[facts.order]
        assert (trust[:-1] >= trust[1:]).all()
        assert app.memory.ids[facts.order[0]] == "f-oncall"
        assert current_id(app) == "f-pay-01"  # the cursor stays on its fact across sorts
        await pilot.press("o")  # freshness
        fresh = app.memory.scores.freshness[facts.order]
        assert (fresh[:-1] >= fresh[1:]).all() and "by freshness" in screen_text(app)
        await pilot.press("o")  # age
        ages = app.memory.scores.age_days[facts.order]
        assert (ages[:-1] >= ages[1:]).all()


async def test_search_ranks_and_filters(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert app.focused.id == "search"
        await pilot.press(*"payments")
        await searched(pilot)
        facts = app.query_one(FactList)
        ids = [app.memory.ids[p] for p in facts.order]
        assert set(ids) == {"f-pay-01", "f-pay-02", "f-pay-03", "f-mid-3"}
        assert ids[0] == "f-pay-01"  # the most trusted of the facts holding the word
        assert "relevance, then trust" in screen_text(app)
        for key in " trust<0.3 tier:auto":
            await pilot.press("space" if key == " " else key)
        await searched(pilot)
        ids = [app.memory.ids[p] for p in facts.order]
        assert set(ids) == {"f-pay-03"}
        await pilot.press("escape")
        await searched(pilot)
        assert len(facts.order) == 30
        assert app.focused is facts


async def test_search_matches_ids(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"f-db-v2")
        await searched(pilot)
        ids = [app.memory.ids[p] for p in app.query_one(FactList).order]
        assert "f-db-v2" in ids


async def test_filter_typo_shows_inline_error(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"trsut<0.3")
        await searched(pilot)
        text = screen_text(app)
        assert "unknown field 'trsut'" in text
        assert "did you mean 'trust'" in text
        assert "^^^^^^^^^" in text
        await pilot.press("backspace", *"", "backspace")
        for _ in range(9):
            await pilot.press("backspace")
        await searched(pilot)
        assert "unknown field" not in screen_text(app)


async def test_enter_in_search_returns_to_list_keeping_results(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"postgres")
        await searched(pilot)
        await pilot.press("enter")
        facts = app.query_one(FactList)
        assert app.focused is facts
        assert len(facts.order) == 3
        await pilot.press("down")
        assert facts.cursor == 1


async def test_a_search_puts_the_cursor_on_its_best_match_however_fast_it_was_typed(app):
    """On a busy machine a search of half the text can answer first (a debounce apart); the
    cursor must not stay on whichever fact that one put on top."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        facts = app.query_one(FactList)
        for typed in ("p", "ostgres"):  # "p" answers on its own, then the rest
            await pilot.press(*(["slash"] if typed == "p" else []), *typed)
            await searched(pilot)
        assert len(facts.order) == 3 and facts.cursor == 0


async def test_quit_key(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_triage_keys_are_bound(app):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bound = {b.binding.key for b in app.screen.active_bindings.values()}
        for key in ("c", "x", "v", "a", "s", "ctrl+z", "slash", "enter", "n", "question_mark", "q"):
            assert key in bound, key
        assert isinstance(app.screen, MainScreen)


async def test_small_terminal_and_resizing(app):
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "0.76" in text
        for size in ((40, 10), (20, 5), (200, 60), (60, 20)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        await pilot.resize_terminal(30, 8)
        await pilot.pause()
        await pilot.press("escape", "n")
        await settle(pilot)
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert app.is_running
